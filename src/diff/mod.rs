//! Raw history against summarizer input: for each summarized message, how much of it the
//! summarizer is actually shown, which tool names, call ids and arguments are lost, and which
//! pieces of evidence survive — the evidence-survival score.
//!
//! Owns: the alignment (line by line, with partial credit for a line cut short) and the loss
//! statistics, of a plan's whole summarized range or of any range of messages. Every question
//! about the input goes to one `TextIndex` of it, so a diff is linear in the range and the
//! input. Pure: reads a session and a plan, knows nothing of presets or terminals.

pub mod ahead;
#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod naive_tests;
mod pending;

use foldhash::HashSet;
use std::borrow::Cow;

use serde_json::Value;

use crate::compaction::plan::PromptMessage;
use crate::compaction::Plan;
pub use crate::facts::{evidence, index};
pub use crate::facts::{Evidence, EvidenceKind, TextIndex};
use crate::session::{Message, Part, Role, Session};
use pending::{facts_of, pending_of, Pending};

/// What the summarizer sees of one summarized message.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageDiff {
    pub index: usize,
    pub role: Role,
    /// Characters of the message's content (text, calls with arguments, results, reasoning).
    pub raw_chars: usize,
    /// Characters of the lines the alignment compares: each non-empty line of the content,
    /// trimmed (line breaks and indentation are not looked for).
    pub line_chars: usize,
    /// Of those, the characters found in the summarizer input.
    pub seen_chars: usize,
    pub tool_names_lost: Vec<String>,
    pub call_ids_lost: Vec<String>,
    /// Argument values (strings and numbers of 3+ characters) of the message's tool calls.
    pub arguments_total: usize,
    pub arguments_lost: Vec<String>,
    /// Evidence items of this message, and whether each survives.
    pub evidence: Vec<(Evidence, bool)>,
    /// Of each line the alignment compares (`message_lines`, in order), the characters seen.
    pub lines_seen: Vec<u32>,
}

