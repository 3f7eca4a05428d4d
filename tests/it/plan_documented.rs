//! The `codex`, `claude-code` and `custom` presets against their documented rules, on sessions
//! built (in the agents' own formats: Codex rollout JSONL, Claude Code JSONL; Chat Completions
//! for `custom`) so that the trigger, the split and the summarizer input are known by
//! construction. There is no runnable framework to produce goldens for these presets.

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::plan::source_fates;
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::compaction::presets;
use ctxray::compaction::{Plan, PromptRole};
use ctxray::formats::load_bytes;
use ctxray::tokens::Registry;
use serde_json::{json, Value};

fn analyse(lines: &[Value], format: &str) -> Analysis {
    let bytes = if format == "openai-chat" {
        serde_json::to_vec_pretty(&json!({ "messages": lines })).unwrap()
    } else {
        let mut out = Vec::new();
        for l in lines {
            out.extend(serde_json::to_vec(l).unwrap());
            out.push(b'\n');
        }
        out
    };
    let session = load_bytes(bytes, None, "t", None).unwrap();
    assert_eq!(session.format.name(), format);
    Analysis::new(session, &Registry::bundled(), &Options::default())
}

fn run(a: &Analysis, name: &str, sets: &[&str]) -> Plan {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    preset::run(presets::find(name).unwrap(), &PlanInput::new(a), &sets).unwrap()
}

fn roles(p: &Plan) -> Vec<&'static str> {
    p.summarizer.iter().map(|m| m.role.as_str()).collect()
}

fn has(p: &Plan, code: &str) -> bool {
    p.findings.iter().any(|f| f.code == code)
}

// ---------------------------------------------------------------- codex

fn cx(kind: &str, payload: Value) -> Value {
    json!({"timestamp": "2025-10-21T09:14:02.311Z", "type": kind, "payload": payload})
}

fn cx_msg(role: &str, text: &str) -> Value {
    let kind = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    cx(
        "response_item",
        json!({"type": "message", "role": role, "content": [{"type": kind, "text": text}]}),
    )
}

fn cx_usage(total: u64) -> Value {
    let u = json!({"input_tokens": total - 10, "cached_input_tokens": 0, "output_tokens": 10, "reasoning_output_tokens": 0, "total_tokens": total});
    cx(
        "event_msg",
        json!({"type": "token_count", "info": {"total_token_usage": u, "last_token_usage": u, "model_context_window": 272000}}),
    )
}

fn cx_head() -> Vec<Value> {
    vec![
        cx(
            "session_meta",
            json!({"id": "s1", "cwd": "/w", "cli_version": "0.47.0", "base_instructions": {"text": "SYS"}}),
        ),
        cx_msg(
            "developer",
            "<permissions instructions>\nworkspace-write\n</permissions instructions>",
        ),
        cx_msg(
            "user",
            "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
        ),
        cx("turn_context", json!({"cwd": "/w", "model": "gpt-5-codex"})),
    ]
}

fn codex_session(last_total: u64) -> Vec<Value> {
    let mut l = cx_head();
    l.extend([
        cx_msg("user", "first task"),                                                                             // 4
        cx("response_item", json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":\"ls\"}", "call_id": "call_1"})), // 5
        cx_usage(1000),                                                                                           // 6
        cx("response_item", json!({"type": "function_call_output", "call_id": "call_1", "output": "a.txt"})),     // 7
        cx_msg("assistant", "done one"),                                                                          // 8
        cx_usage(5000),                                                                                           // 9
        cx_msg("user", "second task"),                                                                            // 10
        cx_msg("assistant", "ok"),                                                                                // 11
        cx_usage(last_total),                                                                                     // 12
    ]);
    l
}

