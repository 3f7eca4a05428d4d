//! Replay: a session fed to a preset message by message, as the agent produced it, with every
//! compaction the preset would have made applied on the way — the sawtooth of the context.
//!
//! At each point where the framework checks its trigger (before each model request, i.e. each
//! assistant message, or only before each user turn for frameworks that check there; see
//! `Preset::checks_at`) the preset plans the *current* history — the one earlier compactions
//! already shortened. When it fires, the plan is applied with the offline summary (the
//! framework's own digest, else ctxray's) or a stand-in of exactly `summary_tokens` tokens, and
//! the history goes on growing from there. One compaction at most per check point; a
//! compaction whose result would fire again at once is flagged, not repeated. The file's own
//! compactions are not replayed (the preset's are), and the provider usage it recorded is
//! replaced by the replay's exact count (see `history`).
//!
//! Owns: the check points, the loop, and filling in what it records (`record`: steps,
//! compactions with what their summarizer input held of the range, rejected attempts). Pure and
//! headless: must not print, and must not call a model.
//!
//! Most checks do not fire: a check first asks the preset's quiet trigger
//! (`Preset::quiet_trigger`), which answers from per-message numbers kept across checks
//! (`quiet::Memo`, renewed with the history at each compaction), and the full plan runs only
//! when that cannot say the trigger stays quiet. The history also keeps the raw records its
//! plans parsed (`compaction::parsed`) and, across a compaction, the exact counts of the
//! messages the framework kept as they were. `replay_planning_every_check` plans at every
//! check, parsing every record and counting every compacted history afresh: the slow path the
//! quick one must agree with, kept for the tests. The
//! figures of a compaction that nothing later depends on (what its summarizer input holds of
//! the range, the facts its summary loses) are computed on a second thread (`deferred`).

mod deferred;
mod evidence;
pub mod filler;
mod history;
mod record;
#[cfg(test)]
mod tests;
mod watch;

use crate::analysis::Analysis;
use crate::compaction::preset::{self, CheckPoint, Done, GuardCheck, PlanError, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::{Plan, Settings};
use crate::session::{Part, Role, Session};
use history::History;
use record::{findings, record_step};
pub use record::{Compaction, Fidelity, Rejected, Replay, Step};
pub use watch::{Progress, Watch};

/// How to replay.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Model every summary as a text of exactly this many tokens instead of the offline digest.
    pub summary_tokens: Option<usize>,
    /// Told where the replay stands after each check point; setting its flag stops the replay
    /// at the next one (`PlanError::Stopped`).
    pub watch: Option<std::sync::Arc<Watch>>,
}

/// Where `checks` falls in `session`: the history length at each check point, ascending,
/// ending with the whole session (the next request or turn).
pub fn check_points(session: &Session, checks: CheckPoint) -> Vec<usize> {
    let mut points: Vec<usize> = session
        .messages
        .iter()
        .filter(|m| match checks {
            CheckPoint::Request => m.role == Role::Assistant,
            CheckPoint::UserTurn => is_user_turn(m),
        })
        .map(|m| m.index)
        .collect();
    if !session.messages.is_empty() {
        points.push(session.messages.len());
    }
    points.dedup();
    points
}

/// A user message that is not a tool result.
pub fn is_user_turn(m: &crate::session::Message) -> bool {
    m.role == Role::User && !m.parts.iter().any(|p| matches!(p, Part::ToolResult { .. }))
}

/// One step of a replay as it stood: the history the preset checked (earlier compactions
/// applied), the settings in force (the user's and those the framework carried from earlier
/// compactions), and, when it compacted there, the history it left and the summary inserted.
#[derive(Debug, Clone)]
pub struct At {
    pub step: usize,
    pub before: Session,
    pub sets: Vec<String>,
    /// The compaction made at this step, with the history it left and its summary.
    pub compaction: Option<(Compaction, Session, Option<String>)>,
}