impl MessageDiff {
    pub fn lost_chars(&self) -> usize {
        self.raw_chars.saturating_sub(self.seen_chars)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub messages: Vec<MessageDiff>,
    /// Characters of the whole summarizer input.
    pub input_chars: usize,
    pub raw_chars: usize,
    pub line_chars: usize,
    pub seen_chars: usize,
    /// Distinct evidence items of the summarized range, and how many survive.
    pub evidence_total: usize,
    pub evidence_survived: usize,
}

impl Diff {
    /// Share of the summarized range's evidence that reaches the summarizer (1.0 when none).
    pub fn evidence_survival(&self) -> f64 {
        if self.evidence_total == 0 {
            1.0
        } else {
            self.evidence_survived as f64 / self.evidence_total as f64
        }
    }
}

/// The whole summarizer input of `plan`, its messages joined by newlines.
pub fn summarizer_input(plan: &Plan) -> String {
    plan.summarizer
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The characters of [`summarizer_input`], counted without joining it.
pub fn summarizer_input_chars(plan: &Plan) -> usize {
    let chars: usize = plan
        .summarizer
        .iter()
        .map(|m| m.content.chars().count())
        .sum();
    chars + plan.summarizer.len().saturating_sub(1)
}

/// One line of a summarized message's content and how much of it the summarizer is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineSeen {
    /// The line, trimmed.
    pub text: String,
    /// Characters of the line.
    pub chars: usize,
    /// Of those, the characters found in the input (the whole line, a prefix, or 0).
    pub seen: usize,
}

/// The content lines of message `m` with what its diff `d` found the input shows of each: the
/// alignment `diff` sums up, line by line, for reports that show the raw side with its losses.
pub fn message_lines(m: &Message, d: &MessageDiff) -> Vec<LineSeen> {
    let texts = content_texts(m);
    let lines = texts
        .iter()
        .flat_map(|t| t.lines().map(str::trim).filter(|l| !l.is_empty()));
    let mut seen = d.lines_seen.iter();
    lines
        .map(|line| LineSeen {
            text: line.to_string(),
            chars: line.chars().count(),
            seen: seen.next().map_or(0, |&n| n as usize),
        })
        .collect()
}

/// Diffs the summarized messages of `plan` against its summarizer input.
pub fn diff(session: &Session, plan: &Plan) -> Diff {
    let input = TextIndex::new(summarizer_input(plan));
    diff_range(session, &plan.split.summarized, &input)
}

/// [`diff`] with the plan's summarizer request given apart, its texts moved into the index
/// (a large request is not held twice while the range is diffed).
/// Facts already read (`ahead`) are taken, not read again.
pub fn diff_moving(
    session: &Session,
    plan: &Plan,
    summarizer: Vec<PromptMessage>,
    ahead: Option<&ahead::Ahead>,
) -> Diff {
    let input = match <[PromptMessage; 1]>::try_from(summarizer) {
        Ok([only]) => only.content,
        Err(many) => {
            let text = (many.iter().map(|m| m.content.as_str()))
                .collect::<Vec<_>>()
                .join("\n");
            drop(many);
            text
        }
    };
    diff_range_with(
        session,
        &plan.split.summarized,
        &TextIndex::new(input),
        ahead,
    )
}

/// Diffs the messages `indices` of `session` against an indexed summarizer input: each
/// message is read once (on every core); what the index can only answer in a pass over the
/// whole input (short strings) is asked of many messages together.
pub fn diff_range(session: &Session, indices: &[usize], input: &TextIndex) -> Diff {
    diff_range_with(session, indices, input, None)
}

/// Messages read at a time (on every core) before the diff sees whether they are worth a pass.
const READ_AT_ONCE: usize = 1024;

/// [`diff_range`], taking the facts already read in `ahead`.
///
/// Messages are read a thousand at a time and answered in batches: the range is cut into as
/// many batches of about equal size as it holds the input's bytes (at least a pass's worth,
/// `TextIndex::pass_bytes`), and once a batch is read one pass answers what its messages left
/// waiting. What waits is bounded by the input, not by the range (a range diffed against a
/// short summary no longer holds every line it asks until the end), each pass over the input
/// follows at least as many bytes of the range, and a range no larger than twice its input is
/// answered in one pass.
pub fn diff_range_with(
    session: &Session,
    indices: &[usize],
    input: &TextIndex,
    ahead: Option<&ahead::Ahead>,
) -> Diff {
    let worth = input.bytes().max(input.pass_bytes());
    diff_in_batches(session, indices, input, ahead, (READ_AT_ONCE, worth))
}

/// [`diff_range_with`], its messages read `at_once` at a time and answered in batches of at
/// least `worth` bytes: `(at_once, worth)`.
fn diff_in_batches<'a>(
    session: &'a Session,
    indices: &[usize],
    input: &TextIndex,
    ahead: Option<&ahead::Ahead>,
    (at_once, worth): (usize, usize),
) -> Diff {
    let read: Vec<(usize, &'a Message)> = indices
        .iter()
        .filter_map(|&i| Some((i, session.messages.get(i)?)))
        .collect();
    let sizes: Vec<usize> = read.iter().map(|(_, m)| content_bytes(m)).collect();
    let total: usize = sizes.iter().sum();
    // Never under `worth`: a range of little content (tool results of call ids alone) is
    // not answered a pass per thousand messages.
    let batch = total.div_ceil((total / worth.max(1)).max(1)).max(worth);
    let pending_of = |&(i, m): &(usize, &'a Message)| -> Pending<'a> {
        pending_of(m, input, ahead.and_then(|a| a.take(i)))
    };
    let mut messages: Vec<MessageDiff> = Vec::with_capacity(read.len());
    let mut waiting: Vec<Pending> = Vec::new();
    let mut waiting_bytes = 0;
    let answer = |waiting: &mut Vec<Pending<'a>>, messages: &mut Vec<MessageDiff>| {
        let asked: Vec<&[u8]> = waiting.iter().flat_map(Pending::waiting).collect();
        let mut answers = input.longest_prefixes_of(&asked).into_iter();
        drop(asked);
        for mut p in waiting.drain(..) {
            p.answer_waiting(&mut answers);
            messages.push(p.done());
        }
    };
    let at_once = at_once.max(1);
    for (some, sizes) in read.chunks(at_once).zip(sizes.chunks(at_once)) {
        waiting.extend(crate::par::map(some, 64, pending_of, |_| {}));
        waiting_bytes += sizes.iter().sum::<usize>();
        if waiting_bytes >= batch {
            answer(&mut waiting, &mut messages);
            waiting_bytes = 0;
        }
    }
    answer(&mut waiting, &mut messages);
    let mut all: HashSet<&Evidence> = HashSet::default();
    let mut kept: HashSet<&Evidence> = HashSet::default();
    for m in &messages {
        for (e, survived) in &m.evidence {
            all.insert(e);
            if *survived {
                kept.insert(e);
            }
        }
    }
    Diff {
        input_chars: input.chars(),
        raw_chars: messages.iter().map(|m| m.raw_chars).sum(),
        line_chars: messages.iter().map(|m| m.line_chars).sum(),
        seen_chars: messages.iter().map(|m| m.seen_chars).sum(),
        evidence_total: all.len(),
        evidence_survived: kept.len(),
        messages,
    }
}

/// The facts of a message, each once, as `diff_range` counts them for it.
pub fn facts(m: &Message) -> Vec<Evidence> {
    facts_of(m, &content_texts(m))
}

/// The texts a message is made of, as the summarizer could be shown them: borrowed where a
/// part holds its text whole (most do), so a diff does not copy the range it reads.
fn content_texts(m: &Message) -> Vec<Cow<'_, str>> {
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::Opaque { .. } | Part::Image(_) => None,
            // Arguments as their decoded values: escapes of the JSON text are not content.
            Part::ToolCall {
                name, arguments, ..
            } => {
                let mut values = vec![name.clone()];
                match serde_json::from_str::<Value>(arguments) {
                    Ok(v) => all_leaves(&v, &mut values),
                    Err(_) => values.push(arguments.clone()),
                }
                Some(Cow::Owned(values.join("\n")))
            }
            Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => {
                Some(Cow::Borrowed(text.as_str()))
            }
            Part::ToolResult { content, .. } => match content.as_slice() {
                [Part::Text { text }] => Some(Cow::Borrowed(text.as_str())),
                _ => Some(Cow::Owned(p.plain_text())),
            },
        })
        .filter(|t| !t.trim().is_empty())
        .collect()
}

