//! Tool results written as user text: Cline and Roo Code answer each call of an assistant
//! message in the next user message with a text block `[<name> for '<arg>'] Result:\n<output>`
//! (or `[<name>] Result:`), one per call in call order, followed by other text
//! (`<environment_details>`, reminders). Roo Code and older Cline write the header `[…]
//! Result:` as a block of its own, the output in the blocks after it (text, images). Some
//! versions write real `tool_result` blocks instead, with the call's id.
//!
//! A call that was not run is answered by a note instead (`Tool [name] was not executed …`,
//! `Skipping tool …`): it is its result, as the model reads it.
//!
//! Owns: recognising such a header or note, and pairing each result with the earliest call of the
//! previous assistant message that has the same name and no result yet, turning the text into
//! a `ToolResult` with that call's id. A result no call answers keeps its text in a
//! `ToolResult` under an id of its own (`<record>-result-<n>`), so it is reported as a result
//! without a call and nothing is dropped.
//!
//! Followed: `ToolResultUtils.pushToolResult` / `createToolResultBlock` (cline/cline
//! `src/core/task/tools/utils/ToolResultUtils.ts`, the text is `${description} Result:\n${result}`
//! where `description` is the handler's `getDescription`), and `formatResponse.toolError`
//! (`The tool execution failed with the following error:`) for `is_error`; for Roo Code,
//! `pushToolResult` in RooVetGit/Roo-Code `src/core/assistant-message/presentAssistantMessage.ts`
//! (the header block, then the output blocks).

use std::collections::VecDeque;

use foldhash::HashMap;

use crate::session::{Message, Part};

/// The start of a failed tool's output (`formatResponse.toolError`).
const TOOL_ERROR: &str = "The tool execution failed with the following error:";

/// The tool name of a result header: `text` starts `[name]`, `[name for …]` (or another
/// description after a space) and holds `] Result:`.
pub(super) fn header(text: &str) -> Option<&str> {
    let name = name_at(text.strip_prefix('[')?)?;
    text.contains("] Result:").then_some(name)
}

/// The tool name of a note that stands for a call's result: the call was not run because
/// another tool ran first (`formatResponse.toolAlreadyUsed`: `Tool [name] was not executed …`)
/// or the user rejected an earlier one (Cline: `Skipping tool due to user rejecting a previous
/// tool. [description]`, Roo Code: `Skipping tool [description] due to …`).
fn note(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix("Tool [")
        .filter(|r| {
            r.contains("] was not executed") || r.contains("] was interrupted and not executed")
        })
        .or_else(|| text.strip_prefix("Skipping tool ["))
        .or_else(|| {
            let (reason, description) = text.split_once(" [")?;
            let rejected = reason.ends_with("due to user rejecting a previous tool.");
            rejected.then_some(description)
        })?;
    name_at(rest)
}

/// The tool name a result or note names: `text` or a note's description.
pub(super) fn named(text: &str) -> Option<&str> {
    header(text).or_else(|| note(text))
}

/// The tool name at the start of a description (after its `[`): followed by `]` or a space.
fn name_at(rest: &str) -> Option<&str> {
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        .count();
    let after = rest.get(len..)?;
    let described = after.starts_with(']') || after.starts_with(' ');
    (len > 0 && described).then(|| &rest[..len])
}

/// Whether `text` is only a header, its output in the blocks after it.
fn header_only(text: &str) -> bool {
    text.trim_end().ends_with("] Result:")
}

/// The calls of the last assistant message still waiting for a result: each call's id in call
/// order (taken ones emptied), and by name and by id where each stands, so that answering a
/// message of many calls stays linear in its calls.
#[derive(Debug, Default)]
pub(super) struct Pairing {
    ids: Vec<Option<String>>,
    by_name: HashMap<String, VecDeque<usize>>,
    by_id: HashMap<String, Vec<usize>>,
}

impl Pairing {
    /// An assistant message: its client calls are now the ones waiting.
    pub(super) fn expect(&mut self, msg: &Message) {
        self.expect_calls(msg.client_calls());
    }

