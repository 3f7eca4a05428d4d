//! One emulated `_run_compaction_strategy` over a session, and the `Plan` it becomes: the
//! framework's fates (kept = still included; summarized = not kept and back-linked to a
//! message inserted by this run; dropped = the rest), its trigger metric, the last summarizer
//! request, and where the summary lands in the compacted history.

use foldhash::HashSet;
use std::sync::Mutex;

use super::annotate::{
    annotate_groups, annotate_tokens, count_included_groups, group_kind, included_members,
    included_tokens,
};
use super::estimate::count_message;
use super::groups::GroupKind;
use super::model::{from_session_with, AfMsg, GROUP, SUMMARIZED_BY};
use super::params::{build, Strategy};
use super::settled::Outside;
use super::strategies::call;
use super::{findings, AfPreset, Version};
use crate::compaction::plan::{
    common_findings, Insertion, Made, Plan, PromptMessage, PromptRole, SessionKey, Split, Trigger,
};
use crate::compaction::preset::{PlanError, PlanInput};
use crate::compaction::settings::Settings;

/// What a run noticed on the way (session message indices).
#[derive(Debug, Default)]
pub struct Notes {
    pub summarized: Vec<usize>,
    /// Groups skipped by the input budget while nothing was selected: (messages, tokens, budget).
    pub skipped: Vec<(Vec<usize>, i64, i64)>,
    /// Groups left out when the input budget stopped selection, and the budget.
    pub unselected: Vec<(Vec<usize>, i64)>,
    /// Collapsed tool-call groups and the characters the 4,096 cap cut from each label.
    pub collapsed: Vec<(Vec<usize>, usize)>,
}

/// The framework's working list while a strategy runs.
pub struct Run {
    pub v: Version,
    /// The summarizer's text as returned (`None`: the `SUMMARY-<n>` the oracle's client gives).
    pub summary: Option<String>,
    pub msgs: Vec<AfMsg>,
    pub calls: Vec<Vec<PromptMessage>>,
    /// The messages of the last summarizer request, in the order it renders them.
    pub rendered: Vec<AfMsg>,
    pub log: Vec<String>,
    pub collisions: Vec<String>,
    pub inserted: Vec<String>,
    pub notes: Notes,
    /// The settled messages of a replay the list stands after (see `settled`).
    pub outside: Outside,
    /// A message was inserted with the id of a settled one: the run must be made over the
    /// whole list.
    pub reached: bool,
}

impl Run {
    pub fn insert(&mut self, at: usize, m: AfMsg) {
        if let Some(id) = m.id() {
            self.reached |= self.outside.has_id(id);
            self.inserted.push(id.to_string());
        }
        self.msgs.insert(at.min(self.msgs.len()), m);
    }

    fn origins(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter()
            .filter_map(|&i| self.msgs.get(i).and_then(|m| m.origin))
            .collect()
    }

    pub fn note_summarized(&mut self, idx: &[usize]) {
        let o = self.origins(idx);
        self.notes.summarized.extend(o);
    }
    pub fn note_skipped(&mut self, idx: &[usize], tokens: i64, budget: i64) {
        let o = self.origins(idx);
        self.notes.skipped.push((o, tokens, budget));
    }
    pub fn note_unselected(&mut self, idx: &[usize], budget: i64) {
        let o = self.origins(idx);
        self.notes.unselected.push((o, budget));
    }
    pub fn note_collapsed(&mut self, idx: &[usize], cut: usize) {
        let o = self.origins(idx);
        self.notes.collapsed.push((o, cut));
    }
}

/// The strategy's own trigger metric (name, value, threshold, rule).
/// Included groups of `kind` (`None`: every non-system group).
fn count_groups(run: &Run, kind: Option<GroupKind>) -> i64 {
    count_included_groups(&run.msgs, |k| match kind {
        Some(want) => k == want,
        None => k != GroupKind::System,
    }) as i64
}

