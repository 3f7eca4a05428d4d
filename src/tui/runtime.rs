//! The imperative shell: owns the terminal (raw mode, alternate screen, mouse) and restores it
//! on every way out — quit, error, panic (chained hook), SIGTERM/SIGHUP/SIGINT. A tokio loop
//! waits on terminal events, task results and signals at once, feeds `update`, and draws only
//! after a change (or while a progress gauge moves).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEventKind, MouseButton,
    MouseEventKind,
};
use crossterm::execute;
use futures_util::StreamExt;
use ratatui::DefaultTerminal;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

use super::app::{self, App, Screen};
use super::keymap::map_key;
use super::msg::{Effect, Msg};
use super::tasks::{self, Loader, Source};
use super::theme::Theme;
use super::views;
use crate::progress::Progress;

/// How the inspector ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Exit {
    /// The user quit.
    Quit,
    /// A signal asked us to stop: the conventional status is 128 + its number.
    Signal(i32),
    /// Loading failed before anything was shown.
    Failed(String),
}

/// What the inspector opens on.
pub struct Start {
    pub source: Source,
    pub loader: Loader,
    /// The session, when it was already loaded (a small file): no loading screen.
    pub loaded: Option<crate::analysis::Analysis>,
    pub preset: Option<String>,
    pub sets: Vec<String>,
}

/// Runs the inspector until the user quits. The terminal is restored whatever happens.
pub fn run(start: Start, theme: Theme) -> io::Result<Exit> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    let mut terminal = ratatui::init();
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let result = runtime.block_on(event_loop(&mut terminal, start, &theme));
    restore();
    // Blocking reads (a pipe on stdin) must not keep the process alive.
    runtime.shutdown_background();
    result
}

fn restore() {
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
}

async fn event_loop(
    terminal: &mut DefaultTerminal,
    start: Start,
    theme: &Theme,
) -> io::Result<Exit> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let progress = Arc::new(Progress::new());
    let mut app = App::loading(
        start.source.shown(),
        Arc::clone(&progress),
        start.preset,
        start.sets,
        start.source.is_live(),
    );
    match start.loaded {
        Some(analysis) => {
            app::update(&mut app, Msg::Loaded(Box::new(analysis)));
        }
        None => tasks::spawn_load(start.source, start.loader, progress, tx.clone()),
    }

    let mut events = EventStream::new();
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut tick = tokio::time::interval(Duration::from_millis(80));
    let mut dirty = true;
    loop {
        if dirty {
            draw(terminal, &mut app, theme)?;
            dirty = false;
        }
        let msg = tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => {
                    if matches!(event, Event::Resize(..)) {
                        dirty = true;
                    }
                    to_msg(&app, event)
                }
                Some(Err(e)) => return Err(e),
                None => return Ok(Exit::Quit),
            },
            Some(msg) = rx.recv() => Some(msg),
            _ = term.recv() => return Ok(Exit::Signal(15)),
            _ = hup.recv() => return Ok(Exit::Signal(1)),
            _ = int.recv() => return Ok(Exit::Signal(2)),
            _ = tick.tick(), if app.animates() => {
                dirty = true;
                None
            }
        };
        let Some(msg) = msg else { continue };
        for effect in app::update(&mut app, msg) {
            match effect {
                Effect::Quit => return Ok(Exit::Quit),
                Effect::Fail(error) => return Ok(Exit::Failed(error)),
                Effect::Redraw => {}
            }
        }
        dirty = true;
    }
}

/// Draws, then tells the inspector where its rows went; when that changes the page (the first
/// frame, a resize), draws again so the selection is placed against the real layout.
fn draw(terminal: &mut DefaultTerminal, app: &mut App, theme: &Theme) -> io::Result<()> {
    for _ in 0..2 {
        let mut layout = None;
        terminal.draw(|frame| layout = views::render_app(frame, app, theme))?;
        let (Some(layout), Screen::Inspect(state)) = (layout, &mut app.screen) else {
            return Ok(());
        };
        if layout == state.layout {
            return Ok(());
        }
        let offset = state.offset;
        super::update::update(state, Msg::Frame(layout));
        if state.offset == offset {
            return Ok(());
        }
    }
    Ok(())
}

fn to_msg(app: &App, event: Event) -> Option<Msg> {
    let prompt_open = app.inspector().is_some_and(|s| s.prompt.is_some());
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => map_key(key, prompt_open),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => Some(Msg::Wheel {
                column: m.column,
                row: m.row,
                down: m.kind == MouseEventKind::ScrollDown,
            }),
            MouseEventKind::Down(MouseButton::Left) => Some(Msg::Click {
                column: m.column,
                row: m.row,
            }),
            _ => None,
        },
        _ => None,
    }
}
