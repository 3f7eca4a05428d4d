//! A one-line progress report on stderr while a large session loads for a printed command:
//! phase, percent and throughput, redrawn in place (`\r`) at most ten times a second by its
//! own thread, and erased before the command prints.
//!
//! Owns: when a line is shown (stderr is a terminal and the input is large) and how it reads.
//! Must not: write anything when stderr is not a terminal, or slow down the load it watches
//! (it only reads `Progress`'s atomics).

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::progress::{Phase, Progress};
use crate::replay::{Progress as ReplayProgress, Watch};
use crate::text::thousands;

/// Inputs from this size on show a progress line.
pub const LARGE_INPUT: u64 = 20 << 20;
const REDRAW: Duration = Duration::from_millis(100);
/// A replay shows its line once it has run this long.
const REPLAY_DELAY: Duration = Duration::from_millis(500);

/// Whether a printed command shows a progress line of work that may take long (a replay).
pub fn wanted_for_work() -> bool {
    std::io::stderr().is_terminal()
}

/// Whether a load of `bytes` shows a progress line here.
pub fn wanted(bytes: u64) -> bool {
    bytes >= LARGE_INPUT && std::io::stderr().is_terminal()
}

/// The line being drawn; dropping it stops the thread and erases the line.
pub struct Line {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Line {
    /// Starts drawing `progress` of a load of `bytes` on stderr.
    pub fn start(progress: Arc<Progress>, bytes: u64) -> Line {
        let mut phase = progress.phase();
        let mut since = Instant::now();
        Line::drawing(Duration::ZERO, move || {
            let now = progress.phase();
            if now != phase {
                phase = now;
                since = Instant::now();
            }
            let (done, total) = progress.amounts();
            describe(phase, done, total, bytes, since.elapsed())
        })
    }

    /// Starts drawing where the replay `watch` follows stands, under `preset`, once it has
    /// run for `REPLAY_DELAY` (a quick replay shows no line).
    pub fn replay(watch: Arc<Watch>, preset: String) -> Line {
        let since = Instant::now();
        Line::drawing(REPLAY_DELAY, move || {
            describe_replay(&preset, watch.progress(), since.elapsed())
        })
    }

    /// Draws `text()` on stderr after `delay`, then on each tick until dropped.
    fn drawing(delay: Duration, mut text: impl FnMut() -> String + Send + 'static) -> Line {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            if !delay.is_zero() {
                if let Err(RecvTimeoutError::Disconnected) | Ok(()) = stopped.recv_timeout(delay) {
                    return;
                }
            }
            loop {
                let text = text();
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r{text}\x1b[K");
                let _ = err.flush();
                drop(err);
                if let Err(RecvTimeoutError::Disconnected) | Ok(()) = stopped.recv_timeout(REDRAW) {
                    break;
                }
            }
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        });
        Line {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The replay's line: the check points done of all, the compactions so far, the time taken.
pub fn describe_replay(preset: &str, p: ReplayProgress, elapsed: Duration) -> String {
    let share = if p.of == 0 {
        0.0
    } else {
        (p.checks as f64 / p.of as f64).min(1.0) * 100.0
    };
    format!(
        "ctxray: replaying under {preset} {share:>3.0}% · check {} of {} · {} compaction{} · {:.0} s",
        thousands(p.checks),
        thousands(p.of),
        thousands(p.compactions),
        if p.compactions == 1 { "" } else { "s" },
        elapsed.as_secs_f64().floor()
    )
}

/// The text of the line: the phase, how far it is, and how fast. Counting has no byte measure,
/// so its rate is the file's size times the share of messages counted, per second.
pub fn describe(phase: Phase, done: u64, total: u64, bytes: u64, elapsed: Duration) -> String {
    const MB: f64 = (1 << 20) as f64;
    let secs = elapsed.as_secs_f64().max(1e-3);
    let ratio = (total > 0).then(|| (done as f64 / total as f64).min(1.0));
    let size = bytes as f64 / MB;
    match (phase, ratio) {
        (Phase::Reading, Some(r)) => format!(
            "ctxray: reading {:>3.0}% of {size:.0} MB · {:.0} MB/s",
            r * 100.0,
            done as f64 / MB / secs
        ),
        (Phase::Counting, Some(r)) => format!(
            "ctxray: counting tokens {:>3.0}% of {total} messages · {:.0} MB/s",
            r * 100.0,
            r * size / secs
        ),
        (phase, _) => format!("ctxray: {} {size:.0} MB · {secs:.1} s", phase.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_phase_share_and_rate() {
        let s = Duration::from_secs(2);
        assert_eq!(
            describe(Phase::Reading, 50 << 20, 200 << 20, 200 << 20, s),
            "ctxray: reading  25% of 200 MB · 25 MB/s"
        );
        assert_eq!(
            describe(Phase::Counting, 300, 1000, 100 << 20, s),
            "ctxray: counting tokens  30% of 1000 messages · 15 MB/s"
        );
        assert_eq!(
            describe(Phase::Parsing, 0, 0, 100 << 20, Duration::from_millis(1500)),
            "ctxray: parsing 100 MB · 1.5 s"
        );
        // More done than announced never reads past 100%.
        assert!(describe(Phase::Counting, 9, 4, 1 << 20, s).contains("100% of 4"));
    }

    #[test]
    fn the_replay_line_names_checks_compactions_and_time() {
        let p = ReplayProgress {
            checks: 1_234,
            of: 12_000,
            compactions: 1_100,
        };
        assert_eq!(
            describe_replay("agent-framework", p, Duration::from_millis(12_700)),
            "ctxray: replaying under agent-framework  10% · check 1,234 of 12,000 · 1,100 compactions · 12 s"
        );
        let one = ReplayProgress {
            checks: 0,
            of: 0,
            compactions: 1,
        };
        assert!(describe_replay("hermes", one, Duration::ZERO)
            .contains("  0% · check 0 of 0 · 1 compaction ·"));
    }
}
