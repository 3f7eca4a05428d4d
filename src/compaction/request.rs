//! A summarizer request left to be rendered when it is read. A framework that summarizes by
//! sending its own history (Claude Code, Codex) sends most of the session again, rendered in
//! its wire format, and `custom` sends it as one transcript of blocks; a command that only
//! counts, scans or previews the request (`plan` as text, `check`, `compact` with the offline
//! digest) need not hold that second copy of the session.
//!
//! Owns: [`PromptMessage`] (one message of a request, byte for byte), [`Deferred`] (a request's
//! messages in order, each a session message and how its preset renders it, a transcript of
//! session messages ([`Joined`]), or a text of its own) and reading a plan's request back one
//! message at a time ([`messages`]) or one piece of a message at a time ([`map_each`],
//! [`map_pieces`]), rendered or deferred alike. Must not: decide which messages are sent or how
//! a message is rendered (the preset does).

use std::borrow::Cow;
use std::sync::Arc;

use crate::session::{Message, Session};

/// Literal summarizer roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptRole {
    System,
    User,
    Assistant,
}

impl PromptRole {
    pub fn as_str(self) -> &'static str {
        match self {
            PromptRole::System => "system",
            PromptRole::User => "user",
            PromptRole::Assistant => "assistant",
        }
    }
}

/// One message of the summarizer request, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    pub role: PromptRole,
    pub content: String,
}

/// How a deferred message is rendered: the preset's rendering of one session message
/// (`None` when it sends nothing).
pub type Render = fn(&Message) -> Option<PromptMessage>;

/// A message's pieces, made as they are reached (see `Deferred::pieces`).
type Pieces<'a> = Box<dyn Iterator<Item = Cow<'a, str>> + 'a>;

/// How a joined message renders one session message (one block of it).
pub type Block = Arc<dyn Fn(&Message) -> String + Send + Sync>;

/// One message of a deferred request.
#[derive(Debug, Clone)]
enum Sent {
    /// A text the framework writes itself (its instruction, an earlier summary).
    Own(PromptMessage),
    /// A session message, rendered by `render` when read.
    Message { index: usize, render: Render },
    /// One message made of many session messages (a transcript): see [`Joined`].
    Joined(Joined),
}

/// A message whose text is pieces joined by line breaks: the framework's own `head` pieces,
/// then a block per session message of `indices` (those the session holds), an empty piece
/// between two blocks, so that blocks stand a blank line apart. Read a piece at a time, the
/// message is never held whole.
#[derive(Clone)]
pub struct Joined {
    role: PromptRole,
    head: Vec<String>,
    indices: Vec<usize>,
    block: Block,
}

impl std::fmt::Debug for Joined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Joined({:?}, {} head pieces, {} blocks)",
            self.role,
            self.head.len(),
            self.indices.len()
        )
    }
}

impl Joined {
    /// The pieces, in order, each made as it is reached (at least one: an empty message is
    /// one empty piece).
    fn pieces<'a>(&'a self, session: &'a Session) -> impl Iterator<Item = Cow<'a, str>> + 'a {
        let held = self
            .indices
            .iter()
            .filter_map(move |&i| session.messages.get(i));
        let empty = self.head.is_empty() && held.clone().next().is_none();
        let blocks = held.enumerate().flat_map(move |(k, m)| {
            let gap = (k > 0).then_some(Cow::Borrowed(""));
            gap.into_iter()
                .chain(std::iter::once(Cow::Owned((self.block)(m))))
        });
        let head = self.head.iter().map(|h| Cow::Borrowed(h.as_str()));
        let nothing = empty.then_some(Cow::Borrowed(""));
        head.chain(blocks).chain(nothing)
    }

    /// The whole text.
    fn text(&self, session: &Session) -> String {
        let mut out = String::new();
        for (k, p) in self.pieces(session).enumerate() {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(&p);
        }
        out
    }
}