/// Bytes of what the diff reads of a message (its content, as `content_texts` reads it, and
/// its call ids), without reading it: what a batch of the diff is measured in.
fn content_bytes(m: &Message) -> usize {
    fn of(p: &Part) -> usize {
        match p {
            Part::Opaque { .. } | Part::Image(_) => 0,
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            } => id.len() + name.len() + arguments.len(),
            Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => {
                text.len()
            }
            Part::ToolResult {
                call_id, content, ..
            } => call_id.len() + content.iter().map(of).sum::<usize>(),
        }
    }
    m.parts.iter().map(of).sum()
}

/// Characters of the non-empty lines of `text`, each trimmed: what the alignment can find.
fn line_chars(text: &str) -> usize {
    text.lines().map(|l| l.trim().chars().count()).sum()
}

/// Characters of `line` seen in the input, of which its longest prefix of `bytes` bytes is:
/// the whole line, a prefix of 16 characters or more, else 0.
fn seen_chars(line: &str, bytes: usize) -> usize {
    if bytes >= line.len() {
        return line.chars().count();
    }
    let mut bytes = bytes;
    while !line.is_char_boundary(bytes) {
        bytes -= 1;
    }
    let chars = line[..bytes].chars().count();
    // A short common prefix is coincidence, not the line.
    if chars >= 16 {
        chars
    } else {
        0
    }
}

/// String and number leaves of a tool call's JSON arguments (3+ characters), in order.
fn argument_values(arguments: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<Value>(arguments) else {
        return if arguments.trim().len() >= 3 {
            vec![arguments.trim().to_string()]
        } else {
            Vec::new()
        };
    };
    let mut out = Vec::new();
    leaves(&value, &mut out);
    out
}

/// Every string and number leaf, whatever its length.
fn all_leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|x| all_leaves(x, out)),
        Value::Object(map) => map.values().for_each(|x| all_leaves(x, out)),
        _ => {}
    }
}

fn leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.chars().count() >= 3 => out.push(s.clone()),
        Value::Number(n) if n.to_string().len() >= 3 => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|x| leaves(x, out)),
        Value::Object(map) => map.values().for_each(|x| leaves(x, out)),
        _ => {}
    }
}

/// The command a shell-like tool call runs (`command`/`cmd` argument), first line.
fn command_of(arguments: &str) -> Option<String> {
    let v: Value = serde_json::from_str(arguments).ok()?;
    let cmd = v.get("command").or_else(|| v.get("cmd"))?;
    let text = match cmd {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    let first = text.lines().next()?.trim().to_string();
    (first.len() >= 3).then_some(first)
}
