//! Sessions of tools ctxray recognises but does not read yet, refused by name.
//!
//! Owns: telling such a source from the formats it resembles, so that it is refused with a line
//! naming its tool rather than read by a look-alike into empty or opaque messages with exit 0.
//! Detection asks here before any format's sniff; `--from` still forces a format.
//!
//! - Qwen Code (a Gemini CLI fork) records its chats as JSONL whose records carry Claude Code's
//!   `uuid`/`parentUuid`/`sessionId` and `type: user | assistant | tool_result | system`, but
//!   hold a Gemini `Content` (`message: {role, parts}`) where Claude Code holds
//!   `message: {role, content}` (`ChatRecord` in QwenLM/qwen-code
//!   `packages/core/src/services/chatRecordingService.ts`).
//! - pi (badlogic/pi-mono's coding agent) writes a `{type: "session", id, timestamp, cwd}`
//!   header line, then entries such as `{type: "message", message: {role: user | assistant |
//!   toolResult | bashExecution | …, content}}` (`SessionHeader`, `SessionMessageEntry` in
//!   `packages/coding-agent/src/core/session-manager.ts`).

use serde_json::Value;

use super::common::str_at;

/// The tool whose session `record` (a JSONL line) is, when ctxray does not read it.
pub fn tool_of(record: &Value) -> Option<&'static str> {
    if is_qwen_code(record) {
        return Some("Qwen Code");
    }
    if is_pi(record) {
        return Some("pi");
    }
    None
}

/// Why a source of `tool` is refused.
pub fn refusal(tool: &str) -> String {
    format!(
        "a {tool} session, which ctxray recognises but does not read yet (use --from to force a format)"
    )
}

/// A Qwen Code chat record: Claude Code's keys around a Gemini `Content`.
fn is_qwen_code(v: &Value) -> bool {
    let keyed = v.get("uuid").is_some() && v.get("sessionId").is_some();
    let kind = matches!(
        str_at(v, "type"),
        Some("user" | "assistant" | "tool_result" | "system")
    );
    let gemini = v.pointer("/message/parts").is_some_and(Value::is_array)
        && v.pointer("/message/content").is_none();
    keyed && kind && gemini
}

/// A pi session header, or one of its message entries.
fn is_pi(v: &Value) -> bool {
    match str_at(v, "type") {
        Some("session") => {
            str_at(v, "id").is_some() && str_at(v, "cwd").is_some() && v.get("timestamp").is_some()
        }
        Some("message") => matches!(
            v.pointer("/message/role").and_then(Value::as_str),
            Some("toolResult" | "bashExecution" | "branchSummary" | "compactionSummary")
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    //! Hand-written records in the shapes the writers named above produce (no real session of
    //! either tool under a permissive licence and small enough for `fixtures/` was found).

    use crate::formats::load_bytes;

    fn refused(text: &str) -> String {
        load_bytes(text.as_bytes().to_vec(), None, "s.jsonl", None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn qwen_code_is_refused_by_name_not_read_as_claude_code() {
        let text = concat!(
            r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-10-01T00:00:00Z","type":"user","cwd":"/p","version":"0.1.0","message":{"role":"user","parts":[{"text":"hi"}]}}"#,
            "\n",
            r#"{"uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-10-01T00:00:01Z","type":"assistant","cwd":"/p","version":"0.1.0","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"read_file","args":{"path":"a"}}}]}}"#,
            "\n",
            r#"{"uuid":"t1","parentUuid":"a1","sessionId":"s","timestamp":"2025-10-01T00:00:02Z","type":"tool_result","cwd":"/p","version":"0.1.0","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]}}"#,
            "\n",
        );
        let err = refused(text);
        assert!(
            err.starts_with("s.jsonl: not a session file: a Qwen Code session"),
            "{err}"
        );
    }

    #[test]
    fn pi_is_refused_by_name_not_read_as_another_format() {
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
        let err = refused(text);
        assert!(
            err.starts_with("s.jsonl: not a session file: a pi session"),
            "{err}"
        );
        // Without its header, a message entry still names the tool.
        let tail: String = text.lines().skip(3).collect();
        assert!(
            refused(&tail).contains("a pi session"),
            "{}",
            refused(&tail)
        );
    }
}
