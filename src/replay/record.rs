//! What a replay records: its check points (steps), the compactions it made with what each
//! removed and what its summarizer was shown, the attempts a guard rejected, and the run's
//! totals.
//!
//! Owns: these types, the totals over a run, and filling in a quiet step and a
//! compaction's findings. Must not: run the replay (`replay`).

use crate::compaction::preset::CheckPoint;
use crate::compaction::{Finding, Settings, Severity, Trigger};

pub use super::evidence::Fidelity;

/// One check point: the framework's trigger evaluated on the history as it stood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The original message the check precedes (`None`: the next request, after the last).
    pub message: Option<usize>,
    /// Its first source record (one past the last record for the next request).
    pub source_index: usize,
    /// Exact tokens of the history sent at this point (after the compaction, if one applied).
    pub tokens: u64,
    /// Exact tokens of the history before any compaction at this point.
    pub tokens_before: u64,
    /// Whether the trigger fired (and the plan had something to compact).
    pub fired: bool,
    /// The framework's own measure and threshold at this point (`measure` of the replay).
    pub value: u64,
    pub threshold: u64,
}

/// A compaction the preset made during the replay.
#[derive(Debug, Clone)]
pub struct Compaction {
    /// Index into `Replay::steps`.
    pub step: usize,
    pub at_source_index: usize,
    pub message: Option<usize>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub messages_before: usize,
    pub messages_after: usize,
    /// Messages rendered into the summarizer input and not kept.
    pub summarized: usize,
    /// Messages removed without being summarized.
    pub dropped: usize,
    /// Exact tokens of the summarized and dropped messages.
    pub removed_tokens: u64,
    /// Exact tokens of the summarizer request (0 for strategies without one).
    pub summarizer_input_tokens: u64,
    /// Exact tokens of the summary as returned (before the framework's prefix).
    pub summary_tokens: u64,
    /// The framework's threshold in force at this compaction (its step's).
    pub threshold: u64,
    /// What the summarizer input holds of the summarized range (zero for strategies without
    /// one); it does not depend on the summary, so a stand-in summary has it too.
    pub input: Fidelity,
    /// Facts (paths, commands, numbers, identifiers) of the removed messages, and how many of
    /// them the summary does not carry; `None` with a stand-in summary.
    pub evidence: Option<(usize, usize)>,
    pub reason: String,
    pub findings: Vec<Finding>,
}

/// A compaction the framework made and then threw away (a shrink guard), the history kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub step: usize,
    pub at_source_index: usize,
    pub tokens_before: u64,
    /// Exact tokens of the rejected result.
    pub tokens_after: u64,
}

#[derive(Debug, Clone)]
pub struct Replay {
    pub preset: &'static str,
    pub framework: &'static str,
    pub settings: Settings,
    pub checks_at: CheckPoint,
    /// The preset's own window when its settings give one (`context_window`,
    /// `config_context_length` …), else the analysis' window.
    pub window: u64,
    /// What the framework measures, and its threshold at the first check point (a threshold
    /// that moves during the run, such as Hermes' auxiliary window, is in each step).
    pub measure: &'static str,
    pub threshold: u64,
    pub summary_tokens: Option<usize>,
    pub steps: Vec<Step>,
    pub compactions: Vec<Compaction>,
    pub rejected: Vec<Rejected>,
}

impl Replay {
    /// The largest history sent with a request.
    pub fn peak_tokens(&self) -> u64 {
        self.steps.iter().map(|s| s.tokens).max().unwrap_or(0)
    }

    /// Exact tokens summarized or dropped over the run.
    pub fn removed_tokens(&self) -> u64 {
        self.compactions.iter().map(|c| c.removed_tokens).sum()
    }

    /// What the summarizer inputs held of their ranges, summed over the run.
    pub fn input_fidelity(&self) -> Fidelity {
        self.compactions
            .iter()
            .fold(Fidelity::default(), |t, c| t.plus(c.input))
    }

    /// The thresholds in force over the run, each change once, in order (one value unless the
    /// framework moves it, such as Hermes' lowered one).
    pub fn thresholds(&self) -> Vec<u64> {
        let mut out: Vec<u64> = self.steps.iter().map(|s| s.threshold).collect();
        out.dedup();
        if out.is_empty() {
            out.push(self.threshold);
        }
        out
    }

    /// Facts lost over the run (`None` when a stand-in summary was used).
    pub fn evidence_lost(&self) -> Option<(usize, usize)> {
        self.compactions.iter().try_fold((0, 0), |(t, l), c| {
            c.evidence.map(|(total, lost)| (t + total, l + lost))
        })
    }
}

/// Records a check at which the trigger stays quiet.
pub(super) fn record_step(
    out: &mut Replay,
    trigger: &Trigger,
    message: Option<usize>,
    source_index: usize,
    tokens: u64,
) {
    if out.steps.is_empty() {
        out.measure = trigger.measure;
        out.threshold = trigger.threshold;
    }
    out.steps.push(Step {
        message,
        source_index,
        tokens,
        tokens_before: tokens,
        fired: trigger.fired,
        value: trigger.value,
        threshold: trigger.threshold,
    });
}

pub(super) fn findings(before: u64, after: u64, fires_again: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    if after >= before {
        out.push(Finding {
            code: "summary-grows-request",
            severity: Severity::Error,
            messages: Vec::new(),
            detail: format!(
                "the compacted history is {after} tokens, not below the {before} before it"
            ),
        });
    }
    if fires_again {
        out.push(Finding {
            code: "fires-again-at-once",
            severity: Severity::Warn,
            messages: Vec::new(),
            detail:
                "the trigger still fires on the compacted history: the next check compacts again"
                    .into(),
        });
    }
    out
}
