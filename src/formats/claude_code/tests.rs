//! Tests over the real Claude Code samples in `../shared/samples/claude_code/` and the
//! hand-made fixtures in `fixtures/claude-code/`. Every number below was checked independently
//! (a Python pass over the JSON lines).

use std::path::{Path, PathBuf};

use crate::formats::{load_bytes, load_path};
use crate::session::{Abandoned, Format, Message, Part, Role, Session};

pub(super) fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn sample(name: &str) -> Session {
    load(&format!("../shared/samples/claude_code/{name}"))
}

pub(super) fn load(rel: &str) -> Session {
    let session = load_path(&path(rel), None).unwrap();
    assert_eq!(
        session.format,
        Format::CLAUDE_CODE,
        "{rel} detected as claude-code"
    );
    session
}

pub(super) fn calls(m: &Message) -> Vec<(&str, &str)> {
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall { id, name, .. } => Some((id.as_str(), name.as_str())),
            _ => None,
        })
        .collect()
}

pub(super) fn results(m: &Message) -> Vec<(&str, Option<bool>)> {
    m.parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolResult {
                call_id, is_error, ..
            } => Some((call_id.as_str(), *is_error)),
            _ => None,
        })
        .collect()
}

/// Every session of the tree, the root first.
fn all(s: &Session) -> Vec<&Session> {
    let mut out = vec![s];
    for c in &s.children {
        out.extend(all(c));
    }
    out
}

#[test]
fn long_session_merges_streamed_lines_and_keeps_usage_once() {
    let s = sample("fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl");
    assert_eq!(
        s.id.as_deref(),
        Some("fe5e1c67-53e7-4862-81ae-d0e013e3270b")
    );
    assert_eq!(
        s.title.as_deref(),
        Some("Empty Repo Setup: CLAUDE.md Foundation Created")
    );
    assert_eq!(s.model.as_deref(), Some("claude-sonnet-4-20250514"));
    assert_eq!(s.source.records, 438);
    assert!(s.source.skipped.is_empty());
    assert_eq!(s.messages.len(), 23);
    let count = |r: Role| s.messages.iter().filter(|m| m.role == r).count();
    assert_eq!(
        (count(Role::User), count(Role::Assistant), count(Role::Tool)),
        (3, 9, 11)
    );
    // Line 0 is the `summary` title line: the first message is line 1, a slash command.
    assert_eq!(s.messages[0].source_index, 1);
    // Line 2 is `isMeta` (the command's prompt): still a user message.
    assert_eq!(
        (s.messages[1].role, s.messages[1].source_index),
        (Role::User, 2)
    );
    // msg_0175yHhPUPFGbabUiDkdjvaD streamed over lines 3-5; output 3, 172, 172: the max, not a sum.
    let m = &s.messages[2];
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(m.source_indices, vec![3, 4, 5]);
    assert_eq!(m.id.as_deref(), Some("msg_0175yHhPUPFGbabUiDkdjvaD"));
    let u = m.usage.as_ref().unwrap();
    assert_eq!((u.input, u.output), (Some(3), Some(172)));
    assert_eq!((u.cache_read, u.cache_write), (Some(14874), Some(1331)));
    assert!(!u.input_includes_cache);
    assert_eq!(u.context_input(), Some(3 + 14874 + 1331));
    // Three Task calls in parallel, lines 11-14, output 1, 1, 1, 598.
    let m = &s.messages[7];
    assert_eq!(m.source_indices, vec![11, 12, 13, 14]);
    assert_eq!(m.usage.as_ref().unwrap().output, Some(598));
    assert_eq!(
        calls(m),
        vec![
            ("toolu_014i9ThHMNShCHocf9xMKasf", "Task"),
            ("toolu_01EbxY94wRUAGyMLj5wh699C", "Task"),
            ("toolu_01LS6tcVd796SbQKmZqeVnWY", "Task")
        ]
    );
    // Their results come back after each subagent finished (lines 36, 123, 222).
    assert_eq!(s.messages[8].source_index, 36);
    assert_eq!(
        results(&s.messages[8]),
        vec![("toolu_01LS6tcVd796SbQKmZqeVnWY", None)]
    );
}