#[test]
fn codex_fires_at_nine_tenths_of_the_window_on_the_last_reported_total() {
    let a = analyse(&codex_session(9500), "codex");
    let p = run(&a, "codex", &["context_window=10000"]);
    assert_eq!((p.trigger.value, p.trigger.threshold), (9500, 9000));
    assert!(p.trigger.fired, "{}", p.trigger.reason);
    // The configured limit wins when it is lower, never when it is higher.
    let p2 = run(
        &a,
        "codex",
        &[
            "context_window=10000",
            "model_auto_compact_token_limit=9600",
        ],
    );
    assert_eq!(p2.trigger.threshold, 9000);
    let p3 = run(
        &a,
        "codex",
        &[
            "context_window=20000",
            "model_auto_compact_token_limit=9600",
        ],
    );
    assert_eq!(p3.trigger.threshold, 9600);
    assert!(!p3.trigger.fired);
    assert!(p3.summarizer.is_empty());
}

#[test]
fn codex_sends_the_whole_history_then_the_prompt_and_keeps_only_user_messages() {
    let a = analyse(&codex_session(9500), "codex");
    let p = run(&a, "codex", &["context_window=10000"]);
    let contents: Vec<&str> = p.summarizer.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents,
        vec![
            "SYS",
            "<permissions instructions>\nworkspace-write\n</permissions instructions>",
            "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
            "first task",
            r#"{"type":"function_call","name":"shell","arguments":"{\"command\":\"ls\"}","call_id":"call_1"}"#,
            r#"{"type":"function_call_output","call_id":"call_1","output":"a.txt"}"#,
            "done one",
            "second task",
            "ok",
            ctxray_codex_prompt(),
        ]
    );
    assert_eq!(
        roles(&p),
        vec![
            "system",
            "system",
            "user",
            "user",
            "assistant",
            "user",
            "assistant",
            "user",
            "assistant",
            "user"
        ]
    );
    let fates = source_fates(&a.session, &p.split);
    // Instructions and initial context pinned, real user messages carried.
    assert_eq!(fates.kept, vec![0, 1, 2, 4, 10]);
    assert_eq!(fates.summarized, vec![5, 7, 8, 11]);
    assert_eq!(fates.dropped, vec![3, 6, 9, 12]);
    let ins = p.insertion.clone().unwrap();
    assert_eq!(ins.role, PromptRole::User);
    assert_eq!(ins.position, 5); // instructions, developer, environment, two user messages
    assert!(ins
        .prefix
        .starts_with("You are resuming an in-progress task after context compaction."));
    assert!(ins.prefix.ends_with("Here is the summary:\n\n"));
    let tools = p
        .findings
        .iter()
        .find(|f| f.code == "tool-history-dropped")
        .unwrap();
    assert_eq!(tools.messages.len(), 2);
}

fn ctxray_codex_prompt() -> &'static str {
    "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary so another LLM can continue the single active task (the most recent user request that is still in progress).\n\nRules:\n- Focus only on the active task. Do not restate or reopen earlier, completed tasks.\n- Do not propose audits or re-checking unless the user explicitly asked.\n- If earlier tasks exist, note them as completed in one short bullet.\n\nUse this format:\n- Active task:\n- Progress so far:\n- Next steps (active task only):\n- Key context / constraints / preferences (still relevant only):\n- Completed tasks (optional, brief):\n\nBe concise and structured so the next LLM can continue without broad backtracking.\n"
}

#[test]
fn codex_carries_user_messages_newest_first_within_twenty_thousand_tokens() {
    // bytes/4 rounded up: C = 1, A = 12,500, B = 10,000. Newest first: B fits (10,000 left),
    // A overflows and is truncated to 10,000, C is left out.
    let mut l = cx_head();
    l.extend([
        cx_msg("user", "cccc"),
        cx_msg("user", &"a".repeat(50_000)),
        cx_msg("user", &"b".repeat(40_000)),
        cx_msg("assistant", "ok"),
    ]);
    let a = analyse(&l, "codex");
    // No token_count in the file: the exact count is the measure; a zero limit always fires.
    let p = run(&a, "codex", &["model_auto_compact_token_limit=0"]);
    assert!(p.trigger.fired);
    assert_eq!(p.trigger.estimator, "exact count of the history");
    assert_eq!(p.trigger.value as usize, a.counts.total());
    assert_eq!(p.split.kept, vec![4, 5]);
    let trunc = p
        .findings
        .iter()
        .find(|f| f.code == "message-truncated")
        .unwrap();
    assert_eq!(trunc.messages, vec![4]);
    assert!(
        trunc.detail.contains("~12500 tokens") && trunc.detail.contains("~10000 tokens"),
        "{}",
        trunc.detail
    );
    let left = p
        .findings
        .iter()
        .find(|f| f.code == "user-messages-dropped")
        .unwrap();
    assert_eq!(left.messages, vec![3]);
}

