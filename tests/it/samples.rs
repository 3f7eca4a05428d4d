//! Every real sample in ../shared/samples loads as its format, and the model's invariants hold
//! on each: indices, source positions, raw records, groups. Per-format facts (counts, usage,
//! marks) are asserted in each parser's own tests.

use std::path::{Path, PathBuf};

use ctxray::compaction::group_messages;
use ctxray::formats::load_path;
use ctxray::session::Part;

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples")
}

const EXPECTED: &[(&str, &str)] = &[
    ("claude_code/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl", "claude-code"),
    ("claude_code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", "claude-code"),
    ("claude_code/ccl-devdocs-user-image.jsonl", "claude-code"),
    ("claude_code/ccl-devdocs-assistant-thinking.jsonl", "claude-code"),
    ("claude_code/ccl-devdocs-Task-tool_result.jsonl", "claude-code"),
    ("claude_code/ccl-dag_compact_after_rewind_preserved.jsonl", "claude-code"),
    ("claude_code/subagents_layout/55550000-0000-4000-8000-000000000001.jsonl", "claude-code"),
    (
        "claude_code/subagents_layout/55550000-0000-4000-8000-000000000001/subagents/agent-showcol1.jsonl",
        "claude-code",
    ),
    ("codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl", "codex"),
    ("codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl", "codex"),
    ("codex/timvw-sample_session.jsonl", "codex"),
    ("openhands/v0_trajectory/basic_gui_mode.json", "openhands-v0"),
    ("openhands/v1_sdk/goal-events.jsonl", "openhands"),
    ("inspect_ai/2025-05-12T20-27-36-04-00_browser.json", "inspect-ai"),
    ("inspect_ai/log_read_sample.eval", "inspect-ai"),
    ("api_shapes/openhands-fncall-llm-message.json", "openai-chat"),
    ("frameworks/langchain_messages_to_dict.json", "langchain"),
    ("frameworks/pydantic_ai_model_messages.json", "pydantic-ai"),
    ("frameworks/agent_framework_messages_to_dict.json", "agent-framework"),
];

#[test]
fn every_sample_loads_as_its_format_with_sound_indices() {
    for (rel, format) in EXPECTED {
        let session =
            load_path(&samples().join(rel), None).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(session.format.name(), *format, "{rel}");
        check_session(rel, &session);
    }
}

fn check_session(rel: &str, session: &ctxray::session::Session) {
    assert!(!session.messages.is_empty(), "{rel}: no messages");
    for (i, m) in session.messages.iter().enumerate() {
        assert_eq!(m.index, i, "{rel}: index");
        assert_eq!(
            m.source_indices.first(),
            Some(&m.source_index),
            "{rel} #{i}"
        );
        assert!(
            m.source_indices.windows(2).all(|w| w[0] < w[1]),
            "{rel} #{i}: source_indices not ascending"
        );
        if let Some(raw) = session.raw_record(m) {
            assert!(
                serde_json::from_slice::<serde_json::Value>(&raw).is_ok(),
                "{rel} #{i}: raw range is not a JSON record"
            );
        }
        for p in &m.parts {
            if let Part::ToolCall { id, .. } = p {
                assert!(!id.is_empty(), "{rel} #{i}: empty call id");
            }
        }
    }
    for k in &session.marks {
        assert!(
            k.before_message <= session.messages.len(),
            "{rel}: mark out of range"
        );
    }
    let grouping = group_messages(session);
    for g in &grouping.groups {
        assert!(
            g.messages.windows(2).all(|w| w[0] < w[1]),
            "{rel}: group messages unordered"
        );
    }
    for child in &session.children {
        check_session(&format!("{rel} (child)"), child);
    }
}

#[test]
fn the_bundled_sample_is_the_real_session() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bundled = std::fs::read(root.join("fixtures/samples/claude-code-demo.jsonl")).unwrap();
    let original =
        std::fs::read(samples().join("claude_code/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"))
            .unwrap();
    assert_eq!(bundled, original);
}