#[test]
fn inline_sidechains_become_one_child_per_task() {
    let s = sample("fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl");
    let titles: Vec<_> = s.children.iter().map(|c| c.title.as_deref()).collect();
    assert_eq!(
        titles,
        vec![
            Some("Build TODO components"),
            Some("Setup Next.js project"),
            Some("Create data models"),
            Some("Implement state management"),
            Some("Create main page integration"),
        ]
    );
    let sizes: Vec<_> = s.children.iter().map(|c| c.messages.len()).collect();
    assert_eq!(sizes, vec![18, 68, 80, 50, 106]);
    let lines: Vec<_> = s.children.iter().map(|c| c.source.records).collect();
    assert_eq!(lines, vec![21, 86, 98, 65, 135]);
    let first = &s.children[0].messages[0];
    assert_eq!((first.role, first.source_index), (Role::User, 15));
    // 167 tool calls and 23 failed results in the whole file, subagents included.
    let tree = all(&s);
    let msgs = || tree.iter().flat_map(|t| &t.messages);
    assert_eq!(msgs().map(|m| calls(m).len()).sum::<usize>(), 167);
    let errors = msgs()
        .flat_map(results)
        .filter(|(_, e)| *e == Some(true))
        .count();
    assert_eq!(errors, 23);
    let child_errors: Vec<_> = s
        .children
        .iter()
        .map(|c| {
            c.messages
                .iter()
                .flat_map(results)
                .filter(|(_, e)| *e == Some(true))
                .count()
        })
        .collect();
    assert_eq!(child_errors, vec![0, 2, 9, 2, 10]);
}

#[test]
fn small_session_with_parallel_calls_and_an_error() {
    let s = sample("1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl");
    assert_eq!(s.messages.len(), 21);
    assert_eq!(s.source.records, 29);
    assert!(s.title.is_none());
    // Line 1 is `isMeta` (the /init prompt).
    assert_eq!(
        (s.messages[1].role, s.messages[1].source_index),
        (Role::User, 1)
    );
    let m = &s.messages[4];
    assert_eq!(m.source_indices, vec![5, 6, 7, 8, 9]);
    assert_eq!(calls(m).len(), 5);
    assert_eq!(m.usage.as_ref().unwrap().output, Some(285));
    assert_eq!(s.messages[7].role, Role::Tool);
    assert_eq!(
        results(&s.messages[7]),
        vec![("toolu_01UwiR8tuGvGJN2J7BW4KbPx", Some(false))]
    );
    assert_eq!(
        results(&s.messages[17]),
        vec![("toolu_01LM7vfs6eMdhHJokVajzJA1", Some(true))]
    );
}

#[test]
fn compact_boundary_and_summary_after_a_rewind() {
    let s = sample("ccl-dag_compact_after_rewind_preserved.jsonl");
    // Counted independently (a Python pass: parents by uuid, the chain walked up from the last
    // turn p1a, on at the boundary from its preserved segment's head since its
    // logicalParentUuid b2a2 is already on the chain; a fork's side is abandoned when its first
    // turn is a prompt): chain p1a p1u b2a2 cs cb b2a b2u a1 u1, and under a1 the first
    // attempt b1u, b1a (lines 2-3) is abandoned. b2u2 hangs from b2a beside the chain but b2a
    // does not fork (the chain reaches it from the boundary), so it stays: 11 turns, 9 messages.
    assert_eq!(s.messages.len(), 9);
    let sources: Vec<_> = s.messages.iter().map(|m| m.source_index).collect();
    assert_eq!(sources, vec![0, 1, 4, 5, 6, 8, 9, 10, 11]);
    assert_eq!(s.source.records, 12);
    assert_eq!(
        s.source.abandoned,
        vec![Abandoned {
            fork: 1,
            records: vec![2, 3]
        }]
    );
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "compact_boundary");
    assert_eq!((mark.source_index, mark.before_message), (7, 5));
    assert_eq!(mark.trigger.as_deref(), Some("auto"));
    assert_eq!((mark.pre_tokens, mark.post_tokens), (Some(150000), None));
    assert!(mark
        .summary
        .as_deref()
        .is_some_and(|t| t.ends_with("Summary: the user asked for a plan.")));
    let summary = &s.messages[5];
    assert_eq!((summary.role, summary.source_index), (Role::User, 8));
    assert!(matches!(&summary.parts[..], [Part::Summary { text }]
        if text.starts_with("This session is being continued")));
    assert_eq!(s.messages[2].parts, vec![Part::text("Second attempt")]);
    assert_eq!(s.messages[3].parts, vec![Part::text("Second answer")]);
}