/// The messages of a summarizer request, in order, rendered when read.
#[derive(Debug, Clone, Default)]
pub struct Deferred {
    sent: Vec<Sent>,
}

impl Deferred {
    /// Adds a text of the framework's own.
    pub fn push_own(&mut self, m: PromptMessage) {
        self.sent.push(Sent::Own(m));
    }

    /// Adds a text of the framework's own, if there is one.
    pub fn extend_own(&mut self, m: Option<PromptMessage>) {
        self.sent.extend(m.map(Sent::Own));
    }

    /// Adds session message `m`, rendered by `render` when read. Only a message `render`
    /// renders is to be added (one it gives nothing for is skipped when read, but makes the
    /// request look not empty): the preset tells which without rendering it.
    pub fn push_message(&mut self, m: &Message, render: Render) {
        self.sent.push(Sent::Message {
            index: m.index,
            render,
        });
    }

    /// Adds one message of `role` made of the `head` pieces and a `block` of each session
    /// message of `indices`, a blank line apart (see [`Joined`]).
    pub fn push_joined(
        &mut self,
        role: PromptRole,
        head: Vec<String>,
        indices: Vec<usize>,
        block: Block,
    ) {
        self.sent.push(Sent::Joined(Joined {
            role,
            head,
            indices,
            block,
        }));
    }

    /// Whether the request has no message.
    pub fn is_empty(&self) -> bool {
        self.sent.is_empty()
    }

