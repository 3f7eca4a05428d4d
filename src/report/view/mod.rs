//! The typed documents of DESIGN.md's JSON contract: a session's report, a plan, a diff, a
//! compaction's result, a replay. Each borrows from what the core computed and serializes
//! with serde; the large lists (messages, groups, a diff's rows, a summarizer request) are
//! made one at a time as they are written, so a document of 100k messages is never built as a
//! tree first.
//!
//! Owns: the fields, their names and their order (fields are only ever added). Must not: run
//! anything, escape for a medium, or print.

pub mod diff;
pub mod plan;
pub mod replay;
pub mod session;

use serde::Serialize;

use crate::compaction::Finding;

/// A finding as every document shows it.
#[derive(Serialize)]
pub struct FindingView<'a> {
    pub code: &'a str,
    pub severity: &'a str,
    pub messages: &'a [usize],
    pub detail: &'a str,
}

impl<'a> FindingView<'a> {
    pub fn of(f: &'a Finding) -> FindingView<'a> {
        FindingView {
            code: f.code,
            severity: f.severity.as_str(),
            messages: &f.messages,
            detail: &f.detail,
        }
    }

    /// Every finding of `findings`.
    pub fn all(findings: impl IntoIterator<Item = &'a Finding>) -> Vec<FindingView<'a>> {
        findings.into_iter().map(FindingView::of).collect()
    }
}

/// Where a document's session was read from, as the short documents name it.
#[derive(Serialize)]
pub struct SourceName<'a> {
    pub path: &'a str,
    pub format: &'a str,
}

/// A lazily written sequence: `make` is called when the document is serialized.
pub struct Lazy<F>(pub F);

impl<F, I> Serialize for Lazy<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}
