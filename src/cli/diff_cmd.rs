//! `ctxray diff`: the summarized range of a plan against what the summarizer is shown —
//! per message, characters seen and lost, lost tool names, call ids and arguments, and the
//! evidence-survival score.

use std::io::Write;

use super::style::Style;
use crate::analysis::Analysis;
use crate::compaction::Plan;
use crate::diff::Diff;

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
