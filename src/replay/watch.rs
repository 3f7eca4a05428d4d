//! A replay followed from another thread: how far it has come, and a flag that stops it.
//!
//! A replay of a long session under a preset whose history keeps growing (Agent Framework's
//! summarization once its input budget stops selecting) can take minutes; whoever started it
//! reads where it stands (`progress`) and can stop it between two check points (`stop`), the
//! replay then returning `PlanError::Stopped`.
//!
//! Owns: the counters and the flag, in atomics, so the replay never waits on a reader. Must
//! not: print, sleep or know who is watching.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Where a replay stands: check points done of all, and the compactions made so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub checks: usize,
    pub of: usize,
    pub compactions: usize,
}

/// Shared between a replay and whoever follows it.
#[derive(Debug, Default)]
pub struct Watch {
    stop: Arc<AtomicBool>,
    checks: AtomicUsize,
    of: AtomicUsize,
    compactions: AtomicUsize,
}

impl Watch {
    /// A watch whose replay stops once `stop` is set (e.g. a job's cancel flag).
    pub fn stopped_by(stop: Arc<AtomicBool>) -> Watch {
        Watch {
            stop,
            ..Watch::default()
        }
    }

    /// Asks the replay to stop at its next check point.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn progress(&self) -> Progress {
        Progress {
            checks: self.checks.load(Ordering::Relaxed),
            of: self.of.load(Ordering::Relaxed),
            compactions: self.compactions.load(Ordering::Relaxed),
        }
    }

    pub(super) fn begin(&self, of: usize) {
        self.checks.store(0, Ordering::Relaxed);
        self.compactions.store(0, Ordering::Relaxed);
        self.of.store(of, Ordering::Relaxed);
    }

    pub(super) fn checked(&self, checks: usize, compactions: usize) {
        self.compactions.store(compactions, Ordering::Relaxed);
        self.checks.store(checks, Ordering::Relaxed);
    }
}
