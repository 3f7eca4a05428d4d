//! The offline summary of an Agent Framework summarization: ctxray's extractive digest, but of
//! what the framework's summarizer is shown — each line quotes the transcript rendering of the
//! messages the request holds, in its order. Under 1.17 a tool round is the `function_call` /
//! `function_result` placeholders (or the assistant's text alone), so no tool name, argument or
//! result reaches the digest that the summarizer does not see either.
//!
//! Owns: that digest. Must not: read the session's own messages (only the rendered ones).

use std::collections::BTreeSet;
use std::fmt::Write;

use serde_json::Value;

use super::groups::is_tool_call_assistant;
use super::model::{ctype, field, present, AfMsg};
use super::render::{format_content, rendered};
use super::Version;
use crate::compaction::digest::{is_path_key, quote, section, QUOTE};

/// The digest of the messages one summarizer request renders.
pub fn digest(msgs: &[AfMsg], v: Version) -> String {
    let version = match v {
        Version::V1_17 => "1.17",
        Version::V1_23 => "1.23",
    };
    let mut out = format!(
        "Offline digest of {} summarized messages, quoted from the Agent Framework {version} summarizer input without a model.\n",
        msgs.len()
    );
    let goals: Vec<String> = msgs
        .iter()
        .filter(|m| m.role == "user")
        .map(|m| quote(&rendered(m, v), QUOTE))
        .collect();
    section(&mut out, "User requests", &goals);
    let rounds = tool_rounds(msgs, v);
    section(
        &mut out,
        &format!("Tool rounds ({})", rounds.len()),
        &rounds,
    );
    if v == Version::V1_23 {
        let files: Vec<String> = files_named(msgs).into_iter().collect();
        section(&mut out, "Files named", &files);
        section(&mut out, "Errors", &errors(msgs));
    }
    let last = msgs
        .iter()
        .rev()
        .find(|m| m.role == "assistant" && !is_tool_call_assistant(m, v));
    if let Some(m) = last {
        let _ = write!(
            out,
            "\nLast assistant message:\n{}\n",
            quote(&rendered(m, v), QUOTE)
        );
    }
    out
}

fn call_ids(m: &AfMsg) -> Vec<&str> {
    m.contents
        .iter()
        .filter(|c| ctype(c) != "function_result")
        .filter_map(|c| field(c, "call_id"))
        .collect()
}

/// Each tool-call message as rendered, then the rendered tool messages that answer it.
fn tool_rounds(msgs: &[AfMsg], v: Version) -> Vec<String> {
    msgs.iter()
        .filter(|m| is_tool_call_assistant(m, v))
        .map(|m| {
            let ids = call_ids(m);
            let answers: Vec<String> = msgs
                .iter()
                .filter(|r| r.role == "tool")
                .filter(|r| {
                    r.contents
                        .iter()
                        .filter_map(|c| field(c, "call_id"))
                        .any(|id| ids.contains(&id))
                })
                .map(|r| quote(&rendered(r, v), 120))
                .collect();
            let outcome = match answers.is_empty() {
                true => "no result in this request".to_string(),
                false => answers.join("; "),
            };
            format!("{} → {outcome}", quote(&rendered(m, v), 160))
        })
        .collect()
}

/// Results the framework marks as failed, as 1.23 renders them.
fn errors(msgs: &[AfMsg]) -> Vec<String> {
    msgs.iter()
        .flat_map(|m| m.contents.iter())
        .filter(|c| present(c, "exception").is_some())
        .map(|c| quote(&format_content(c), QUOTE))
        .filter(|s| !s.is_empty())
        .collect()
}

/// Paths named by the arguments of the calls (1.23 renders arguments).
fn files_named(msgs: &[AfMsg]) -> BTreeSet<String> {
    let mut files = BTreeSet::new();
    for c in msgs.iter().flat_map(|m| m.contents.iter()) {
        let args = match present(c, "arguments") {
            Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
            Some(v) => v.clone(),
            None => continue,
        };
        if let Value::Object(map) = args {
            for (key, value) in &map {
                if let (true, Some(path)) = (is_path_key(key), value.as_str()) {
                    files.insert(path.to_string());
                }
            }
        }
    }
    files
}
