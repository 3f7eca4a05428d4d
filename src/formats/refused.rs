//! Sources ctxray recognises but does not read: named, so the user is told which tool wrote
//! them and what ctxray reads instead of a generic "not a session" — or, worse, a misreading
//! (a Goose message line `{role, created, content}` looks enough like a Chat Completions
//! message to be read as one, its tool requests lost).
//!
//! Owns: recognising legacy Goose JSONL sessions (its `sessions.db` is read, by the `goose` format) and the
//! message and part files of opencode's JSON storage given alone (the `opencode` format reads
//! a session from its session file, the storage directory or `opencode.db`), from their
//! content, and the refusal naming each; asked only when no format took the source
//! ([`record`]).
//!
//! The shapes follow the writers: Goose `crates/goose/src/session/legacy.rs` and
//! `conversation/message.rs`, opencode `packages/opencode/src/session/` and `storage/`. It
//! reads nothing else and never guesses at a session's content.

use serde_json::Value;

use super::common::str_at;
use super::LoadError;

/// A tool whose sessions ctxray recognises and refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Goose,
    OpenCode,
}

impl Refused {
    /// What the source is and that ctxray does not read it.
    pub fn why(self) -> &'static str {
        match self {
            Refused::Goose => {
                "a legacy Goose session (JSONL of {role, created, content} messages): ctxray \
                 reads Goose's sessions.db, not its legacy JSONL sessions"
            }
            Refused::OpenCode => {
                "an opencode message or part file (storage/message/, storage/part/): ctxray \
                 reads an opencode session from its session file \
                 storage/session/<project>/<session id>.json, or from the storage directory"
            }
        }
    }

    pub fn error(self, shown: &str) -> LoadError {
        LoadError::not_session(shown, self.why())
    }
}

/// JSONL records (the first lines) of a refused tool.
pub fn records<'a>(records: impl IntoIterator<Item = &'a Value>) -> Option<Refused> {
    records.into_iter().find_map(record)
}

/// One record or document of a refused tool.
pub fn record(v: &Value) -> Option<Refused> {
    if goose_metadata(v) || goose_message(v) {
        return Some(Refused::Goose);
    }
    opencode_storage(v).then_some(Refused::OpenCode)
}

/// Goose's `SessionMetadata` line: `working_dir` with `description` or the token counters.
fn goose_metadata(v: &Value) -> bool {
    v.get("working_dir").is_some_and(Value::is_string)
        && (v.get("description").is_some() || v.get("message_count").is_some())
}

/// A Goose `Message`: `role`, an integer `created` and a list of typed `content`.
fn goose_message(v: &Value) -> bool {
    matches!(str_at(v, "role"), Some("user" | "assistant"))
        && v.get("created").is_some_and(Value::is_i64)
        && v.get("content").is_some_and(Value::is_array)
}

