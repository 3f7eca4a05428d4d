//! `report --json`: the report document of DESIGN.md's CLI contract.

use serde_json::{json, Value};

use crate::analysis::Analysis;
use crate::session::{Message, Part, Usage};

/// The report of one session and, nested, its children.
pub fn report(a: &Analysis) -> Value {
    let s = &a.session;
    let messages: Vec<Value> = s
        .messages
        .iter()
        .zip(&a.counts.messages)
        .map(|(m, c)| {
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
        })
        .collect();
    let groups: Vec<Value> = a
        .grouping
        .groups
        .iter()
        .map(|g| {
            json!({
                "id": g.id,
                "messages": g.messages,
                "call_ids": g.call_ids,
                "complete": g.complete(),
                "unanswered": g.unanswered,
                "orphaned": g.orphaned,
            })
        })
        .collect();
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
    json!({
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
        "messages": messages,
        "groups": groups,
        "marks": marks,
        "total_tokens": total,
        "text_tokens": a.counts.messages.iter().map(|c| c.tokens).sum::<usize>(),
        "overhead_tokens": a.counts.messages.iter().map(|c| c.overhead).sum::<usize>(),
        "window_fill": if a.window > 0 { total as f64 / a.window as f64 } else { 0.0 },
        "last_reported_context_tokens": a.last_reported_context(),
        "findings": a.findings.iter().map(finding).collect::<Vec<_>>(),
        "children": a.children.iter().map(report).collect::<Vec<_>>(),
    })
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
