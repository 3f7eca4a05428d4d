//! The inspector's work, done apart from its loop: a plan and its diff, the timeline's what-if
//! search, a replay, carrying out a compaction.
//!
//! Owns: what a job is (`Job`, which `update` asks for with `Effect::Run` and whose result
//! comes back as a `Msg`), running one ([`run`]: pure, the same code on the executor's thread
//! and inline in tests), and the [`Executor`], which runs at most one job of each kind at a
//! time: a job asked for while one of its kind runs replaces any job waiting behind it and
//! cancels the running one (its result is not sent), as gitui's single async jobs do. A
//! cancelled replay stops at its next check point, a demo or what-if search before its next
//! plan, a plan before its diff; a replay reports where it stands while it runs. Must not:
//! touch the terminal or the state.

use crate::compaction::presets;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::msg::Msg;
use super::state::RunKey;
use crate::analysis::Analysis;
use crate::compaction::Plan;
use crate::replay::{Progress, Watch};

/// What a job does, on which session.
#[derive(Clone)]
pub struct Job {
    pub analysis: Arc<Analysis>,
    pub work: Work,
}

/// The work of a job. Each kind has one slot in the executor.
#[derive(Debug, Clone)]
pub enum Work {
    /// The plan of a preset under its settings (`Msg::Planned`), then its diff (`Msg::Diffed`).
    Plan(RunKey),
    /// The timeline's what-if search (`Msg::WhatIfDone`).
    WhatIf(RunKey),
    /// The whole session replayed (`Msg::Replayed`).
    Replay(RunKey),
    /// The settings that make a preset fire on the session (`Msg::DemoFound`).
    Demo(RunKey),
    /// A step of a replay as it stood (`Msg::Drilled`).
    ReplayAt {
        key: RunKey,
        step: usize,
        open: super::drill::Open,
    },
    /// A plan carried out (`Msg::Compacted`): with this summarizer text, or, with `summary`
    /// `None` and a plan that inserts one, the preset's offline summary.
    Compact {
        plan: Box<Plan>,
        summary: Option<String>,
        summarizer: String,
    },
}

/// The kinds of work, one slot each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Plan,
    WhatIf,
    Replay,
    Compact,
    Demo,
}

const KINDS: usize = 5;

impl Work {
    pub fn kind(&self) -> Kind {
        match self {
            Work::Plan(_) => Kind::Plan,
            Work::WhatIf(_) => Kind::WhatIf,
            Work::Replay(_) => Kind::Replay,
            Work::Compact { .. } => Kind::Compact,
            Work::Demo(_) => Kind::Demo,
            Work::ReplayAt { .. } => Kind::Replay,
        }
    }
}

/// The same plan, search or replay; two compactions are never the same (the later replaces).
impl PartialEq for Work {
    fn eq(&self, other: &Work) -> bool {
        match (self, other) {
            (Work::Plan(a), Work::Plan(b))
            | (Work::WhatIf(a), Work::WhatIf(b))
            | (Work::Replay(a), Work::Replay(b))
            | (Work::Demo(a), Work::Demo(b)) => a == b,
            (
                Work::ReplayAt { key, step, open },
                Work::ReplayAt {
                    key: k,
                    step: s,
                    open: o,
                },
            ) => key == k && step == s && open == o,
            _ => false,
        }
    }
}

impl Kind {
    fn slot(self) -> usize {
        self as usize
    }
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("messages", &self.analysis.session.messages.len())
            .field("work", &self.work)
            .finish()
    }
}

/// The same work on the same session (not a copy of it).
impl PartialEq for Job {
    fn eq(&self, other: &Job) -> bool {
        Arc::ptr_eq(&self.analysis, &other.analysis) && self.work == other.work
    }
}

/// A carried-out compaction, as `Work::Compact` returns it.
#[derive(Debug)]
pub struct Compacted {
    pub plan: Plan,
    pub done: crate::compaction::carry_out::Compacted,
}

/// Set when a newer job of the same kind replaces this one: its result is not sent, and work
/// that comes in steps (a plan's diff) stops at the next step.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for work that stops when it is set (a replay's `Watch`).
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

