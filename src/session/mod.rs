//! The common transcript model every format parses into and every other module reads.
//!
//! Owns: `Session`, `Message`, `Part`, `Role`, `Usage`, `CompactionMark`, the skipped-line
//! record and the abandoned-branch record. It must not know about files, formats' quirks, tokens or the terminal: parsers build
//! it, `tokens` and `compaction` read it.

mod format;
mod part;
pub mod raw_lines;

pub use format::Format;
pub use part::{ImageRef, Part};
pub use raw_lines::RawLines;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

/// Who spoke a message, as the model sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
    /// A message whose content is tool results (Chat Completions `tool`, Claude Code's
    /// result-only user lines, OpenHands observations …).
    Tool,
    /// A source record that is not a message and that ctxray does not know (kept, never
    /// dropped, as one opaque part; never counted as context).
    Event,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Event => "event",
        }
    }

    /// Reads the role names the formats use (`human`/`ai`/`model`/`gemini` included).
    pub fn parse(name: &str) -> Option<Role> {
        Some(match name {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" | "human" => Role::User,
            "assistant" | "ai" | "model" | "gemini" | "agent" => Role::Assistant,
            "tool" | "function" | "ipython" => Role::Tool,
            _ => return None,
        })
    }
}

/// Provider-reported usage, exactly as the source says it.
///
/// `input_includes_cache` records the convention: OpenAI-style input counts cached tokens,
/// Anthropic-style input excludes them (context = input + cache_read + cache_write).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub cache_read: Option<u64>,
    pub cache_write: Option<u64>,
    pub reasoning: Option<u64>,
    pub total: Option<u64>,
    pub input_includes_cache: bool,
}

impl Usage {
    /// Tokens of prompt the provider saw for this request, cache included.
    pub fn context_input(&self) -> Option<u64> {
        let input = self.input?;
        if self.input_includes_cache {
            Some(input)
        } else {
            Some(input + self.cache_read.unwrap_or(0) + self.cache_write.unwrap_or(0))
        }
    }

    /// Prompt plus completion: the context the request left behind.
    pub fn context_total(&self) -> Option<u64> {
        Some(self.context_input()? + self.output.unwrap_or(0))
    }
}

/// One message of the transcript, as the model would see it.
#[derive(Debug, Clone)]
pub struct Message {
    /// Position in `Session::messages`.
    pub index: usize,
    /// First source record this message came from (array index or 0-based JSONL line).
    pub source_index: usize,
    /// Every source record merged into this message, ascending.
    pub source_indices: Vec<usize>,
    pub role: Role,
    pub parts: Vec<Part>,
    pub usage: Option<Usage>,
    pub timestamp: Option<String>,
    pub id: Option<String>,
    pub model: Option<String>,
    /// Byte range of the (first) raw record in `Session::buffer`.
    pub raw: Option<Range<usize>>,
}

impl Message {
    pub fn new(role: Role, source_index: usize) -> Message {
        Message {
            index: 0,
            source_index,
            source_indices: vec![source_index],
            role,
            parts: Vec::new(),
            usage: None,
            timestamp: None,
            id: None,
            model: None,
            raw: None,
        }
    }

    /// Client-side tool calls (those a tool-call group pairs with results).
    pub fn client_calls(&self) -> impl Iterator<Item = (&str, &str)> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall {
                id,
                name,
                server: false,
                ..
            } => Some((id.as_str(), name.as_str())),
            _ => None,
        })
    }

    /// Call ids this message answers.
    pub fn result_ids(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolResult { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
    }

    /// Whether every part is a tool result (such a message plays the `tool` role).
    pub fn holds_only_tool_results(&self) -> bool {
        !self.parts.is_empty()
            && self
                .parts
                .iter()
                .all(|p| matches!(p, Part::ToolResult { .. }))
    }

    /// Names of the tools this message calls, in order, duplicates kept once.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for part in &self.parts {
            if let Part::ToolCall { name, .. } = part {
                if !names.iter().any(|n| n == name) {
                    names.push(name.clone());
                }
            }
        }
        names
    }
}

