//! The `empty-record` finding: a message that came from a record of the source but holds
//! nothing (no text, no call, no result), so the record lacked what its kind needs — often a
//! misspelt key, whose content and tool result would otherwise vanish without a word.
//!
//! Owns: the findings made from the notes the loaders keep in `source.empty`
//! (`formats::empty::note`, taken while the source's bytes are at hand).

use super::{Finding, Severity};
use crate::session::{EmptyRecord, Session};

/// How many empty records get a finding of their own before the rest share one.
const SHOWN: usize = 10;

/// One `empty-record` finding per noted record (after the first [`SHOWN`], one for the rest).
pub fn findings(session: &Session) -> Vec<Finding> {
    let empty = &session.source.empty;
    let role = |e: &EmptyRecord| {
        session
            .messages
            .get(e.message)
            .map_or("", |m| m.role.as_str())
    };
    let mut out: Vec<Finding> = (empty.iter().take(SHOWN))
        .map(|e| Finding {
            code: "empty-record",
            severity: Severity::Warn,
            messages: vec![e.message],
            detail: format!("{} {} has no content: keys {}", role(e), e.place, e.keys),
        })
        .collect();
    if empty.len() > SHOWN {
        let more = empty.len() - SHOWN;
        let rest: Vec<&str> = (empty.iter().skip(SHOWN).take(SHOWN))
            .map(|e| e.place.as_str())
            .collect();
        out.push(Finding {
            code: "empty-record",
            severity: Severity::Warn,
            messages: empty.iter().skip(SHOWN).map(|e| e.message).collect(),
            detail: format!(
                "{more} more record{} with no content ({}{})",
                if more == 1 { "" } else { "s" },
                rest.join(", "),
                if more > SHOWN { ", …" } else { "" }
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::formats::chunked::{load_in, Bytes};
    use crate::formats::load_path;
    use crate::limits::Limits;
    use crate::structure::{findings::session_findings, group_messages};

    const MISSPELT: &str = "fixtures/claude-code/misspelt_content.jsonl";

    /// Line 3 of the fixture is the result of toolu_m1 with its `content` key misspelt
    /// `contnet`: it reads as a message with no parts, and says so with its keys.
    /// python3 -c "import json;[print(i+1,list(d['message'])) for i,d in
    ///   enumerate(map(json.loads,open('fixtures/claude-code/misspelt_content.jsonl')))]"
    #[test]
    fn a_misspelt_content_key_is_an_empty_record_finding() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(MISSPELT);
        let s = load_path(&path, None).unwrap();
        let found: Vec<_> = session_findings(&s, &group_messages(&s), 0, None)
            .into_iter()
            .filter(|f| f.code == "empty-record")
            .collect();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].messages, vec![2]);
        assert_eq!(
            found[0].detail,
            "user record at line 3 has no content: keys parentUuid, sessionId, cwd, version, \
             isSidechain, userType, type, message{role, contnet}, uuid, timestamp"
        );
        // Read a chunk at a time, its bytes let go at the end, the note is the same.
        let chunked = load_in(
            &path,
            None,
            &Limits::default(),
            None,
            |_| {},
            64,
            Bytes::Released,
        )
        .unwrap();
        assert!(chunked.buffer.is_empty() && chunked.records.is_none());
        assert_eq!(chunked.source.empty, s.source.empty);
    }

    #[test]
    fn a_one_line_source_names_the_record_by_number() {
        let bytes = br#"[{"role":"user","content":"hi"},{"role":"assistant","contnet":"hello"}]"#;
        let s = crate::formats::load_bytes(bytes.to_vec(), None, "t.json", None).unwrap();
        let places: Vec<_> = s.source.empty.iter().map(|e| e.place.as_str()).collect();
        assert_eq!(places, vec!["record 2"]);
        assert_eq!(s.source.empty[0].keys, "role, contnet");
    }

    /// A Chat Completions tool message with its `content` misspelt still answers its call (the
    /// group stays whole) but is noted; one whose output is "" is a tool's own empty output.
    #[test]
    fn a_tool_message_without_its_content_key_is_noted_and_stays_paired() {
        let bytes = br#"[{"role":"user","content":"hi"},
{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"ls","arguments":"{}"}}]},
{"role":"tool","tool_call_id":"c1","contnet":"a.txt"},
{"role":"tool","tool_call_id":"c2","content":""}]"#;
        let s = crate::formats::load_bytes(bytes.to_vec(), None, "t.json", None).unwrap();
        let all = session_findings(&s, &group_messages(&s), 0, None);
        let found: Vec<_> = all.iter().filter(|f| f.code == "empty-record").collect();
        assert_eq!(found.len(), 1, "{all:?}");
        assert_eq!(found[0].messages, vec![2]);
        assert_eq!(
            found[0].detail,
            "tool record at line 3 has no content: keys role, tool_call_id, contnet"
        );
        assert!(
            !all.iter()
                .any(|f| f.code.contains("without-result") || f.code.contains("orphan")),
            "{all:?}"
        );
    }

    #[test]
    fn past_ten_the_rest_share_one_finding() {
        let mut records = vec![r#"{"role":"user","content":"hi"}"#.to_string()];
        records.extend((0..12).map(|_| r#"{"role":"assistant","contnet":"x"}"#.to_string()));
        let bytes = format!("[{}]", records.join(",\n"));
        let s = crate::formats::load_bytes(bytes.into_bytes(), None, "t.json", None).unwrap();
        assert_eq!(s.source.empty.len(), 12);
        let found = super::findings(&s);
        assert_eq!(found.len(), 11);
        assert_eq!(
            found[0].detail,
            "assistant record at line 2 has no content: keys role, contnet"
        );
        assert_eq!(found[10].messages, vec![11, 12]);
        assert_eq!(
            found[10].detail,
            "2 more records with no content (record at line 12, record at line 13)"
        );
    }
}
