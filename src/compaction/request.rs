//! A summarizer request left to be rendered when it is read. A framework that summarizes by
//! sending its own history (Claude Code, Codex) sends most of the session again, rendered in
//! its wire format; a command that only counts, scans or previews the request (`plan` as text,
//! `check`, `compact` with the offline digest) need not hold that second copy of the session.
//!
//! Owns: [`PromptMessage`] (one message of a request, byte for byte), [`Deferred`] (a request's
//! messages in order, each a session message and how its preset renders it, or a text of its
//! own) and reading a plan's request back one message at a time ([`messages`]), rendered or
//! deferred alike. Must not: decide which messages are sent or how a message is rendered (the
//! preset does).

use std::borrow::Cow;

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

/// One message of a deferred request.
#[derive(Debug, Clone)]
enum Sent {
    /// A text the framework writes itself (its instruction, an earlier summary).
    Own(PromptMessage),
    /// A session message, rendered by `render` when read.
    Message { index: usize, render: Render },
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
        })
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

    /// `map` a window of `window` messages at a time, each result handed to `each` in order
    /// before the next window is made: what is held at once is one window's results.
    pub fn map_each<R: Send, E>(
        &self,
        session: &Session,
        window: usize,
        f: impl Fn(&PromptMessage) -> R + Sync,
        mut each: impl FnMut(R) -> Result<(), E>,
    ) -> Result<(), E> {
        for run in self.sent.chunks(window.max(1)) {
            for r in self.map_of(run, session, &f) {
                each(r)?;
            }
        }
        Ok(())
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
        };
        crate::par::map(sent, 64, one, |_| {})
            .into_iter()
            .flatten()
            .collect()
    }

    /// `f` of each message summed (see `map`).
    pub fn sum(&self, session: &Session, f: impl Fn(&PromptMessage) -> usize + Sync) -> usize {
        self.map(session, f).into_iter().sum()
    }

    /// The whole request, rendered.
    pub fn rendered(&self, session: &Session) -> Vec<PromptMessage> {
        self.messages(session).map(Cow::into_owned).collect()
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

/// `map_each` of a plan's request: `rendered` as it is, `deferred` a window at a time.
pub fn map_each<R: Send, E>(
    rendered: &[PromptMessage],
    deferred: Option<&Deferred>,
    session: &Session,
    window: usize,
    f: impl Fn(&PromptMessage) -> R + Sync,
    mut each: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    for m in rendered {
        each(f(m))?;
    }
    match deferred {
        Some(d) => d.map_each(session, window, f, each),
        None => Ok(()),
    }
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
        let chat = serde_json::json!([
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": format!("my key is {key}")},
            {"role": "assistant", "content": "reading", "tool_calls": call},
            {"role": "tool", "tool_call_id": "c1", "content": "fn main() {}\n\\u00e9"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "next"},
            {"role": "assistant", "content": "done"},
        ]);
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
