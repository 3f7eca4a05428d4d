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

/// Runs the inspector until the user quits. The terminal is restored whatever happens.
pub fn run(state: AppState, theme: Theme) -> io::Result<()> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(io::stdout(), DisableMouseCapture);
        ratatui::restore();
        previous(info);
    }));
    let mut terminal = ratatui::init();
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let result = event_loop(&mut terminal, state, &theme);
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    mut state: AppState,
    theme: &Theme,
) -> io::Result<()> {
    let mut dirty = true;
    loop {
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
        if !event::poll(Duration::from_millis(250))? {
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