pub fn measure(run: &Run, s: &Strategy) -> (&'static str, i64, i64, String) {
    let groups = |kind: Option<GroupKind>| count_groups(run, kind);
    let tokens = || included_tokens(&run.msgs, run.v);
    match s {
        Strategy::Summarization(p) => {
            let n = included_members(&run.msgs, |k| k != GroupKind::System) as i64;
            let rule = format!(
                "included non-system messages > target_count {} + threshold {}",
                p.target_count, p.threshold
            );
            ("messages", n, p.target_count + p.threshold, rule)
        }
        Strategy::Truncation(t) if t.tokens => token_measure(s, tokens()),
        Strategy::Truncation(t) => {
            let n = run.msgs.iter().filter(|m| !m.excluded()).count() as i64;
            truncation_messages(n, t.max_n)
        }
        Strategy::Sliding { keep, .. } => (
            "groups",
            groups(None),
            *keep,
            "unconditional: included non-system groups beyond keep_last_groups go".into(),
        ),
        Strategy::Selective { keep } | Strategy::ToolResult { keep } => (
            "tool-call groups",
            groups(Some(GroupKind::ToolCall)),
            *keep,
            "included tool_call groups > keep_last_tool_call_groups".into(),
        ),
        Strategy::TokenBudget { .. } | Strategy::ContextWindow(_) => token_measure(s, tokens()),
    }
}

/// The metric of a strategy that measures included `tokens` (truncation with a tokenizer,
/// token budget, context window); any other strategy's name with no threshold.
pub fn token_measure(s: &Strategy, tokens: i64) -> (&'static str, i64, i64, String) {
    match s {
        Strategy::Truncation(t) => ("tokens", tokens, t.max_n, "included tokens > max_n".into()),
        Strategy::TokenBudget { budget, .. } => (
            "tokens",
            tokens,
            *budget,
            "included tokens > token_budget".into(),
        ),
        Strategy::ContextWindow(c) => (
            "tokens",
            tokens,
            c.eviction_tokens,
            format!(
                "included tokens > {} (tool eviction); > {} (truncation)",
                c.eviction_tokens, c.truncation_tokens
            ),
        ),
        _ => ("tokens", tokens, 0, String::new()),
    }
}

/// `TruncationStrategy`'s metric without a tokenizer: `n` included messages against `max_n`.
pub fn truncation_messages(n: i64, max_n: i64) -> (&'static str, i64, i64, String) {
    (
        "messages",
        n,
        max_n,
        "included messages (system included) > max_n".into(),
    )
}

fn uses_tokenizer(s: &Strategy) -> bool {
    match s {
        Strategy::Truncation(t) => t.tokens,
        Strategy::Summarization(_) | Strategy::TokenBudget { .. } | Strategy::ContextWindow(_) => {
            true
        }
        _ => false,
    }
}

fn annotate(run: &mut Run, tokens: bool) {
    annotate_groups(&mut run.msgs, None, false, run.v, &run.outside);
    if tokens {
        annotate_tokens(&mut run.msgs, run.v, &run.outside);
    }
}