#[test]
fn codex_trims_the_oldest_history_items_when_the_request_overflows_the_window() {
    let mut l = cx_head();
    l.extend([
        cx_msg("user", &"hello ".repeat(3000)),
        cx_msg("assistant", "reading"),
        cx_msg("user", "second task"),
        cx_msg("assistant", "ok"),
    ]);
    let a = analyse(&l, "codex");
    let p = run(
        &a,
        "codex",
        &["context_window=2000", "model_auto_compact_token_limit=0"],
    );
    // Codex removes the first history item and retries: the initial context goes first.
    let overflow = p
        .findings
        .iter()
        .find(|f| f.code == "summarizer-window-overflow")
        .unwrap();
    assert_eq!(overflow.messages, vec![1, 2, 3]);
    let contents: Vec<&str> = p.summarizer.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents,
        vec!["SYS", "reading", "second task", "ok", ctxray_codex_prompt()]
    );
    // Trimmed items the new history rebuilds anyway stay kept; nothing else is lost.
    let fates = source_fates(&a.session, &p.split);
    assert_eq!(fates.kept, vec![0, 1, 2, 4, 6]);
    assert!(!has(&p, "messages-lost"));
}

#[test]
fn codex_after_an_earlier_compaction_carries_its_summary_and_user_messages() {
    let mut l = codex_session(9500);
    l.push(cx("compacted", json!({"message": "EARLIER SUMMARY"}))); // 13
    l.push(cx("event_msg", json!({"type": "context_compacted"}))); // 14
    l.push(cx_msg("user", "third task")); // 15
    l.push(cx_msg("assistant", "on it")); // 16
    l.push(cx_usage(9800)); // 17
    let a = analyse(&l, "codex");
    let p = run(&a, "codex", &["context_window=10000"]);
    assert_eq!(p.trigger.value, 9800);
    let contents: Vec<&str> = p.summarizer.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        &contents[1..6],
        &[
            "<permissions instructions>\nworkspace-write\n</permissions instructions>",
            "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
            "first task",
            "second task",
            "EARLIER SUMMARY",
        ]
    );
    assert_eq!(&contents[6..8], &["third task", "on it"]);
    let fates = source_fates(&a.session, &p.split);
    assert_eq!(fates.kept, vec![0, 1, 2, 4, 10, 15]);
    assert_eq!(fates.summarized, vec![16]);
    // The tool round and replies before the earlier compaction are gone already.
    assert!(fates.dropped.contains(&5) && fates.dropped.contains(&8));
}

// ---------------------------------------------------------------- claude-code

fn cc(n: u32, kind: &str, message: Value) -> Value {
    json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/w", "sessionId": "7b2e4c1a-93d0-4f6e-8a15-2c9d0e4b7f31",
        "version": "1.0.98", "type": kind, "message": message, "uuid": format!("7b2e0000-0000-4000-8000-{n:012}"), "timestamp": "2025-09-18T10:00:01.101Z"})
}

fn cc_assistant(n: u32, id: &str, content: Value, usage: Value) -> Value {
    cc(
        n,
        "assistant",
        json!({"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514", "content": content, "stop_reason": null, "usage": usage}),
    )
}

fn claude_session() -> Vec<Value> {
    vec![
        cc(1, "user", json!({"role": "user", "content": "fix the bug"})),
        cc_assistant(
            2,
            "msg_1",
            json!([{"type": "text", "text": "looking"}, {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]),
            json!({"input_tokens": 100, "cache_read_input_tokens": 50000, "cache_creation_input_tokens": 10000, "output_tokens": 200}),
        ),
        cc(
            3,
            "user",
            json!({"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result", "content": "a.txt"}]}),
        ),
        cc(
            4,
            "user",
            json!({"role": "user", "content": "x".repeat(4000)}),
        ),
    ]
}

