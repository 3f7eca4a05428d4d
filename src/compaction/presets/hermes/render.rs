//! The summarizer request: `_serialize_for_summary` (labels, redaction, `MEDIA:` scrub, think
//! blocks stripped, 6,000-char per-message cap as 4,000 head + marker + 1,500 tail, tool
//! arguments over 1,500 chars cut to 1,200 + `...`), the first or iterative prompt with its
//! template, temporal-anchoring date and auto focus topic, and the optional bounded input of
//! newer Hermes (`_bound_summary_input`, off in 0.19.0).

use std::sync::OnceLock;

use fancy_regex::Regex;
use serde_json::Value;

use super::cut::is_summary;
use super::msgs::{content_text, estimate_messages, HMsg};
use super::py;
use super::redact::redact;
use super::text::{
    FIRST_PROMPT, FOCUS_SECTION, ITERATIVE_PROMPT, PREAMBLE, TEMPLATE_SECTIONS, TEMPORAL_RULE,
};

const CONTENT_MAX: usize = 6000;
const CONTENT_HEAD: usize = 4000;
const CONTENT_TAIL: usize = 1500;
const TOOL_ARGS_MAX: usize = 1500;
const TOOL_ARGS_HEAD: usize = 1200;

/// What rendering cut, for findings.
#[derive(Debug, Default)]
pub struct Cuts {
    /// (list position, characters removed) of capped message bodies.
    pub bodies: Vec<(usize, usize)>,
    /// List positions whose tool arguments were cut.
    pub args: Vec<usize>,
}

fn cap(content: String, pos: usize, cuts: &mut Cuts) -> String {
    let n = py::len(&content);
    if n <= CONTENT_MAX {
        return content;
    }
    cuts.bodies.push((pos, n - CONTENT_HEAD - CONTENT_TAIL));
    format!(
        "{}\n...[truncated]...\n{}",
        py::head(&content, CONTENT_HEAD),
        py::tail(&content, CONTENT_TAIL)
    )
}

fn image_label(p: &Value) -> String {
    let url = match p.get("image_url") {
        Some(Value::Object(o)) => o.get("url").filter(|u| py::truthy(u)).map(py::str_of),
        Some(Value::String(s)) => Some(s.clone()),
        _ => p.get("url").and_then(Value::as_str).map(str::to_string),
    }
    .unwrap_or_default();
    if url.starts_with("http://") || url.starts_with("https://") {
        format!("[image: {url}]")
    } else {
        "[image]".into()
    }
}

fn flatten(content: &Value) -> String {
    match content {
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::Object(o) => Some(match o.get("type").and_then(Value::as_str) {
                    Some("text") => o.get("text").map(py::str_of).unwrap_or_default(),
                    Some("image" | "image_url" | "input_image") => image_label(p),
                    other => format!(
                        "[{}]",
                        other
                            .filter(|t| !t.is_empty())
                            .map_or("attachment".into(), str::to_string)
                    ),
                }),
                Value::String(s) => Some(s.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other if !py::truthy(other) => String::new(),
        other => py::str_of(other),
    }
}

/// Messages whose bodies are redacted on every core at a time, before they are put in order.
const WINDOW: usize = 256;

/// What `_serialize_for_summary` shows of one message before any cap: its role, its body
/// redacted, its `MEDIA:` scrubbed and an assistant's think blocks stripped, and an
/// assistant's calls as name and redacted arguments.
struct Shown {
    role: String,
    /// A tool result's call id.
    id: String,
    content: String,
    calls: Option<Vec<(String, String)>>,
}

fn shown(m: &HMsg) -> Shown {
    let role = m.get("role").map_or("unknown".into(), py::str_of);
    let id = match role.as_str() {
        "tool" => m.get("tool_call_id").map(py::str_of).unwrap_or_default(),
        _ => String::new(),
    };
    let mut content = redact(&flatten(m.content()));
    content = media_re().map_or(content.clone(), |re| {
        re.replace_all(&content, "[media attachment]").into_owned()
    });
    if role == "assistant" && !content.is_empty() {
        content = strip_think_blocks(&content);
    }
    let calls = (role == "assistant" && m.has_tool_calls()).then(|| {
        (m.tool_calls().iter())
            .map(|tc| {
                let f = tc.get("function");
                let name = f.and_then(|f| f.get("name")).map_or("?".into(), py::str_of);
                let raw = f
                    .and_then(|f| f.get("arguments"))
                    .map_or(String::new(), py::str_of);
                (name, redact(&raw))
            })
            .collect()
    });
    Shown {
        role,
        id,
        content,
        calls,
    }
}

/// `_serialize_for_summary`; `offset` is the list position of `turns[0]`. What each message
/// shows is made on every core, a window of messages at a time; the caps, in order.
pub fn serialize(turns: &[HMsg], offset: usize, cuts: &mut Cuts) -> String {
    serialize_in(turns, offset, cuts, WINDOW)
}

/// [`serialize`], `window` messages at a time.
fn serialize_in(turns: &[HMsg], offset: usize, cuts: &mut Cuts, window: usize) -> String {
    let mut parts = Vec::new();
    for (w, chunk) in turns.chunks(window).enumerate() {
        let made = crate::par::map(chunk, 8, shown, |_| {});
        for (k, m) in made.into_iter().enumerate() {
            let pos = offset + w * window + k;
            parts.push(serialized(m, pos, cuts));
        }
    }
    parts.join("\n\n")
}

/// One message's part of the request, its body capped and its arguments cut.
fn serialized(m: Shown, pos: usize, cuts: &mut Cuts) -> String {
    let Shown {
        role,
        id,
        content,
        calls,
    } = m;
    if role == "tool" {
        return format!("[TOOL RESULT {id}]: {}", cap(content, pos, cuts));
    }
    if role == "assistant" {
        let mut content = cap(content, pos, cuts);
        if let Some(calls) = calls {
            let lines: Vec<String> = calls
                .into_iter()
                .map(|(name, mut args)| {
                    if py::len(&args) > TOOL_ARGS_MAX {
                        args = format!("{}...", py::head(&args, TOOL_ARGS_HEAD));
                        // Positions come in order: this one is the last if it is there.
                        if cuts.args.last() != Some(&pos) {
                            cuts.args.push(pos);
                        }
                    }
                    format!("  {name}({args})")
                })
                .collect();
            content.push_str(&format!("\n[Tool calls:\n{}\n]", lines.join("\n")));
        }
        return format!("[ASSISTANT]: {content}");
    }
    format!("[{}]: {}", role.to_uppercase(), cap(content, pos, cuts))
}

fn media_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"MEDIA:\S+").ok()).as_ref()
}