/// One `_run_compaction_strategy` over the session's list, and what the plan reports of it.
pub struct Executed {
    pub run: Run,
    pub changed: bool,
    pub measure: (&'static str, i64, i64, String),
    /// The metric after the run.
    pub after: i64,
}

/// Runs the preset's strategy over the session's list as the framework does, the summarizer
/// answering `summary` (`None`: `SUMMARY-<n>`).
pub fn execute(
    preset: &AfPreset,
    input: &PlanInput,
    settings: &Settings,
    summary: Option<&str>,
) -> Result<Executed, PlanError> {
    let strategy =
        build(preset.kind, settings, input.window).map_err(|message| PlanError::Invalid {
            preset: preset.name.into(),
            message,
        })?;
    // A list that meets the settled messages is run whole, as the framework runs it; so is
    // a run that inserted a message with a settled message's id.
    let list = || {
        super::held::list(input).unwrap_or_else(|| from_session_with(input.session, input.parsed))
    };
    let msgs = list();
    if input.every_core() && uses_tokenizer(&strategy) {
        // A plan made once estimates every message: on every core, before the framework's
        // walk asks for them in order (each estimate is kept with the message's contents).
        let v = preset.kind.version();
        crate::par::map(&msgs, 256, |m| count_message(m, v), |_| {});
    }
    let outside = Outside::of(input);
    let whole = |msgs| {
        run_over(
            preset,
            &strategy,
            outside.whole(msgs),
            Outside::default(),
            summary,
        )
    };
    if outside.meets(&msgs) {
        return Ok(whole(msgs));
    }
    let done = run_over(preset, &strategy, msgs, outside.clone(), summary);
    if done.run.reached {
        // Rare: the list is built again rather than copied for every run.
        return Ok(whole(list()));
    }
    Ok(done)
}

/// One run of `strategy` over the working list `msgs`, standing after `outside`.
fn run_over(
    preset: &AfPreset,
    strategy: &Strategy,
    msgs: Vec<AfMsg>,
    outside: Outside,
    summary: Option<&str>,
) -> Executed {
    let mut run = Run {
        v: preset.kind.version(),
        summary: summary.map(str::to_string),
        msgs,
        calls: Vec::new(),
        rendered: Vec::new(),
        log: Vec::new(),
        collisions: Vec::new(),
        inserted: Vec::new(),
        notes: Notes::default(),
        outside,
        reached: false,
    };
    let tokens = uses_tokenizer(strategy);
    annotate(&mut run, tokens);
    let measure = measure(&run, strategy);
    let changed = call(&mut run, strategy);
    if changed {
        annotate(&mut run, tokens);
    }
    let after = self::measure(&run, strategy).1;
    Executed {
        run,
        changed,
        measure,
        after,
    }
}

pub fn plan(preset: &AfPreset, input: &PlanInput, settings: &Settings) -> Result<Plan, PlanError> {
    let Executed {
        run,
        changed,
        measure: (measure_name, value, threshold, rule),
        after,
    } = execute(preset, input, settings, None)?;
    let split = split_of(&run, input.session.messages.len());
    let trigger = trigger(changed, (measure_name, value, threshold, &rule), after);
    let mut found = common_findings(input.session, &split, &trigger, input.real_tokens());
    found.extend(findings::of_run(
        &run,
        &split,
        changed,
        after,
        threshold,
        measure_name,
    ));
    let insertion = insertion(&run);
    let summarizer = run.calls.last().cloned().unwrap_or_default();
    // A plan that is carried out (every one of a replay's) keeps the list the run left: with
    // no summarizer text (every strategy but summarization), the compaction is this very run
    // (`history::compacted`).
    let made = if input.parsed.is_some() || input.carries_out {
        Made::keep(Kept::of(input, run))
    } else {
        Made::default()
    };
    Ok(Plan {
        preset: preset.name,
        framework: preset.framework,
        settings: settings.clone(),
        insertion,
        summarizer,
        deferred: None,
        trigger,
        split,
        findings: found,
        made,
    })
}

/// What a plan's run left, for the session the plan was made of: the messages its
/// summarizer request rendered (the offline digest reads them), and the list itself, taken by
/// the one compaction that carries the plan out (a plan carried out again runs its strategy
/// again).
pub struct Kept {
    /// The session planned.
    session: SessionKey,
    pub v: Version,
    pub rendered: Vec<AfMsg>,
    /// The id of the summary the run inserted, if it did.
    pub summary: Option<String>,
    left: Mutex<Option<Left>>,
}

/// The list a plan's run left and what it stood after.
pub struct Left {
    pub msgs: Vec<AfMsg>,
    pub outside: Outside,
}

impl Kept {
    fn of(input: &PlanInput, run: Run) -> Kept {
        Kept {
            session: SessionKey::of(input.session),
            v: run.v,
            summary: last_summary(&run).map(str::to_string),
            rendered: run.rendered,
            left: Mutex::new(Some(Left {
                msgs: run.msgs,
                outside: run.outside,
            })),
        }
    }

