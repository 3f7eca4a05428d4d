//! Turning a sequence of mapped response items into messages, for Responses documents and Codex
//! rollouts alike.
//!
//! Owns: the rule that the items of one model response (reasoning, assistant text, tool calls,
//! in any order) form one assistant message until a non-assistant item, a compaction mark, or
//! the caller (`flush`, e.g. at a Codex token count) ends it. Knows no envelope.

use std::ops::Range;

use super::items::Mapped;
use crate::session::{CompactionMark, Message, Part, Role, Session, Usage};

/// Where an item came from, copied onto the message it starts.
#[derive(Debug, Clone, Default)]
pub(in crate::formats) struct Meta<'a> {
    pub index: usize,
    pub raw: Option<Range<usize>>,
    pub timestamp: Option<&'a str>,
    pub id: Option<&'a str>,
    /// Model that produced the item (set on assistant messages only).
    pub model: Option<&'a str>,
}

/// A session being built. Its last message may be an assistant message still open: the items
/// of its model response go on being added to it until something ends it. It is in the
/// session already, so the session can be shown between any two items.
pub(in crate::formats) struct History {
    pub session: Session,
    /// The last message of `session` is still collecting its response's items.
    open: bool,
    /// Input tokens of the last request seen, given to the next mark as `pre_tokens`.
    pub context_before: Option<u64>,
    /// The lowest index of a message that was already in the session and has changed since
    /// [`History::take_touched`] was last called.
    touched: Option<usize>,
}

impl History {
    pub fn new(session: Session) -> History {
        History {
            session,
            open: false,
            context_before: None,
            touched: None,
        }
    }

    /// Adds one mapped item.
    pub fn apply(&mut self, mapped: Mapped, meta: &Meta) {
        match mapped {
            Mapped::Assistant(parts) => self.assistant(parts, meta),
            Mapped::Message(role, parts) => self.push(role, parts, meta),
            Mapped::Compaction(part) => {
                self.mark("compaction", meta.index, None, None);
                self.push(Role::Assistant, vec![part], meta);
            }
            Mapped::Skip => {}
        }
    }

    /// Adds model output to the open assistant message, opening one if needed.
    pub fn assistant(&mut self, parts: Vec<Part>, meta: &Meta) {
        if !self.open {
            self.session.push(new_message(Role::Assistant, meta));
            self.open = true;
        }
        let at = self.session.messages.len() - 1;
        self.touch(at);
        let open = &mut self.session.messages[at];
        if open.source_indices.last() != Some(&meta.index) {
            open.source_indices.push(meta.index);
        }
        if open.id.is_none() {
            open.id = meta.id.map(str::to_string);
        }
        open.parts.extend(parts);
    }

    /// Closes the open assistant message and adds a message of its own.
    pub fn push(&mut self, role: Role, parts: Vec<Part>, meta: &Meta) {
        self.flush();
        let mut message = new_message(role, meta);
        message.parts = parts;
        self.session.push(message);
    }

    /// Closes the open assistant message and records a compaction mark after it.
    pub fn mark(
        &mut self,
        kind: &str,
        source_index: usize,
        summary: Option<String>,
        trigger: Option<String>,
    ) {
        self.flush();
        self.session.mark(CompactionMark {
            kind: kind.to_string(),
            source_index,
            before_message: 0,
            trigger,
            pre_tokens: self.context_before,
            post_tokens: None,
            summary,
        });
    }

    /// Ends the model response being collected.
    pub fn flush(&mut self) {
        self.open = false;
    }

    fn touch(&mut self, at: usize) {
        self.touched = Some(self.touched.map_or(at, |t| t.min(at)));
    }

    /// The lowest message index changed in place since the last call (new messages aside).
    pub fn take_touched(&mut self) -> Option<usize> {
        self.touched.take()
    }

    /// Gives `usage` to the assistant message of the latest request: the last message, passing
    /// over tool results and events, if it is an assistant message without usage yet.
    /// Returns whether it found one.
    pub fn attach_usage(&mut self, usage: Usage) -> bool {
        self.flush();
        let target = self
            .session
            .messages
            .iter_mut()
            .rev()
            .find(|m| !matches!(m.role, Role::Tool | Role::Event));
        match target {
            Some(m) if m.role == Role::Assistant && m.usage.is_none() => {
                m.usage = Some(usage);
                let at = m.index;
                self.touch(at);
                true
            }
            _ => false,
        }
    }

    pub fn finish(mut self) -> Session {
        self.flush();
        self.session
    }
}

fn new_message(role: Role, meta: &Meta) -> Message {
    let mut message = Message::new(role, meta.index);
    message.raw = meta.raw.clone();
    message.timestamp = meta.timestamp.map(str::to_string);
    message.id = meta.id.map(str::to_string);
    if role == Role::Assistant {
        message.model = meta.model.map(str::to_string);
    }
    message
}
