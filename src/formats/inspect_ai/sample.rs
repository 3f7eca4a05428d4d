//! One `EvalSample` as a session: its `messages` (the full history, summaries included), usage
//! from its `model` events, and a mark per `compaction` event.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use serde_json::Value;

use super::content::{is_summary, message_parts, resolve, Attachments};
use crate::formats::common::{str_at, u64_at};
use crate::formats::spans;
use crate::session::{CompactionMark, Format, Message, Role, Session, Usage};

/// What a log says about the whole eval.
#[derive(Debug, Default, Clone)]
pub(super) struct Header {
    pub task: Option<String>,
    pub model: Option<String>,
    pub id: Option<String>,
}

impl Header {
    pub fn read(log: &Value) -> Header {
        let eval = log.get("eval").unwrap_or(&Value::Null);
        Header {
            task: str_at(eval, "task").map(str::to_string),
            model: str_at(eval, "model").map(str::to_string),
            id: str_at(eval, "eval_id")
                .or_else(|| str_at(eval, "run_id"))
                .map(str::to_string),
        }
    }
}

/// Where a sample's JSON lies: the buffer holding it and its byte range there.
pub(super) struct Place {
    pub path: String,
    pub buffer: Arc<Vec<u8>>,
    pub range: Option<Range<usize>>,
}

/// A JSON scalar as plain text (`1`, `abc`).
pub(super) fn plain(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "?".to_string(),
    }
}

pub(super) fn build(sample: &Value, place: Place, header: &Header) -> Session {
    let ranges = place
        .range
        .clone()
        .and_then(|r| spans::array_items(&place.buffer, r, &["messages"]));
    let mut session = Session::new(Format::INSPECT_AI, place.path, place.buffer);
    session.model = header.model.clone();
    session.id = str_at(sample, "uuid")
        .map(str::to_string)
        .or_else(|| sample.get("id").map(|id| plain(Some(id))));
    session.title = Some(format!(
        "sample {} epoch {}",
        plain(sample.get("id")),
        plain(sample.get("epoch"))
    ));

    let empty = Vec::new();
    let messages = sample
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let events = sample
        .get("events")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let ranges = ranges.filter(|r| r.len() == messages.len());
    let att: Attachments<'_> = sample.get("attachments").and_then(Value::as_object);
    session.source.records = messages.len();

    let mut usage = usage_by_message(events, messages);
    let mut marks = compaction_marks(events, messages, att);
    for (index, m) in messages.iter().enumerate() {
        marks.retain(|(at, mark)| {
            let here = *at == Some(index);
            if here {
                session.mark(mark.clone());
            }
            !here
        });
        let (role, parts) = message_parts(m, att);
        let mut msg = Message::new(role, index);
        msg.parts = parts;
        msg.raw = ranges.as_ref().and_then(|r| r.get(index).cloned());
        msg.id = str_at(m, "id").map(str::to_string);
        msg.model = str_at(m, "model").map(str::to_string);
        if role == Role::Assistant {
            if let Some((u, model)) = usage.remove(&index) {
                msg.usage = Some(u);
                msg.model = msg.model.or(model);
            }
        }
        session.push(msg);
    }
    for (_, mark) in marks {
        session.mark(mark);
    }
    session
}

/// Usage of each assistant message: from the `model` event whose output message has the
/// message's id; in old logs without ids, model events and generated messages pair in order
/// when their counts agree.
fn usage_by_message(
    events: &[Value],
    messages: &[Value],
) -> HashMap<usize, (Usage, Option<String>)> {
    let outputs: Vec<(Option<&str>, Usage, Option<String>)> = events
        .iter()
        .filter(|e| str_at(e, "event") == Some("model"))
        .filter_map(|e| {
            let output = e.get("output")?;
            let u = usage(output.get("usage")?)?;
            let id = output
                .pointer("/choices/0/message/id")
                .and_then(Value::as_str);
            Some((id, u, str_at(output, "model").map(str::to_string)))
        })
        .collect();
    let by_id: HashMap<&str, usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| str_at(m, "role") == Some("assistant"))
        .filter_map(|(i, m)| Some((str_at(m, "id")?, i)))
        .collect();
    let mut found = HashMap::new();
    for (id, u, model) in &outputs {
        if let Some(&index) = id.and_then(|id| by_id.get(id)) {
            found.insert(index, (u.clone(), model.clone()));
        }
    }
    let assistants: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| str_at(m, "role") == Some("assistant"))
        .map(|(i, _)| i)
        .collect();
    if found.is_empty() && by_id.is_empty() && assistants.len() == outputs.len() {
        for (index, (_, u, model)) in assistants.into_iter().zip(outputs) {
            found.insert(index, (u, model));
        }
    }
    found
}