const TOOL_RESULT_BLOCK: &str =
    r#"{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}"#;

#[test]
fn claude_code_counts_last_usage_plus_chars_over_four_and_fires_below_the_reserve() {
    let a = analyse(&claude_session(), "claude-code");
    let expected = 60_300 + ((TOOL_RESULT_BLOCK.len() + 4000) as f64 / 4.0).round() as u64;
    let p = run(&a, "claude-code", &[]);
    assert_eq!(p.trigger.value, expected);
    assert_eq!(p.trigger.threshold, 167_000); // 200,000 − 20,000 − 13,000
    assert!(!p.trigger.fired);
    let p = run(&a, "claude-code", &["context_window=80000"]);
    assert_eq!(p.trigger.threshold, 47_000);
    assert!(p.trigger.fired);
    let p = run(
        &a,
        "claude-code",
        &["context_window=80000", "max_output_tokens=8000"],
    );
    assert_eq!(p.trigger.threshold, 59_000);
    let p = run(&a, "claude-code", &["autocompact_pct_override=50"]);
    assert_eq!(p.trigger.threshold, 100_000);
    assert!(has(&p, "threshold-lowered") && !p.trigger.fired);
    let p = run(&a, "claude-code", &["autocompact_pct_override=25"]);
    assert_eq!(p.trigger.threshold, 50_000);
    assert!(p.trigger.fired);
    // A percentage above the default threshold does not raise it.
    let p = run(&a, "claude-code", &["autocompact_pct_override=95"]);
    assert_eq!(p.trigger.threshold, 167_000);
    assert!(!has(&p, "threshold-lowered"));
}

#[test]
fn claude_code_summarizes_everything_and_keeps_nothing() {
    let a = analyse(&claude_session(), "claude-code");
    let p = run(&a, "claude-code", &["context_window=80000"]);
    assert_eq!(roles(&p), vec!["user", "assistant", "user", "user", "user"]);
    let contents: Vec<&str> = p.summarizer.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents[0], "fix the bug");
    assert_eq!(
        contents[1],
        "looking\n{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}"
    );
    assert_eq!(contents[2], TOOL_RESULT_BLOCK);
    assert_eq!(contents[3], "x".repeat(4000));
    let prompt = contents[4];
    assert!(prompt.contains("<analysis>") && prompt.contains("<summary>"));
    for section in [
        "1. Primary Request and Intent",
        "2. Key Technical Concepts",
        "3. Files and Code Sections",
        "4. Errors and fixes",
        "5. Problem Solving",
        "6. All user messages",
        "7. Pending Tasks",
        "8. Current Work",
        "9. Optional Next Step",
    ] {
        assert!(prompt.contains(section), "{section}");
    }
    let fates = source_fates(&a.session, &p.split);
    assert!(fates.kept.is_empty());
    assert_eq!(fates.summarized, vec![0, 1, 2, 3]);
    let ins = p.insertion.clone().unwrap();
    assert_eq!((ins.role, ins.position), (PromptRole::User, 0));
    assert_eq!(ins.prefix, "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n");
    assert!(has(&p, "history-replaced"));
    assert!(!has(&p, "messages-lost") && !has(&p, "dangling-tool-call"));
}

