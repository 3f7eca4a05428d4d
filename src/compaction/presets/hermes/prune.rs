//! `_prune_old_tool_results`: the no-LLM pre-pass over the whole history. Older duplicate tool
//! outputs (≥ 200 chars) become a back-reference; tool outputs > 200 chars before the
//! protected tail become one-line summaries (`_summarize_tool_result`); images in old tool
//! results become a placeholder; tool-call arguments > 500 chars before the tail get their long
//! string leaves cut to 200 + `...[truncated]`. The summarizer and the kept head see the result.

use std::collections::{HashMap, HashSet};

use regex::Regex;
use serde_json::{Map, Value};

use super::msgs::{budget_tokens, is_image_part, HMsg};
use super::py;

pub const DUPLICATE: &str = "[Duplicate tool output — same content as a more recent call]";
const PRUNED_PLACEHOLDER: &str = "[Old tool output cleared to save context space]";

/// What the pass changed: indices (positions in the list) of rewritten tool outputs and
/// assistant messages whose arguments were cut.
#[derive(Debug, Default)]
pub struct Pruned {
    pub outputs: Vec<usize>,
    pub args: Vec<usize>,
}

pub fn prune(msgs: &mut [HMsg], protect_count: usize, protect_tokens: usize) -> Pruned {
    let mut out = Pruned::default();
    if msgs.is_empty() {
        return out;
    }
    let mut calls: HashMap<String, (String, String)> = HashMap::new();
    for m in msgs.iter().filter(|m| m.role() == "assistant") {
        for tc in m.tool_calls() {
            let id = tc.get("id").map(py::str_of).unwrap_or_default();
            let f = tc.get("function");
            let name = f
                .and_then(|f| f.get("name"))
                .map_or("unknown".into(), py::str_of);
            let args = f
                .and_then(|f| f.get("arguments"))
                .map_or(String::new(), py::str_of);
            calls.insert(id, (name, args));
        }
    }
    let boundary = prune_boundary(msgs, protect_count, protect_tokens);
    // Hermes keys a content by its hash (`md5[:12]`); here by its 128-bit xxh3, without a
    // copy of each output.
    let mut seen: HashSet<u128> = HashSet::new();
    for i in (0..msgs.len()).rev() {
        let m = &mut msgs[i];
        if m.role() != "tool" {
            continue;
        }
        let Some(Value::String(content)) = m.get("content") else {
            continue;
        };
        if py::len(content) < 200 {
            continue;
        }
        if !seen.insert(xxhash_rust::xxh3::xxh3_128(content.as_bytes())) {
            m.v_mut().insert("content".into(), DUPLICATE.into());
            out.outputs.push(i);
        }
    }
    for (i, m) in msgs.iter_mut().enumerate().take(boundary) {
        if m.role() == "tool" && prune_output(m, &calls) {
            out.outputs.push(i);
        }
    }
    for (i, m) in msgs.iter_mut().enumerate().take(boundary) {
        if m.role() == "assistant" && m.has_tool_calls() && truncate_call_args(m) {
            out.args.push(i);
        }
    }
    out.outputs.sort_unstable();
    out.outputs.dedup();
    out
}

fn prune_boundary(msgs: &[HMsg], protect_count: usize, protect_tokens: usize) -> usize {
    let n = msgs.len();
    if protect_tokens == 0 {
        return n.saturating_sub(protect_count);
    }
    let mut accumulated = 0usize;
    let mut boundary = n;
    let min_protect = protect_count.min(n);
    for i in (0..n).rev() {
        let t = budget_tokens(&msgs[i]);
        if accumulated + t > protect_tokens && n - i >= min_protect {
            boundary = i;
            break;
        }
        accumulated += t;
        boundary = i;
    }
    n - (n - boundary).max(min_protect)
}

