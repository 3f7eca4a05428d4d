//! One run of an aider chat history read into messages, the way aider's own reader of the file
//! (`split_chat_history_markdown` in `aider/utils.py`) cuts it.
//!
//! Owns: the three kinds of line aider writes and the blocks they make. `#### ` lines are the
//! user's input (`user_input`: one line per input line, each ending in the two spaces of a
//! markdown line break), `> ` lines are aider's own output (`tool_output`, warnings, errors,
//! confirmations, the token reports: shown, never sent to the model), and every other line is
//! the model's reply (`ai_output`). A change of kind ends a block; a block of nothing but blank
//! lines is no message. Unlike aider's reader, a `# ` heading in a reply is kept (only the
//! `# aider chat started at` line starts a run).

use std::ops::Range;

use super::usage;
use super::STARTED;
use crate::session::{Message, Part, Role, Session};

/// What a line of the history is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    Reply,
    Output,
}

/// Consecutive lines of one kind.
#[derive(Debug)]
struct Block<'a> {
    kind: Kind,
    /// 0-based line of the block's first line in the file.
    line: usize,
    /// Byte range of its lines in the loaded buffer.
    range: Range<usize>,
    lines: Vec<&'a str>,
}

/// One launch of aider: its `# aider chat started at` line and what followed.
#[derive(Debug, Default)]
pub(super) struct Run<'a> {
    /// The date after `# aider chat started at`; `None` for lines before the first start.
    pub(super) started: Option<&'a str>,
    /// Lines of the file the run spans, its start line included.
    pub(super) lines: usize,
    blocks: Vec<Block<'a>>,
}

/// The runs of a history, `base` being the offset of `text` in the loaded buffer.
pub(super) fn runs(text: &str, base: usize) -> Vec<Run<'_>> {
    let mut runs: Vec<Run> = Vec::new();
    let mut offset = base;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let at = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some(date) = line.strip_prefix(STARTED) {
            runs.push(Run {
                started: Some(date.trim()),
                lines: 1,
                blocks: Vec::new(),
            });
            continue;
        }
        if runs.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            runs.push(Run::default());
        }
        let Some(run) = runs.last_mut() else {
            continue;
        };
        run.lines += 1;
        let kind = kind(line);
        match run.blocks.last_mut() {
            Some(block) if block.kind == kind => {
                block.lines.push(line);
                block.range.end = at + line.len();
            }
            _ => run.blocks.push(Block {
                kind,
                line: n,
                range: at..at + line.len(),
                lines: vec![line],
            }),
        }
    }
    runs
}

fn kind(line: &str) -> Kind {
    if line.starts_with("#### ") || line == "####" {
        Kind::User
    } else if line.starts_with("> ") || line == ">" {
        Kind::Output
    } else {
        Kind::Reply
    }
}

/// A line of input or output without its prefix and the markdown line break aider added.
fn unmarked<'a>(line: &'a str, prefix: &str) -> &'a str {
    let body = line.strip_prefix(prefix).unwrap_or("");
    body.strip_suffix("  ").unwrap_or(body)
}

impl Run<'_> {
    /// Pushes the run's messages into `session`, with its title and model.
    pub(super) fn fill(&self, session: &mut Session) {
        if let Some(date) = self.started {
            session.title = Some(format!("aider chat started at {date}"));
        }
        // The reply a token report is about: the last one since the last input.
        let mut reply: Option<usize> = None;
        for block in &self.blocks {
            let (role, text) = match block.kind {
                Kind::User => {
                    let lines: Vec<&str> =
                        block.lines.iter().map(|l| unmarked(l, "####")).collect();
                    let text = lines
                        .iter()
                        .map(|l| l.strip_prefix(' ').unwrap_or(l))
                        .collect::<Vec<_>>()
                        .join("\n");
                    (Role::User, text)
                }
                Kind::Output => {
                    let lines: Vec<&str> = block.lines.iter().map(|l| unmarked(l, ">")).collect();
                    let lines: Vec<&str> = lines
                        .iter()
                        .map(|l| l.strip_prefix(' ').unwrap_or(l))
                        .collect();
                    for line in &lines {
                        self.note(session, line, reply);
                    }
                    (Role::Event, lines.join("\n"))
                }
                Kind::Reply => (Role::Assistant, block.lines.join("\n")),
            };
            if text.trim().is_empty() {
                continue;
            }
            let blank = block
                .lines
                .iter()
                .take_while(|l| l.trim().is_empty())
                .count();
            let mut message = Message::new(role, block.line + blank);
            message.raw = Some(trimmed(session, block.range.clone()));
            message.parts.push(match role {
                Role::Event => Part::Opaque {
                    kind: "aider-output".to_string(),
                    raw: text,
                },
                Role::Assistant => Part::text(text.trim()),
                _ => Part::text(text),
            });
            let index = session.push(message);
            match role {
                Role::User => reply = None,
                Role::Assistant => reply = Some(index),
                _ => {}
            }
        }
    }

    /// What a line of aider's output says about the run: the model, a reply's usage.
    fn note(&self, session: &mut Session, line: &str, reply: Option<usize>) {
        if let Some(usage) = usage::report(line) {
            if let Some(m) = reply.and_then(|i| session.messages.get_mut(i)) {
                m.usage = Some(usage);
            }
            return;
        }
        if session.model.is_none() {
            let named = line
                .strip_prefix("Model: ")
                .or_else(|| line.strip_prefix("Main model: "));
            if let Some(model) = named.and_then(|m| m.split(" with ").next()) {
                session.model = Some(model.trim().to_string());
            }
        }
    }
}

/// `range` without the blank lines at its ends.
fn trimmed(session: &Session, range: Range<usize>) -> Range<usize> {
    let Some(bytes) = session.buffer.get(range.clone()) else {
        return range;
    };
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace());
    match (start, end) {
        (Some(s), Some(e)) => range.start + s..range.start + e + 1,
        _ => range,
    }
}