#[test]
fn claude_code_starts_from_the_last_compact_boundary() {
    let boundary = json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/w", "sessionId": "7b2e4c1a-93d0-4f6e-8a15-2c9d0e4b7f31",
        "version": "1.0.98", "type": "system", "content": "Conversation compacted", "subtype": "compact_boundary", "level": "info", "isMeta": false,
        "compactMetadata": {"trigger": "auto", "preTokens": 170000}, "uuid": "7b2e0000-0000-4000-8000-0000000000b0", "timestamp": "2025-09-18T10:00:01.101Z"});
    let summary = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nS";
    let mut s = cc(5, "user", json!({"role": "user", "content": summary}));
    s["isCompactSummary"] = json!(true);
    let l = vec![
        cc(1, "user", json!({"role": "user", "content": "old"})),
        cc_assistant(
            2,
            "msg_1",
            json!([{"type": "text", "text": "old reply"}]),
            json!({"input_tokens": 100000, "output_tokens": 10}),
        ),
        boundary,
        s,
        cc_assistant(
            6,
            "msg_2",
            json!([{"type": "text", "text": "new"}]),
            json!({"input_tokens": 990, "output_tokens": 10}),
        ),
    ];
    let a = analyse(&l, "claude-code");
    let p = run(
        &a,
        "claude-code",
        &["context_window=20000", "max_output_tokens=2000"],
    );
    assert_eq!((p.trigger.value, p.trigger.threshold), (1000, 5000));
    assert!(!p.trigger.fired);
    let p = run(
        &a,
        "claude-code",
        &["context_window=15000", "max_output_tokens=1000"],
    );
    assert_eq!(p.trigger.threshold, 1000);
    assert!(p.trigger.fired);
    let contents: Vec<&str> = p.summarizer.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(&contents[..2], &[summary, "new"]);
    let fates = source_fates(&a.session, &p.split);
    assert_eq!(fates.summarized, vec![3, 4]);
    assert_eq!(fates.dropped, vec![0, 1, 2]);
    assert!(has(&p, "already-compacted"));
}

// ---------------------------------------------------------------- custom

const CUSTOM_PROMPT: &str = "Summarize the conversation below so that an agent can continue the work from the summary alone. Keep the user's goals and constraints, decisions taken, files and commands involved, tool results that matter, errors and how they were handled, and what remains to be done.";

fn chat() -> Vec<Value> {
    vec![
        json!({"role": "system", "content": "S"}),
        json!({"role": "user", "content": "u1"}),
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}]}),
        json!({"role": "tool", "tool_call_id": "call_a", "content": "r"}),
        json!({"role": "assistant", "content": "a2"}),
        json!({"role": "user", "content": "u3"}),
        json!({"role": "assistant", "content": "a3"}),
    ]
}

#[test]
fn custom_triggers_on_tokens_messages_or_ratio() {
    let a = analyse(&chat(), "openai-chat");
    let total = a.counts.total() as u64;
    let p = run(&a, "custom", &["trigger_tokens=1", "keep_last=1"]);
    assert!(p.trigger.fired);
    assert_eq!((p.trigger.measure, p.trigger.value), ("tokens", total));
    let p = run(&a, "custom", &[&format!("trigger_tokens={}", total + 1)]);
    assert!(!p.trigger.fired && p.summarizer.is_empty());
    let p = run(&a, "custom", &["trigger_messages=7", "keep_last=1"]);
    assert!(p.trigger.fired);
    assert_eq!((p.trigger.measure, p.trigger.value), ("messages", 7));
    let p = run(&a, "custom", &["trigger_messages=8"]);
    assert!(!p.trigger.fired);
    let p = run(
        &a,
        "custom",
        &["context_window=100", "trigger_ratio=0.01", "keep_last=1"],
    );
    assert_eq!(p.trigger.threshold, 1);
    assert!(p.trigger.fired);
    assert!(preset::run(
        presets::find("custom").unwrap(),
        &PlanInput::new(&a),
        &["trigger_ratio=null".into()]
    )
    .is_err());
}

#[test]
fn custom_keeps_tool_call_groups_whole_at_the_cut() {
    let a = analyse(&chat(), "openai-chat");
    // keep_last=4 would start the tail at the tool result (3): it moves to its call (2).
    for keep in ["keep_last=4", "keep_last=5"] {
        let p = run(&a, "custom", &["trigger_messages=1", keep]);
        assert_eq!(p.split.pinned, vec![0], "{keep}");
        assert_eq!(p.split.summarized, vec![1], "{keep}");
        assert_eq!(p.split.kept, vec![2, 3, 4, 5, 6], "{keep}");
        assert_eq!(p.summarizer[1].content, "[user] u1");
    }
    let p = run(&a, "custom", &["trigger_messages=1", "keep_last=3"]);
    assert_eq!(p.split.summarized, vec![1, 2, 3]);
    assert_eq!(roles(&p), vec!["system", "user"]);
    assert_eq!(p.summarizer[0].content, CUSTOM_PROMPT);
    assert_eq!(
        p.summarizer[1].content,
        "[user] u1\n\n[assistant] f({\"x\":1})\n\n[tool] result call_a: r"
    );
    assert!(!has(&p, "dangling-tool-call") && !has(&p, "orphaned-tool-result"));
    // A pinned head that ends inside a group takes the whole group.
    let p = run(
        &a,
        "custom",
        &["trigger_messages=1", "keep_last=3", "keep_first=2"],
    );
    assert!(p.split.summarized.is_empty() && !p.trigger.fired);
    let p = run(
        &a,
        "custom",
        &["trigger_messages=1", "keep_last=2", "keep_first=2"],
    );
    assert_eq!(p.split.pinned, vec![0, 1, 2, 3]);
    assert_eq!(p.split.summarized, vec![4]);
    assert_eq!(p.insertion.clone().unwrap().position, 4);
}

