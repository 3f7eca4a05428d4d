//! Hermes 0.19.0 `ContextCompressor._build_static_fallback_summary`: the deterministic handoff
//! Hermes inserts when its summary call fails with an error that does not abort the compaction
//! (e.g. no auxiliary provider configured) — the same headings as a model summary, the last user
//! ask, actions, blockers, paths and the last 8 dropped turns, at most 8,000 characters.
//!
//! Owns: that text, byte for byte, from the (pruned) turns Hermes would have summarized. Must
//! not: decide which turns those are (`assemble` does) or add the insertion's prefix and end
//! marker (the plan's `Insertion` carries them).

use std::sync::OnceLock;

use foldhash::HashMap;

use regex::Regex;
use serde_json::Value;

use super::cut::strip_summary_prefix;
use super::msgs::{content_text, HMsg};
use super::prune::summarize_tool_result;
use super::py;
use super::redact::redact;
use super::text::SUMMARY_PREFIX;
use crate::pyrepr;

/// `_last_summary_error` when no summarizer is reachable: Hermes' `call_llm` raises "No LLM
/// provider configured …", which `_generate_summary` records as this reason.
pub const NO_PROVIDER_REASON: &str = "no auxiliary LLM provider configured";

const MAX_CHARS: usize = 8_000;
const TURN_MAX_CHARS: usize = 700;
const TASK_HEADING: &str = "## Historical Task Snapshot";
const IN_PROGRESS_HEADING: &str = "## Historical In-Progress State";
const PENDING_ASKS_HEADING: &str = "## Historical Pending User Asks";
const REMAINING_WORK_HEADING: &str = "## Historical Remaining Work";

struct Patterns {
    gh_token: Regex,
    gh_tail: Regex,
    spaces: Regex,
    path_mention: Regex,
    blocker: Regex,
}

#[allow(
    clippy::expect_used,
    reason = "constant patterns, compiled once; the tests below compile them"
)]
fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        gh_token: Regex::new(r"\bgh[pousr]_[A-Za-z0-9_]{8,}\b").expect("pattern"),
        gh_tail: Regex::new(r"\bgh[pousr]_[A-Za-z0-9_.-]+").expect("pattern"),
        spaces: Regex::new(r"[\s\x1c-\x1f]+").expect("pattern"),
        path_mention: Regex::new(r#"(?:/|~/?|[A-Za-z]:\\)[^\s\x1c-\x1f`'")\]}<>]+"#)
            .expect("pattern"),
        blocker: Regex::new(r"(?i)\b(error|failed|exception|traceback|timeout|timed out|fatal)\b")
            .expect("pattern"),
    })
}

fn strip(s: &str) -> &str {
    s.trim_matches(py::is_space)
}

/// `_compact_fallback_turn`: redacted, on one line, at most 700 characters.
fn compact_turn(content: &Value) -> String {
    let p = patterns();
    let text = redact(&content_text(content));
    let text = p.gh_token.replace_all(&text, "[REDACTED]");
    let collapsed = p.spaces.replace_all(&text, " ");
    let mut text = strip(&collapsed).to_string();
    if py::len(&text) > TURN_MAX_CHARS {
        let head = py::head(&text, TURN_MAX_CHARS - 15).trim_end_matches(py::is_space);
        text = format!("{head} ...[truncated]");
    }
    p.gh_tail.replace_all(&text, "[REDACTED]").into_owned()
}

/// `_dedupe_append`.
fn dedupe_append(items: &mut Vec<String>, value: &str, limit: usize) {
    let value = strip(value);
    if !value.is_empty() && !items.iter().any(|i| i == value) && items.len() < limit {
        items.push(value.to_string());
    }
}

/// `_collect_path_mentions`.
fn path_mentions(text: &str, files: &mut Vec<String>) {
    for m in patterns().path_mention.find_iter(text) {
        dedupe_append(files, m.as_str().trim_end_matches(['.', ',', ':', ';']), 12);
    }
}

/// `_collect_paths_from_jsonish`.
fn paths_from_json(v: &Value, files: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (key, val) in map {
                let is_path = matches!(
                    key.as_str(),
                    "path" | "workdir" | "file_path" | "output_path"
                );
                if let (true, Value::String(s)) = (is_path, val) {
                    dedupe_append(files, s, 12);
                }
                paths_from_json(val, files);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| paths_from_json(i, files)),
        Value::String(s) => path_mentions(s, files),
        _ => {}
    }
}

/// `msg.get("tool_calls") or []` as a list of entries.
fn calls(m: &HMsg) -> &[Value] {
    match m.get("tool_calls") {
        Some(Value::Array(a)) => a,
        _ => &[],
    }
}

