//! `--format md` (and `html`) for `report`, `plan`, `diff` and `compact`: hands what the command
//! computed to the pure renderers of `crate::export` and writes the document.

use std::io::Write;

use super::compact_cmd::Compaction;
use crate::analysis::Analysis;
use crate::compaction::Plan;
use crate::export::{self, Compacted, Report};

/// Which command the document is for: it decides the sections shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Report,
    Plan,
    Diff,
    Compact,
}

/// The report of `kind` over what the command computed. The diff of the summarized range is
/// part of every plan-based document.
pub fn report<'a>(
    kind: Kind,
    a: &'a Analysis,
    plan: Option<&'a Plan>,
    diff: Option<&'a crate::diff::Diff>,
    done: Option<&'a Compaction>,
) -> Report<'a> {
    Report {
        analysis: a,
        messages: kind != Kind::Diff,
        plan,
        diff,
        compacted: done.map(|c| Compacted {
            summarizer: &c.summarizer,
            summary: c.summary.as_deref(),
            after: &c.after,
            findings: &c.findings,
        }),
    }
}

/// Writes the Markdown document of `kind`.
pub fn write_md(
    out: &mut impl Write,
    kind: Kind,
    a: &Analysis,
    plan: Option<&Plan>,
    done: Option<&Compaction>,
) -> std::io::Result<()> {
    let diff = plan.map(|p| crate::diff::diff(&a.session, p));
    let doc = export::md::render(&report(kind, a, plan, diff.as_ref(), done));
    out.write_all(doc.as_bytes())
}