#[test]
fn custom_keep_tokens_pin_system_role_prompt_and_caps() {
    let mut h = chat();
    h[1] = json!({"role": "user", "content": "u".repeat(100)});
    let a = analyse(&h, "openai-chat");
    let last = a.counts.messages[6].total();
    let p = run(
        &a,
        "custom",
        &["trigger_messages=1", &format!("keep_tokens={last}")],
    );
    assert_eq!(p.split.kept, vec![6]);
    let p = run(
        &a,
        "custom",
        &[
            "trigger_messages=1",
            "keep_last=1",
            "pin_system=false",
            "role=user",
            "prompt=P",
            "max_message_chars=10",
        ],
    );
    assert!(p.split.pinned.is_empty());
    assert_eq!(p.split.summarized, vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(p.summarizer.len(), 1);
    let content = &p.summarizer[0].content;
    assert!(
        content.starts_with("P\n\n[system] S\n\n[user\n[… 97 chars omitted …]\nuuuuu\n\n"),
        "{content}"
    );
    let f = p
        .findings
        .iter()
        .find(|f| f.code == "message-truncated")
        .unwrap();
    assert!(f.messages.contains(&1));
    let p = run(
        &a,
        "custom",
        &[
            "trigger_messages=1",
            "keep_last=1",
            "max_input_chars=20",
            "head_chars=3",
            "tail_chars=2",
        ],
    );
    let transcript = &p.summarizer[1].content;
    assert!(
        transcript.starts_with("[us\n[… ") && transcript.ends_with("chars omitted …]\nu3"),
        "{transcript}"
    );
    assert!(has(&p, "input-truncated"));
}

#[test]
fn claude_code_flags_a_compaction_request_over_the_window_by_its_exact_count() {
    // Window 14,000, no output reserve: the threshold is 1,000, so every case fires.
    let sets = ["context_window=14000", "max_output_tokens=0"];
    let with = |text: String| {
        let mut l = claude_session();
        l[3] = cc(4, "user", json!({"role": "user", "content": text}));
        let a = analyse(&l, "claude-code");
        let p = run(&a, "claude-code", &sets);
        assert!(p.trigger.fired);
        let exact: usize = p
            .summarizer
            .iter()
            .map(|m| a.counter.count(&m.content))
            .sum();
        let detail = p
            .findings
            .iter()
            .find(|f| f.code == "summarizer-window-overflow")
            .map(|f| f.detail.clone());
        (exact, detail)
    };
    // More bytes than the window, fewer tokens: counted, and no finding.
    let (exact, detail) = with("x".repeat(40_000));
    assert!(exact < 14_000, "{exact}");
    assert_eq!(detail, None);
    // Over the window, under twice it: the exact count is said.
    let words = |n: usize| (0..n).map(|i| format!("w{i} ")).collect::<String>();
    let (exact, detail) = with(words(6_000));
    assert!((14_000..28_000).contains(&exact), "{exact}");
    assert!(
        detail
            .as_deref()
            .unwrap()
            .contains(&format!("counts {exact} tokens")),
        "{detail:?}"
    );
    // Far over: the summarized messages' own counts settle it.
    let (exact, detail) = with(words(40_000));
    assert!(exact > 28_000);
    assert!(detail.unwrap().contains("counts over "));
}