/// Pass 2 for one tool message; true if rewritten.
fn prune_output(m: &mut HMsg, calls: &HashMap<String, (String, String)>) -> bool {
    // Read in place; only a content that changes is copied.
    let new = match m.content() {
        Value::Array(parts) => {
            if !parts.iter().any(is_image_part) {
                return false;
            }
            let stripped: Vec<Value> = parts
                .iter()
                .map(|p| {
                    if is_image_part(p) {
                        serde_json::json!({"type": "text", "text": "[screenshot removed to save context]"})
                    } else {
                        p.clone()
                    }
                })
                .collect();
            Value::Array(stripped)
        }
        Value::String(s) => {
            if s.is_empty()
                || s == PRUNED_PLACEHOLDER
                || s.starts_with("[Duplicate tool output")
                || py::len(s) <= 200
            {
                return false;
            }
            let id = m.get("tool_call_id").map(py::str_of).unwrap_or_default();
            let unknown = ("unknown".to_string(), String::new());
            let (name, args) = calls.get(&id).unwrap_or(&unknown);
            summarize_tool_result(name, args, s).into()
        }
        _ => return false,
    };
    m.v_mut().insert("content".into(), new);
    true
}

/// Pass 3 for one assistant message; true if any call's arguments changed.
fn truncate_call_args(m: &mut HMsg) -> bool {
    let Some(Value::Array(calls)) = m.v_mut().get_mut("tool_calls") else {
        return false;
    };
    let mut modified = false;
    for tc in calls.iter_mut() {
        let Some(f) = tc.get_mut("function").and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(args) = f.get("arguments").and_then(Value::as_str) else {
            continue;
        };
        if py::len(args) <= 500 {
            continue;
        }
        let new_args = truncate_args_json(args);
        if new_args != args {
            f.insert("arguments".into(), new_args.into());
            modified = true;
        }
    }
    modified
}

/// `_truncate_tool_call_args_json`.
pub fn truncate_args_json(args: &str) -> String {
    let Ok(parsed) = serde_json::from_str::<Value>(args) else {
        return args.to_string();
    };
    fn shrink(v: Value) -> Value {
        match v {
            Value::String(s) if py::len(&s) > 200 => {
                Value::String(format!("{}...[truncated]", py::head(&s, 200)))
            }
            Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, shrink(v))).collect()),
            Value::Array(a) => Value::Array(a.into_iter().map(shrink).collect()),
            other => other,
        }
    }
    py::dumps(&shrink(parsed), false)
}

fn arg<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    args.get(key)
}

/// `args.get(key, default)` rendered with `str()`.
fn arg_str(args: &Map<String, Value>, key: &str, default: &str) -> String {
    arg(args, key).map_or(default.to_string(), py::str_of)
}

/// `_str_arg`: a string, `str()` of anything else, the default for None.
fn str_arg(args: &Map<String, Value>, key: &str) -> String {
    match arg(args, key) {
        None | Some(Value::Null) => String::new(),
        Some(v) => py::str_of(v),
    }
}