/// A compaction the source itself recorded (a boundary, a summary, a condensation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionMark {
    /// The source's own name: `compact_boundary`, `microcompact_boundary`, `compact_summary`,
    /// `compacted`, `context_compacted`, `condensation`, `state_snapshot`, `compaction` …
    pub kind: String,
    pub source_index: usize,
    /// The mark lies before the message with this index (`messages.len()` when at the end).
    pub before_message: usize,
    pub trigger: Option<String>,
    pub pre_tokens: Option<u64>,
    pub post_tokens: Option<u64>,
    pub summary: Option<String>,
}

impl CompactionMark {
    /// The kind of the mark a ctxray compaction leaves in the history.
    pub const CTXRAY: &'static str = "ctxray-compaction";
}

/// A source record that could not be read, kept so the user is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// 1-based line number (JSONL) or 1-based record number.
    pub line: usize,
    pub reason: String,
}

/// Records a rewind left behind: a branch of the source's record tree that the conversation no
/// longer holds (Claude Code), read but not made messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abandoned {
    /// The record the branch forks from (0-based line or record index): the last one the
    /// branch shares with the conversation.
    pub fork: usize,
    /// The branch's records (0-based lines or record indices), ascending.
    pub records: Vec<usize>,
}

/// Where a session came from.
#[derive(Debug, Clone, Default)]
pub struct Source {
    pub path: String,
    /// Records read from the source (lines, array items, event files).
    pub records: usize,
    /// The position of every record read (0-based line or array index), skipped ones included;
    /// empty where the format has no list of records.
    pub record_indices: Vec<usize>,
    pub skipped: Vec<Skipped>,
    /// Branches a rewind abandoned: their records were read and are not messages.
    pub abandoned: Vec<Abandoned>,
    /// Why the format the source was read as may not be its own: its records gave no
    /// messages, or only opaque ones.
    pub uncertain: Option<String>,
    /// Records that became messages with nothing in them, noted while their bytes were there.
    pub empty: Vec<EmptyRecord>,
    /// Messages whose record lacks the key its content is under, though the message has a
    /// part (a tool result paired with its call by id, holding nothing): noted in `empty` too.
    pub hollow: Vec<usize>,
}

/// A record read into a message with no parts: it lacked what its kind needs (a misspelt
/// `content`, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmptyRecord {
    /// The message it became.
    pub message: usize,
    /// Where it is in the source: `record at line 12`, or `record 3`.
    pub place: String,
    /// Its keys, an object's own keys in braces: `type, message{role, contnet}`.
    pub keys: String,
}

/// A whole transcript in the common model.
#[derive(Debug, Clone)]
pub struct Session {
    pub format: Format,
    pub source: Source,
    pub id: Option<String>,
    pub title: Option<String>,
    pub model: Option<String>,
    /// Context window the source itself reports (Codex `model_context_window`, …).
    pub reported_window: Option<u64>,
    pub messages: Vec<Message>,
    pub marks: Vec<CompactionMark>,
    /// Subagent sessions.
    pub children: Vec<Session>,
    /// The loaded bytes that `Message::raw` ranges point into.
    pub buffer: Arc<Vec<u8>>,
    /// Where the ranges are read when `buffer` does not hold them: the source the session was
    /// read from a chunk at a time, its bytes not kept (see [`Session::raw_range`]).
    pub records: Option<Arc<dyn RecordSource>>,
}

/// The source's bytes, read again on demand: what `Message::raw` ranges point into when the
/// session does not keep them in memory.
pub trait RecordSource: std::fmt::Debug + Send + Sync {
    /// Bytes of the source the session was read from.
    fn bytes(&self) -> usize;
    /// The bytes of `range`, or `None` when they can no longer be read as they were.
    fn read(&self, range: Range<usize>) -> Option<Vec<u8>>;
}

impl Session {
    pub fn new(format: Format, path: impl Into<String>, buffer: Arc<Vec<u8>>) -> Session {
        Session {
            format,
            source: Source {
                path: path.into(),
                ..Source::default()
            },
            id: None,
            title: None,
            model: None,
            reported_window: None,
            messages: Vec::new(),
            marks: Vec::new(),
            children: Vec::new(),
            buffer,
            records: None,
        }
    }

