//! Token accounting: exact text counts per message, framing and image overhead beside them.
//!
//! Owns: encodings (`encoding`), the model registry (`registry`), non-text costs (`overhead`),
//! content keys of counted messages (`memo`),
//! and counting a whole session on all cores. Pure: no IO beyond reading a registry file the
//! caller names.

pub mod bound;
pub mod encoding;
pub mod memo;
pub mod overhead;
mod parts;
pub mod registry;
mod remember;
mod resident;
pub use remember::remembered;
mod split;

pub use encoding::{Counter, Encoding};
pub use memo::CountMemo;
pub use registry::{ImageCosting, ModelInfo, Registry};

use crate::session::{Message, Part, Role, Session};

/// Tokens of one message: the exact text count and the estimated overhead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MessageCount {
    pub tokens: usize,
    pub overhead: usize,
}

impl MessageCount {
    pub fn total(&self) -> usize {
        self.tokens + self.overhead
    }
}

/// Counts of every message of a session (not its children).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub messages: Vec<MessageCount>,
}

impl Counts {
    pub fn total(&self) -> usize {
        self.messages.iter().map(MessageCount::total).sum()
    }
}

/// Exact tokens of a message's content as sent: text, tool-call name and arguments, tool-result
/// text, reasoning and summary text. Opaque parts and event records are not sent: 0.
pub fn message_tokens(message: &Message, counter: &Counter) -> usize {
    if message.role == Role::Event {
        return 0;
    }
    message.parts.iter().map(|p| part_tokens(p, counter)).sum()
}

fn part_tokens(part: &Part, counter: &Counter) -> usize {
    match part {
        Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => {
            counter.count(text)
        }
        Part::ToolCall {
            name, arguments, ..
        } => counter.count(name) + counter.count(arguments),
        Part::ToolResult { content, .. } => content.iter().map(|p| part_tokens(p, counter)).sum(),
        Part::Image(_) | Part::Opaque { .. } => 0,
    }
}

/// Counts every message of `session`, splitting the work over the available cores.
pub fn count_session(session: &Session, counter: &Counter, costing: ImageCosting) -> Counts {
    count_session_with(session, counter, costing, None)
}

/// [`count_session`], advancing `progress` by each chunk of messages counted.
pub fn count_session_with(
    session: &Session,
    counter: &Counter,
    costing: ImageCosting,
    progress: Option<&crate::progress::Progress>,
) -> Counts {
    count_session_after(session, counter, costing, progress, &[])
}

/// [`count_session_with`] for a session whose first messages were counted before with the same
/// encoding and image costing (a followed file that grew): `known` holds their counts, and only
/// the messages after them are counted.
pub fn count_session_after(
    session: &Session,
    counter: &Counter,
    costing: ImageCosting,
    progress: Option<&crate::progress::Progress>,
    known: &[MessageCount],
) -> Counts {
    let known = &known[..known.len().min(session.messages.len())];
    if let Some(p) = progress {
        p.advance(known.len() as u64);
    }
    let mut counts = known.to_vec();
    counts.extend(
        count_messages(
            &session.messages[known.len()..],
            counter,
            costing,
            progress,
            None,
        )
        .into_iter()
        .map(|(count, _)| count),
    );
    Counts { messages: counts }
}

/// [`count_session_with`] that takes a message's text count from `memo` when its content key is
/// known there, counts the others, and notes every keyed message in `memo`.
pub fn count_session_memo(
    session: &Session,
    counter: &Counter,
    costing: ImageCosting,
    progress: Option<&crate::progress::Progress>,
    memo: &mut CountMemo,
) -> Counts {
    let counted = count_messages(&session.messages, counter, costing, progress, Some(memo));
    let mut messages = Vec::with_capacity(counted.len());
    for (count, keyed) in counted {
        if let Some((key, hit)) = keyed {
            // A count past u32 (16 GB of text in one message) is not kept.
            if let Ok(n) = u32::try_from(count.tokens) {
                memo.note(key, n, hit);
            }
        }
        messages.push(count);
    }
    Counts { messages }
}

/// A message's counts, and with a memo its content key and whether the memo knew it.
type Counted = (MessageCount, Option<(memo::Key, bool)>);

fn count_messages(
    messages: &[Message],
    counter: &Counter,
    costing: ImageCosting,
    progress: Option<&crate::progress::Progress>,
    memo: Option<&CountMemo>,
) -> Vec<Counted> {
    let advance = |n: usize| {
        if let Some(p) = progress {
            p.advance(n as u64);
        }
    };
    let count_one = |m: &Message| -> Counted {
        let overhead = overhead::message_overhead(m, costing);
        let key = memo.and_then(|_| memo::message_key(m, counter.encoding()));
        let known = key.and_then(|k| memo?.get(k));
        let tokens = match known {
            Some(n) => n as usize,
            None => message_tokens(m, counter),
        };
        (
            MessageCount { tokens, overhead },
            key.map(|k| (k, known.is_some())),
        )
    };
    // Runs taken in turn by idle threads, so one huge message does not leave a core idle.
    crate::par::map(messages, 64, count_one, advance)
}