/// Step `step` of the replay of `a` (`None` when the replay has fewer): the replay run up to
/// it and stopped there.
pub fn at(
    a: &Analysis,
    preset: &dyn Preset,
    sets: &[String],
    options: &Options,
    step: usize,
) -> Result<Option<At>, PlanError> {
    let mut out = None;
    let replay = replay_until(a, preset, sets, options, true, Some((step, &mut out)))?;
    Ok(out.map(|mut at: At| {
        // The compaction's figures are filled in once the replay has run.
        if let Some((record, ..)) = at.compaction.as_mut() {
            if let Some(done) = replay.compactions.iter().find(|c| c.step == step) {
                *record = done.clone();
            }
        }
        at
    }))
}

/// Replays `a` under `preset` with the user's `sets`.
pub fn replay(
    a: &Analysis,
    preset: &dyn Preset,
    sets: &[String],
    options: &Options,
) -> Result<Replay, PlanError> {
    replay_with(a, preset, sets, options, true)
}

/// [`replay`] with the preset's full plan at every check, never its quiet trigger: the same
/// replay, slower. The differential tests hold the quick path to it.
#[doc(hidden)]
pub fn replay_planning_every_check(
    a: &Analysis,
    preset: &dyn Preset,
    sets: &[String],
    options: &Options,
) -> Result<Replay, PlanError> {
    replay_with(a, preset, sets, options, false)
}

fn replay_with(
    a: &Analysis,
    preset: &dyn Preset,
    sets: &[String],
    options: &Options,
    quick: bool,
) -> Result<Replay, PlanError> {
    replay_until(a, preset, sets, options, quick, None)
}

/// The replay, stopped after compaction `stop.0` when given, that compaction's `At` put in
/// `stop.1`.
fn replay_until(
    a: &Analysis,
    preset: &dyn Preset,
    sets: &[String],
    options: &Options,
    quick: bool,
    stop: Option<(usize, &mut Option<At>)>,
) -> Result<Replay, PlanError> {
    let base = Settings::resolve(preset.name(), preset.params(), sets)?;
    let window = base.window().map_or(a.window, |(w, _)| w);
    let mut run = Run {
        a,
        preset,
        sets,
        options,
        base: base.clone(),
        settings: (usize::MAX, base.clone()),
        history: History::new(a, quick),
        memo: quick.then(Memo::new),
        done: Vec::new(),
        stop,
    };
    let mut out = Replay {
        preset: preset.name(),
        framework: preset.framework(),
        settings: base,
        checks_at: preset.checks_at(),
        window,
        measure: "tokens",
        threshold: 0,
        summary_tokens: options.summary_tokens,
        steps: Vec::new(),
        compactions: Vec::new(),
        rejected: Vec::new(),
    };
    let watch = options.watch.as_deref();
    let (result, figures) = deferred::with_worker(&a.counter, |sink| {
        let mut fed = 0;
        let points = check_points(&a.session, preset.checks_at());
        if let Some(w) = watch {
            w.begin(points.len());
        }
        for (n, upto) in points.into_iter().enumerate() {
            if watch.is_some_and(Watch::is_stopped) {
                return Err(PlanError::Stopped);
            }
            run.history.append(a, fed, upto);
            fed = upto;
            run.check(upto, &mut out, sink)?;
            if let Some(w) = watch {
                w.checked(n + 1, out.compactions.len());
            }
            if run.stop.as_ref().is_some_and(|(_, at)| at.is_some()) {
                break;
            }
        }
        Ok::<(), PlanError>(())
    });
    result?;
    for f in figures {
        f.fill(&mut out.compactions);
    }
    Ok(out)
}

/// The state of one replay.
struct Run<'a> {
    a: &'a Analysis,
    preset: &'a dyn Preset,
    sets: &'a [String],
    options: &'a Options,
    base: Settings,
    /// Settings for the compactions made so far (count, resolved).
    settings: (usize, Settings),
    history: History,
    /// The quiet trigger's running numbers over `history` (`None`: plan at every check).
    memo: Option<Memo>,
    /// The compactions made so far, as the framework's carried state sees them.
    done: Vec<Done>,
    /// Stop after this step, keeping it as it stood (`at`).
    stop: Option<(usize, &'a mut Option<At>)>,
}

