//! `report --json`: a session, its counts, groups, marks and findings, and its children.

use serde::Serialize;

use super::{FindingView, Lazy};
use crate::analysis::Analysis;
use crate::session::{CompactionMark, Message, Part, Skipped, Usage};

/// The fields every session document starts with (`report`, and before a plan's fields).
#[derive(Serialize)]
pub struct Head<'a> {
    pub source: Source<'a>,
    pub id: Option<&'a str>,
    pub title: Option<&'a str>,
    pub tokenizer: &'a str,
    pub tokenizer_approximate: bool,
    pub model: Option<&'a str>,
    pub context_window: u64,
    pub context_window_source: &'a str,
    pub messages: Messages<'a>,
    pub groups: Groups<'a>,
    pub marks: Vec<Mark<'a>>,
    pub total_tokens: usize,
    pub text_tokens: usize,
    pub overhead_tokens: usize,
    pub window_fill: f64,
    pub last_reported_context_tokens: Option<u64>,
}

#[derive(Serialize)]
pub struct Source<'a> {
    pub path: &'a str,
    pub format: &'a str,
    pub records: usize,
    pub skipped_lines: usize,
    pub skipped: Vec<SkippedLine<'a>>,
}

#[derive(Serialize)]
pub struct SkippedLine<'a> {
    pub line: usize,
    pub reason: &'a str,
}

#[derive(Serialize)]
pub struct Mark<'a> {
    pub kind: &'a str,
    pub source_index: usize,
    pub before_message: usize,
    pub trigger: Option<&'a str>,
    pub pre_tokens: Option<u64>,
    pub post_tokens: Option<u64>,
    pub summary_chars: Option<usize>,
}

/// The report of one session and, nested, its children.
#[derive(Serialize)]
pub struct Report<'a> {
    #[serde(flatten)]
    pub head: Head<'a>,
    pub findings: Vec<FindingView<'a>>,
    pub children: Vec<Report<'a>>,
}

impl<'a> Report<'a> {
    pub fn of(a: &'a Analysis) -> Report<'a> {
        Report {
            head: Head::of(a),
            findings: FindingView::all(&a.findings),
            children: a.children.iter().map(Report::of).collect(),
        }
    }
}

impl<'a> Head<'a> {
    pub fn of(a: &'a Analysis) -> Head<'a> {
        let s = &a.session;
        let total = a.total_tokens();
        Head {
            source: Source {
                path: &s.source.path,
                format: s.format.name(),
                records: s.source.records,
                skipped_lines: s.source.skipped.len(),
                skipped: s.source.skipped.iter().map(SkippedLine::of).collect(),
            },
            id: s.id.as_deref(),
            title: s.title.as_deref(),
            tokenizer: a.counter.encoding().name(),
            tokenizer_approximate: a.info.approximate,
            model: a.model.as_deref(),
            context_window: a.window,
            context_window_source: a.window_source.as_str(),
            messages: Messages(a),
            groups: Groups(a),
            marks: s.marks.iter().map(Mark::of).collect(),
            total_tokens: total,
            text_tokens: a.counts.messages.iter().map(|c| c.tokens).sum(),
            overhead_tokens: a.counts.messages.iter().map(|c| c.overhead).sum(),
            window_fill: if a.window > 0 {
                total as f64 / a.window as f64
            } else {
                0.0
            },
            last_reported_context_tokens: a.last_reported_context(),
        }
    }
}

impl<'a> SkippedLine<'a> {
    fn of(k: &'a Skipped) -> SkippedLine<'a> {
        SkippedLine {
            line: k.line,
            reason: &k.reason,
        }
    }
}

impl<'a> Mark<'a> {
    fn of(k: &'a CompactionMark) -> Mark<'a> {
        Mark {
            kind: &k.kind,
            source_index: k.source_index,
            before_message: k.before_message,
            trigger: k.trigger.as_deref(),
            pre_tokens: k.pre_tokens,
            post_tokens: k.post_tokens,
            summary_chars: k.summary.as_ref().map(|t| t.chars().count()),
        }
    }
}

/// The per-message entries, made as they are written.
pub struct Messages<'a>(&'a Analysis);

impl Serialize for Messages<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let rows = a.session.messages.iter().zip(&a.counts.messages);
        Lazy(|| rows.clone().map(|(m, c)| MessageRow::of(a, m, c))).serialize(serializer)
    }
}

/// One message of the report.
#[derive(Serialize)]
pub struct MessageRow<'a> {
    pub index: usize,
    pub source_index: usize,
    pub source_indices: &'a [usize],
    pub role: &'a str,
    pub parts: Vec<&'a str>,
    pub tool_names: Vec<String>,
    pub tokens: usize,
    pub overhead_tokens: usize,
    pub reported_tokens: Option<u64>,
    pub usage: Option<UsageView>,
    pub group: Option<usize>,
    pub id: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub model: Option<&'a str>,
}

impl<'a> MessageRow<'a> {
    fn of(a: &'a Analysis, m: &'a Message, c: &crate::tokens::MessageCount) -> MessageRow<'a> {
        MessageRow {
            index: m.index,
            source_index: m.source_index,
            source_indices: &m.source_indices,
            role: m.role.as_str(),
            parts: m.parts.iter().map(Part::kind).collect(),
            tool_names: m.tool_names(),
            tokens: c.tokens,
            overhead_tokens: c.overhead,
            reported_tokens: reported_tokens(m),
            usage: m.usage.as_ref().map(UsageView::of),
            group: a.grouping.of_message.get(m.index).copied().flatten(),
            id: m.id.as_deref(),
            timestamp: m.timestamp.as_deref(),
            model: m.model.as_deref(),
        }
    }
}

/// The provider's own count of this message: the completion tokens of the response that
/// produced it (reasoning included), where the source reports usage.
pub fn reported_tokens(m: &Message) -> Option<u64> {
    m.usage.as_ref()?.output
}

/// What the provider reported for the response a message came from.
#[derive(Serialize)]
pub struct UsageView {
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub cache_read: Option<u64>,
    pub cache_write: Option<u64>,
    pub reasoning: Option<u64>,
    pub total: Option<u64>,
    pub input_includes_cache: bool,
    pub context_tokens: Option<u64>,
}

impl UsageView {
    fn of(u: &Usage) -> UsageView {
        UsageView {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            reasoning: u.reasoning,
            total: u.total,
            input_includes_cache: u.input_includes_cache,
            context_tokens: u.context_total(),
        }
    }
}

/// The tool-call groups, made as they are written.
pub struct Groups<'a>(&'a Analysis);

impl Serialize for Groups<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let groups = &self.0.grouping.groups;
        Lazy(|| {
            groups.iter().map(|g| GroupRow {
                id: g.id,
                messages: &g.messages,
                call_ids: &g.call_ids,
                complete: g.complete(),
                unanswered: &g.unanswered,
                orphaned: &g.orphaned,
            })
        })
        .serialize(serializer)
    }
}

#[derive(Serialize)]
pub struct GroupRow<'a> {
    pub id: usize,
    pub messages: &'a [usize],
    pub call_ids: &'a [String],
    pub complete: bool,
    pub unanswered: &'a [String],
    pub orphaned: &'a [String],
}
