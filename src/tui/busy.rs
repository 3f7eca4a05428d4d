//! One `update` run apart from the event loop: a guard. `update` computes no plan or
//! compaction (those are jobs, `super::jobs`), but what it still does grows with the session
//! (a search, a new history's timeline); however long that takes, the inspector still obeys `q`
//! and Ctrl-C, still leaves on a signal with the terminal restored, and says that it is
//! working.
//!
//! Owns: running `app::update` on a blocking thread and serving the terminal and the signals
//! meanwhile. Keys typed in the first moments are kept and applied after (type-ahead); once the
//! work has lasted long enough to be announced, only quitting is obeyed. Must not: touch the
//! app while the update holds it, or draw anything but the one status line.

use std::collections::VecDeque;
use std::io;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use futures_util::{Stream, StreamExt};
use ratatui::backend::Backend;
use ratatui::buffer::Cell;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::Paragraph;
use ratatui::{Frame, Terminal};
use tokio::signal::unix::{signal, Signal, SignalKind};

use super::app::{self, App};
use super::input::{self, Input, InputMode};
use super::msg::{Effect, Msg};

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

/// How long an update runs before the status line says so and keys stop being queued.
pub const ANNOUNCE_AFTER: Duration = Duration::from_millis(200);

/// Type-ahead kept while an update runs, at most.
const QUEUE_MAX: usize = 64;

/// The signals that end the inspector (TERM, HUP, INT, QUIT), listened to from before the
/// terminal is taken; or none (an inspector driven by a test).
pub struct Signals(Option<[Signal; 4]>);

impl Signals {
    /// Must be called inside the runtime.
    pub fn new() -> io::Result<Signals> {
        Ok(Signals(Some([
            signal(SignalKind::terminate())?,
            signal(SignalKind::hangup())?,
            signal(SignalKind::interrupt())?,
            signal(SignalKind::quit())?,
        ])))
    }

    /// No signal is listened to: `next` never returns.
    pub fn none() -> Signals {
        Signals(None)
    }

    /// The number of the next signal to arrive.
    pub async fn next(&mut self) -> i32 {
        let Some([term, hup, int, quit]) = &mut self.0 else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => 15,
            _ = hup.recv() => 1,
            _ = int.recv() => 2,
            _ = quit.recv() => 3,
        }
    }
}

/// What a terminal event source yields: crossterm's `EventStream`, or events a test injects.
pub trait Events: Stream<Item = io::Result<Event>> + Unpin {}

impl<T: Stream<Item = io::Result<Event>> + Unpin> Events for T {}

/// A backend's error as an IO error.
pub fn io_error(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

/// What the loop lends an update while it runs.
pub struct Io<'a, B: Backend, E: Events> {
    pub terminal: &'a mut Terminal<B>,
    pub events: &'a mut E,
    pub signals: &'a mut Signals,
    /// Input that arrived during the update, applied after it.
    pub pending: &'a mut VecDeque<Input>,
}

/// How an update ended.
pub enum Ran {
    /// `announced`: the status line was written over the last frame, behind the terminal
    /// backend's back ([`settle`] puts that right).
    Done {
        app: Box<App>,
        effects: Vec<Effect>,
        announced: bool,
    },
    /// The user quit or a signal came while it ran; the work is abandoned.
    Exit(Exit),
}

