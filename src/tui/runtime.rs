//! The imperative shell: owns the terminal (raw mode, alternate screen, mouse) and restores it
//! on every way out — quit, error, panic (chained hook), SIGTERM/SIGHUP/SIGINT. A tokio loop
//! waits on terminal events, task results and signals at once, feeds `update`, hands the work
//! it asks for to the executor (`jobs`), and draws only after a change (or while a progress
//! gauge moves). It reads nothing of the state to decide what to start: work is what `update`
//! returns.

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::collections::VecDeque;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event, EventStream};
use crossterm::execute;
use futures_util::StreamExt;
use ratatui::backend::Backend;
use ratatui::Terminal;
use tokio::sync::mpsc;

use super::app::{App, Screen};
use super::busy::{self, io_error, Events, Ran, Signals};
use super::input::{self, Input, InputMode};
use super::jobs::Executor;
use super::msg::{Effect, Msg};
use super::picker::{self, PickerInput, PickerState};
use super::tasks::{self, Loader, Source};
use super::theme::Theme;
use super::views;
use crate::live::discover::Locations;
use crate::progress::Progress;

/// The shortest time between two frames: a burst of input or results is drawn once.
const FRAME: Duration = Duration::from_millis(16);

pub use super::busy::Exit;

/// What the inspector opens on.
pub struct Start {
    /// `None`: the session picker.
    pub source: Option<Source>,
    pub loader: Loader,
    /// The session, when it was already loaded (a small file): no loading screen.
    pub loaded: Option<crate::analysis::Analysis>,
    pub preset: Option<String>,
    pub sets: Vec<String>,
    /// Demo mode from the start (`--demo`).
    pub demo: bool,
    /// The legend shows from the start (a first run).
    pub legend: bool,
    /// The network summarizer `c` calls (`None`: offline).
    pub summarizer: Option<crate::summarize::Choice>,
}

/// Runs the inspector until the user quits. The terminal is restored whatever happens.
pub fn run(start: Start, theme: Theme) -> io::Result<Exit> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    // Listening before the terminal is taken: a signal from now on restores it.
    let signals = {
        let _inside = runtime.enter();
        Signals::new()?
    };
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    let mut terminal = ratatui::init();
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let theme = theme.in_background();
    let result = runtime.block_on(event_loop(
        &mut terminal,
        start,
        &theme,
        signals,
        EventStream::new(),
    ));
    restore();
    // Blocking reads (a pipe on stdin) and an update abandoned by `q` must not keep the
    // process alive.
    runtime.shutdown_background();
    result
}

fn restore() {
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
}

