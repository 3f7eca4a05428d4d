//! `openhands`: openhands-sdk 1.58.2 `LLMSummarizingCondenser`, exactly as shipped; and
//! `openhands-fixed`: the same trigger and cut with whole events in the summarizer input.
//!
//! Pipeline: `events` (the raw records, or OpenHands-shaped events from the common model) →
//! `view` (`View.from_events`) → `count` (the TOKENS measure) → `cut` (reasons, forgotten
//! range, fallbacks) → `render` (`str(event)`) or `fixed` (whole events) → `findings`.
//! `after` carries a plan out: the `Condensation`, the View it leaves and the event log.
//! This file owns the presets' parameters and assembling the `Plan`.

mod after;
mod consts;
mod count;
mod cut;
mod events;
mod findings;
mod fixed;
mod quiet;
mod render;
mod view;

use std::collections::BTreeSet;

use crate::compaction::after::After;
use crate::compaction::plan::{
    common_findings, Insertion, Plan, PromptMessage, PromptRole, Split, Trigger,
};
use crate::compaction::preset::{PlanError, PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::settings::{Kind, ParamSpec, Settings};

use cut::{Decision, Outcome, Params};
use events::Record;
use view::View;

pub struct OpenHands;
pub struct OpenHandsFixed;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "max_size",
        kind: Kind::Int,
        default: "240",
        nullable: false,
        help: "condense when the view holds more than max_size events (EVENTS, a soft requirement)",
    },
    ParamSpec {
        name: "keep_first",
        kind: Kind::Int,
        default: "2",
        nullable: false,
        help: "events at the head never forgotten (rounded up to the next allowed cut; the system prompt is always kept)",
    },
    ParamSpec {
        name: "max_tokens",
        kind: Kind::Int,
        default: "null",
        nullable: true,
        help: "condense when litellm's count exceeds min(max_tokens, agent window) (TOKENS, hard)",
    },
    ParamSpec {
        name: "minimum_progress",
        kind: Kind::Float,
        default: "0.1",
        nullable: false,
        help: "a cut forgetting fewer than this fraction of the view is refused",
    },
];

impl Preset for OpenHands {
    fn name(&self) -> &'static str {
        "openhands"
    }
    fn framework(&self) -> &'static str {
        "openhands-sdk 1.58.2"
    }
    fn description(&self) -> &'static str {
        "LLMSummarizingCondenser: max_size/keep_first/max_tokens; summarizer sees str(event) — 500-char previews, no tool arguments"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
        build(self, input, settings, false)
    }
    fn quiet_trigger(
        &self,
        input: &PlanInput,
        settings: &Settings,
        memo: &mut Memo,
    ) -> Option<Trigger> {
        quiet_trigger(self, input, settings, memo)
    }
    fn compacted(&self, input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
        after::compacted(self, input, plan, summary)
    }
}

impl Preset for OpenHandsFixed {
    fn name(&self) -> &'static str {
        "openhands-fixed"
    }
    fn framework(&self) -> &'static str {
        "openhands-sdk 1.58.2 (fixed summarizer input)"
    }
    fn description(&self) -> &'static str {
        "openhands' trigger and cut; whole events (arguments, whole previous summary, head+tail at 10,000 chars), shrunk 20% per retry to fit the window"
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn plan(&self, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
        build(self, input, settings, true)
    }
    fn quiet_trigger(
        &self,
        input: &PlanInput,
        settings: &Settings,
        memo: &mut Memo,
    ) -> Option<Trigger> {
        quiet_trigger(self, input, settings, memo)
    }
    fn compacted(&self, input: &PlanInput, plan: &Plan, summary: Option<&str>) -> After {
        after::compacted(self, input, plan, summary)
    }
}

fn params(
    preset: &dyn Preset,
    input: &PlanInput,
    settings: &Settings,
) -> Result<Params, PlanError> {
    let p = Params {
        max_size: settings.int("max_size").unwrap_or(240),
        keep_first: settings.int("keep_first").unwrap_or(2),
        max_tokens: settings.int("max_tokens"),
        minimum_progress: settings.float("minimum_progress").unwrap_or(0.1),
        window: i64::try_from(input.window).unwrap_or(i64::MAX),
    };
    let invalid = |message: String| PlanError::Invalid {
        preset: preset.name().into(),
        message,
    };
    if p.max_size <= 0 {
        return Err(invalid("max_size must be greater than 0".into()));
    }
    if p.keep_first < 0 {
        return Err(invalid("keep_first must be at least 0".into()));
    }
    if p.max_size.div_euclid(2) - p.keep_first - 1 <= 0 {
        return Err(invalid(
            "keep_first must be less than max_size // 2 to leave room for condensation".into(),
        ));
    }
    if !(p.minimum_progress > 0.0 && p.minimum_progress < 1.0) {
        return Err(invalid(
            "minimum_progress must be between 0 and 1 (exclusive)".into(),
        ));
    }
    Ok(p)
}

