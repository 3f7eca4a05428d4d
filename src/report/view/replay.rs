//! `replay --json`: a replay's steps and compactions, and the runs of `--compare` side by side.

use serde::Serialize;
use serde_json::Value;

use super::{FindingView, SourceName};
use crate::analysis::Analysis;
use crate::replay::{Compaction, Fidelity, Replay};

#[derive(Serialize)]
pub struct ReplayDoc<'a> {
    pub source: SourceName<'a>,
    pub preset: PresetName<'a>,
    pub checks_at: &'a str,
    pub window: u64,
    pub measure: &'a str,
    pub threshold: u64,
    pub thresholds: Vec<u64>,
    pub summary_tokens: Option<usize>,
    pub steps: Vec<StepView>,
    pub compactions: Vec<CompactionView<'a>>,
    pub rejected: Vec<RejectedView>,
    pub count: usize,
    pub peak_tokens: u64,
    pub removed_tokens: u64,
    pub input_fidelity: FidelityView,
    pub evidence_lost: Option<EvidenceLost>,
}

#[derive(Serialize)]
pub struct PresetName<'a> {
    pub name: &'a str,
    pub framework: &'a str,
    pub settings: Value,
}

#[derive(Serialize)]
pub struct StepView {
    pub source_index: usize,
    pub message: Option<usize>,
    pub tokens: u64,
    pub tokens_before: u64,
    pub fired: bool,
    pub value: u64,
    pub threshold: u64,
}

#[derive(Serialize)]
pub struct RejectedView {
    pub at_source_index: usize,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// What a summarizer input held of its range: characters and facts, each seen of all.
#[derive(Serialize)]
pub struct FidelityView {
    pub chars: usize,
    pub chars_seen: usize,
    pub facts: usize,
    pub facts_present: usize,
}

/// Facts of the summarized ranges, and how many of them no input carried.
#[derive(Serialize)]
pub struct EvidenceLost {
    pub facts: usize,
    pub lost: usize,
}

#[derive(Serialize)]
pub struct CompactionView<'a> {
    pub at_source_index: usize,
    pub message: Option<usize>,
    pub threshold: u64,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub messages_before: usize,
    pub messages_after: usize,
    pub summarized: usize,
    pub dropped: usize,
    pub removed_tokens: u64,
    pub summarizer_input_tokens: u64,
    pub input: FidelityView,
    pub summary_tokens: u64,
    pub evidence: Option<EvidenceLost>,
    pub reason: &'a str,
    pub findings: Vec<FindingView<'a>>,
}

impl FidelityView {
    fn of(f: Fidelity) -> FidelityView {
        FidelityView {
            chars: f.chars,
            chars_seen: f.chars_seen,
            facts: f.facts,
            facts_present: f.facts_present,
        }
    }
}

fn lost((facts, lost): (usize, usize)) -> EvidenceLost {
    EvidenceLost { facts, lost }
}

impl<'a> CompactionView<'a> {
    fn of(c: &'a Compaction) -> CompactionView<'a> {
        CompactionView {
            at_source_index: c.at_source_index,
            message: c.message,
            threshold: c.threshold,
            tokens_before: c.tokens_before,
            tokens_after: c.tokens_after,
            messages_before: c.messages_before,
            messages_after: c.messages_after,
            summarized: c.summarized,
            dropped: c.dropped,
            removed_tokens: c.removed_tokens,
            summarizer_input_tokens: c.summarizer_input_tokens,
            input: FidelityView::of(c.input),
            summary_tokens: c.summary_tokens,
            evidence: c.evidence.map(lost),
            reason: &c.reason,
            findings: FindingView::all(&c.findings),
        }
    }
}

impl<'a> ReplayDoc<'a> {
    pub fn of(a: &'a Analysis, r: &'a Replay) -> ReplayDoc<'a> {
        ReplayDoc {
            source: SourceName {
                path: &a.session.source.path,
                format: a.session.format.name(),
            },
            preset: PresetName {
                name: r.preset,
                framework: r.framework,
                settings: r.settings.to_json(),
            },
            checks_at: r.checks_at.as_str(),
            window: r.window,
            measure: r.measure,
            threshold: r.threshold,
            thresholds: r.thresholds(),
            summary_tokens: r.summary_tokens,
            steps: (r.steps.iter())
                .map(|s| StepView {
                    source_index: s.source_index,
                    message: s.message,
                    tokens: s.tokens,
                    tokens_before: s.tokens_before,
                    fired: s.fired,
                    value: s.value,
                    threshold: s.threshold,
                })
                .collect(),
            compactions: r.compactions.iter().map(CompactionView::of).collect(),
            rejected: (r.rejected.iter())
                .map(|x| RejectedView {
                    at_source_index: x.at_source_index,
                    tokens_before: x.tokens_before,
                    tokens_after: x.tokens_after,
                })
                .collect(),
            count: r.compactions.len(),
            peak_tokens: r.peak_tokens(),
            removed_tokens: r.removed_tokens(),
            input_fidelity: FidelityView::of(r.input_fidelity()),
            evidence_lost: r.evidence_lost().map(lost),
        }
    }
}

/// `replay --compare`: one replay per side, each with the side's label.
#[derive(Serialize)]
pub struct CompareDoc<'a> {
    pub compare: Vec<LabelledReplay<'a>>,
}

#[derive(Serialize)]
pub struct LabelledReplay<'a> {
    #[serde(flatten)]
    pub replay: ReplayDoc<'a>,
    pub label: &'a str,
}

impl<'a> CompareDoc<'a> {
    pub fn of(
        a: &'a Analysis,
        runs: impl Iterator<Item = (&'a str, &'a Replay)>,
    ) -> CompareDoc<'a> {
        CompareDoc {
            compare: runs
                .map(|(label, r)| LabelledReplay {
                    replay: ReplayDoc::of(a, r),
                    label,
                })
                .collect(),
        }
    }
}