/// Runs `update(app, msg)` on a blocking thread while serving the terminal and the signals.
pub async fn update<B, E>(app: App, msg: Msg, io: Io<'_, B, E>) -> io::Result<Ran>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    E: Events,
{
    // What a key typed now will mean once the update is done (`q` after `/` is text).
    let mode = InputMode::of(&app).after(&msg);
    let mut job = tokio::task::spawn_blocking(move || {
        let mut app = app;
        let effects = app::update(&mut app, msg);
        (app, effects)
    });
    let started = Instant::now();
    let mut announced = false;
    let mut clock = tokio::time::interval_at(
        tokio::time::Instant::now() + ANNOUNCE_AFTER,
        Duration::from_secs(1),
    );
    loop {
        tokio::select! {
            done = &mut job => {
                let (app, effects) = done.map_err(|e| io::Error::other(format!("the inspector failed: {e}")))?;
                return Ok(Ran::Done { app: Box::new(app), effects, announced });
            }
            n = io.signals.next() => return Ok(Ran::Exit(Exit::Signal(n))),
            _ = clock.tick() => {
                announced = true;
                announce(io.terminal, started.elapsed())?;
            }
            event = io.events.next() => match event {
                Some(Ok(event)) => {
                    let area = io.terminal.size().unwrap_or_default().into();
                    let quits = input::to_msg(mode, event.clone(), area).is_some_and(|m| input::is_quit(&m));
                    if quits {
                        return Ok(Ran::Exit(Exit::Quit));
                    }
                    let resized = matches!(event, Event::Resize(..));
                    if resized || (!announced && io.pending.len() < QUEUE_MAX) {
                        io.pending.push_back(Input::Event(event));
                    }
                    if resized && announced {
                        announce(io.terminal, started.elapsed())?;
                    }
                }
                Some(Err(e)) => return Err(e),
                None => return Ok(Ran::Exit(Exit::Quit)),
            },
        }
    }
}

/// Writes the status line at the bottom of the screen, over whatever the last frame left there
/// (straight to the backend: the app that would draw a frame is with the update).
fn announce<B>(terminal: &mut Terminal<B>, elapsed: Duration) -> io::Result<()>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
{
    let size = terminal.size().map_err(io_error)?;
    let line = status_line(elapsed, usize::from(size.width));
    let row = size.height.saturating_sub(1);
    let mut cells = Vec::with_capacity(line.len());
    let mut x = 0u16;
    for c in line.chars() {
        let mut cell = Cell::default();
        cell.set_char(c)
            .set_style(Style::new().add_modifier(Modifier::REVERSED));
        cells.push((x, cell));
        x = x.saturating_add(1);
    }
    let out = terminal.backend_mut();
    out.draw(cells.iter().map(|(x, cell)| (*x, row, cell)))
        .map_err(io_error)?;
    out.flush().map_err(io_error)
}

/// After an announced update: draws the next frame with the status line over its last row,
/// which is what the screen then holds, so that the following frame redraws that row. (Clearing
/// the terminal instead would ask it for the cursor position, a reply the event stream eats.)
pub fn settle<B>(terminal: &mut Terminal<B>, render: impl FnOnce(&mut Frame)) -> io::Result<()>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
{
    terminal
        .draw(|frame| {
            render(frame);
            let area = frame.area();
            let row = Rect::new(
                0,
                area.height.saturating_sub(1),
                area.width,
                area.height.min(1),
            );
            // The text itself does not matter, only that the row differs from the real frame's.
            let line = status_line(Duration::ZERO, usize::from(area.width));
            frame.render_widget(Paragraph::new(line).style(Style::new().reversed()), row);
        })
        .map_err(io_error)?;
    Ok(())
}

/// The status line, padded or cut to `width` columns.
pub fn status_line(elapsed: Duration, width: usize) -> String {
    let text = format!(
        " working… {} s · q quits · other keys are ignored until it is done",
        elapsed.as_secs()
    );
    let mut line: String = text.chars().take(width).collect();
    let shown = line.chars().count();
    line.extend(std::iter::repeat_n(' ', width - shown));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_fills_the_width_and_is_cut_to_it() {
        let wide = status_line(Duration::from_millis(2500), 80);
        assert_eq!(wide.chars().count(), 80);
        assert!(wide.starts_with(" working… 2 s · q quits"), "{wide}");
        let narrow = status_line(Duration::from_secs(0), 12);
        assert_eq!(narrow, " working… 0 ");
    }
}
