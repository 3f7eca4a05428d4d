//! Where Claude Code keeps its sessions, and the cheap look inside one.
//!
//! Owns: `projects/*/*.jsonl` under the root (legacy `agent-*.jsonl` subagent files are left to
//! their session; subagents in `<sid>/subagents/` are below the glob), the message-record
//! count, the title and the working directory (a record's `cwd`, else the project folder's name
//! decoded). Must not build a `Session`.

use std::path::Path;

use serde_json::Value;

use crate::formats::home::bytes::str_of;
use crate::formats::home::peek::{between, clean, lines, parse};
use crate::formats::home::{Finder, Peek};

/// Every session file of the projects under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    for project in finder.dirs(&root.join("projects")) {
        let folder = decode_folder(project.name());
        for file in finder.list(&project.path) {
            let name = file.name();
            if file.is_file() && name.ends_with(".jsonl") && !name.starts_with("agent-") {
                finder.file(file, |_, bytes, whole| {
                    let seen = peek(bytes, whole);
                    Peek {
                        cwd: seen.cwd.or_else(|| folder.clone()),
                        ..seen
                    }
                });
            }
        }
    }
}

/// Claude Code: user/assistant lines are messages; title from `custom-title` over `ai-title` over
/// `summary` (a later line of the same rank wins), else the first typed prompt.
fn peek(bytes: &[u8], whole: bool) -> Peek {
    let mut count = 0;
    let mut titled: Option<(u8, String)> = None;
    let mut prompt: Option<String> = None;
    let mut tries = 0;
    let mut cwd: Option<String> = None;
    for (n, line) in lines(bytes, whole).enumerate() {
        if cwd.is_none() && n < CWD_LINES && str_of(line, "cwd").is_some() {
            cwd = parse(line).and_then(|v| record_cwd(&v));
        }
        let (rank, key) = match str_of(line, "type") {
            Some(b"user") => {
                count += 1;
                if prompt.is_none() && tries < 8 {
                    tries += 1;
                    prompt = parse(line).and_then(|v| claude_prompt(&v));
                }
                continue;
            }
            Some(b"assistant") => {
                count += 1;
                continue;
            }
            Some(b"summary") => (1, "summary"),
            Some(b"ai-title") => (2, "aiTitle"),
            Some(b"custom-title") => (3, "customTitle"),
            _ => continue,
        };
        if titled.as_ref().is_some_and(|(r, _)| *r > rank) {
            continue;
        }
        if let Some(t) =
            parse(line).and_then(|v| v.get(key).and_then(Value::as_str).and_then(clean))
        {
            titled = Some((rank, t));
        }
    }
    Peek {
        title: titled.map(|(_, t)| t).or(prompt),
        messages: whole.then_some(count),
        cwd,
    }
}

/// Lines looked at for a `cwd` (the first records carry it; a later one may be from a `cd`).
const CWD_LINES: usize = 64;

/// A record's non-empty `cwd`.
fn record_cwd(v: &Value) -> Option<String> {
    let cwd = v.get("cwd")?.as_str()?;
    (!cwd.is_empty()).then(|| cwd.to_string())
}

/// The directory a project folder's name stands for: Claude Code names the folder after the
/// working directory with every `/` (and `.`) made `-`, so `-home-user-other` is
/// `/home/user/other`. Lossy (a `-` or `.` in a name reads as `/`); a name not starting with `-`
/// is not an encoded absolute path.
pub(crate) fn decode_folder(name: &str) -> Option<String> {
    let rest = name.strip_prefix('-')?;
    (!rest.is_empty()).then(|| format!("/{}", rest.replace('-', "/")))
}

/// The text a person typed in a Claude Code user line: not meta, not a tool result; a slash
/// command shows as `/name args`.
fn claude_prompt(v: &Value) -> Option<String> {
    if v.get("isMeta").and_then(Value::as_bool) == Some(true)
        || v.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
    {
        return None;
    }
    let content = v.get("message")?.get("content")?;
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    if let Some(name) = between(&text, "<command-name>", "</command-name>") {
        let args = between(&text, "<command-args>", "</command-args>").unwrap_or_default();
        return clean(&format!("{name} {args}"));
    }
    if text.trim_start().starts_with('<') {
        return None;
    }
    clean(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_decode_to_absolute_paths() {
        assert_eq!(
            decode_folder("-home-user-other").as_deref(),
            Some("/home/user/other")
        );
        assert_eq!(decode_folder("-").as_deref(), None);
        assert_eq!(decode_folder("notes").as_deref(), None);
    }

    #[test]
    fn the_cwd_of_the_first_records_wins_over_the_folder() {
        let file = concat!(
            r#"{"type":"summary","summary":"s"}"#,
            "\n",
            r#"{"type":"user","cwd":"/home/user/my-app","message":{"content":"hi"}}"#,
            "\n",
            r#"{"type":"assistant","cwd":"/elsewhere","message":{"content":"ok"}}"#,
            "\n",
        );
        let seen = peek(file.as_bytes(), true);
        assert_eq!(seen.cwd.as_deref(), Some("/home/user/my-app"));
        assert_eq!(seen.messages, Some(2));
        let none = peek(br#"{"type":"user","message":{"content":"hi"}}"#, true);
        assert_eq!(none.cwd, None);
    }
}
