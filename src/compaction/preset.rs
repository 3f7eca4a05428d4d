//! The preset interface: what one implementation per framework version offers.
//!
//! Owns: `Preset` (name, framework, parameters, `plan`), `PlanInput` (what a preset may read),
//! and running one (`run`: its settings resolved, the findings every plan gets added). Each
//! preset lives in `presets/`, which also lists them and looks them up by name; this file
//! knows none of them.

use super::after::After;
use super::groups::Grouping;
use super::plan::{Plan, PromptRole, Trigger};
use super::quiet::Memo;
use super::settings::{ParamSpec, SettingError, Settings};
use crate::analysis::Analysis;
use crate::session::Session;
use crate::tokens::{Counter, Counts};
use std::borrow::Cow;

/// What a preset reads: the session, its exact counts, groups, and the window in force.
#[derive(Debug, Clone, Copy)]
pub struct PlanInput<'a> {
    pub session: &'a Session,
    pub counts: &'a Counts,
    pub grouping: &'a Grouping,
    pub counter: &'a Counter,
    /// Context window in force (flag, source or registry).
    pub window: u64,
    /// The window the user gave with `--window`, which presets honour over their own lookup.
    pub window_flag: Option<u64>,
    pub model: Option<&'a str>,
    /// The session's last timestamp, for prompts that embed a date.
    pub now: Option<&'a str>,
    /// Records parsed by earlier plans of the same replay (`None`: parse every record).
    pub parsed: Option<&'a crate::compaction::parsed::Parsed>,
    /// What a replay carries across a preset's compactions (`None`: not a replay): the state
    /// the preset kept beside the history, and the messages of the framework's list an earlier
    /// compaction left out of `session` (only when `parsed` is given too: `compacted` may then
    /// leave more out; else `session` is the whole list, and `compacted` keeps it whole).
    /// Presets that carry nothing ignore it.
    pub carried: Option<&'a crate::compaction::after::Carried>,
    /// Whether a history `compacted` reads back keeps each message's raw record, for which its
    /// list is written out to bytes: a history planned again (the inspector's, a replay's)
    /// does; one the CLI's `compact` only shows and writes does not.
    pub after_records: bool,
    /// The plan will be carried out (`compact`): a preset may keep in `Plan::made` what its run
    /// left, for `offline_summary` and `compacted` to take rather than run it again, as a
    /// replay's plans (`parsed`) always do. A plan that is only shown keeps nothing.
    pub carries_out: bool,
    /// The summarizer request may be left to render when read (`Plan::deferred`): the command
    /// only counts, scans or previews it a message, or a piece of a message, at a time. A
    /// preset whose request renders the session's messages then keeps which, not their
    /// rendering.
    pub defer_request: bool,
}

impl<'a> PlanInput<'a> {
    /// `after::from_history` for a plan of this input; in a replay whose history keeps another
    /// format than the framework's (a Claude Code session planned as Agent Framework), the
    /// history's messages get no raw records and no bytes are written for them: the replay drops
    /// the raw records of a read-back history of another format (`replay::history`) and reads
    /// only its messages. Nor do they when no one asks for them (`after_records`).
    pub fn read_back(
        &self,
        history: serde_json::Value,
        format: crate::session::Format,
    ) -> Result<After, super::after::ReadBackError> {
        let raw_dropped = self.parsed.is_some() && self.session.format != format;
        super::after::read(
            self.session,
            history,
            format,
            self.after_records && !raw_dropped,
        )
    }

    /// Whether the plan may use every core: a single plan may; a replay's plans (those with
    /// `parsed`) leave its second core to the figures it computes aside.
    pub fn every_core(&self) -> bool {
        self.parsed.is_none()
    }