    /// Whether this is the run of a plan of `input`'s session.
    pub fn is_of(&self, input: &PlanInput) -> bool {
        self.session == SessionKey::of(input.session)
    }

    /// The list the run left, unless it was taken or this is another session's run.
    pub fn take(&self, input: &PlanInput) -> Option<Left> {
        if !self.is_of(input) {
            return None;
        }
        self.left.lock().ok()?.take()
    }
}

/// The trigger a plan reports: the strategy's metric `(name, value, threshold, rule)`, whether
/// the strategy changed the list, and the metric after it.
pub fn trigger(changed: bool, measure: (&'static str, i64, i64, &str), after: i64) -> Trigger {
    let (measure_name, value, threshold, rule) = measure;
    Trigger {
        fired: changed,
        measure: measure_name,
        value: value.max(0) as u64,
        threshold: threshold.max(0) as u64,
        reason: reason(changed, value, threshold, after, rule),
        estimator: match measure_name {
            "tokens" => "CharacterEstimatorTokenizer: max(1, len(json.dumps({role, message_id, contents}, ensure_ascii=False, sort_keys=True)) // 4) per message".into(),
            _ => format!("{measure_name} counted over the framework's `_group` annotations"),
        },
    }
}

fn reason(changed: bool, value: i64, threshold: i64, after: i64, rule: &str) -> String {
    if changed {
        format!("{rule}: {value} against {threshold}; {after} after compaction")
    } else {
        format!("{rule}: {value} against {threshold}; the strategy changed nothing")
    }
}

/// Message fates as the oracle derives them.
fn split_of(run: &Run, n: usize) -> Split {
    let inserted: HashSet<&str> = run.inserted.iter().map(String::as_str).collect();
    let mut split = Split::default();
    let mut placed = vec![false; n];
    for m in &run.msgs {
        let Some(i) = m.origin.filter(|&i| i < n) else {
            continue;
        };
        placed[i] = true;
        let kept = !m.excluded();
        let by = m
            .props
            .get(GROUP)
            .and_then(|g| g.get(SUMMARIZED_BY))
            .and_then(|v| v.as_str());
        let rendered = by.is_some_and(|id| inserted.contains(id));
        if kept && group_kind(m) == Some(GroupKind::System) {
            split.pinned.push(i);
        } else if kept {
            split.kept.push(i);
        }
        if rendered {
            split.summarized.push(i);
        }
        if !kept && !rendered {
            split.dropped.push(i);
        }
    }
    split.dropped.extend((0..n).filter(|&i| !placed[i]));
    for list in [
        &mut split.pinned,
        &mut split.kept,
        &mut split.summarized,
        &mut split.dropped,
    ] {
        list.sort_unstable();
    }
    split
}

/// The id of the newest summary the run inserted.
fn last_summary(run: &Run) -> Option<&str> {
    run.inserted
        .iter()
        .rev()
        .find(|id| id.starts_with("summary_"))
        .map(String::as_str)
}

/// The newest summary's place in the compacted (included) history; no prefix.
fn insertion(run: &Run) -> Option<Insertion> {
    let id = last_summary(run)?;
    let mut pos = None;
    for (p, m) in run.msgs.iter().filter(|m| !m.excluded()).enumerate() {
        if m.origin.is_none() && m.id() == Some(id) {
            pos = Some(p);
        }
    }
    Some(Insertion {
        role: PromptRole::Assistant,
        position: pos?,
        prefix: String::new(),
        suffix: String::new(),
        replaces: None,
    })
}
