//! `ctxray diff`: the summarized range of a plan against what the summarizer is shown —
//! per message, characters seen and lost, lost tool names, call ids and arguments, and the
//! evidence-survival score.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::report_json;
use super::style::Style;
use crate::analysis::Analysis;
use crate::compaction::Plan;
use crate::diff::evidence::Evidence;
use crate::diff::{Diff, MessageDiff};

/// The diff document of DESIGN.md's contract, its texts borrowed from the diff and the plan
/// (a large range's evidence is not copied into a tree before it is written).
pub fn diff_json<'a>(a: &'a Analysis, plan: &'a Plan, d: &'a Diff) -> impl Serialize + 'a {
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
        findings: a
            .findings
            .iter()
            .chain(&plan.findings)
            .map(report_json::finding)
            .collect(),
    }
}

#[derive(Serialize)]
struct DiffDoc<'a> {
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
    findings: Vec<Value>,
}

#[derive(Serialize)]
struct Source<'a> {
    path: &'a str,
    format: &'a str,
}

#[derive(Serialize)]
struct PresetDoc<'a> {
    name: &'a str,
    framework: &'a str,
    settings: Value,
}

#[derive(Serialize)]
struct TriggerDoc<'a> {
    fired: bool,
    reason: &'a str,
}

/// The per-message rows, made as they are written.
struct Messages<'a>(&'a [MessageDiff]);

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
struct MessageDoc<'a> {
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

struct Evidences<'a>(&'a [(Evidence, bool)]);

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

pub fn write_text(
    out: &mut impl Write,
    a: &Analysis,
    plan: &Plan,
    d: &Diff,
    st: Style,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}  {}  preset {}",
        st.bold(&crate::text::inline(&a.session.source.path)),
        a.session.format.name(),
        plan.preset
    )?;
    if plan.split.summarized.is_empty() {
        writeln!(out, "nothing is summarized: {}", plan.trigger.reason)?;
        return Ok(());
    }
    writeln!(
        out,
        "{} messages summarized · {} of {} characters reach the summarizer ({:.0}%) · evidence survival {}/{} ({:.0}%)",
        d.messages.len(),
        d.seen_chars,
        d.raw_chars,
        pct(d.seen_chars, d.raw_chars),
        d.evidence_survived,
        d.evidence_total,
        d.evidence_survival() * 100.0
    )?;
    for m in &d.messages {
        let bar = seen_bar(m.seen_chars, m.raw_chars, st);
        writeln!(
            out,
            "{:>5}  {:<9} {bar} {:>7} / {:<7} chars seen",
            m.index,
            m.role.as_str(),
            m.seen_chars,
            m.raw_chars
        )?;
        let lost = crate::report::lost::Lost::of(m);
        if !lost.is_empty() {
            writeln!(
                out,
                "       {}",
                st.paint("31", &format!("lost: {}", lost.line()))
            )?;
        }
    }
    for f in a.findings.iter().chain(&plan.findings) {
        writeln!(
            out,
            "{} {}: {}",
            st.severity(f.severity.as_str(), &format!("{:<5}", f.severity.as_str())),
            f.code,
            crate::text::inline(&f.detail)
        )?;
    }
    Ok(())
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        a as f64 * 100.0 / b as f64
    }
}

fn seen_bar(seen: usize, raw: usize, st: Style) -> String {
    const W: usize = 24;
    let filled = (seen * W).checked_div(raw).unwrap_or(W).min(W);
    format!(
        "{}{}",
        st.paint("32", &"█".repeat(filled)),
        st.paint("31", &"░".repeat(W - filled))
    )
}