impl Run<'_> {
    /// The settings in force after the compactions made so far (the framework's carried
    /// state).
    fn settings(&mut self) -> Result<Settings, PlanError> {
        let done = self.done.len();
        if self.settings.0 != done {
            self.settings = (done, self.resolve(&self.done)?);
        }
        Ok(self.settings.1.clone())
    }

    fn resolve(&self, done: &[Done]) -> Result<Settings, PlanError> {
        let mut sets = self.sets.to_vec();
        sets.extend(self.preset.carried_settings(&self.base, done));
        Ok(Settings::resolve(
            self.preset.name(),
            self.preset.params(),
            &sets,
        )?)
    }

    fn plan(&self, history: &History, settings: &Settings) -> Result<Plan, PlanError> {
        self.preset.plan(&history.input(self.a), settings)
    }

    /// Evaluates the trigger on the history at `upto` and compacts when it fires.
    fn check(
        &mut self,
        upto: usize,
        out: &mut Replay,
        sink: &mut deferred::Sink,
    ) -> Result<(), PlanError> {
        let a = self.a;
        let message = (upto < a.session.messages.len()).then_some(upto);
        let source_index = message.map_or_else(
            || next_record(&a.session),
            |i| a.session.messages[i].source_index,
        );
        if let Some((stop, at)) = self.stop.as_mut() {
            if *stop == out.steps.len() {
                let mut sets = self.sets.to_vec();
                sets.extend(self.preset.carried_settings(&self.base, &self.done));
                **at = Some(At {
                    step: *stop,
                    before: self.history.session.clone(),
                    sets,
                    compaction: None,
                });
            }
        }
        let settings = self.settings()?;
        if let Some(memo) = self.memo.as_mut() {
            let input = self.history.quiet_input(a);
            if let Some(trigger) = self.preset.quiet_trigger(&input, &settings, memo) {
                if !trigger.fired {
                    let tokens = self.history.tokens() as u64;
                    record_step(out, &trigger, message, source_index, tokens);
                    return Ok(());
                }
            }
        }
        let plan = self.plan(&self.history, &settings)?;
        if out.steps.is_empty() {
            out.measure = plan.trigger.measure;
            out.threshold = plan.trigger.threshold;
        }
        let before = self.history.tokens() as u64;
        let step = out.steps.len();
        out.steps.push(Step {
            message,
            source_index,
            tokens: before,
            tokens_before: before,
            fired: plan.trigger.fired,
            value: plan.trigger.value,
            threshold: plan.trigger.threshold,
        });
        if !plan.trigger.fired || !changes_history(&plan, self.history.session.messages.len()) {
            return Ok(());
        }
        let summary = plan
            .insertion
            .as_ref()
            .map(|_| match self.options.summary_tokens {
                Some(n) => filler::summary_of(n, &a.counter),
                None => preset::offline_summary(self.preset, &self.history.input(a), &plan),
            });
        let after = self
            .preset
            .compacted(&self.history.input(a), &plan, summary.as_deref());
        let compacted = self.history.compacted(a, after, source_index);
        // The state after this compaction, judged before its result is known: the trigger on
        // the result is measured under it, then recorded for the checks that follow.
        // (Pushed and taken off again: a copy of every compaction so far would make a replay
        // quadratic in its compactions.)
        self.done.push(Done {
            before: plan.trigger.clone(),
            after: plan.trigger.clone(),
        });
        let after_settings = self.resolve(&self.done);
        self.done.pop();
        let after_settings = after_settings?;
        let after = compacted.tokens() as u64;
        // The trigger on the compacted history. A preset with no guard needs no more: its
        // quiet trigger is asked first, and when it tells, its memo (fed the compacted
        // history) serves the checks that follow.
        let quiet = match &self.memo {
            Some(_) if !self.preset.guards() => {
                let mut memo = Memo::new();
                self.preset
                    .quiet_trigger(&compacted.quiet_input(a), &after_settings, &mut memo)
                    .filter(|t| !t.fired)
                    .map(|t| (t, memo))
            }
            _ => None,
        };
        let (again, next_memo) = match quiet {
            Some((trigger, memo)) => (trigger, Some(memo)),
            None => {
                let again = self.plan(&compacted, &after_settings)?;
                let rejected = self.preset.rejects(&GuardCheck {
                    settings: &settings,
                    before: &self.history.input(a),
                    plan: &plan,
                    after: &compacted.input(a),
                    again: &again,
                });
                if rejected {
                    out.rejected.push(Rejected {
                        step,
                        at_source_index: source_index,
                        tokens_before: before,
                        tokens_after: after,
                    });
                    // The framework keeps the history; its compaction count does not move.
                    return Ok(());
                }
                (again.trigger, None)
            }
        };
        let (record, removed, range) = self.record(
            step,
            source_index,
            message,
            &plan,
            summary.as_deref(),
            &compacted,
            again.fired,
        );
        if let Some((_, Some(at))) = self.stop.as_mut() {
            if at.step == step {
                at.compaction = Some((record.clone(), compacted.session.clone(), summary.clone()));
            }
        }
        out.compactions.push(record);
        out.steps[step].tokens = after;
        self.done.push(Done {
            before: plan.trigger.clone(),
            after: again,
        });
        let history = std::mem::replace(&mut self.history, compacted);
        // What the preset kept to carry the plan out is not needed by the figures.
        let mut plan = plan;
        plan.made = Default::default();
        if self.memo.is_some() {
            // The memo was fed under the settings judged before the compaction's result was
            // known; it serves on only if the settings that follow are the same.
            let same = self.settings()? == after_settings;
            self.memo = Some(next_memo.filter(|_| same).unwrap_or_default());
        }
        let job = deferred::Job {
            compaction: out.compactions.len() - 1,
            history,
            plan,
            summary,
            removed,
            range,
            evidence: self.options.summary_tokens.is_none(),
        };
        sink.send(job, &a.counter);
        Ok(())
    }

    /// The compaction's record but for its deferred figures (`deferred`), and the messages
    /// it removes and of them those its summarizer input renders.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        step: usize,
        at_source_index: usize,
        message: Option<usize>,
        plan: &Plan,
        summary: Option<&str>,
        compacted: &History,
        fires_again: bool,
    ) -> (Compaction, Vec<usize>, Vec<usize>) {
        let a = self.a;
        let h = &self.history;
        let surviving = crate::compaction::plan::surviving(&plan.split);
        // Events (an excluded Agent Framework message among them) are never sent.
        let removed: Vec<usize> = (0..h.session.messages.len())
            .filter(|i| surviving.binary_search(i).is_err())
            .filter(|&i| h.session.messages[i].role != Role::Event)
            .collect();
        let rendered: std::collections::BTreeSet<usize> =
            plan.split.summarized.iter().copied().collect();
        let range: Vec<usize> = removed
            .iter()
            .copied()
            .filter(|i| rendered.contains(i))
            .collect();
        let summarized = range.len();
        let removed_tokens: u64 = removed
            .iter()
            .map(|&i| h.counts.messages[i].total() as u64)
            .sum();
        let before = h.tokens() as u64;
        let after = compacted.tokens() as u64;
        let record = Compaction {
            step,
            at_source_index,
            message,
            tokens_before: before,
            tokens_after: after,
            messages_before: h.message_count(),
            messages_after: compacted.message_count(),
            summarized,
            dropped: removed.len() - summarized,
            removed_tokens,
            summarizer_input_tokens: 0,
            summary_tokens: summary.map_or(0, |s| a.counter.count(s) as u64),
            threshold: plan.trigger.threshold,
            input: Fidelity::default(),
            evidence: None,
            reason: plan.trigger.reason.clone(),
            findings: findings(before, after, fires_again),
        };
        (record, removed, range)
    }
}

/// Whether applying `plan` changes a history of `len` messages: something removed, or a
/// summary inserted.
fn changes_history(plan: &Plan, len: usize) -> bool {
    plan.insertion.is_some() || crate::compaction::plan::surviving(&plan.split).len() < len
}

/// One past the last source record of the session.
fn next_record(session: &Session) -> usize {
    let last_message = session
        .messages
        .iter()
        .flat_map(|m| m.source_indices.iter().copied())
        .max();
    let last_record = session.source.record_indices.last().copied();
    last_message.max(last_record).map_or(0, |r| r + 1)
}
