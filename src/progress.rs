//! Progress of a long load (read → parse → count), shared between the thread doing the work
//! and whoever shows it.
//!
//! Owns: a phase and a done/total pair in atomics, so the worker never waits on the reader and
//! the reader never blocks the worker. Must not: print, sleep or know who is watching.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What a load is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Reading bytes (done/total in bytes).
    Reading,
    /// Parsing records (no measure).
    Parsing,
    /// Counting tokens (done/total in messages).
    Counting,
    /// Waiting for a followed source to hold a first record.
    Waiting,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Reading => "reading",
            Phase::Parsing => "parsing",
            Phase::Counting => "counting tokens",
            Phase::Waiting => "waiting for the first record",
        }
    }

    fn from_u8(v: u8) -> Phase {
        match v {
            1 => Phase::Parsing,
            2 => Phase::Counting,
            3 => Phase::Waiting,
            _ => Phase::Reading,
        }
    }
}

#[derive(Debug, Default)]
pub struct Progress {
    phase: AtomicU8,
    done: AtomicU64,
    total: AtomicU64,
}

impl Progress {
    pub fn new() -> Progress {
        Progress::default()
    }

    /// Enters a phase with `total` units of work (0 when it cannot be measured).
    pub fn start(&self, phase: Phase, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        self.phase.store(phase as u8, Ordering::Release);
    }

    pub fn advance(&self, units: u64) {
        self.done.fetch_add(units, Ordering::Relaxed);
    }

    pub fn phase(&self) -> Phase {
        Phase::from_u8(self.phase.load(Ordering::Acquire))
    }

    /// `(done, total)` of the current phase.
    pub fn amounts(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Fraction done in `0.0..=1.0`, `None` when the phase has no measure.
    pub fn ratio(&self) -> Option<f64> {
        let (done, total) = self.amounts();
        (total > 0).then(|| (done as f64 / total as f64).min(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_reset_the_amounts_and_ratio_is_clamped() {
        let p = Progress::new();
        p.start(Phase::Reading, 200);
        p.advance(50);
        assert_eq!(p.phase(), Phase::Reading);
        assert_eq!(p.ratio(), Some(0.25));
        p.advance(500);
        assert_eq!(p.ratio(), Some(1.0));
        p.start(Phase::Parsing, 0);
        assert_eq!(p.phase(), Phase::Parsing);
        assert_eq!(p.amounts(), (0, 0));
        assert_eq!(p.ratio(), None);
        p.start(Phase::Counting, 4);
        p.advance(1);
        assert_eq!((p.phase(), p.ratio()), (Phase::Counting, Some(0.25)));
    }
}