/// How often a replay run apart says where it stands.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Runs `work` on a thread of its own and, until it ends, `report`s where `watch` says it
/// stands every `PROGRESS_EVERY` (when that moved).
fn following<T: Send>(
    watch: &Watch,
    mut report: impl FnMut(Progress),
    work: impl FnOnce() -> T + Send,
) -> T {
    std::thread::scope(|scope| {
        let (done, ended) = std::sync::mpsc::channel::<()>();
        let handle = scope.spawn(move || {
            let out = work();
            let _ = done.send(());
            out
        });
        let mut last = None;
        while let Err(RecvTimeoutError::Timeout) = ended.recv_timeout(PROGRESS_EVERY) {
            let now = watch.progress();
            if last != Some(now) {
                report(now);
                last = Some(now);
            }
        }
        match handle.join() {
            Ok(out) => out,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Runs `job`, sending its results (none once `cancel` is set).
pub fn run(job: Job, cancel: &Cancel, send: &mut dyn FnMut(Msg)) {
    let analysis = job.analysis;
    let mut send = |msg: Msg| {
        if !cancel.is_cancelled() {
            send(msg);
        }
    };
    match job.work {
        Work::Plan(key) => {
            // The summarized messages' facts are read while the plan is made (`diff::ahead`).
            let (result, ahead) = crate::diff::ahead::while_planning(&analysis.session, || {
                super::state::plan_of(&analysis, &key.0, &key.1, false)
            });
            // What the diff needs of the plan, taken before the plan is sent on (the plan
            // itself, request and all, is not copied).
            let wanted = result.as_ref().ok().map(|p| {
                let input = crate::diff::summarizer_input(&p.plan);
                (p.plan.split.summarized.clone(), input)
            });
            send(Msg::Planned(key.clone(), Box::new(result)));
            if let Some((range, input)) = wanted.filter(|_| !cancel.is_cancelled()) {
                let index = crate::diff::TextIndex::new(input);
                let diff =
                    crate::diff::diff_range_with(&analysis.session, &range, &index, Some(&ahead));
                send(Msg::Diffed(key, Box::new(diff)));
            }
        }
        Work::WhatIf(key) => {
            let result = crate::compaction::presets::find(&key.0)
                .and_then(|p| {
                    crate::timeline::what_if_until(&analysis, p, &key.1, &|| cancel.is_cancelled())
                })
                .map_err(|e| e.to_string());
            send(Msg::WhatIfDone(key, result));
        }
        Work::Demo(key) => {
            let result = crate::compaction::presets::find(&key.0)
                .and_then(|p| {
                    let input = crate::compaction::PlanInput::new(&analysis);
                    crate::compaction::demo::fit_until(&input, p, &key.1, &|| cancel.is_cancelled())
                })
                .map_err(|e| e.to_string());
            send(Msg::DemoFound(key, result));
        }
        Work::ReplayAt { key, step, open } => {
            let watch = Arc::new(Watch::stopped_by(cancel.flag()));
            let result = super::drill::at(&analysis, &key, step, Some(watch));
            send(Msg::Drilled(Box::new(super::drill::Drilled {
                key,
                step,
                open,
                result,
            })));
        }
        Work::Replay(key) => {
            // Stopped with the job; where it stands is sent while it runs.
            let watch = Arc::new(Watch::stopped_by(cancel.flag()));
            let result = following(
                &watch,
                |p| send(Msg::ReplayProgress(key.clone(), p)),
                || super::replay::run(&analysis, &key, Some(Arc::clone(&watch))),
            );
            send(Msg::Replayed(key, Box::new(result)));
        }
        Work::Compact {
            plan,
            summary,
            summarizer,
        } => {
            use crate::compaction::preset;
            let summary = || {
                summary.or_else(|| {
                    let p = presets::find(plan.preset).ok()?;
                    plan.insertion.as_ref()?;
                    Some(preset::offline_summary(
                        p,
                        &preset::PlanInput::new(&analysis),
                        &plan,
                    ))
                })
            };
            let done = crate::compaction::carry_out::carry_out(
                &analysis,
                &plan,
                summarizer,
                summary,
                0,
                crate::compaction::carry_out::Wants::INSPECTOR,
            );
            send(Msg::Compacted(Box::new(Compacted { plan: *plan, done })));
        }
    }
}

/// A slot's state: whether a thread runs its kind's jobs, how to cancel the one it runs, and
/// the job waiting behind it.
#[derive(Default)]
struct Slot {
    busy: bool,
    running: Option<(Job, Cancel)>,
    next: Option<Job>,
}

/// Runs jobs on threads of their own, one per kind at a time, and sends their results on the
/// inspector's channel. Dropping it cancels what runs.
pub struct Executor {
    tx: UnboundedSender<Msg>,
    slots: Arc<[Mutex<Slot>; KINDS]>,
    runner: Runner,
}

/// What runs a job: [`run`], or in the executor's tests one that waits to be let go.
type Runner = Arc<dyn Fn(Job, &Cancel, &mut dyn FnMut(Msg)) + Send + Sync>;

impl Executor {
    pub fn new(tx: UnboundedSender<Msg>) -> Executor {
        Executor::with_runner(tx, Arc::new(run))
    }

    fn with_runner(tx: UnboundedSender<Msg>, runner: Runner) -> Executor {
        Executor {
            tx,
            slots: Arc::new(Default::default()),
            runner,
        }
    }

    /// Starts `job`, or queues it behind the running job of its kind (cancelled, as this one
    /// replaces it). The same job as the one running or queued is not asked twice.
    pub fn spawn(&self, job: Job) {
        let index = job.work.kind().slot();
        let Ok(mut slot) = self.slots[index].lock() else {
            return;
        };
        if slot.next.as_ref() == Some(&job) {
            return;
        }
        if let Some((running, cancel)) = &slot.running {
            if *running == job && !cancel.is_cancelled() && slot.next.is_none() {
                return;
            }
            cancel.cancel();
        }
        if slot.busy {
            slot.next = Some(job);
            return;
        }
        slot.busy = true;
        let cancel = Cancel::default();
        slot.running = Some((job.clone(), cancel.clone()));
        drop(slot);
        let slots = Arc::clone(&self.slots);
        let tx = self.tx.clone();
        let runner = Arc::clone(&self.runner);
        std::thread::spawn(move || {
            let (mut job, mut cancel) = (job, cancel);
            loop {
                runner(job, &cancel, &mut |msg| {
                    if !cancel.is_cancelled() {
                        let _ = tx.send(msg);
                    }
                });
                let Ok(mut slot) = slots[index].lock() else {
                    return;
                };
                match slot.next.take() {
                    Some(next) if !tx.is_closed() => {
                        cancel = Cancel::default();
                        slot.running = Some((next.clone(), cancel.clone()));
                        job = next;
                    }
                    _ => {
                        slot.busy = false;
                        slot.running = None;
                        return;
                    }
                }
            }
        });
    }

    /// Cancels the job of `kind` that runs and the one waiting.
    pub fn cancel(&self, kind: Kind) {
        if let Ok(mut slot) = self.slots[kind.slot()].lock() {
            slot.next = None;
            if let Some((_, cancel)) = &slot.running {
                cancel.cancel();
            }
        }
    }

    /// How many jobs of `kind` run or wait (0–2).
    pub fn pending(&self, kind: Kind) -> usize {
        self.slots[kind.slot()].lock().map_or(0, |slot| {
            usize::from(slot.busy) + usize::from(slot.next.is_some())
        })
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        for kind in [
            Kind::Plan,
            Kind::WhatIf,
            Kind::Replay,
            Kind::Compact,
            Kind::Demo,
        ] {
            self.cancel(kind);
        }
    }
}

/// Runs every job among `effects` at once, in order, and feeds its results back through
/// `update`, until no job is left: the inspector as it behaves once its work is done, for tests
/// and for a caller with no loop. Returns the other effects.
pub fn settle(
    state: &mut super::state::AppState,
    effects: Vec<super::msg::Effect>,
) -> Vec<super::msg::Effect> {
    settle_by(effects, |msg| super::update::update(state, msg))
}

/// [`settle`] for the whole app (the screens around the inspector).
pub fn settle_app(
    app: &mut super::app::App,
    effects: Vec<super::msg::Effect>,
) -> Vec<super::msg::Effect> {
    settle_by(effects, |msg| super::app::update(app, msg))
}

fn settle_by(
    effects: Vec<super::msg::Effect>,
    mut update: impl FnMut(Msg) -> Vec<super::msg::Effect>,
) -> Vec<super::msg::Effect> {
    use super::msg::Effect;
    let mut queue: std::collections::VecDeque<Effect> = effects.into();
    let mut rest = Vec::new();
    while let Some(effect) = queue.pop_front() {
        let Effect::Run(job) = effect else {
            rest.push(effect);
            continue;
        };
        let mut results = Vec::new();
        run(job, &Cancel::default(), &mut |msg| results.push(msg));
        for msg in results {
            queue.extend(update(msg));
        }
    }
    rest
}

/// `update`, then [`settle`]: one message and all the work it asked for, done.
pub fn step(state: &mut super::state::AppState, msg: Msg) -> Vec<super::msg::Effect> {
    let effects = super::update::update(state, msg);
    settle(state, effects)
}

/// A new state with the work it asks for at once (its plan) done.
pub fn settled(mut state: super::state::AppState) -> super::state::AppState {
    let jobs = state.take_jobs();
    settle(
        &mut state,
        jobs.into_iter().map(super::msg::Effect::Run).collect(),
    );
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn analysis() -> Arc<Analysis> {
        let bytes = br#"{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}"#;
        let session = crate::formats::load_bytes(bytes.to_vec(), None, "x", None).unwrap();
        Arc::new(Analysis::new(
            session,
            &crate::tokens::Registry::bundled(),
            &crate::analysis::Options::default(),
        ))
    }

    fn plan(analysis: &Arc<Analysis>, n: usize) -> Job {
        Job {
            analysis: Arc::clone(analysis),
            work: Work::Plan((format!("p{n}"), Vec::new(), n)),
        }
    }

    /// A runner that reports each job it starts and waits to be let go, then answers with a
    /// notice naming the job.
    fn held() -> (Runner, mpsc::Receiver<String>, mpsc::Sender<()>) {
        let (started_tx, started) = mpsc::channel();
        let (go, go_rx) = mpsc::channel::<()>();
        let go_rx = Mutex::new(go_rx);
        let runner: Runner = Arc::new(move |job: Job, _: &Cancel, send: &mut dyn FnMut(Msg)| {
            let Work::Plan(key) = job.work else { return };
            let _ = started_tx.send(key.0.clone());
            let _ = go_rx.lock().unwrap().recv();
            send(Msg::Notice(key.0));
        });
        (runner, started, go)
    }

    fn notices(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>, n: usize) -> Vec<String> {
        (0..n)
            .map(|_| match rx.blocking_recv() {
                Some(Msg::Notice(t)) => t,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_newest_job_cancels_the_running_one_and_replaces_the_one_waiting() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (runner, started, go) = held();
        let executor = Executor::with_runner(tx, runner);
        let a = analysis();
        executor.spawn(plan(&a, 1));
        assert_eq!(started.recv().unwrap(), "p1");
        for n in 2..=5 {
            executor.spawn(plan(&a, n));
        }
        // One runs, one waits: the jobs asked in between were replaced.
        assert_eq!(executor.pending(Kind::Plan), 2);
        go.send(()).unwrap();
        assert_eq!(started.recv().unwrap(), "p5", "the newest runs next");
        go.send(()).unwrap();
        // p1 was cancelled by the newer jobs: only p5's result is sent.
        assert_eq!(notices(&mut rx, 1), ["p5"]);
        assert!(rx.try_recv().is_err());
        assert!(started.try_recv().is_err(), "p2 to p4 never ran");
    }

    #[test]
    fn the_same_job_is_not_run_twice_and_kinds_run_side_by_side() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (runner, started, go) = held();
        let executor = Executor::with_runner(tx, runner);
        let a = analysis();
        executor.spawn(plan(&a, 1));
        assert_eq!(started.recv().unwrap(), "p1");
        executor.spawn(plan(&a, 1));
        assert_eq!(executor.pending(Kind::Plan), 1, "asked again while it runs");
        // Another kind has its own slot (the held runner ignores it and returns at once).
        executor.spawn(Job {
            analysis: Arc::clone(&a),
            work: Work::Replay(("r".into(), Vec::new(), 2)),
        });
        go.send(()).unwrap();
        assert_eq!(notices(&mut rx, 1), ["p1"]);
        // Cancelling drops the result of the one running.
        executor.spawn(plan(&a, 2));
        assert_eq!(started.recv().unwrap(), "p2");
        executor.cancel(Kind::Plan);
        go.send(()).unwrap();
        drop(executor);
        assert!(rx.blocking_recv().is_none(), "no result after a cancel");
    }
}
