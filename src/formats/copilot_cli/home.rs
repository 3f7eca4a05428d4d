//! Where the Copilot CLI keeps its sessions, and the cheap look inside one.
//!
//! Owns: `session-state/<id>/events.jsonl` (and the older `session-state/<id>.jsonl`) under the
//! root (`~/.copilot`, or `COPILOT_HOME`), the main agent's message-event count, the title (the
//! first user message's typed `content`) and the working directory (`session.start`'s
//! `context.cwd`). Must not build a `Session`.

use std::path::Path;

use serde_json::Value;

use crate::formats::home::bytes::{str_of, value_of};
use crate::formats::home::peek::{clean, lines, parse};
use crate::formats::home::{Finder, Peek};

/// Every session under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    let state = root.join("session-state");
    for entry in finder.list(&state) {
        if entry.is_file() && entry.name().ends_with(".jsonl") {
            finder.file(entry, |_, bytes, whole| peek(bytes, whole));
        } else if entry.is_dir() {
            let events = finder
                .list(&entry.path)
                .into_iter()
                .find(|e| e.is_file() && e.name() == "events.jsonl");
            if let Some(events) = events {
                finder.file(events, |_, bytes, whole| peek(bytes, whole));
            }
        }
    }
}

/// The main agent's user, assistant and tool-result events are counted (a sub-agent's carry
/// `agentId`).
fn peek(bytes: &[u8], whole: bool) -> Peek {
    let mut count = 0;
    let mut title: Option<String> = None;
    let mut cwd: Option<String> = None;
    for line in lines(bytes, whole) {
        if value_of(line, "agentId").is_some() {
            continue;
        }
        match str_of(line, "type") {
            Some(b"session.start") if cwd.is_none() => {
                cwd = parse(line).and_then(|v| text_at(&v, "/data/context/cwd"));
            }
            Some(b"user.message") => {
                count += 1;
                if title.is_none() {
                    title = parse(line)
                        .and_then(|v| text_at(&v, "/data/content"))
                        .and_then(|t| clean(&t));
                }
            }
            Some(b"assistant.message" | b"tool.execution_complete") => count += 1,
            _ => {}
        }
    }
    Peek {
        title,
        messages: whole.then_some(count),
        cwd,
    }
}

fn text_at(v: &Value, pointer: &str) -> Option<String> {
    let text = v.pointer(pointer)?.as_str()?;
    (!text.is_empty()).then(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peek_counts_the_main_agent_and_takes_the_typed_prompt() {
        let bytes = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/copilot-cli/subagent.jsonl"),
        )
        .unwrap();
        let seen = peek(&bytes, true);
        assert_eq!(
            seen.title.as_deref(),
            Some("Use an explore agent to list the functions in calc.py.")
        );
        assert_eq!(seen.cwd.as_deref(), Some("/tmp/project"));
        // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/subagent.jsonl')];print(sum(r['type'] in('user.message','assistant.message','tool.execution_complete') for r in R if 'agentId' not in r))"
        assert_eq!(seen.messages, Some(4));
    }

    /// A home with a session directory and an older flat session file: both found, the
    /// directory's `events.jsonl` opened as a Copilot CLI session.
    #[test]
    fn sessions_under_a_copilot_home_are_found() {
        use crate::live::discover::{discover, Locations};
        use crate::session::Format;
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/copilot-cli");
        let home = tempfile::tempdir().unwrap();
        let state = home.path().join(".copilot/session-state");
        std::fs::create_dir_all(state.join("s1")).unwrap();
        std::fs::copy(fixtures.join("tools.jsonl"), state.join("s1/events.jsonl")).unwrap();
        std::fs::write(state.join("s1/workspace.yaml"), "id: s1\n").unwrap();
        std::fs::copy(fixtures.join("subagent.jsonl"), state.join("s2.jsonl")).unwrap();
        let found = discover(&Locations::under_home(home.path())).found;
        let mut names: Vec<String> = found
            .iter()
            .filter(|f| f.tool == Format::COPILOT_CLI)
            .map(|f| f.path.strip_prefix(&state).unwrap().display().to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["s1/events.jsonl", "s2.jsonl"]);
        // The directory itself, as the CLI leaves it (`events.jsonl` beside `workspace.yaml`).
        let s = crate::formats::load_path(&state.join("s1"), None).unwrap();
        assert_eq!(s.format, Format::COPILOT_CLI);
    }
}
