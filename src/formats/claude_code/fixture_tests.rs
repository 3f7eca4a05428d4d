//! Tests over the hand-made fixtures in `fixtures/claude-code/`: what the real samples lack
//! (micro and full compaction boundaries, old-style summaries, metadata and unknown lines, a
//! malformed line, server tools, redacted thinking, the 2.0.x subagent file layout, a rewound
//! tree, a `message.id` seen again after a human turn, a subagent only some of whose lines
//! carry `agentId`).

use super::tests::{calls, load, results};
use crate::formats::load_bytes;
use crate::session::{Abandoned, Format, Part, Role};

#[test]
fn fixture_compaction_marks() {
    let s = load("fixtures/claude-code/compaction.jsonl");
    assert_eq!(s.messages.len(), 12);
    let kinds: Vec<_> = s.marks.iter().map(|m| m.kind.as_str()).collect();
    assert_eq!(
        kinds,
        vec![
            "microcompact_boundary",
            "compact_boundary",
            "compact_summary"
        ]
    );
    let micro = &s.marks[0];
    assert_eq!((micro.source_index, micro.before_message), (7, 5));
    assert_eq!(
        (micro.trigger.as_deref(), micro.pre_tokens),
        (Some("auto"), Some(167240))
    );
    let boundary = &s.marks[1];
    assert_eq!((boundary.source_index, boundary.before_message), (9, 6));
    assert_eq!(
        (boundary.pre_tokens, boundary.post_tokens),
        (Some(171873), Some(9310))
    );
    assert!(boundary
        .summary
        .as_deref()
        .is_some_and(|t| t.contains("Primary Request")));
    // An older file's continuation (prefix only, no boundary before it) is its own mark.
    let old = &s.marks[2];
    assert_eq!((old.source_index, old.before_message), (14, 10));
    for at in [6, 10] {
        assert_eq!(s.messages[at].role, Role::User);
        assert_eq!(s.messages[at].parts[0].kind(), "summary");
    }
    // Thinking, text and tool_use streamed as three lines: one message, in line order.
    let m = &s.messages[1];
    assert_eq!(m.source_indices, vec![1, 2, 3]);
    let kinds: Vec<_> = m.parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, vec!["reasoning", "text", "tool_call"]);
    assert_eq!(m.usage.as_ref().unwrap().output, Some(151));
    assert_eq!(results(&s.messages[2]), vec![("toolu_01Bash1", Some(true))]);
    assert!(matches!(&m.parts[2], Part::ToolCall { arguments, .. }
        if arguments == r#"{"command":"npm test -- checkout","description":"Run checkout tests"}"#));
}

#[test]
fn fixture_metadata_unknown_lines_and_malformed_line() {
    let s = load("fixtures/claude-code/mixed.jsonl");
    assert_eq!(s.source.records, 24);
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 11);
    // custom-title outranks the summary and both ai-titles, even a later one.
    assert_eq!(s.title.as_deref(), Some("pixel investigation"));
    // The `<synthetic>` message does not name the session's model.
    assert_eq!(s.model.as_deref(), Some("claude-opus-4-1-20250805"));
    let roles: Vec<_> = s.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(
        roles,
        vec![User, Assistant, Tool, Event, Assistant, User, Assistant, Assistant, Tool]
    );
    let sources: Vec<_> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![2, 4, 8, 12, 13, 14, 15, 16, 19]);
    assert!(
        matches!(&s.messages[3].parts[..], [Part::Opaque { kind, raw }]
        if kind == "x-future-record" && raw.contains("a line type from a newer CLI"))
    );
    let m = &s.messages[1];
    assert_eq!(m.source_indices, vec![4, 5, 6, 7]);
    assert!(matches!(m.parts[0], Part::Reasoning { ref text, opaque_len: 48 } if text.is_empty()));
    assert!(
        matches!(&m.parts[1], Part::ToolCall { id, server: true, .. } if id == "srvtoolu_01Web1")
    );
    assert!(
        matches!(&m.parts[2], Part::ToolResult { call_id, .. } if call_id == "srvtoolu_01Web1")
    );
    assert_eq!(
        m.client_calls().collect::<Vec<_>>(),
        vec![("toolu_01Shot1", "mcp__browser__screenshot")]
    );
    let Part::ToolResult { content, .. } = &s.messages[2].parts[0] else {
        panic!("a tool result");
    };
    let kinds: Vec<_> = content.iter().map(Part::kind).collect();
    assert_eq!(kinds, vec!["text", "image"]);
    assert_eq!(s.messages[6].model, None);
    // The agentId-keyed sidechain is a child, titled by the Task call that started it.
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(
        (child.id.as_deref(), child.title.as_deref()),
        (Some("a3f9c2d1"), Some("Check docs"))
    );
    assert_eq!(child.messages.len(), 2);
    assert_eq!(child.messages[1].source_index, 18);
}

