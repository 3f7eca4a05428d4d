//! The TOKENS measure: `LLM.get_token_count` → `litellm.token_counter(model="gpt-4o")` over
//! `events_to_messages(events)` with the first `SystemPromptEvent`'s tools.
//!
//! Owns: litellm's accounting (3 per message plus every string field — role, content blocks,
//! tool-call arguments, `tool_call_id`, `name` + 1 —, 85 per image URL, 3 for the reply, the
//! tools' TypeScript-like definitions + 9, −4 with a system message), its 1,024-character
//! chunked encoding and its sampling above 4,000,000 characters; and the merges of
//! `events_to_messages` (a batch of actions is one message, consecutive plain user messages are
//! one). Per-event parts are counted once, so a prefix costs one pass over its events.

use serde_json::Value;

use super::consts::{COMMON_FIELDS, KNOWN};
use super::events::Record;
use super::render::{llm_message, Item};
use super::view::{rec, response_id, Ev, Kind};
use crate::tokens::Counter;

/// `TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS`.
const CHUNK: usize = 1024;
/// `TOKEN_COUNTER_MAX_EXACT_CHARS`.
const MAX_EXACT: usize = 4_000_000;
/// `EXTRAPOLATION_SAMPLES`.
const SAMPLES: usize = 16;
/// Tokens litellm charges an image URL at `detail` auto.
const IMAGE_TOKENS: usize = 85;

/// litellm's count function for one string (remembered: a replay counts the same events at
/// every compaction).
pub fn lcount(counter: &Counter, text: &str) -> usize {
    crate::tokens::remembered("litellm", counter.encoding(), text, || {
        lcount_afresh(counter, text)
    })
}

fn lcount_afresh(counter: &Counter, text: &str) -> usize {
    if text.len() <= MAX_EXACT {
        // At most as many characters as bytes.
        return chunked_str(counter, text);
    }
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= MAX_EXACT {
        return chunked(counter, &chars);
    }
    let sample_chars = MAX_EXACT / SAMPLES;
    let last_start = chars.len() - sample_chars;
    let mut counted = 0usize;
    let mut sampled = 0usize;
    for i in 0..SAMPLES {
        let start = last_start * i / (SAMPLES - 1);
        let piece = chars.get(start..start + sample_chars).unwrap_or_default();
        counted += chunked(counter, piece);
        sampled += piece.len();
    }
    let estimate = counted as f64 * chars.len() as f64 / sampled.max(1) as f64;
    estimate.round_ties_even() as usize
}

/// `chunked` of a whole string: its slices of `CHUNK` characters, without copying them.
fn chunked_str(counter: &Counter, text: &str) -> usize {
    let mut total = 0;
    let mut from = 0;
    let mut chars = 0;
    for (at, _) in text.char_indices() {
        if chars == CHUNK {
            total += counter.count(&text[from..at]);
            from = at;
            chars = 0;
        }
        chars += 1;
    }
    if from < text.len() {
        total += counter.count(&text[from..]);
    }
    total
}

fn chunked(counter: &Counter, chars: &[char]) -> usize {
    chars
        .chunks(CHUNK)
        .map(|c| counter.count(&c.iter().collect::<String>()))
        .sum()
}

/// What one view event adds to the count.
#[derive(Debug, Clone)]
pub struct EvCost {
    /// Starts a new message (3 + its role) unless merged into the previous one.
    header: usize,
    /// Its content blocks (an action batch's later events carry no thought).
    content: usize,
    /// Tool-call arguments, `tool_call_id`, `name`.
    fields: usize,
    plain_user: bool,
    system: bool,
    action_batch: Option<String>,
}

/// Costs of the view's events and the tools' definitions.
pub struct Costs {
    pub events: Vec<EvCost>,
    /// `count(definitions) + 9` of the first system prompt's tools, per system event.
    pub tools: Vec<Option<usize>>,
}

impl Costs {
    pub fn new(records: &[Record], events: &[Ev], counter: &Counter) -> Costs {
        let (events, tools) = events.iter().map(|ev| cost(records, ev, counter)).unzip();
        Costs { events, tools }
    }

    /// `new`, the events counted on every core (each event's texts are counted apart): for a
    /// view counted once. A replay counts mostly remembered texts while its other core works
    /// aside, where two threads only take turns at the table of remembered counts.
    pub fn new_on_every_core(records: &[Record], events: &[Ev], counter: &Counter) -> Costs {
        let each = crate::par::map(events, 64, |ev| cost(records, ev, counter), |_| {});
        let (events, tools) = each.into_iter().unzip();
        Costs { events, tools }
    }

    /// `get_total_token_count` of the events at `indices` (in order).
    pub fn total(&self, indices: impl Iterator<Item = usize>) -> usize {
        let mut running = Running::default();
        for i in indices {
            if let (Some(c), Some(t)) = (self.events.get(i), self.tools.get(i)) {
                running.add(c, *t);
            }
        }
        running.total()
    }
}