    /// Calls `(id, name)`, in call order, are now the ones waiting.
    fn expect_calls<'c>(&mut self, calls: impl IntoIterator<Item = (&'c str, &'c str)>) {
        *self = Pairing::default();
        for (id, name) in calls {
            let at = self.ids.len();
            self.ids.push(Some(id.to_string()));
            self.by_name
                .entry(name.to_string())
                .or_default()
                .push_back(at);
            self.by_id.entry(id.to_string()).or_default().push(at);
        }
    }

    /// The calls of id `id` answered by a result that names it.
    fn answered(&mut self, id: &str) {
        for at in self.by_id.remove(id).unwrap_or_default() {
            self.ids[at] = None;
        }
    }

    /// The id of the earliest waiting call named `name`, now answered.
    fn take_named(&mut self, name: &str) -> Option<String> {
        let queue = self.by_name.get_mut(name)?;
        while let Some(at) = queue.pop_front() {
            if let Some(id) = self.ids[at].take() {
                return Some(id);
            }
        }
        None
    }

    /// A user message's parts with its result texts turned into results.
    pub(super) fn answer(&mut self, parts: Vec<Part>, record: usize) -> Vec<Part> {
        let mut out = Vec::with_capacity(parts.len());
        let mut parts = parts.into_iter().peekable();
        let mut unpaired = 0;
        while let Some(part) = parts.next() {
            let name = match &part {
                Part::ToolResult { call_id, .. } => {
                    self.answered(call_id);
                    None
                }
                Part::Text { text } => named(text).map(str::to_string),
                _ => None,
            };
            let Some(name) = name else {
                out.push(part);
                continue;
            };
            let mut content = vec![part];
            if header_only(&content[0].plain_text()) {
                while let Some(next) = parts.next_if(continues_output) {
                    content.push(next);
                }
            }
            let call_id = match self.take_named(&name) {
                Some(id) => id,
                None => {
                    unpaired += 1;
                    format!("{record}-result-{}", unpaired - 1)
                }
            };
            let is_error = content
                .iter()
                .any(|p| matches!(p, Part::Text { text } if failed(text)))
                .then_some(true);
            out.push(Part::ToolResult {
                call_id,
                content,
                is_error,
            });
        }
        out
    }
}

/// A block after a header-only block that belongs to the tool's output: not the next result
/// or note, nor the environment details Cline appends to every user message.
fn continues_output(part: &Part) -> bool {
    match part {
        Part::Text { text } => {
            named(text).is_none() && !text.trim_start().starts_with("<environment_details>")
        }
        Part::Image(_) => true,
        _ => false,
    }
}

/// Whether a result text reports a failed tool (after its header line, or as the output block
/// of a header-only result).
fn failed(text: &str) -> bool {
    let output = match header(text) {
        Some(_) => text.split_once('\n').map_or("", |(_, rest)| rest),
        None => text,
    };
    output.trim_start().starts_with(TOOL_ERROR)
}

#[cfg(test)]
mod tests {
    use super::Pairing;
    use proptest::prelude::*;

    /// What a result answers, given the calls waiting: the first with its name, taken; a
    /// result with an id takes every call of that id. One list, scanned and shifted each time.
    fn scanned(calls: &[(String, String)], results: &[(bool, String)]) -> Vec<Option<String>> {
        let mut waiting = calls.to_vec();
        let mut out = Vec::new();
        for (by_id, key) in results {
            if *by_id {
                waiting.retain(|(id, _)| id != key);
                out.push(None);
            } else {
                let at = waiting.iter().position(|(_, n)| n == key);
                out.push(at.map(|at| waiting.remove(at).0));
            }
        }
        out
    }

    proptest! {
        #[test]
        fn pairing_takes_what_scanning_the_waiting_calls_takes(
            calls in proptest::collection::vec(("c[0-3]", "[ab]"), 0..12),
            results in proptest::collection::vec((any::<bool>(), "[abc]|c[0-4]"), 0..16),
        ) {
            let mut p = Pairing::default();
            p.expect_calls(calls.iter().map(|(i, n)| (i.as_str(), n.as_str())));
            let got: Vec<Option<String>> = results
                .iter()
                .map(|(by_id, key)| {
                    if *by_id {
                        p.answered(key);
                        None
                    } else {
                        p.take_named(key)
                    }
                })
                .collect();
            prop_assert_eq!(got, scanned(&calls, &results));
        }
    }
}