#[test]
fn fixture_legacy_agent_files_beside_the_session() {
    let s = load("fixtures/claude-code/legacy_agents/5e0c9a7b-2d41-4f88-b3c6-91a0d7e2f4b8.jsonl");
    assert_eq!(s.messages.len(), 4);
    // agent-ffff0001.jsonl belongs to another session and is left out.
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(child.id.as_deref(), Some("9d2f7a10"));
    assert_eq!(child.title.as_deref(), Some("Scan exports"));
    assert_eq!(calls(&child.messages[1]), vec![("toolu_01Grep1", "Grep")]);
    // Loading an agent file alone does not adopt its siblings.
    let agent = load("fixtures/claude-code/legacy_agents/agent-9d2f7a10.jsonl");
    assert!(agent.children.is_empty());
    assert_eq!(agent.messages.len(), 4);
}

#[test]
fn bad_input_never_panics() {
    let lines = [
        r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use"}],"usage":"x"}}"#,
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","content":{"odd":1}},{"type":"image","source":{"type":"base64","data":"%%%"}},7]}}"#,
        r#"{"type":"user","sessionId":"s","message":"not an object"}"#,
        r#"{"type":"system","subtype":"compact_boundary","sessionId":"s","compactMetadata":"x"}"#,
        r#"{"type":"user","sessionId":"s","isSidechain":true,"parentUuid":"nowhere","message":{"role":"user","content":null}}"#,
    ];
    let bytes = lines.join("\n").into_bytes();
    let s = load_bytes(bytes, None, "-", Some(Format::CLAUDE_CODE)).unwrap();
    assert_eq!(s.messages.len(), 3);
    assert!(matches!(&s.messages[0].parts[0], Part::ToolCall { id, .. } if id == "0:0"));
    assert_eq!(s.messages[2].role, Role::Event);
    assert_eq!(s.marks.len(), 1);
    assert_eq!(s.children.len(), 1);
}