/// One event's cost and, for a system prompt, its tools' definitions counted.
fn cost(records: &[Record], ev: &Ev, counter: &Counter) -> (EvCost, Option<usize>) {
    let m = llm_message(records, ev);
    let content: usize = m
        .content
        .iter()
        .map(|i| match i {
            Item::Text(t) => lcount(counter, t),
            Item::Image(n) => IMAGE_TOKENS * n,
        })
        .sum();
    let mut fields: usize = m.args.iter().map(|a| lcount(counter, a)).sum();
    if let Some(id) = &m.tool_call_id {
        fields += lcount(counter, id);
    }
    if let Some(name) = &m.name {
        fields += lcount(counter, name) + 1;
    }
    let cost = EvCost {
        header: 3 + lcount(counter, &m.role),
        content,
        fields,
        plain_user: m.plain_user(),
        system: ev.kind == Kind::System,
        action_batch: (ev.kind == Kind::Action).then(|| response_id(records, ev).to_string()),
    };
    let tools = (ev.kind == Kind::System)
        .then(|| tool_definitions(rec(records, ev)))
        .flatten()
        .map(|d| lcount(counter, &d) + 9);
    (cost, tools)
}

/// `get_total_token_count` folded one event at a time: the merges with the previous event and
/// the framing of the first system prompt's tools.
#[derive(Debug, Clone, Default)]
pub struct Running {
    sum: usize,
    prev: Option<EvCost>,
    tools: Option<Option<usize>>,
    system: bool,
}

impl Running {
    /// Adds the next event, `tools` being its `Costs::tools` entry.
    pub fn add(&mut self, c: &EvCost, tools: Option<usize>) {
        if c.system && self.tools.is_none() {
            self.tools = Some(tools);
        }
        self.system |= c.system;
        let prev = self.prev.as_ref();
        let same_batch = matches!((prev.and_then(|p| p.action_batch.as_ref()), &c.action_batch),
            (Some(a), Some(b)) if a == b);
        if same_batch {
            self.sum += c.fields;
        } else if prev.is_some_and(|p| p.plain_user) && c.plain_user {
            self.sum += c.content + c.fields;
        } else {
            self.sum += c.header + c.content + c.fields;
        }
        self.prev = Some(c.clone());
    }

    /// The count of the events added so far.
    pub fn total(&self) -> usize {
        let mut extra: i64 = 3;
        if let Some(Some(t)) = self.tools {
            extra += t as i64;
            if self.system {
                extra -= 4;
            }
        }
        (self.sum as i64 + extra).max(0) as usize
    }
}

/// `_format_function_definitions` of a system prompt's tools; `None` when it has none.
fn tool_definitions(system: &Value) -> Option<String> {
    let tools = system.get("tools").and_then(Value::as_array)?;
    if tools.is_empty() {
        return None;
    }
    let mut lines: Vec<String> = vec!["namespace functions {".into(), String::new()];
    for t in tools {
        let name = tool_name(t);
        if name.is_empty() {
            continue;
        }
        if let Some(d) = t
            .get("description")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
        {
            lines.push(format!("// {d}"));
        }
        let action = t.get("action_type").and_then(Value::as_str).unwrap_or("");
        let params = match KNOWN.iter().find(|(k, _)| *k == action) {
            Some((_, fields)) => format!("{COMMON_FIELDS}\n{fields}"),
            None => COMMON_FIELDS.to_string(),
        };
        lines.push(format!("type {name} = (_: {{"));
        lines.push(params);
        lines.push("}) => any;".into());
        lines.push(String::new());
    }
    lines.push("} // namespace functions".into());
    Some(lines.join("\n"))
}

/// `ToolDefinition.name`: the stored title, else the class name in snake case without `Tool`.
fn tool_name(t: &Value) -> String {
    if let Some(title) = t
        .get("title")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        return title.to_string();
    }
    let kind = t.get("kind").and_then(Value::as_str).unwrap_or("");
    let kind = kind.strip_suffix("Tool").unwrap_or(kind);
    let mut out = String::new();
    for (i, c) in kind.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_of_a_string_count_as_its_chunks_of_characters() {
        let counter = Counter::new(crate::tokens::Encoding::O200kBase);
        let words = [
            "héllo ",
            "wörld\n",
            "日本語 ",
            "🎉",
            "x",
            "  ",
            "fn main() {}\n",
        ];
        for len in [0, 1, 1023, 1024, 1025, 2048, 5000] {
            let text: String = crate::testing::drawn(len as u64, &words, len * 3)
                .chars()
                .take(len)
                .collect();
            let chars: Vec<char> = text.chars().collect();
            assert_eq!(
                chunked_str(&counter, &text),
                chunked(&counter, &chars),
                "{len} characters"
            );
        }
        // Two-byte characters: a chunk ends at character 1,024, byte 2,048.
        let text = "é".repeat(1500);
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(chunked_str(&counter, &text), chunked(&counter, &chars));
        assert_eq!(lcount(&counter, &text), chunked_str(&counter, &text));
    }
}