    /// The request's messages in order, each rendered from `session` (the session the plan was
    /// made of) as it is reached.
    pub fn messages<'a>(
        &'a self,
        session: &'a Session,
    ) -> impl Iterator<Item = Cow<'a, PromptMessage>> + 'a {
        self.sent.iter().filter_map(move |s| match s {
            Sent::Own(m) => Some(Cow::Borrowed(m)),
            Sent::Message { index, render } => session
                .messages
                .get(*index)
                .and_then(render)
                .map(Cow::Owned),
            Sent::Joined(j) => Some(Cow::Owned(PromptMessage {
                role: j.role,
                content: j.text(session),
            })),
        })
    }

    /// Each message's role and its text as pieces joined by line breaks (a message rendered
    /// whole is one piece), the pieces made as they are reached: what a reader that reads a
    /// message line by line, or word by word, takes without the message held whole.
    fn pieces<'a>(s: &'a Sent, session: &'a Session) -> Option<(PromptRole, Pieces<'a>)> {
        match s {
            Sent::Own(m) => Some((
                m.role,
                Box::new(std::iter::once(Cow::Borrowed(m.content.as_str()))),
            )),
            Sent::Message { index, render } => {
                let m = session.messages.get(*index).and_then(render)?;
                Some((m.role, Box::new(std::iter::once(Cow::Owned(m.content)))))
            }
            Sent::Joined(j) => Some((j.role, Box::new(j.pieces(session)))),
        }
    }

    /// Every message's pieces in order (see `pieces`), as one run of pieces joined by line
    /// breaks: the request's messages joined by line breaks.
    pub fn all_pieces<'a>(
        &'a self,
        session: &'a Session,
    ) -> impl Iterator<Item = Cow<'a, str>> + 'a {
        self.sent
            .iter()
            .filter_map(move |s| Deferred::pieces(s, session))
            .flat_map(|(_, p)| p)
    }

    /// `f` of each message in order, the messages rendered on every core (each dropped once
    /// `f` has read it).
    pub fn map<R: Send>(
        &self,
        session: &Session,
        f: impl Fn(&PromptMessage) -> R + Sync,
    ) -> Vec<R> {
        self.map_of(&self.sent, session, &f)
    }

    /// `f` of each message's role and pieces (see `pieces`), a window of `window` messages
    /// at a time on every core, each result handed to `each` in order before the next window
    /// is made: what is held at once is one window's results and the pieces being read.
    pub fn map_each<R: Send, E>(
        &self,
        session: &Session,
        window: usize,
        f: impl Fn(PromptRole, &mut dyn Iterator<Item = Cow<'_, str>>) -> R + Sync,
        mut each: impl FnMut(R) -> Result<(), E>,
    ) -> Result<(), E> {
        let one = |s: &Sent| {
            let (role, mut pieces) = Deferred::pieces(s, session)?;
            Some(f(role, &mut pieces))
        };
        for run in self.sent.chunks(window.max(1)) {
            for r in crate::par::map(run, 64, one, |_| {}).into_iter().flatten() {
                each(r)?;
            }
        }
        Ok(())
    }

    /// `f` of each message's role and pieces (see `map_each`), on every core.
    pub fn map_pieces<R: Send>(
        &self,
        session: &Session,
        f: impl Fn(PromptRole, &mut dyn Iterator<Item = Cow<'_, str>>) -> R + Sync,
    ) -> Vec<R> {
        let mut out = Vec::new();
        let _ = self.map_each(session, usize::MAX, f, |r| {
            out.push(r);
            Ok::<(), ()>(())
        });
        out
    }

    fn map_of<R: Send>(
        &self,
        sent: &[Sent],
        session: &Session,
        f: &(impl Fn(&PromptMessage) -> R + Sync),
    ) -> Vec<R> {
        let one = |s: &Sent| match s {
            Sent::Own(m) => Some(f(m)),
            Sent::Message { index, render } => {
                session.messages.get(*index).and_then(render).map(|m| f(&m))
            }
            Sent::Joined(j) => Some(f(&PromptMessage {
                role: j.role,
                content: j.text(session),
            })),
        };
        crate::par::map(sent, 64, one, |_| {})
            .into_iter()
            .flatten()
            .collect()
    }
}

/// `f` of each message of a plan's request in order: `rendered` as it is, `deferred`
/// rendered on every core (see `Deferred::map`).
pub fn map<R: Send>(
    rendered: &[PromptMessage],
    deferred: Option<&Deferred>,
    session: &Session,
    f: impl Fn(&PromptMessage) -> R + Sync,
) -> Vec<R> {
    let mut out: Vec<R> = rendered.iter().map(&f).collect();
    if let Some(d) = deferred {
        out.extend(d.map(session, f));
    }
    out
}

/// `f` of each message of a plan's request, as its role and its pieces (see
/// `Deferred::map_each`): `rendered` as it is (one piece a message), `deferred` a window at a
/// time.
pub fn map_each<R: Send, E>(
    rendered: &[PromptMessage],
    deferred: Option<&Deferred>,
    session: &Session,
    window: usize,
    f: impl Fn(PromptRole, &mut dyn Iterator<Item = Cow<'_, str>>) -> R + Sync,
    mut each: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    for m in rendered {
        each(f(
            m.role,
            &mut std::iter::once(Cow::Borrowed(m.content.as_str())),
        ))?;
    }
    match deferred {
        Some(d) => d.map_each(session, window, f, each),
        None => Ok(()),
    }
}

/// `f` of each message of a plan's request, as its role and its pieces (see `map_each`).
pub fn map_pieces<R: Send>(
    rendered: &[PromptMessage],
    deferred: Option<&Deferred>,
    session: &Session,
    f: impl Fn(PromptRole, &mut dyn Iterator<Item = Cow<'_, str>>) -> R + Sync,
) -> Vec<R> {
    let mut out = Vec::new();
    let _ = map_each(rendered, deferred, session, usize::MAX, f, |r| {
        out.push(r);
        Ok::<(), ()>(())
    });
    out
}

/// A message's content, borrowed as the message is.
pub fn content(m: Cow<'_, PromptMessage>) -> Cow<'_, str> {
    match m {
        Cow::Borrowed(m) => Cow::Borrowed(m.content.as_str()),
        Cow::Owned(m) => Cow::Owned(m.content),
    }
}

/// A plan's request one message at a time: `rendered` as it is, or `deferred` rendered from
/// `session` as each message is reached.
pub fn messages<'a>(
    rendered: &'a [PromptMessage],
    deferred: Option<&'a Deferred>,
    session: &'a Session,
) -> Box<dyn Iterator<Item = Cow<'a, PromptMessage>> + 'a> {
    match deferred {
        Some(d) => Box::new(
            rendered
                .iter()
                .map(Cow::Borrowed)
                .chain(d.messages(session)),
        ),
        None => Box::new(rendered.iter().map(Cow::Borrowed)),
    }
}

#[cfg(test)]
mod tests {
    use crate::compaction::preset::{offline_summary, PlanInput};
    use crate::compaction::presets;
    use crate::testing::{analysed, fired, FORMATS};

    /// A request left to render when read is the request rendered: message for message, with
    /// the same findings (secrets among them) and the same offline digest, under every preset
    /// over fixtures of several formats. The presets that send their own history (Claude Code,
    /// Codex) defer theirs; the others render it whatever they are asked.
    #[test]
    fn a_deferred_request_reads_as_the_rendered_one() {
        let (mut deferred, mut with_secret) = (0, 0);
        // A session whose request holds a key, with a tool call and its result.
        let dir = tempfile::tempdir().unwrap();
        let key = format!("sk-proj-{}", "Zq3xW9vB".repeat(5));
        let call = serde_json::json!([{"id": "c1", "type": "function",
            "function": {"name": "read", "arguments": "{\"path\": \"a.rs\"}"}}]);
        // A private key begun in one message and ended in a later one: searched whole, one
        // match spans the messages between (the key among them).
        let chat = serde_json::json!([
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA"},
            {"role": "user", "content": format!("my key is {key}")},
            {"role": "user", "content": "-----END RSA PRIVATE KEY-----"},
            {"role": "assistant", "content": "reading", "tool_calls": call},
            {"role": "tool", "tool_call_id": "c1", "content": "fn main() {}\n\\u00e9"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "next"},
            {"role": "assistant", "content": "done"},
        ]);
        // Turns enough after them for a preset that keeps the last ten to summarize them.
        let mut chat = chat.as_array().cloned().unwrap_or_default();
        for k in 0..6 {
            chat.push(serde_json::json!({"role": "user", "content": format!("step {k}")}));
            chat.push(serde_json::json!({"role": "assistant", "content": format!("did {k}")}));
        }
        let leaky = dir.path().join("leaky.json");
        std::fs::write(&leaky, serde_json::to_vec(&chat).unwrap()).unwrap();
        let leaky = leaky.to_str().unwrap().to_string();
        for file in FORMATS.iter().copied().chain([leaky.as_str()]) {
            let a = analysed(file);
            let whole = PlanInput::new(&a);
            let by_message = PlanInput {
                defer_request: true,
                ..PlanInput::new(&a)
            };
            for p in presets::all() {
                let (Some(want), Some(got)) = (fired(&whole, p), fired(&by_message, p)) else {
                    continue;
                };
                let at = format!("{} {file}", p.name());
                assert!(want.deferred.is_none(), "{at}");
                let read: Vec<_> = got.request(&a.session).map(|m| m.into_owned()).collect();
                assert_eq!(read, want.summarizer, "{at}");
                assert_eq!(got.request_is_empty(), want.summarizer.is_empty(), "{at}");
                assert_eq!(got.findings, want.findings, "{at}");
                assert_eq!(
                    offline_summary(p, &by_message, &got),
                    offline_summary(p, &whole, &want),
                    "{at}"
                );
                if got.deferred.is_some() {
                    assert!(got.summarizer.is_empty(), "{at}");
                    deferred += 1;
                    let secret =
                        |f: &crate::compaction::Finding| f.code == "secret-in-summarizer-input";
                    with_secret += usize::from(got.findings.iter().any(secret));
                }
            }
        }
        assert!(deferred >= 3, "{deferred}");
        assert!(with_secret >= 1, "{with_secret}");
    }
}