#[test]
fn fixture_rewind_leaves_the_abandoned_branch_out() {
    let s = load("fixtures/claude-code/rewinds.jsonl");
    // Counted independently (a Python pass over the lines, parents by uuid, the chain walked up
    // from the last turn a3): a0 (line 1) has two prompts under it; the chain goes through the
    // second, u1b, so u1 and what hangs from it (lines 2-5: prompt, call, result, a
    // `turn_duration` note) are abandoned. The boundary (line 9) hangs from its
    // logicalParentUuid a1b, so what came before the compaction stays. r2 hangs from a2x beside
    // the chain, a tool result of the parallel calls a2x/a2y (one `message.id`): kept. p0 and
    // `stray` name parents not in the file: kept. 17 records, 15 turns, 11 messages (14 before).
    assert_eq!(s.source.records, 17);
    let sources: Vec<_> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![0, 1, 6, 7, 8, 10, 11, 12, 14, 15, 16]);
    assert_eq!(
        s.source.abandoned,
        vec![Abandoned {
            fork: 1,
            records: vec![2, 3, 4, 5]
        }]
    );
    use Role::*;
    let roles: Vec<_> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![User, Assistant, User, Assistant, User, User, User, Assistant, Tool, Tool, Assistant]
    );
    assert_eq!(
        s.messages[2].parts,
        vec![Part::text("Try the safe path instead")]
    );
    // Both blocks of the parallel calls make one message; both results stay.
    assert_eq!(s.messages[7].source_indices, vec![12, 13]);
    assert_eq!(results(&s.messages[8]), vec![("toolu_lint", None)]);
    assert_eq!(results(&s.messages[9]), vec![("toolu_test", None)]);
    let kinds: Vec<_> = s
        .marks
        .iter()
        .map(|m| (m.kind.as_str(), m.source_index))
        .collect();
    assert_eq!(kinds, vec![("compact_boundary", 9)]);
    assert_eq!(s.marks[0].before_message, 5);
    assert_eq!(s.messages[5].parts[0].kind(), "summary");
}

#[test]
fn fixture_merges_a_response_only_within_its_run() {
    let s = load("fixtures/claude-code/merge_runs.jsonl");
    // msg_m1 streams as lines 1 and 3 with the result of its first call between them, as
    // Claude Code writes parallel calls: one message. msg_m2 is on line 5 and again on line 7,
    // after the human turn of line 6: two messages, in file order (merged, "There is no third
    // file." would come before the question it answers).
    // python3 -c "import json;[print(i,d['type'],d['message'].get('id')) for i,d in
    //   enumerate(map(json.loads,open('fixtures/claude-code/merge_runs.jsonl')))]"
    let sources: Vec<_> = s
        .messages
        .iter()
        .map(|m| m.source_indices.clone())
        .collect();
    assert_eq!(
        sources,
        vec![
            vec![0],
            vec![1, 3],
            vec![2],
            vec![4],
            vec![5],
            vec![6],
            vec![7]
        ]
    );
    use Role::*;
    let roles: Vec<_> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![User, Assistant, Tool, Tool, Assistant, User, Assistant]
    );
    assert_eq!(
        calls(&s.messages[1]),
        vec![("toolu_m1", "Read"), ("toolu_m2", "Read")]
    );
    assert_eq!(
        s.messages[6].parts,
        vec![Part::text("There is no third file.")]
    );
    // The two messages of msg_m2 each keep their own usage.
    let out: Vec<_> = s
        .messages
        .iter()
        .filter_map(|m| m.usage.as_ref()?.output)
        .collect();
    assert_eq!(out, vec![45, 8, 9]);
}

#[test]
fn fixture_subagent_lines_without_agent_id_join_their_chain() {
    let s = load("fixtures/claude-code/agent_id_partial.jsonl");
    // Lines 2-5 are one subagent (isSidechain, each hanging from the one before); only lines 3
    // and 4 carry agentId e41c7a09. One child of 4 messages, named by the agent and titled by
    // the Task call that started it; 4 messages in the main chain.
    // python3 -c "import json;[print(i,d['isSidechain'],d.get('agentId'),d['uuid'],d['parentUuid'])
    //   for i,d in enumerate(map(json.loads,open('fixtures/claude-code/agent_id_partial.jsonl')))]"
    assert_eq!(s.messages.len(), 4);
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(child.id.as_deref(), Some("e41c7a09"));
    assert!(child.source.path.ends_with("#agent-e41c7a09"));
    assert_eq!(child.title.as_deref(), Some("Find callers"));
    let sources: Vec<_> = child.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![2, 3, 4, 5]);
    assert_eq!(child.source.records, 4);
    assert_eq!(calls(&child.messages[1]), vec![("toolu_grep1", "Grep")]);
    assert_eq!(results(&child.messages[2]), vec![("toolu_grep1", None)]);
}