/// `ModelUsage`. Whether `input_tokens` includes the cache changed over inspect versions, so
/// it is decided per record from which sum equals `total_tokens`; when neither does, the
/// current convention (cache excluded) is assumed.
fn usage(u: &Value) -> Option<Usage> {
    let input = u64_at(u, "input_tokens");
    let output = u64_at(u, "output_tokens");
    if input.is_none() && output.is_none() {
        return None;
    }
    let cache_read = u64_at(u, "input_tokens_cache_read");
    let cache_write = u64_at(u, "input_tokens_cache_write");
    let reasoning = u64_at(u, "reasoning_tokens");
    let total = u64_at(u, "total_tokens");
    let (i, o) = (input.unwrap_or(0), output.unwrap_or(0));
    let cache = cache_read.unwrap_or(0) + cache_write.unwrap_or(0);
    let r = reasoning.unwrap_or(0);
    let includes = match total {
        Some(t) if t == i + o || t == i + o + r => true,
        Some(t) if t == i + cache + o || t == i + cache + o + r => false,
        _ => cache == 0,
    };
    Some(Usage {
        input,
        output,
        cache_read,
        cache_write,
        reasoning,
        total,
        input_includes_cache: includes,
    })
}

/// A mark per `compaction` event and the message it lies before: a summary compaction before
/// the summary message it appended (the n-th such message for the n-th summary compaction);
/// any other before the message the next model call produced; at the end when neither is found.
///
/// The compaction event is not one of the sample's messages, so the mark's `source_index` is
/// the message it lies before (the summary message itself for a summary compaction).
fn compaction_marks(
    events: &[Value],
    messages: &[Value],
    att: Attachments<'_>,
) -> Vec<(Option<usize>, CompactionMark)> {
    let summaries: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| is_summary(m))
        .map(|(i, _)| i)
        .collect();
    let position = |id: &str| messages.iter().position(|m| str_at(m, "id") == Some(id));
    let mut summaries_used = 0;
    let mut marks = Vec::new();
    for (at, e) in events.iter().enumerate() {
        if str_at(e, "event") != Some("compaction") {
            continue;
        }
        let kind = str_at(e, "type");
        let mut mark = CompactionMark {
            kind: "compaction".to_string(),
            source_index: messages.len(),
            before_message: 0,
            trigger: kind.map(str::to_string),
            pre_tokens: u64_at(e, "tokens_before"),
            post_tokens: u64_at(e, "tokens_after"),
            summary: None,
        };
        let summary_at = summaries.get(summaries_used).copied();
        let before = if let Some(index) = summary_at.filter(|_| kind.is_none_or(|k| k == "summary"))
        {
            summaries_used += 1;
            mark.summary = messages.get(index).map(|m| summary_text(m, att));
            Some(index)
        } else {
            events
                .iter()
                .skip(at)
                .find(|e| str_at(e, "event") == Some("model"))
                .and_then(|e| e.pointer("/output/choices/0/message/id"))
                .and_then(Value::as_str)
                .and_then(position)
        };
        if let Some(index) = before {
            mark.source_index = index;
        }
        marks.push((before, mark));
    }
    marks
}

fn summary_text(m: &Value, att: Attachments<'_>) -> String {
    match m.get("content") {
        Some(Value::String(s)) => resolve(s, att).to_string(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| str_at(b, "text").map(|t| resolve(t, att)))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