/// An opencode storage message or part (`sessionID` `ses_…` with a `msg_…`/`prt_…` id).
fn opencode_storage(v: &Value) -> bool {
    let id = str_at(v, "id").unwrap_or("");
    let session = str_at(v, "sessionID").is_some_and(|s| s.starts_with("ses_"));
    session && (id.starts_with("msg_") || id.starts_with("prt_"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_tool_is_recognised_from_its_records() {
        let meta = json!({"working_dir": "/w", "description": "d", "schedule_id": null});
        assert_eq!(record(&meta), Some(Refused::Goose));
        let goose = json!({"role": "assistant", "created": 1749923359,
            "content": [{"type": "toolRequest", "id": "t"}]});
        assert_eq!(record(&goose), Some(Refused::Goose));
        let part = json!({"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1",
            "type": "text", "text": "hi"});
        assert_eq!(record(&part), Some(Refused::OpenCode));
        // Shapes of the formats ctxray reads are not taken.
        let chat = json!({"role": "user", "content": "hi"});
        assert_eq!(record(&chat), None);
        let codex = json!({"type": "session_meta", "timestamp": "t", "payload": {}});
        assert_eq!(record(&codex), None);
        let claude = json!({"type": "user", "uuid": "u", "sessionId": "s",
            "timestamp": "t", "message": {"role": "user", "content": "x"}});
        assert_eq!(record(&claude), None);
    }

    /// Through detection: each is refused by name, none read as another format.
    #[test]
    fn loading_names_the_tool() {
        let cases: [(&str, &str); 3] = [
            (
                concat!(
                    r#"{"working_dir":"/w","description":"d","schedule_id":null,"message_count":2}"#,
                    "\n",
                    r#"{"role":"user","created":1749923359,"content":[{"type":"text","text":"hi"}]}"#,
                    "\n",
                    r#"{"role":"assistant","created":1749923360,"content":[{"type":"text","text":"yo"}]}"#,
                    "\n"
                ),
                "Goose",
            ),
            (
                r#"{"role":"user","created":1749923359,"content":[{"type":"text","text":"hi"}]}"#,
                "Goose",
            ),
            (
                r#"{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1}}"#,
                "opencode",
            ),
        ];
        for (text, tool) in cases {
            let err = crate::formats::load_bytes(text.as_bytes().to_vec(), None, "x", None)
                .expect_err(tool)
                .to_string();
            assert!(err.contains(tool), "{tool}: {err}");
        }
        let db = b"SQLite format 3\0CREATE TABLE `part` (`id` text, `message_id` text)".to_vec();
        let err = crate::formats::load_bytes(db, None, "opencode.db", None).unwrap_err();
        assert!(err.to_string().contains("opencode.db"), "{err}");
    }
}

#[cfg(test)]
mod read_not_refused_tests {
    //! Tools ctxray refused until it read them: hand-written records in the shapes their
    //! writers produce are now read as their own format, neither refused nor read as another.

    use crate::formats::load_bytes;
    use crate::session::Format;

    /// Qwen Code's records carry Claude Code's envelope around Gemini `parts`.
    #[test]
    fn qwen_code_is_read_as_qwen_code_not_claude_code() {
        let text = concat!(
            r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-10-01T00:00:00Z","type":"user","cwd":"/p","version":"0.1.0","message":{"role":"user","parts":[{"text":"hi"}]}}"#,
            "\n",
            r#"{"uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-10-01T00:00:01Z","type":"assistant","cwd":"/p","version":"0.1.0","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"read_file","args":{"path":"a"}}}]}}"#,
            "\n",
            r#"{"uuid":"t1","parentUuid":"a1","sessionId":"s","timestamp":"2025-10-01T00:00:02Z","type":"tool_result","cwd":"/p","version":"0.1.0","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]}}"#,
            "\n",
        );
        let s = load_bytes(text.as_bytes().to_vec(), None, "s.jsonl", None)
            .expect("a Qwen Code chat is read");
        assert_eq!(s.format, Format::QWEN_CODE);
        assert_eq!(s.messages.len(), 3);
        // One record alone is still Qwen Code's.
        let first = text.lines().next().unwrap_or_default();
        let s = load_bytes(first.as_bytes().to_vec(), None, "s.jsonl", None)
            .expect("a Qwen Code record is read");
        assert_eq!(s.format, Format::QWEN_CODE);
    }

    /// pi was refused here until ctxray read it; its records are now read as pi, not
    /// refused and not read as another format.
    #[test]
    fn pi_is_read_as_pi_not_refused() {
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-12-01T00:00:00.000Z","cwd":"/p"}"#,
            "\n",
            r#"{"type":"message","id":"m1","parentId":null,"timestamp":"2025-12-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#,
            "\n",
            r#"{"type":"message","id":"m2","parentId":"m1","timestamp":"2025-12-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}],"usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0}}}"#,
            "\n",
            r#"{"type":"message","id":"m3","parentId":"m2","timestamp":"2025-12-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false}}"#,
            "\n",
        );
        let read = |text: &str| load_bytes(text.as_bytes().to_vec(), None, "s.jsonl", None);
        let s = read(text).expect("a pi session is read");
        assert_eq!(s.format, Format::PI);
        assert_eq!(s.messages.len(), 3);
        // Without its header, a tool result entry is still pi's.
        let tail: String = text.lines().skip(3).collect();
        let s = read(&tail).expect("a pi entry is read");
        assert_eq!(s.format, Format::PI);
    }
}