#[test]
fn single_line_samples_image_thinking_and_task_result() {
    let s = sample("ccl-devdocs-user-image.jsonl");
    let m = &s.messages[0];
    assert_eq!(m.role, Role::User);
    let Part::Image(img) = &m.parts[0] else {
        panic!("image first: {:?}", m.parts[0].kind());
    };
    assert_eq!(img.media_type.as_deref(), Some("image/png"));
    assert_eq!((img.width, img.height), (Some(1002), Some(606)));
    assert_eq!(img.bytes, Some(148489));
    assert_eq!(m.parts[1].kind(), "text");

    let s = sample("ccl-devdocs-assistant-thinking.jsonl");
    let m = &s.messages[0];
    assert!(
        matches!(&m.parts[..], [Part::Reasoning { text, opaque_len: 0 }] if text.len() == 2690)
    );
    let u = m.usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write),
        (Some(10), Some(4), Some(12008), Some(8827))
    );
    assert_eq!(s.model.as_deref(), Some("claude-opus-4-1-20250805"));

    let s = sample("ccl-devdocs-Task-tool_result.jsonl");
    let m = &s.messages[0];
    assert_eq!(m.role, Role::Tool);
    let Part::ToolResult {
        call_id,
        content,
        is_error,
    } = &m.parts[0]
    else {
        panic!("a tool result");
    };
    assert_eq!(call_id, "toolu_01HD7PpSCWhP2gP8dXvJiyZN");
    assert_eq!(*is_error, None);
    assert!(
        matches!(&content[..], [Part::Text { text }] if text.starts_with("Perfect! Now I have"))
    );
}

#[test]
fn subagent_files_are_children_titled_by_their_meta() {
    let rel =
        "../shared/samples/claude_code/subagents_layout/55550000-0000-4000-8000-000000000001.jsonl";
    let s = load(rel);
    assert_eq!(s.messages.len(), 11);
    assert_eq!(
        calls(&s.messages[7]),
        vec![
            ("toolu_sc_showcol1", "Agent"),
            ("toolu_sc_showcol2", "Agent")
        ]
    );
    // An Agent result: the answer plus the agentId/usage trailer, two text blocks.
    assert!(matches!(&s.messages[8].parts[..],
        [Part::ToolResult { call_id, content, .. }] if call_id == "toolu_sc_showcol1" && content.len() == 2));
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(child.id.as_deref(), Some("showcol1"));
    assert_eq!(child.title.as_deref(), Some("Survey the web module"));
    assert!(child
        .source
        .path
        .ends_with("subagents/agent-showcol1.jsonl"));
    // The subagent's own lines are all sidechain lines: read as its main chain.
    let roles: Vec<_> = child.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, vec![Role::User, Role::Assistant]);
    assert_eq!(child.model.as_deref(), Some("claude-haiku-4-5-20251001"));
    assert!(child.children.is_empty());

    // Without a path (stdin) there is nothing to look beside.
    let bytes = std::fs::read(path(rel)).unwrap();
    let s = load_bytes(bytes, None, "-", None).unwrap();
    assert!(s.children.is_empty());
}