fn think_res() -> &'static [(Regex, bool)] {
    static RES: OnceLock<Vec<(Regex, bool)>> = OnceLock::new();
    RES.get_or_init(|| {
        let mut pats: Vec<String> = ["think", "thinking", "reasoning", "REASONING_SCRATCHPAD", "thought"]
            .iter()
            .map(|t| format!(r"(?si)<{t}>.*?</{t}>"))
            .collect();
        for t in ["tool_call", "tool_calls", "tool_result", "function_call", "function_calls"] {
            pats.push(format!(r"(?si)<{t}\b[^>]*>.*?</{t}>"));
        }
        pats.push(r"(?si)(?:(?<=^)|(?<=[\n\r.!?:]))[ \t]*<function\b[^>]*\bname\s*=[^>]*>(?:(?:(?!</function>).)*)</function>".into());
        pats.push(r"(?si)(?:^|\n)[ \t]*<(?:think|thinking|reasoning|thought|REASONING_SCRATCHPAD)\b[^>]*>.*$".into());
        pats.push(r"(?i)</?(?:think|thinking|reasoning|thought|REASONING_SCRATCHPAD)>\s*".into());
        pats.push(r"(?i)</(?:tool_call|tool_calls|tool_result|function_call|function_calls|function)>\s*".into());
        pats.iter()
            .filter_map(|p| Regex::new(p).ok().map(|re| (re, true)))
            .collect()
    })
}

/// `strip_think_blocks` for string content. Every one of its patterns reads a literal `<`
/// (case folding never reaches it), so a text without one is returned as it is, unsearched.
pub fn strip_think_blocks(content: &str) -> String {
    if !content.contains('<') {
        return content.to_string();
    }
    let mut c = content.to_string();
    for (re, _) in think_res() {
        c = re.replace_all(&c, "").into_owned();
    }
    c
}

/// `_derive_auto_focus_topic` over the (pruned) history.
pub fn auto_focus(msgs: &[HMsg]) -> Option<String> {
    let mut candidates = Vec::new();
    for m in msgs.iter().rev() {
        if m.role() != "user" || is_summary(m.content()) {
            continue;
        }
        let raw = content_text(m.content());
        let text = redact(raw.trim_matches(py::is_space));
        if text.is_empty() {
            continue;
        }
        let mut text = text
            .split(py::is_space)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if py::len(&text) > 260 {
            text = format!("{}…", py::head(&text, 259).trim_end_matches(py::is_space));
        }
        candidates.push(text);
        if candidates.len() >= 3 {
            break;
        }
    }
    if candidates.is_empty() {
        return None;
    }
    candidates.reverse();
    let items: Vec<String> = candidates.iter().map(|c| format!("- {c}")).collect();
    let mut focus = format!("Recent user focus:\n{}", items.join("\n"));
    if py::len(&focus) > 700 {
        focus = format!("{}…", py::head(&focus, 699).trim_end_matches(py::is_space));
    }
    Some(focus)
}

