//! `diff --json`: the summarized range of a plan against what the summarizer is shown, per
//! message, its texts borrowed from the diff and the plan (a large range's evidence is not
//! copied into a tree before it is written).

use serde::Serialize;
use serde_json::Value;

use super::{FindingView, SourceName as Source};
use crate::analysis::Analysis;
use crate::compaction::Plan;
use crate::diff::evidence::Evidence;
use crate::diff::{Diff, MessageDiff};

/// The diff document of DESIGN.md's contract, its texts borrowed from the diff and the plan
/// (a large range's evidence is not copied into a tree before it is written).
impl<'a> DiffDoc<'a> {
    pub fn of(a: &'a Analysis, plan: &'a Plan, d: &'a Diff) -> DiffDoc<'a> {
        DiffDoc {
            source: Source {
                path: &a.session.source.path,
                format: a.session.format.name(),
            },
            preset: PresetDoc {
                name: plan.preset,
                framework: plan.framework,
                settings: plan.settings.to_json(),
            },
            trigger: TriggerDoc {
                fired: plan.trigger.fired,
                reason: &plan.trigger.reason,
            },
            summarized: &plan.split.summarized,
            summarizer_input_chars: d.input_chars,
            raw_chars: d.raw_chars,
            seen_chars: d.seen_chars,
            evidence_total: d.evidence_total,
            evidence_survived: d.evidence_survived,
            evidence_survival: d.evidence_survival(),
            messages: Messages(&d.messages),
            findings: FindingView::all(a.findings.iter().chain(&plan.findings)),
        }
    }
}

#[derive(Serialize)]
pub struct DiffDoc<'a> {
    source: Source<'a>,
    preset: PresetDoc<'a>,
    trigger: TriggerDoc<'a>,
    summarized: &'a [usize],
    summarizer_input_chars: usize,
    raw_chars: usize,
    seen_chars: usize,
    evidence_total: usize,
    evidence_survived: usize,
    evidence_survival: f64,
    messages: Messages<'a>,
    findings: Vec<FindingView<'a>>,
}

#[derive(Serialize)]
pub struct PresetDoc<'a> {
    name: &'a str,
    framework: &'a str,
    settings: Value,
}

#[derive(Serialize)]
pub struct TriggerDoc<'a> {
    fired: bool,
    reason: &'a str,
}

/// The per-message rows, made as they are written.
pub struct Messages<'a>(&'a [MessageDiff]);

impl Serialize for Messages<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|m| MessageDoc {
            index: m.index,
            role: m.role.as_str(),
            raw_chars: m.raw_chars,
            seen_chars: m.seen_chars,
            lost_chars: m.lost_chars(),
            tool_names_lost: &m.tool_names_lost,
            call_ids_lost: &m.call_ids_lost,
            arguments_total: m.arguments_total,
            arguments_lost: &m.arguments_lost,
            evidence: Evidences(&m.evidence),
        }))
    }
}

#[derive(Serialize)]
pub struct MessageDoc<'a> {
    index: usize,
    role: &'a str,
    raw_chars: usize,
    seen_chars: usize,
    lost_chars: usize,
    tool_names_lost: &'a [String],
    call_ids_lost: &'a [String],
    arguments_total: usize,
    arguments_lost: &'a [String],
    evidence: Evidences<'a>,
}

pub struct Evidences<'a>(&'a [(Evidence, bool)]);

impl Serialize for Evidences<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct EvidenceDoc<'a> {
            kind: &'a str,
            text: &'a str,
            survived: bool,
        }
        serializer.collect_seq(self.0.iter().map(|(e, s)| EvidenceDoc {
            kind: e.kind.as_str(),
            text: &e.text,
            survived: *s,
        }))
    }
}
