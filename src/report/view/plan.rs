//! `plan --json` and `compact --json`: a session's report, then what the preset decided (and,
//! for `compact`, what carrying it out left).

use crate::compaction::presets;
use serde::Serialize;
use serde_json::Value;

use super::session::{Head, Report};
use super::{FindingView, Lazy};
use crate::analysis::Analysis;
use crate::compaction::carry_out::Compacted;
use crate::compaction::plan::{source_fates, Plan, PromptMessage};

/// The plan document: the report's fields, then the plan's. Its findings are the session's and
/// the plan's.
#[derive(Serialize)]
pub struct PlanDoc<'a> {
    #[serde(flatten)]
    pub head: Head<'a>,
    pub children: Vec<Report<'a>>,
    pub findings: Vec<FindingView<'a>>,
    pub preset: PresetView<'a>,
    pub trigger: TriggerView<'a>,
    pub split: SplitView<'a>,
    pub kept_source_indices: Vec<usize>,
    pub summarized_source_indices: Vec<usize>,
    pub dropped_source_indices: Vec<usize>,
    pub summarizer: Request<'a>,
    pub insertion: Option<InsertionView<'a>>,
}

#[derive(Serialize)]
pub struct PresetView<'a> {
    pub name: &'a str,
    pub framework: &'a str,
    pub approximate: bool,
    pub settings: Value,
}

#[derive(Serialize)]
pub struct TriggerView<'a> {
    pub fired: bool,
    pub measure: &'a str,
    pub value: u64,
    pub threshold: u64,
    pub reason: &'a str,
    pub estimator: &'a str,
    /// The session's tokens as ctxray counts them.
    pub tokens: usize,
}

#[derive(Serialize)]
pub struct SplitView<'a> {
    pub pinned: &'a [usize],
    pub summarized: &'a [usize],
    pub kept: &'a [usize],
    pub dropped: &'a [usize],
}

/// The summarizer request, `{"messages": [{role, content}]}`, its texts borrowed from the
/// plan as they are written.
pub struct Request<'a>(pub &'a [PromptMessage]);

impl Serialize for Request<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Body<L> {
            messages: L,
        }
        let prompts = self.0;
        Body {
            messages: Lazy(|| {
                prompts.iter().map(|m| Prompt {
                    role: m.role.as_str(),
                    content: &m.content,
                })
            }),
        }
        .serialize(serializer)
    }
}

#[derive(Serialize)]
pub struct Prompt<'a> {
    pub role: &'a str,
    pub content: &'a str,
}

#[derive(Serialize)]
pub struct InsertionView<'a> {
    pub role: &'a str,
    pub position: usize,
    pub prefix: &'a str,
}

impl<'a> PlanDoc<'a> {
    pub fn of(a: &'a Analysis, plan: &'a Plan) -> PlanDoc<'a> {
        let fates = source_fates(&a.session, &plan.split);
        let t = &plan.trigger;
        PlanDoc {
            head: Head::of(a),
            children: a.children.iter().map(Report::of).collect(),
            findings: FindingView::all(a.findings.iter().chain(&plan.findings)),
            preset: PresetView {
                name: plan.preset,
                framework: plan.framework,
                approximate: presets::find(plan.preset).is_ok_and(|p| p.approximate()),
                settings: plan.settings.to_json(),
            },
            trigger: TriggerView {
                fired: t.fired,
                measure: t.measure,
                value: t.value,
                threshold: t.threshold,
                reason: &t.reason,
                estimator: &t.estimator,
                tokens: a.total_tokens(),
            },
            split: SplitView {
                pinned: &plan.split.pinned,
                summarized: &plan.split.summarized,
                kept: &plan.split.kept,
                dropped: &plan.split.dropped,
            },
            kept_source_indices: fates.kept,
            summarized_source_indices: fates.summarized,
            dropped_source_indices: fates.dropped,
            summarizer: Request(&plan.summarizer),
            insertion: plan.insertion.as_ref().map(|i| InsertionView {
                role: i.role.as_str(),
                position: i.position,
                prefix: &i.prefix,
            }),
        }
    }
}

/// The compact document: the plan's, and what carrying it out left.
#[derive(Serialize)]
pub struct CompactDoc<'a> {
    #[serde(flatten)]
    pub plan: PlanDoc<'a>,
    pub result: CompactionView<'a>,
}

#[derive(Serialize)]
pub struct CompactionView<'a> {
    pub summarizer: &'a str,
    pub summary: Option<&'a str>,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub secrets_masked: usize,
    pub rejected: bool,
    pub rejected_tokens_after: Option<usize>,
    pub history_format: Option<&'a str>,
    /// Masked as `-o` masks it: what is printed is what would be written.
    pub history: Value,
    pub messages: Vec<AfterMessage<'a>>,
    pub findings: Vec<FindingView<'a>>,
}

/// A message of the history a compaction left.
#[derive(Serialize)]
pub struct AfterMessage<'a> {
    pub role: &'a str,
    pub tokens: usize,
}

impl<'a> CompactDoc<'a> {
    pub fn of(before: &'a Analysis, plan: &'a Plan, c: &'a Compacted) -> CompactDoc<'a> {
        let after = &c.after;
        CompactDoc {
            plan: PlanDoc::of(before, plan),
            result: CompactionView {
                summarizer: &c.summarizer,
                summary: c.summary.as_deref(),
                tokens_before: before.total_tokens(),
                tokens_after: after.total_tokens(),
                secrets_masked: c.masked,
                rejected: c.rejected,
                rejected_tokens_after: c.rejected_tokens,
                history_format: c.history_format.map(|f| f.name()),
                history: crate::write::mask_json(&c.history).0,
                messages: (after.session.messages.iter())
                    .zip(&after.counts.messages)
                    .map(|(m, n)| AfterMessage {
                        role: m.role.as_str(),
                        tokens: n.total(),
                    })
                    .collect(),
                findings: FindingView::all(&c.findings),
            },
        }
    }
}