/// The inspector's loop on any backend and event source: the terminal's (`run`), or a test
/// backend and injected events (a headless inspector).
pub async fn event_loop<B, E>(
    terminal: &mut Terminal<B>,
    start: Start,
    theme: &Theme,
    mut signals: Signals,
    mut events: E,
) -> io::Result<Exit>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    E: Events,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    // Input that came while an update ran (and a session loaded before the loop): applied
    // before anything new is read, and before the next frame.
    let mut pending = VecDeque::new();
    let loader = start.loader;
    let mut app = match start.source {
        Some(source) => {
            let progress = Arc::new(Progress::new());
            let mut app = App::loading(
                source.shown(),
                Arc::clone(&progress),
                start.preset,
                start.sets,
                source.is_live(),
            );
            app.summarizer = start.summarizer;
            app.demo = start.demo;
            app.legend = start.legend;
            match start.loaded {
                Some(analysis) => pending.push_back(Input::Msg(Msg::Loaded(Box::new(analysis)))),
                None => tasks::spawn_load(source, loader.clone(), progress, tx.clone()),
            }
            app
        }
        None => {
            let mut picker = PickerState::new();
            match Locations::from_env() {
                Ok(locations) => {
                    picker = picker.with_locations(locations.clone());
                    tasks::spawn_discover(locations, tx.clone());
                }
                Err(e) => picker.set_error(e.to_string()),
            }
            let mut app = App::picking(picker, start.preset, start.sets);
            app.summarizer = start.summarizer;
            app.demo = start.demo;
            app.legend = start.legend;
            app
        }
    };
    let mut calls = tasks::Calls::default();
    let executor = Executor::new(tx.clone());
    if let Screen::Inspect(state) = &mut app.screen {
        for job in state.take_jobs() {
            executor.spawn(job);
        }
    }

    let mut tick = tokio::time::interval(Duration::from_millis(80));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The replay's clock: when the last tick was sent (`None` while no replay plays).
    let mut last_tick: Option<Instant> = None;
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    loop {
        let ticking = app.ticks();
        if ticking {
            last_tick.get_or_insert_with(Instant::now);
        } else {
            last_tick = None;
        }
        dirty |= theme.highlighter().take_ready();
        // Input already in is applied first; then at most one frame per `FRAME`.
        let next_frame = last_draw.map(|at| at + FRAME);
        if dirty && pending.is_empty() && next_frame.is_none_or(|at| Instant::now() >= at) {
            draw(terminal, &mut app, theme)?;
            dirty = false;
            last_draw = Some(Instant::now());
        }
        let frame_waits = dirty && pending.is_empty();
        let frame_at = tokio::time::Instant::from_std(next_frame.unwrap_or_else(Instant::now));
        let msg = if let Some(input) = pending.pop_front() {
            match input {
                Input::Msg(msg) => Some(msg),
                Input::Event(event) => {
                    if matches!(event, Event::Resize(..)) {
                        dirty = true;
                    }
                    let area = terminal.size().unwrap_or_default().into();
                    input::to_msg(InputMode::of(&app), event, area)
                }
            }
        } else {
            tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => {
                    if matches!(event, Event::Resize(..)) {
                        dirty = true;
                    }
                    let area = terminal.size().unwrap_or_default().into();
                    input::to_msg(InputMode::of(&app), event, area)
                }
                Some(Err(e)) => return Err(e),
                None => return Ok(Exit::Quit),
            },
            Some(msg) = rx.recv() => Some(msg),
            n = signals.next() => return Ok(Exit::Signal(n)),
            _ = tokio::time::sleep_until(frame_at), if frame_waits => None,
            _ = tick.tick(), if ticking || app.animates() || theme.highlighter().busy() => {
                dirty = true;
                last_tick.as_mut().filter(|_| ticking).map(|at| {
                    let now = Instant::now();
                    let elapsed = now - *at;
                    *at = now;
                    Msg::Tick(elapsed)
                })
            }
            }
        };
        let Some(msg) = msg else { continue };
        let lent = busy::Io {
            terminal,
            events: &mut events,
            signals: &mut signals,
            pending: &mut pending,
        };
        let effects = match busy::update(app, msg, lent).await? {
            Ran::Done {
                app: back,
                effects,
                announced,
            } => {
                app = *back;
                if announced {
                    busy::settle(terminal, |frame| {
                        views::render_app(frame, &app, theme);
                    })?;
                }
                effects
            }
            Ran::Exit(exit) => return Ok(exit),
        };
        // What else is in already is applied before the next frame.
        while let Ok(msg) = rx.try_recv() {
            pending.push_back(Input::Msg(msg));
        }
        // (Polled from this task, never with a waker of its own: the event stream keeps the
        // first waker it is given until an event comes.)
        loop {
            tokio::select! {
                biased;
                event = events.next() => match event {
                    Some(Ok(event)) => pending.push_back(Input::Event(event)),
                    Some(Err(e)) => return Err(e),
                    None => return Ok(Exit::Quit),
                },
                () = std::future::ready(()) => break,
            }
        }
        for effect in effects {
            match effect {
                Effect::Quit => return Ok(Exit::Quit),
                Effect::Fail(error) => return Ok(Exit::Failed(error)),
                Effect::Load(path, from) => {
                    if let Some(progress) = app.progress() {
                        let loader = Loader {
                            from: from.or(loader.from),
                            ..loader.clone()
                        };
                        tasks::spawn_load(Source::Path(path), loader, progress, tx.clone());
                    }
                }
                Effect::Redraw | Effect::Leave => {}
                Effect::Summarize {
                    id,
                    choice,
                    messages,
                } => calls.start(id, tasks::spawn_summary(id, choice, messages, tx.clone())),
                Effect::CancelSummary(id) => calls.cancel(id),
                Effect::Run(job) => executor.spawn(job),
                Effect::Cancel(kind) => executor.cancel(kind),
            }
        }
        dirty = true;
    }
}

/// Draws, then tells the inspector where its rows went; when that changes the page (the first
/// frame, a resize), draws again so the selection is placed against the real layout.
fn draw<B>(terminal: &mut Terminal<B>, app: &mut App, theme: &Theme) -> io::Result<()>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
{
    for _ in 0..2 {
        let mut layout = None;
        terminal
            .draw(|frame| layout = views::render_app(frame, app, theme))
            .map_err(io_error)?;
        let Some(layout) = layout else {
            return Ok(());
        };
        let state = match &mut app.screen {
            Screen::Inspect(state) => state,
            Screen::Picker(p) => {
                let rows = layout.rows.len().min(usize::from(u16::MAX)) as u16;
                picker::update(p, PickerInput::Viewport(rows));
                return Ok(());
            }
            Screen::Loading(_) => return Ok(()),
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