/// `_compute_summary_budget`.
pub fn summary_budget(turns: &[HMsg], max_summary_tokens: usize) -> usize {
    let budget = (estimate_messages(turns) as f64 * 0.20) as usize;
    budget.min(max_summary_tokens).max(2000)
}

/// Substitutes `@@NAME@@` markers of `template` in one pass (values are never re-scanned).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut rest = template;
    loop {
        let next = values
            .iter()
            .filter_map(|(k, v)| rest.find(k).map(|at| (at, *k, *v)))
            .min_by_key(|(at, _, _)| *at);
        let Some((at, key, value)) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + key.len()..];
    }
}

/// The whole prompt.
pub fn prompt(
    content: &str,
    previous: Option<&str>,
    budget: usize,
    today: Option<&str>,
    focus: Option<&str>,
) -> String {
    let temporal = today.map_or(String::new(), |d| fill(TEMPORAL_RULE, &[("@@TODAY@@", d)]));
    let budget = budget.to_string();
    let template = fill(
        TEMPLATE_SECTIONS,
        &[("@@BUDGET@@", &budget), ("@@TEMPORAL@@", &temporal)],
    );
    let mut prompt = match previous {
        Some(prev) => fill(
            ITERATIVE_PROMPT,
            &[
                ("@@PREAMBLE@@", PREAMBLE),
                ("@@PREV@@", prev),
                ("@@CONTENT@@", content),
                ("@@MEMORY@@", ""),
                ("@@TEMPLATE@@", &template),
            ],
        ),
        None => fill(
            FIRST_PROMPT,
            &[
                ("@@PREAMBLE@@", PREAMBLE),
                ("@@CONTENT@@", content),
                ("@@MEMORY@@", ""),
                ("@@TEMPLATE@@", &template),
            ],
        ),
    };
    if let Some(focus) = focus.filter(|f| !f.is_empty()) {
        prompt.push_str(&fill(FOCUS_SECTION, &[("@@FOCUS@@", focus)]));
    }
    prompt
}

/// `_bound_summary_input` of newer Hermes: keeps `int(0.45·r)` head and the rest as tail
/// around an omission marker. Returns the text and how many characters were omitted.
pub fn bound_input(text: &str, max_chars: usize) -> (String, usize) {
    let n = py::len(text);
    if n <= max_chars {
        return (text.to_string(), 0);
    }
    let marker = |omitted: usize| {
        format!(
            "\n\n...[summary input truncated: omitted {} chars from the middle to keep compression prompt bounded]...\n\n",
            py::thousands(omitted)
        )
    };
    let first = marker(n.saturating_sub(max_chars));
    let room = max_chars.saturating_sub(py::len(&first));
    let head_n = (room as f64 * 0.45) as usize;
    let tail_n = room - head_n;
    let omitted = n.saturating_sub(head_n + tail_n);
    let head = py::head(text, head_n).trim_end_matches(py::is_space);
    let tail = if tail_n == 0 {
        ""
    } else {
        py::tail(text, tail_n)
    };
    let out = format!(
        "{head}{}{}",
        marker(omitted),
        tail.trim_start_matches(py::is_space)
    );
    (out, omitted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Turns of every role, some with bodies and arguments long enough to be cut.
    fn turns(n: usize) -> Vec<HMsg> {
        (0..n)
            .map(|i| {
                let body = format!("turn {i} api_key=sk-{} ", "x".repeat(20)).repeat(1 + i % 5 * 90);
                let v = match i % 4 {
                    0 => json!({"role": "user", "content": body}),
                    1 => json!({"role": "assistant", "content": body, "tool_calls": [
                        {"id": format!("c{i}"), "type": "function",
                         "function": {"name": "write", "arguments": "y".repeat(i % 3 * 900)}}
                    ]}),
                    2 => json!({"role": "tool", "tool_call_id": format!("c{}", i - 1), "content": body}),
                    _ => json!({"role": "assistant", "content": [{"type": "text", "text": body}]}),
                };
                HMsg::new(i, v.as_object().unwrap().clone())
            })
            .collect()
    }

    /// The request and its cuts are the same whatever the window the bodies are made in: each
    /// message keeps its own place.
    #[test]
    fn the_request_does_not_depend_on_the_window() {
        let turns = turns(41);
        let made = |window: usize| {
            let mut cuts = Cuts::default();
            let text = serialize_in(&turns, 5, &mut cuts, window);
            (text, cuts.bodies, cuts.args)
        };
        let whole = made(1000);
        assert!(
            whole.1.len() > 5 && whole.2.len() >= 3,
            "{:?} {:?}",
            whole.1,
            whole.2
        );
        assert!(!whole.0.contains("sk-xxxxxxxxxxxxxxxxxxxx"));
        for window in [1, 3, 8] {
            assert_eq!(made(window), whole, "window {window}");
        }
    }
}