/// `_extract_tool_call_name_and_args`.
fn name_and_args(tc: &Value) -> (String, String) {
    let Value::Object(tc) = tc else {
        return ("unknown".into(), String::new());
    };
    let f = tc.get("function").filter(|f| py::truthy(f));
    let field = |k: &str| {
        f.and_then(|f| f.get(k))
            .filter(|v| py::truthy(v))
            .map(py::str_of)
    };
    (
        field("name").unwrap_or_else(|| "unknown".into()),
        field("arguments").unwrap_or_default(),
    )
}

/// `_extract_tool_call_id`.
fn call_id(tc: &Value) -> String {
    tc.get("id")
        .filter(|v| py::truthy(v))
        .map(py::str_of)
        .unwrap_or_default()
}

/// `msg.get("role", "unknown")`, as `str()` gives it.
fn role_of(m: &HMsg) -> String {
    match m.get("role") {
        None => "unknown".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => py::str_of(other),
    }
}

/// `_bullets`.
fn bullets(items: &[String], limit: usize) -> String {
    let mut unique: Vec<&str> = Vec::new();
    for item in items {
        let item = strip(item);
        if item.is_empty() || unique.contains(&item) {
            continue;
        }
        unique.push(item);
        if unique.len() >= limit {
            break;
        }
    }
    if unique.is_empty() {
        return "None.".into();
    }
    unique
        .iter()
        .map(|i| format!("- {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the turns yield, section by section.
#[derive(Debug, Default)]
struct Anchors {
    user_asks: Vec<String>,
    assistant_actions: Vec<String>,
    tool_actions: Vec<String>,
    files: Vec<String>,
    blockers: Vec<String>,
    last_turns: Vec<String>,
}

fn anchors(turns: &[HMsg]) -> Anchors {
    anchors_in(turns, WINDOW)
}

/// [`anchors`], `window` turns at a time.
fn anchors_in(turns: &[HMsg], window: usize) -> Anchors {
    let mut a = Anchors::default();
    // `call_id_to_tool`: the last call of each id.
    let mut by_id: HashMap<String, (String, String)> = HashMap::default();
    // Each call's name and redacted arguments, made on every core a window of turns at a time.
    let redacted = |m: &HMsg| -> Vec<(String, String)> {
        if m.role() != "assistant" || !m.get("tool_calls").is_some_and(py::truthy) {
            return Vec::new();
        }
        (calls(m).iter())
            .map(|tc| {
                let (name, raw) = name_and_args(tc);
                (name, redact(&raw))
            })
            .collect()
    };
    for chunk in turns.chunks(window) {
        let made = crate::par::map(chunk, 8, redacted, |_| {});
        for (m, made) in chunk.iter().zip(made) {
            anchor_calls(m, made, &mut by_id, &mut a.files);
        }
    }
    for chunk in turns.chunks(window) {
        let texts = crate::par::map(chunk, 8, |m| compact_turn(m.content()), |_| {});
        for (m, text) in chunk.iter().zip(texts) {
            anchor_turn(m, text, &by_id, &mut a);
        }
    }
    a
}

/// Turns whose texts are made on every core at a time.
const WINDOW: usize = 256;

/// The first pass of `_extract_anchors` over one turn: the calls of `m`, each as its name and
/// redacted arguments (`made`), recorded by id and read for paths.
fn anchor_calls(
    m: &HMsg,
    made: Vec<(String, String)>,
    by_id: &mut HashMap<String, (String, String)>,
    files: &mut Vec<String>,
) {
    for (tc, (name, args)) in calls(m).iter().zip(made) {
        let id = call_id(tc);
        if !id.is_empty() {
            by_id.insert(id, (name, args.clone()));
        }
        if !args.is_empty() {
            let parsed = serde_json::from_str::<Value>(&args).unwrap_or(Value::String(args));
            paths_from_json(&parsed, files);
        }
    }
}

/// The second pass of `_extract_anchors` over one turn, whose compacted text is `text`.
fn anchor_turn(
    m: &HMsg,
    mut text: String,
    by_id: &HashMap<String, (String, String)>,
    a: &mut Anchors,
) {
    let role = role_of(m);
    path_mentions(&text, &mut a.files);
    let mut turn_text = text.clone();
    if role == "assistant" && m.get("tool_calls").is_some_and(py::truthy) {
        let names: Vec<String> = calls(m).iter().map(|tc| name_and_args(tc).0).collect();
        if !names.is_empty() {
            let prefix = format!("tool calls: {}", names[..names.len().min(6)].join(", "));
            turn_text = if turn_text.is_empty() {
                prefix
            } else {
                format!("{prefix}; {turn_text}")
            };
        }
    }
    let turn = strip(&turn_text);
    if !turn.is_empty() {
        a.last_turns
            .push(format!("{}: {turn}", role.to_uppercase()));
        if a.last_turns.len() > 8 {
            a.last_turns.remove(0);
        }
    }
    if py::len(&text) > 600 {
        text = format!(
            "{} ... {}",
            py::head(&text, 420).trim_end_matches(py::is_space),
            py::tail(&text, 160).trim_start_matches(py::is_space)
        );
    }
    match role.as_str() {
        "user" if !text.is_empty() => a.user_asks.push(text),
        "assistant" => {
            let names: Vec<String> = calls(m).iter().map(|tc| name_and_args(tc).0).collect();
            if !names.is_empty() {
                a.assistant_actions.push(format!(
                    "Called tool(s): {}",
                    names[..names.len().min(6)].join(", ")
                ));
            } else if !text.is_empty() {
                a.assistant_actions.push(text);
            }
        }
        "tool" => {
            let id = m
                .get("tool_call_id")
                .filter(|v| py::truthy(v))
                .map(py::str_of)
                .unwrap_or_default();
            let (name, args) = by_id
                .get(&id)
                .cloned()
                .unwrap_or_else(|| ("unknown".into(), String::new()));
            a.tool_actions
                .push(summarize_tool_result(&name, &args, &text));
            if patterns().blocker.is_match(&text) {
                a.blockers.push(py::head(&text, 500).to_string());
            }
        }
        _ => {}
    }
}

/// The fallback summary Hermes builds for `turns` (the pruned messages it would have summarized),
/// as it stores it: `SUMMARY_PREFIX`, a newline, the body; cut to 8,000 characters.
/// `previous_summary`: an earlier summary is carried (iterative compaction); `reason`: the
/// recorded summary failure.
pub fn fallback_summary(turns: &[HMsg], previous_summary: bool, reason: Option<&str>) -> String {
    let a = anchors(turns);
    let completed: Vec<String> = a
        .assistant_actions
        .iter()
        .chain(&a.tool_actions)
        .take(12)
        .enumerate()
        .map(|(i, item)| format!("{}. {item}", i + 1))
        .collect();
    let active_task = match a.user_asks.last() {
        Some(ask) => format!("User asked: {}", pyrepr::str_repr(ask)),
        None => "Unknown from deterministic fallback.".into(),
    };
    let previous_note = if previous_summary {
        "\n\nPrevious compaction summary was present and should still be treated as background continuity context, but the latest LLM summary update failed."
    } else {
        ""
    };
    let reason_text = reason
        .map(|r| format!(" Summary failure reason: {r}."))
        .unwrap_or_default();
    let completed = if completed.is_empty() {
        "None recoverable from compacted turns.".to_string()
    } else {
        completed.join("\n")
    };
    let body = format!(
        "{TASK_HEADING}
{active_task}

## Goal
Recovered from a deterministic fallback because the LLM context summarizer was unavailable. Continue from the protected recent messages after this summary and use current file/system state for exact details.{previous_note}

## Constraints & Preferences
- This fallback was generated locally without an LLM summary call.
- Secrets and credentials were redacted before preservation.
- The summary may be incomplete; prefer verifying current files, git state, processes, and test results instead of assuming omitted details.

## Completed Actions
{completed}

## Active State
Unknown from deterministic fallback. Inspect current repository/session state if needed.

{IN_PROGRESS_HEADING}
Unknown from deterministic fallback — the latest user ask is recorded once under
\"{TASK_HEADING}\" above as historical context only. Do NOT treat it as an
unfulfilled instruction to re-answer; verify current state and continue from the
protected recent messages after this summary.

## Blocked
{}

## Key Decisions
None recoverable from deterministic fallback.

## Resolved Questions
None recoverable from deterministic fallback.

{PENDING_ASKS_HEADING}
None recoverable from deterministic fallback. (The latest user ask is preserved once
under \"{TASK_HEADING}\" as historical context — it is NOT necessarily
outstanding.)

## Relevant Files
{}

{REMAINING_WORK_HEADING}
Continue from the most recent unfulfilled user ask and protected tail messages. Verify state with tools before making claims.

## Last Dropped Turns
{}

## Critical Context
Summary generation was unavailable, so this is a best-effort deterministic fallback for {} compacted message(s).{reason_text}",
        bullets(&a.blockers, 5),
        bullets(&a.files, 12),
        bullets(&a.last_turns, 8),
        turns.len(),
    );
    let text = strip_summary_prefix(&redact(strip(&body)));
    let summary = if text.is_empty() {
        SUMMARY_PREFIX.to_string()
    } else {
        format!("{SUMMARY_PREFIX}\n{text}")
    };
    if py::len(&summary) <= MAX_CHARS {
        return summary;
    }
    let head = py::head(&summary, MAX_CHARS - 42).trim_end_matches(py::is_space);
    format!("{head}\n...[fallback summary truncated]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(v: Value) -> HMsg {
        HMsg::new(0, v.as_object().unwrap().clone())
    }

    #[test]
    fn turns_are_collapsed_redacted_and_cut_at_700() {
        let long = format!("  a\n\tb {}  ", "x".repeat(800));
        let t = compact_turn(&json!(long));
        assert!(t.starts_with("a b xxx"));
        assert_eq!(py::len(&t), 685 + " ...[truncated]".len());
        // As hermes-agent 0.19.0 gives it: `redact_sensitive_text` masks the whole token first,
        // the `gh*_` patterns then catch the short one it leaves.
        assert_eq!(
            compact_turn(&json!("token ghp_abcdefgh1234 and ghs_x.y")),
            "token *** and [REDACTED]"
        );
    }

    #[test]
    fn paths_come_from_arguments_first_then_from_text() {
        let turns = [
            msg(json!({"role": "user", "content": "look at ~/notes.md, please."})),
            msg(json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"src/a.rs\", \"opts\": {\"workdir\": \"/w\"}}"}}
            ]})),
        ];
        let a = anchors(&turns);
        // As hermes-agent 0.19.0 lists them: a `path` value is also scanned for path mentions,
        // so `src/a.rs` yields `/a.rs` too.
        assert_eq!(a.files, ["src/a.rs", "/a.rs", "/w", "~/notes.md"]);
        assert_eq!(a.assistant_actions, ["Called tool(s): read_file"]);
        assert_eq!(a.last_turns[1], "ASSISTANT: tool calls: read_file");
    }

    /// The anchors are the same whatever the window the turns' texts are made in.
    #[test]
    fn the_anchors_do_not_depend_on_the_window() {
        let turns: Vec<HMsg> = (0..37)
            .map(|i| {
                let text = format!("step {i} failed at /src/m{i}.rs token=ghp_{}", "a".repeat(i));
                msg(match i % 3 {
                    0 => json!({"role": "user", "content": text}),
                    1 => json!({"role": "assistant", "content": text, "tool_calls": [
                        {"id": format!("c{}", i % 7), "type": "function", "function": {"name": format!("t{i}"), "arguments": format!("{{\"path\": \"/p{i}\"}}")}}
                    ]}),
                    _ => json!({"role": "tool", "tool_call_id": format!("c{}", (i - 1) % 7), "content": text}),
                })
            })
            .collect();
        let whole = format!("{:?}", anchors_in(&turns, 1000));
        assert!(whole.contains("t34") && whole.contains("/p1"), "{whole}");
        for window in [1, 3, 8] {
            assert_eq!(
                format!("{:?}", anchors_in(&turns, window)),
                whole,
                "window {window}"
            );
        }
    }

    #[test]
    fn a_tool_result_is_told_by_the_last_call_of_its_id() {
        let call = |name: &str, path: &str| json!({"id": "c1", "type": "function", "function": {"name": name, "arguments": format!("{{\"path\": \"{path}\"}}")}});
        let turns = [
            msg(
                json!({"role": "assistant", "content": "", "tool_calls": [call("terminal", "/a")]}),
            ),
            msg(
                json!({"role": "assistant", "content": "", "tool_calls": [call("read_file", "/b.rs")]}),
            ),
            msg(json!({"role": "tool", "tool_call_id": "c1", "content": "fn main() {}"})),
            msg(json!({"role": "tool", "tool_call_id": "c9", "content": "x"})),
        ];
        let a = anchors(&turns);
        assert_eq!(
            a.tool_actions,
            [
                summarize_tool_result("read_file", "{\"path\": \"/b.rs\"}", "fn main() {}"),
                summarize_tool_result("unknown", "", "x"),
            ]
        );
        assert!(a.tool_actions[0].contains("/b.rs"), "{:?}", a.tool_actions);
    }

    #[test]
    fn over_8000_characters_is_cut_with_a_marker() {
        let turns: Vec<HMsg> = (0..40)
            .map(|i| {
                msg(json!({"role": "assistant", "content": format!("{i} {}", "word ".repeat(200))}))
            })
            .collect();
        let s = fallback_summary(&turns, false, None);
        assert!(s.ends_with("\n...[fallback summary truncated]"));
        assert!(py::len(&s) <= MAX_CHARS);
        assert!(s.starts_with(&format!("{SUMMARY_PREFIX}\n{TASK_HEADING}\n")));
    }
}
