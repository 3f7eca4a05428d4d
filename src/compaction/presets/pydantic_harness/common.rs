//! pydantic-ai messages built from the common model, for sessions in any other format: each
//! assistant message a response, each run of other messages one request (core's history
//! cleaning merges adjacent requests), tool-call arguments as `str()` of the parsed JSON.
//!
//! Messages without a raw record are ones `replay` carried over from a compacted history this
//! preset wrote (read back, then kept in the source's format): they keep the records they came
//! from (same source index, one request), their summary is the harness' own and a receipt's
//! text is a receipt again.
//!
//! The parts borrow the messages' texts, names and ids; only `str()` of a tool call's parsed
//! arguments and a tool result joined from several texts are owned.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use super::history::{Rec, UserPart, P};
use crate::pyrepr;
use crate::session::{Message, Part, Role, Session};

/// Any other format: each assistant message a response, runs of other messages one request.
pub fn records(session: &Session) -> Vec<Rec<'_>> {
    let mut out: Vec<Rec> = Vec::new();
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    for m in &session.messages {
        if m.role == Role::Event {
            continue;
        }
        let request = m.role != Role::Assistant;
        let carried = m.raw.is_none();
        let parts = model_parts(m, carried, &mut names);
        // The harness inserts its own summary as a request of its own: never merged with the
        // requests around it.
        let own = parts.iter().any(P::is_own_summary);
        let same_record = |last: &Rec| !carried || last.source == m.source_index;
        match out.last_mut() {
            Some(last)
                if request
                    && last.request
                    && same_record(last)
                    && !own
                    && !last.parts.iter().any(P::is_own_summary) =>
            {
                last.parts.extend(parts);
                last.messages.push(m.index);
            }
            _ => {
                let usage = m.usage.as_ref();
                out.push(Rec {
                    request,
                    parts,
                    input_tokens: usage.and_then(|u| u.context_input()).unwrap_or(0),
                    output_tokens: usage.and_then(|u| u.output).unwrap_or(0),
                    source: m.source_index,
                    messages: vec![m.index],
                    ..Rec::default()
                });
            }
        }
    }
    out
}

/// The parts `records` gives message `m`, but for tool names of results (which the text
/// segments and the record boundaries do not read).
pub fn parts_of(m: &Message) -> Vec<P<'_>> {
    model_parts(m, m.raw.is_none(), &mut BTreeMap::new())
}

fn model_parts<'a>(
    m: &'a Message,
    carried: bool,
    names: &mut BTreeMap<&'a str, &'a str>,
) -> Vec<P<'a>> {
    m.parts
        .iter()
        .map(|part| match (carried, part) {
            (true, Part::Summary { text }) if m.role != Role::Assistant => P::Compaction {
                content: Some(Cow::Borrowed(text)),
                own: !text.is_empty(),
            },
            (true, Part::Text { text }) if m.role == Role::User && is_receipt(text) => {
                P::User(UserPart {
                    texts: vec![Cow::Borrowed(text)],
                    receipt: true,
                    ..UserPart::default()
                })
            }
            _ => model_part(m.role, part, names),
        })
        .collect()
}

/// The text of a harness receipt (`format_receipt`).
pub fn is_receipt(text: &str) -> bool {
    text.starts_with("[History before this point (")
        && text.ends_with(']')
        && text.contains("re-verify critical facts against primary sources.")
}

fn model_part<'a>(role: Role, part: &'a Part, names: &mut BTreeMap<&'a str, &'a str>) -> P<'a> {
    let assistant = role == Role::Assistant;
    match part {
        Part::Text { text } if assistant => P::Text(Cow::Borrowed(text)),
        Part::Text { text } if matches!(role, Role::System | Role::Developer) => P::System {
            content: Cow::Borrowed(text),
            request_scope: false,
        },
        Part::Text { text } => P::User(UserPart {
            texts: vec![Cow::Borrowed(text)],
            ..UserPart::default()
        }),
        Part::ToolCall {
            id,
            name,
            arguments,
            server,
        } => {
            names.insert(id, name);
            let args = serde_json::from_str::<Value>(arguments).map_or_else(
                |_| Cow::Borrowed(arguments.as_str()),
                |v| Cow::Owned(pyrepr::str_of(&v)),
            );
            let name = Cow::Borrowed(name.as_str());
            match server {
                true => P::NativeCall { name, args },
                false => P::ToolCall {
                    name,
                    args,
                    call_id: Cow::Borrowed(id),
                    load: false,
                },
            }
        }
        Part::ToolResult { call_id, .. } => {
            let name = Cow::Borrowed(names.get(call_id.as_str()).copied().unwrap_or_default());
            let text = part.plain_cow();
            match assistant {
                true => P::NativeReturn { name, text },
                false => P::ToolReturn {
                    name,
                    text,
                    call_id: Cow::Borrowed(call_id),
                    retried: false,
                    cause: None,
                    load: false,
                },
            }
        }
        Part::Reasoning { text, .. } => P::Thinking(Cow::Borrowed(text)),
        // A summary this preset inserted (ctxray's `compact`/`replay`) carries the text
        // providers are sent for an own `CompactionPart`; it is the harness' own summary again.
        Part::Summary { text } => match text.strip_prefix(super::SUMMARY_PREFIX) {
            Some(own) => P::Compaction {
                content: Some(Cow::Borrowed(own)),
                own: true,
            },
            None => P::Compaction {
                content: Some(Cow::Borrowed(text)),
                own: false,
            },
        },
        Part::Image(_) if !assistant => P::User(UserPart {
            media: 1,
            ..UserPart::default()
        }),
        Part::Image(_) => P::Image,
        Part::Opaque { .. } => P::Other,
    }
}