    pub fn new(a: &'a Analysis) -> PlanInput<'a> {
        PlanInput {
            session: &a.session,
            counts: &a.counts,
            grouping: &a.grouping,
            counter: &a.counter,
            window: a.window,
            window_flag: (a.window_source == crate::analysis::WindowSource::Flag)
                .then_some(a.window),
            model: a.model.as_deref(),
            now: a
                .session
                .messages
                .iter()
                .rev()
                .find_map(|m| m.timestamp.as_deref()),
            parsed: None,
            carried: None,
            after_records: true,
            carries_out: false,
            defer_request: false,
        }
    }

    /// The exact token total of the whole history.
    pub fn real_tokens(&self) -> usize {
        self.counts.total()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    Setting(#[from] SettingError),
    #[error("unknown preset `{name}`; known presets: {known}")]
    UnknownPreset { name: String, known: String },
    #[error("preset `{preset}`: {message}")]
    Invalid { preset: String, message: String },
    /// Whoever asked for the work stopped it (a replay's `Watch`).
    #[error("stopped before the end")]
    Stopped,
}

pub trait Preset: Sync {
    /// The name `--preset` takes.
    fn name(&self) -> &'static str;
    /// The framework and version emulated, e.g. `openhands-sdk 1.58.2`.
    fn framework(&self) -> &'static str;
    /// One line on what it emulates.
    fn description(&self) -> &'static str;
    /// Emulated from public behaviour rather than proven against the running framework.
    fn approximate(&self) -> bool {
        false
    }
    /// Parameters, with the framework's own names and defaults.
    fn params(&self) -> &'static [ParamSpec];
    /// The plan for `input` under `settings`.
    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError>;
    /// The trigger `plan` would report, when it can be told cheaply that it does not fire;
    /// `None` when it may fire or cannot be told cheaply (the caller then runs `plan`). Asked
    /// at every check of a replay, on a history that grows between checks: the per-message
    /// numbers it sums are kept in `memo`, which is fed the same growing history each time.
    /// `input.grouping` is empty here (groups are not computed for this question).
    fn quiet_trigger(
        &self,
        _input: &PlanInput,
        _settings: &Settings,
        _memo: &mut Memo,
    ) -> Option<Trigger> {
        None
    }
    /// The summary the framework itself writes without a model (its offline or fallback
    /// digest), when it has one; `None` lets ctxray's extractive digest stand in.
    fn offline_summary(&self, _input: &PlanInput, _plan: &Plan) -> Option<String> {
        None
    }
    /// The summary length (tokens) the framework asks its summarizer for, when it asks for one.
    fn summary_budget(&self, _plan: &Plan) -> Option<usize> {
        None
    }
    /// Where the framework checks its trigger as a session grows (read by `replay`).
    fn checks_at(&self) -> CheckPoint {
        CheckPoint::Request
    }
    /// The history the framework holds after `plan` is carried out with `summary` (the
    /// summarizer's text as returned): its own serialisation and the same history in the
    /// common model. The default splices the kept messages around the summary (`apply`).
    fn compacted(&self, input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
        super::after::generic(input.session, plan, summary)
    }
    /// Settings that carry the framework's in-process state into the next plan of one run
    /// (a compaction counter, a lowered threshold, a guard's memory), appended after the
    /// user's own `--set`s; `done` lists the compactions the run made so far, oldest first.
    fn carried_settings(&self, _settings: &Settings, _done: &[Done]) -> Vec<String> {
        Vec::new()
    }
    /// Whether the framework rejects a compaction after the summary comes back, keeping the
    /// history as it was. `before` is the history planned, `plan` its plan; `after` is the
    /// compacted history and `again` the plan of it under the settings that follow.
    fn rejects(&self, _check: &GuardCheck) -> bool {
        false
    }
    /// Whether `rejects` can ever reject (a replay gives such a preset the whole plan of each
    /// compacted history; for the others the trigger on it is enough).
    fn guards(&self) -> bool {
        false
    }
    /// Whether the history `compacted` makes of a Claude Code file is that file's own lines
    /// (the framework is Claude Code), so `compact` writes it as the framework does rather than
    /// splicing the source's lines around the summary.
    fn keeps_claude_code_lines(&self) -> bool {
        false
    }
}

/// One compaction of a run, as the framework's carried state sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// The trigger on the history that was compacted.
    pub before: Trigger,
    /// The trigger on the compacted history (under the settings after it).
    pub after: Trigger,
}

/// What a guard judges: the history before and after, and the plans of both.
pub struct GuardCheck<'a> {
    pub settings: &'a Settings,
    pub before: &'a PlanInput<'a>,
    pub plan: &'a Plan,
    pub after: &'a PlanInput<'a>,
    pub again: &'a Plan,
}

/// Where a framework evaluates its compaction trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckPoint {
    /// Before every model request, tool-loop steps included.
    Request,
    /// Only between user turns (before a user message that is not a tool result).
    UserTurn,
}

impl CheckPoint {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckPoint::Request => "request",
            CheckPoint::UserTurn => "user-turn",
        }
    }
}

/// The offline summary of a fired plan: the framework's own digest where it has one, else
/// ctxray's extractive digest of the summarized range as the framework's summarizer is shown it
/// (what its input does not hold — a preview's cut tail, tool calls a placeholder hides — is
/// not quoted).
pub fn offline_summary(preset: &dyn Preset, input: &PlanInput, plan: &Plan) -> String {
    preset.offline_summary(input, plan).unwrap_or_else(|| {
        if let Some(d) = plan
            .deferred
            .as_ref()
            .filter(|_| plan.summarizer.is_empty())
        {
            // Rendered a piece at a time, twice: once to measure, once to read. Every piece of
            // every message joined by line breaks is the request's messages joined by them.
            let bytes = |_: PromptRole, pieces: &mut dyn Iterator<Item = Cow<'_, str>>| {
                pieces.map(|p| p.len() + 1).sum::<usize>()
            };
            let joined: usize = d.map_pieces(input.session, bytes).into_iter().sum();
            let total = joined.saturating_sub(1);
            let pieces = || d.all_pieces(input.session);
            let summarized = &plan.split.summarized;
            return match d.is_empty() {
                true => super::digest::digest(input.session, summarized),
                false => super::digest::digest_seen_made(input.session, summarized, pieces, total),
            };
        }
        let shown: Vec<&str> = plan.summarizer.iter().map(|m| m.content.as_str()).collect();
        if shown.is_empty() {
            return super::digest::digest(input.session, &plan.split.summarized);
        }
        super::digest::digest_seen(input.session, &plan.split.summarized, &shown)
    })
}

/// Resolves settings and runs a preset, then adds the findings every plan gets from its
/// summarizer request (secrets that would be sent).
pub fn run(preset: &dyn Preset, input: &PlanInput, sets: &[String]) -> Result<Plan, PlanError> {
    let settings = Settings::resolve(preset.name(), preset.params(), sets)?;
    let mut plan = preset.plan(input, &settings)?;
    plan.findings
        .extend(super::plan::secret_findings(input.session, &plan));
    Ok(plan)
}