fn capture(pattern: &str, text: &str) -> Option<String> {
    Regex::new(pattern)
        .ok()?
        .captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// `_summarize_tool_result`: the one-line summary of an old tool output.
pub fn summarize_tool_result(name: &str, args_json: &str, content: &str) -> String {
    let args: Map<String, Value> = if args_json.is_empty() {
        Map::new()
    } else {
        serde_json::from_str::<Value>(args_json)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default()
    };
    let len = py::thousands(py::len(content));
    let lines = if py::is_blank(content) {
        0
    } else {
        content.matches('\n').count() + 1
    };
    let a = |k: &str, d: &str| arg_str(&args, k, d);
    match name {
        "terminal" => {
            let mut cmd = str_arg(&args, "command");
            if py::len(&cmd) > 80 {
                cmd = format!("{}...", py::head(&cmd, 77));
            }
            let exit = capture(r#""exit_code"\s*:\s*(-?\d+)"#, content).unwrap_or("?".into());
            format!("[terminal] ran `{cmd}` -> exit {exit}, {lines} lines output")
        }
        "read_file" => format!(
            "[read_file] read {} from line {} ({len} chars)",
            a("path", "?"),
            a("offset", "1")
        ),
        "write_file" => {
            let written = if arg(&args, "content").is_some_and(py::truthy) {
                (str_arg(&args, "content").matches('\n').count() + 1).to_string()
            } else {
                "?".into()
            };
            format!("[write_file] wrote to {} ({written} lines)", a("path", "?"))
        }
        "search_files" => {
            let count = capture(r#""total_count"\s*:\s*(\d+)"#, content).unwrap_or("?".into());
            format!(
                "[search_files] {} search for '{}' in {} -> {count} matches",
                a("target", "content"),
                a("pattern", "?"),
                a("path", ".")
            )
        }
        "patch" => format!(
            "[patch] {} in {} ({len} chars result)",
            a("mode", "replace"),
            a("path", "?")
        ),
        _ => summarize_other(name, &args, content),
    }
}

fn summarize_other(name: &str, args: &Map<String, Value>, content: &str) -> String {
    let len = py::thousands(py::len(content));
    let lines = if py::is_blank(content) {
        0
    } else {
        content.matches('\n').count() + 1
    };
    let a = |k: &str, d: &str| arg_str(args, k, d);
    match name {
        "browser_navigate" | "browser_click" | "browser_snapshot" | "browser_type"
        | "browser_scroll" | "browser_vision" | "web_search" | "web_extract" => {
            summarize_web(name, args, &len)
        }
        "delegate_task" => {
            let mut goal = str_arg(args, "goal");
            if py::len(&goal) > 60 {
                goal = format!("{}...", py::head(&goal, 57));
            }
            format!("[delegate_task] '{goal}' ({len} chars result)")
        }
        "execute_code" => {
            let code = str_arg(args, "code");
            let mut preview = py::head(&code, 60).replace('\n', " ");
            if py::len(&code) > 60 {
                preview.push_str("...");
            }
            format!("[execute_code] `{preview}` ({lines} lines output)")
        }
        "skill_view" | "skills_list" | "skill_manage" => {
            format!("[{name}] name={} ({len} chars)", a("name", "?"))
        }
        "vision_analyze" => format!(
            "[vision_analyze] '{}' ({len} chars)",
            py::head(&str_arg(args, "question"), 50)
        ),
        "memory" => format!("[memory] {} on {}", a("action", "?"), a("target", "?")),
        "todo" => "[todo] updated task list".into(),
        "clarify" => "[clarify] asked user a question".into(),
        "text_to_speech" => format!("[text_to_speech] generated audio ({len} chars)"),
        "cronjob" => format!("[cronjob] {}", a("action", "?")),
        "process" => format!(
            "[process] {} session={}",
            a("action", "?"),
            a("session_id", "?")
        ),
        _ => {
            let first: String = args
                .iter()
                .take(2)
                .map(|(k, v)| format!(" {k}={}", py::head(&py::str_of(v), 40)))
                .collect();
            format!("[{name}]{first} ({len} chars result)")
        }
    }
}

/// The browser and web tools' one-liners.
fn summarize_web(name: &str, args: &Map<String, Value>, len: &str) -> String {
    let a = |k: &str, d: &str| arg_str(args, k, d);
    match name {
        "browser_navigate" | "browser_click" | "browser_snapshot" | "browser_type"
        | "browser_scroll" | "browser_vision" => {
            let url = arg(args, "url").filter(|v| py::truthy(v));
            let r = arg(args, "ref").filter(|v| py::truthy(v));
            let detail = match (url, r) {
                (Some(u), _) => format!(" {}", py::str_of(u)),
                (None, Some(r)) => format!(" ref={}", py::str_of(r)),
                _ => String::new(),
            };
            format!("[{name}]{detail} ({len} chars)")
        }
        "web_search" => format!(
            "[web_search] query='{}' ({len} chars result)",
            a("query", "?")
        ),
        "web_extract" => {
            let urls = arg(args, "urls").and_then(Value::as_array);
            let first = match urls.and_then(|u| u.first()) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Object(o)) => o
                    .get("url")
                    .filter(|v| py::truthy(v))
                    .or_else(|| o.get("href").filter(|v| py::truthy(v)))
                    .map_or("?".into(), py::str_of),
                _ => "?".into(),
            };
            let more = match urls {
                Some(u) if u.len() > 1 => format!(" (+{} more)", u.len() - 1),
                _ => String::new(),
            };
            format!("[web_extract] {first}{more} ({len} chars)")
        }
        _ => format!("[{name}] ({len} chars result)"),
    }
}