    /// An empty session with this one's format, path and source bytes (kept or read again).
    pub fn sharing_source(&self) -> Session {
        let mut session = Session::new(self.format, self.source.path.clone(), self.buffer.clone());
        session.records = self.records.clone();
        session
    }

    /// Appends a message, giving it its index.
    pub fn push(&mut self, mut message: Message) -> usize {
        message.index = self.messages.len();
        self.messages.push(message);
        message_index(self)
    }

    /// Records a compaction mark lying before the next message pushed.
    pub fn mark(&mut self, mut mark: CompactionMark) {
        mark.before_message = self.messages.len();
        self.marks.push(mark);
    }

    /// Reports a skipped record.
    pub fn skip(&mut self, line: usize, reason: impl Into<String>) {
        self.source.skipped.push(Skipped {
            line,
            reason: reason.into(),
        });
    }

    /// The raw source record of a message, if the buffer holds it or the source can be read
    /// again.
    pub fn raw_record(&self, message: &Message) -> Option<Cow<'_, [u8]>> {
        self.raw_range(message.raw.clone()?)
    }

    /// Bytes of the source that `Message::raw` ranges point into (the buffer's, else the
    /// source's read again; 0 when neither is there).
    pub fn raw_len(&self) -> usize {
        match &self.records {
            Some(records) if self.buffer.is_empty() => records.bytes(),
            _ => self.buffer.len(),
        }
    }

    /// The 1-based line of the source each byte offset of `starts` lies on, in one pass
    /// counting line breaks a megabyte at a time (a source read again from its file is never
    /// held whole); `None` when those bytes can no longer be read.
    pub fn lines_at(&self, starts: &[usize]) -> Option<Vec<usize>> {
        let mut order: Vec<usize> = (0..starts.len()).collect();
        order.sort_unstable_by_key(|&i| starts[i]);
        let len = self.raw_len();
        let (mut at, mut breaks) = (0, 0);
        let mut out = vec![0; starts.len()];
        for i in order {
            let start = starts[i].min(len);
            while at < start {
                let end = start.min(at + (1 << 20));
                breaks += memchr::memchr_iter(b'\n', &self.raw_range(at..end)?).count();
                at = end;
            }
            out[i] = breaks + 1;
        }
        Some(out)
    }

    /// The source bytes of `range`: borrowed from the buffer, else read again.
    pub fn raw_range(&self, range: Range<usize>) -> Option<Cow<'_, [u8]>> {
        match &self.records {
            Some(records) if self.buffer.is_empty() => records.read(range).map(Cow::Owned),
            _ => self.buffer.get(range).map(Cow::Borrowed),
        }
    }

    /// Every source byte, when there are any (a session read a chunk at a time reads its
    /// file again, whole).
    pub fn raw_bytes(&self) -> Option<Cow<'_, [u8]>> {
        let len = self.raw_len();
        (len > 0).then(|| self.raw_range(0..len)).flatten()
    }

    /// The source's first line, without its line break (read a little at a time when the
    /// source is read again, so a large file is not read whole for it).
    pub fn raw_first_line(&self) -> Option<Cow<'_, [u8]>> {
        let len = self.raw_len();
        let mut want = (64 << 10).min(len);
        loop {
            let head = self.raw_range(0..want)?;
            if let Some(end) = memchr::memchr(b'\n', &head) {
                return Some(match head {
                    Cow::Borrowed(b) => Cow::Borrowed(&b[..end]),
                    Cow::Owned(mut v) => {
                        v.truncate(end);
                        Cow::Owned(v)
                    }
                });
            }
            if want == len {
                return Some(head);
            }
            want = want.saturating_mul(4).min(len);
        }
    }

    /// Re-numbers messages after a parser reordered or removed some.
    pub fn renumber(&mut self) {
        for (i, m) in self.messages.iter_mut().enumerate() {
            m.index = i;
        }
    }
}

fn message_index(session: &Session) -> usize {
    session.messages.len() - 1
}
