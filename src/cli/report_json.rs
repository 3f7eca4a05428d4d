//! `report --json`: the report document of DESIGN.md's CLI contract.
//!
//! The per-message entries, the groups and a plan's summarizer request are most of a large
//! document: they are not held in it but made one at a time, borrowed, as it is written
//! ([`Doc`]), so a report of 100k messages does not build a tree of them all first.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

use crate::analysis::Analysis;
use crate::compaction::plan::Plan;
use crate::session::{Message, Part, Usage};

/// A report document: every field as a value, but `messages`, `groups` and `children`
/// (and a plan's `summarizer`), which are written from the analysis (and the plan) when the
/// document is serialized.
pub struct Doc<'a> {
    /// The fields; `messages`, `groups`, `children` and `summarizer` hold `null` until written.
    pub fields: serde_json::Map<String, Value>,
    analysis: &'a Analysis,
    plan: Option<&'a Plan>,
}

impl<'a> Doc<'a> {
    /// The document with a plan whose summarizer request is written in place of a `null`
    /// `summarizer` field.
    pub fn with_plan(self, plan: &'a Plan) -> Doc<'a> {
        Doc {
            plan: Some(plan),
            ..self
        }
    }
}

impl Serialize for Doc<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let a = self.analysis;
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (key, value) in &self.fields {
            match key.as_str() {
                "messages" if value.is_null() => map.serialize_entry(key, &Messages(a))?,
                "groups" if value.is_null() => map.serialize_entry(key, &Groups(a))?,
                "summarizer" if value.is_null() => match self.plan {
                    Some(plan) => map.serialize_entry(key, &Summarizer(plan))?,
                    None => map.serialize_entry(key, value)?,
                },
                "children" if value.is_null() => {
                    let children: Vec<Doc> = a.children.iter().map(report).collect();
                    map.serialize_entry(key, &children)?
                }
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

/// The per-message entries, made as they are written.
struct Messages<'a>(&'a Analysis);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        serializer.collect_seq(
            a.session
                .messages
                .iter()
                .zip(&a.counts.messages)
                .map(|(m, c)| message(a, m, c)),
        )
    }
}

/// The tool-call groups, made as they are written.
struct Groups<'a>(&'a Analysis);

impl Serialize for Groups<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.grouping.groups.iter().map(|g| GroupDoc {
            id: g.id,
            messages: &g.messages,
            call_ids: &g.call_ids,
            complete: g.complete(),
            unanswered: &g.unanswered,
            orphaned: &g.orphaned,
        }))
    }
}

#[derive(Serialize)]
struct GroupDoc<'a> {
    id: usize,
    messages: &'a [usize],
    call_ids: &'a [String],
    complete: bool,
    unanswered: &'a [String],
    orphaned: &'a [String],
}

/// A plan's summarizer request, its texts borrowed from the plan.
struct Summarizer<'a>(&'a Plan);

impl Serialize for Summarizer<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Request<'a> {
            messages: Vec<PromptDoc<'a>>,
        }
        #[derive(Serialize)]
        struct PromptDoc<'a> {
            role: &'a str,
            content: &'a str,
        }
        Request {
            messages: (self.0.summarizer.iter())
                .map(|m| PromptDoc {
                    role: m.role.as_str(),
                    content: &m.content,
                })
                .collect(),
        }
        .serialize(serializer)
    }
}

fn message(a: &Analysis, m: &Message, c: &crate::tokens::MessageCount) -> Value {
    json!({
        "index": m.index,
        "source_index": m.source_index,
        "source_indices": m.source_indices,
        "role": m.role.as_str(),
        "parts": m.parts.iter().map(Part::kind).collect::<Vec<_>>(),
        "tool_names": m.tool_names(),
        "tokens": c.tokens,
        "overhead_tokens": c.overhead,
        "reported_tokens": reported_tokens(m),
        "usage": m.usage.as_ref().map(usage),
        "group": a.grouping.of_message.get(m.index).copied().flatten(),
        "id": m.id,
        "timestamp": m.timestamp,
        "model": m.model,
    })
}

/// The report of one session and, nested, its children.
pub fn report(a: &Analysis) -> Doc<'_> {
    let s = &a.session;
    let marks: Vec<Value> = s
        .marks
        .iter()
        .map(|k| {
            json!({
                "kind": k.kind,
                "source_index": k.source_index,
                "before_message": k.before_message,
                "trigger": k.trigger,
                "pre_tokens": k.pre_tokens,
                "post_tokens": k.post_tokens,
                "summary_chars": k.summary.as_ref().map(|t| t.chars().count()),
            })
        })
        .collect();
    let total = a.total_tokens();
    let fields = json!({
        "source": {
            "path": s.source.path,
            "format": s.format.name(),
            "records": s.source.records,
            "skipped_lines": s.source.skipped.len(),
            "skipped": s.source.skipped.iter().map(|k| json!({"line": k.line, "reason": k.reason})).collect::<Vec<_>>(),
        },
        "id": s.id,
        "title": s.title,
        "tokenizer": a.counter.encoding().name(),
        "tokenizer_approximate": a.info.approximate,
        "model": a.model,
        "context_window": a.window,
        "context_window_source": a.window_source.as_str(),
        "messages": null,
        "groups": null,
        "marks": marks,
        "total_tokens": total,
        "text_tokens": a.counts.messages.iter().map(|c| c.tokens).sum::<usize>(),
        "overhead_tokens": a.counts.messages.iter().map(|c| c.overhead).sum::<usize>(),
        "window_fill": if a.window > 0 { total as f64 / a.window as f64 } else { 0.0 },
        "last_reported_context_tokens": a.last_reported_context(),
        "findings": a.findings.iter().map(finding).collect::<Vec<_>>(),
        "children": null,
    });
    let Value::Object(fields) = fields else {
        unreachable!("json! of an object literal is an object")
    };
    Doc {
        fields,
        analysis: a,
        plan: None,
    }
}

/// The provider's own count of this message: the completion tokens of the response that
/// produced it (reasoning included), where the source reports usage.
pub fn reported_tokens(m: &Message) -> Option<u64> {
    m.usage.as_ref()?.output
}

fn usage(u: &Usage) -> Value {
    json!({
        "input": u.input,
        "output": u.output,
        "cache_read": u.cache_read,
        "cache_write": u.cache_write,
        "reasoning": u.reasoning,
        "total": u.total,
        "input_includes_cache": u.input_includes_cache,
        "context_tokens": u.context_total(),
    })
}

pub fn finding(f: &crate::compaction::Finding) -> Value {
    json!({
        "code": f.code,
        "severity": f.severity.as_str(),
        "messages": f.messages,
        "detail": f.detail,
    })
}
