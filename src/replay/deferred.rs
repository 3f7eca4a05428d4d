//! The figures of a replayed compaction that nothing later in the replay depends on — what its
//! summarizer input holds of the range, which facts its summary loses, the summarizer request's
//! exact tokens — computed on a second thread while the replay goes on with the next checks.
//!
//! Owns: the job (the history as it stood before the compaction, the plan, the summary) and
//! the worker that turns jobs into figures, in order. At most one job waits while the worker is
//! busy, so the histories it holds stay few. Must not: decide anything the replay's loop reads.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use super::evidence;
use super::history::History;
use super::record::{Compaction, Fidelity};
use crate::compaction::Plan;
use crate::tokens::Counter;

/// One compaction's deferred figures to compute.
pub struct Job {
    /// Index into `Replay::compactions`.
    pub compaction: usize,
    /// The history the compaction was planned on.
    pub history: History,
    pub plan: Plan,
    pub summary: Option<String>,
    /// Messages of `history` the compaction removes (sent ones), and those of them rendered
    /// into the summarizer input.
    pub removed: Vec<usize>,
    pub range: Vec<usize>,
    /// Whether the summary is the offline one (a stand-in has no facts to lose).
    pub evidence: bool,
}

/// A job's figures.
pub struct Figures {
    pub compaction: usize,
    pub input: Fidelity,
    pub evidence: Option<(usize, usize)>,
    pub summarizer_input_tokens: u64,
}

impl Figures {
    pub fn fill(self, compactions: &mut [Compaction]) {
        if let Some(c) = compactions.get_mut(self.compaction) {
            c.input = self.input;
            c.evidence = self.evidence;
            c.summarizer_input_tokens = self.summarizer_input_tokens;
        }
    }
}

/// Computes one job's figures.
pub fn figures(job: &Job, counter: &Counter) -> Figures {
    let session = &job.history.session;
    let summarizer_input_tokens = job
        .plan
        .summarizer
        .iter()
        .map(|m| counter.count(&m.content) as u64)
        .sum();
    let summary = job.evidence.then(|| job.summary.as_deref().unwrap_or(""));
    let (input, evidence) =
        evidence::input_and_lost(session, &job.range, &job.removed, &job.plan, summary);
    Figures {
        compaction: job.compaction,
        input,
        evidence,
        summarizer_input_tokens,
    }
}

/// Where jobs go: a worker thread, or (when none could be started) the caller's own thread.
pub enum Sink {
    Worker(SyncSender<Job>),
    Inline(Vec<Figures>),
}

impl Sink {
    /// Hands `job` on; computed at once when there is no worker (or it has gone).
    pub fn send(&mut self, job: Job, counter: &Counter) {
        let job = match self {
            Sink::Worker(tx) => match tx.send(job) {
                Ok(()) => return,
                Err(e) => e.0,
            },
            Sink::Inline(_) => job,
        };
        let done = figures(&job, counter);
        match self {
            Sink::Inline(out) => out.push(done),
            Sink::Worker(_) => *self = Sink::Inline(vec![done]),
        }
    }
}

/// Runs `body` with a sink whose jobs a worker thread computes, then returns `body`'s result
/// and every job's figures.
pub fn with_worker<T>(counter: &Counter, body: impl FnOnce(&mut Sink) -> T) -> (T, Vec<Figures>) {
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Job>(1);
        let worker = std::thread::Builder::new()
            .name("replay-figures".into())
            .spawn_scoped(scope, move || work(rx, counter));
        let mut sink = match worker {
            Ok(_) => Sink::Worker(tx),
            Err(_) => Sink::Inline(Vec::new()),
        };
        let result = body(&mut sink);
        let mut inline = match sink {
            Sink::Inline(v) => v,
            Sink::Worker(tx) => {
                drop(tx);
                Vec::new()
            }
        };
        let mut all = match worker {
            Ok(handle) => match handle.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => Vec::new(),
        };
        all.append(&mut inline);
        (result, all)
    })
}

fn work(rx: Receiver<Job>, counter: &Counter) -> Vec<Figures> {
    rx.into_iter().map(|job| figures(&job, counter)).collect()
}