/// The condenser's view of `input` and its decision under `settings`.
pub(crate) struct Decided {
    records: Vec<Record>,
    view: View,
    decision: Decision,
    params: Params,
    /// The forgotten range of the view (empty when nothing is condensed); the summary goes
    /// at its start.
    forgotten: (usize, usize),
}

fn decided(
    preset: &dyn Preset,
    input: &PlanInput,
    settings: &Settings,
) -> Result<Decided, PlanError> {
    let params = params(preset, input, settings)?;
    let every_core = input.every_core();
    let records = events::records(input.session, every_core);
    let view = View::from_records(&records);
    let costs = if every_core {
        count::Costs::new_on_every_core(&records, &view.events, input.counter)
    } else {
        count::Costs::new(&records, &view.events, input.counter)
    };
    let decision = cut::decide(&view, &records, &costs, &params);
    let forgotten = match decision.outcome {
        Outcome::Condense { start, end } => (start, end),
        Outcome::HardReset { start, .. } => (start, view.events.len()),
        _ => (0, 0),
    };
    Ok(Decided {
        records,
        view,
        decision,
        params,
        forgotten,
    })
}

fn build(
    preset: &dyn Preset,
    input: &PlanInput,
    settings: &Settings,
    fixed: bool,
) -> Result<Plan, PlanError> {
    let Decided {
        records,
        view,
        decision: d,
        params: p,
        forgotten: (pin_end, forget_end),
    } = decided(preset, input, settings)?;
    let forgotten = view.events.get(pin_end..forget_end).unwrap_or_default();
    let split = split_of(input, &view, pin_end, forget_end);
    let (summarizer, mut findings) = if forgotten.is_empty() {
        (Vec::new(), Vec::new())
    } else if fixed {
        fixed::summarizer(&records, forgotten, input)
    } else {
        let (user, cuts) = summarizer_user(&records, forgotten);
        let messages = prompt(user);
        (messages, findings::lossy(&records, forgotten, &cuts))
    };
    let trigger = trigger(view.events.len(), &d, &p);
    let mut all = common_findings(input.session, &split, &trigger, input.real_tokens());
    all.append(&mut findings);
    all.extend(findings::outcome(&d, &view));
    let position = split.pinned.len();
    Ok(Plan {
        preset: preset.name(),
        framework: preset.framework(),
        settings: settings.clone(),
        trigger,
        split,
        summarizer,
        deferred: None,
        insertion: (!forgotten.is_empty()).then(|| Insertion {
            role: PromptRole::User,
            position,
            prefix: String::new(),
            suffix: String::new(),
            replaces: None,
        }),
        findings: all,
        made: Default::default(),
    })
}

/// The summarizer request: `summarizing_system.j2` and the events prompt.
fn prompt(user: String) -> Vec<PromptMessage> {
    vec![
        PromptMessage {
            role: PromptRole::System,
            content: consts::SUMMARIZING_SYSTEM.to_string(),
        },
        PromptMessage {
            role: PromptRole::User,
            content: user,
        },
    ]
}

/// `summarizing_events.j2` over `str(event)`, stripped; and the characters each preview cut.
fn summarizer_user(records: &[Record], forgotten: &[view::Ev]) -> (String, Vec<usize>) {
    let (strings, cuts): (Vec<String>, Vec<usize>) = forgotten
        .iter()
        .map(|e| render::event_str(records, e))
        .unzip();
    (events_prompt(&strings), cuts)
}

pub(crate) fn events_prompt(strings: &[String]) -> String {
    let mut prompt = EventsPrompt::with_capacity(strings.iter().map(String::len).sum());
    for s in strings {
        prompt.event(|out| out.push_str(s));
    }
    prompt.finish()
}

/// `summarizing_events.j2` written event by event into one string.
pub(crate) struct EventsPrompt(String);

impl EventsPrompt {
    const OPEN: &'static str = "\n<EVENT>\n";
    const CLOSE: &'static str = "\n</EVENT>\n";
    const END: &'static str = "\n\nNow summarize the events using the rules above.";

