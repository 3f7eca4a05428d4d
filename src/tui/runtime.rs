//! The imperative shell: owns the terminal (raw mode, alternate screen, mouse), restores it on
//! every exit path including a panic, reads keys, feeds `update`, and draws only after a change.

use std::io;
use std::time::Duration;

use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::DefaultTerminal;

use super::keymap::map_key;
use super::msg::{Effect, Msg};
use super::state::AppState;
use super::theme::Theme;
use super::update::update;
use super::views;

/// A followed file and how to analyse each new version of its session.
pub struct Follow {
    pub file: crate::live::LiveFile,
    pub analyse: Box<dyn Fn(crate::session::Session) -> crate::analysis::Analysis>,
}

/// How often a followed file is polled (well inside the 200 ms append-to-screen budget).
const FOLLOW_POLL: Duration = Duration::from_millis(100);

/// Runs the inspector until the user quits. The terminal is restored whatever happens.
pub fn run(state: AppState, theme: Theme, follow: Option<Follow>) -> io::Result<()> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(io::stdout(), DisableMouseCapture);
        ratatui::restore();
        previous(info);
    }));
    let mut terminal = ratatui::init();
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let theme = theme.in_background();
    let result = event_loop(&mut terminal, state, &theme, follow);
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    mut state: AppState,
    theme: &Theme,
    mut follow: Option<Follow>,
) -> io::Result<()> {
    let mut dirty = true;
    state.following = follow.is_some();
    let wait = if follow.is_some() {
        FOLLOW_POLL
    } else {
        Duration::from_millis(250)
    };
    loop {
        dirty |= theme.highlighter().take_ready();
        if dirty {
            let mut rows = state.viewport;
            terminal.draw(|frame| rows = views::render(frame, &state, theme))?;
            dirty = false;
            if rows != state.viewport {
                update(&mut state, Msg::Viewport(rows));
                dirty = true;
                continue;
            }
        }
        if let Some(f) = follow.as_mut() {
            if let Some(analysis) = poll_follow(f) {
                update(&mut state, Msg::SessionUpdated(Box::new(analysis)));
                dirty = true;
            }
        }
        if !event::poll(wait)? {
            continue;
        }
        let msg = match event::read()? {
            Event::Key(key) if key.kind != KeyEventKind::Release => map_key(key),
            Event::Mouse(m) => match m.kind {
                MouseEventKind::ScrollDown => Some(Msg::Down),
                MouseEventKind::ScrollUp => Some(Msg::Up),
                _ => None,
            },
            Event::Resize(..) => {
                dirty = true;
                None
            }
            _ => None,
        };
        if let Some(msg) = msg {
            if update(&mut state, msg).contains(&Effect::Quit) {
                return Ok(());
            }
            dirty = true;
        }
    }
}

/// The session analysed again when the followed file changed; `None` when it did not (or
/// could not be read this time: the next poll tries again, the last good session stays).
fn poll_follow(follow: &mut Follow) -> Option<crate::analysis::Analysis> {
    match follow.file.poll() {
        Ok(crate::live::LiveUpdate::Unchanged) | Err(_) => None,
        Ok(_) => follow.file.session().cloned().map(|s| (follow.analyse)(s)),
    }
}