    /// A prompt with room for `events_len` bytes of event strings.
    pub(crate) fn with_capacity(events_len: usize) -> EventsPrompt {
        EventsPrompt(String::with_capacity(events_len + Self::END.len() + 64))
    }

    /// One event, its string written by `write`; what `write` returns.
    pub(crate) fn event<R>(&mut self, write: impl FnOnce(&mut String) -> R) -> R {
        self.0.push_str(Self::OPEN);
        let r = write(&mut self.0);
        self.0.push_str(Self::CLOSE);
        r
    }

    /// The prompt, stripped (in place: the prompt can be most of a session).
    pub(crate) fn finish(self) -> String {
        let mut out = self.0;
        out.push_str(Self::END);
        let end = out.trim_end().len();
        out.truncate(end);
        let start = out.len() - out.trim_start().len();
        out.drain(..start);
        out
    }
}

/// Message indices by fate: the view before the cut is pinned, the forgotten range is
/// summarized, the rest of the view is kept; every other message is dropped.
fn split_of(input: &PlanInput, view: &View, start: usize, end: usize) -> Split {
    let msgs = |range: std::ops::Range<usize>| -> BTreeSet<usize> {
        view.events
            .get(range)
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e.msg)
            .collect()
    };
    let pinned = msgs(0..start);
    let summarized: BTreeSet<usize> = msgs(start..end).difference(&pinned).copied().collect();
    let kept: BTreeSet<usize> = msgs(end..view.events.len())
        .into_iter()
        .filter(|m| !pinned.contains(m) && !summarized.contains(m))
        .collect();
    let dropped = (0..input.session.messages.len())
        .filter(|m| !pinned.contains(m) && !summarized.contains(m) && !kept.contains(m))
        .collect();
    Split {
        pinned: pinned.into_iter().collect(),
        summarized: summarized.into_iter().collect(),
        kept: kept.into_iter().collect(),
        dropped,
    }
}

/// The trigger `plan` reports when the view is every event so far and neither the event
/// count nor litellm's count is over its limit; `None` otherwise.
fn quiet_trigger(
    preset: &dyn Preset,
    input: &PlanInput,
    settings: &Settings,
    memo: &mut Memo,
) -> Option<Trigger> {
    let p = params(preset, input, settings).ok()?;
    let state = memo.state::<quiet::State>("openhands")?;
    let (len, token_count) = quiet::view_numbers(input.session, input.counter, state)?;
    let d = Decision {
        request: false,
        tokens: token_count as i64 > p.token_limit(),
        events: len as i64 > p.max_size,
        token_count,
        outcome: Outcome::Nothing,
    };
    (!d.tokens && !d.events).then(|| trigger(len, &d, &p))
}

fn trigger(len: usize, d: &Decision, p: &Params) -> Trigger {
    let len = len as u64;
    let fired = matches!(
        d.outcome,
        Outcome::Condense { .. } | Outcome::HardReset { .. }
    );
    let limit = p.token_limit().max(0) as u64;
    let (measure, value, threshold) = if d.tokens {
        ("tokens", d.token_count as u64, limit)
    } else {
        ("events", len, p.max_size.max(0) as u64)
    };
    let mut reasons = Vec::new();
    if d.request {
        reasons.push("a CondensationRequest is pending (REQUEST, hard)".to_string());
    }
    if d.tokens {
        reasons.push(format!("{} tokens > {limit} (TOKENS, hard)", d.token_count));
    }
    if d.events {
        reasons.push(format!(
            "{len} events > max_size {} (EVENTS, soft)",
            p.max_size
        ));
    }
    let reason = match &d.outcome {
        Outcome::Nothing => format!(
            "{len} events ≤ max_size {} and {} tokens ≤ {limit}",
            p.max_size, d.token_count
        ),
        Outcome::Condense { start, end } => {
            format!("{}: forget view[{start}:{end}]", reasons.join("; "))
        }
        Outcome::SoftReturn { why } => {
            format!("{}, but {why}: view returned unchanged", reasons.join("; "))
        }
        Outcome::HardReset { why, .. } => format!(
            "{}, but {why}: hard_context_reset summarizes everything after the system prompt",
            reasons.join("; ")
        ),
        Outcome::Fails { why } => format!(
            "{}, but {why}, and a hard reset has nothing to summarize",
            reasons.join("; ")
        ),
    };
    Trigger {
        fired,
        measure,
        value,
        threshold,
        reason,
        estimator: "len(view) for events; litellm.token_counter (o200k, 3 per message, tool schemas) for tokens".into(),
    }
}
