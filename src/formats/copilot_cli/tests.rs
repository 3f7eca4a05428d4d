//! Tests over the sessions in `fixtures/copilot-cli/`, written by the real Copilot CLI 1.0.102
//! against a scripted model (see its `NOTICE.md`), and hand-written events in the schema's
//! shapes for what those runs do not hold (an older CLI's `assistant.usage` after its message,
//! a truncation, broken records).

use crate::formats::load_path;
use crate::formats::test_support::{all_paired, calls, fixture, read_as, results};
use crate::session::{Format, Part, Session};

fn load(name: &str) -> Session {
    fixture("copilot-cli", name, Format::COPILOT_CLI)
}

fn read(text: &str) -> Session {
    read_as(text, "events.jsonl", Format::COPILOT_CLI)
}

fn roles(s: &Session) -> Vec<&'static str> {
    s.messages.iter().map(|m| m.role.as_str()).collect()
}

fn usage_of(s: &Session) -> Vec<(u64, u64)> {
    let usages = s.messages.iter().filter_map(|m| m.usage.as_ref());
    usages
        .map(|u| (u.input.unwrap_or(0), u.output.unwrap_or(0)))
        .collect()
}

#[test]
fn tools_session_counts() {
    let s = load("tools.jsonl");
    assert_eq!(
        s.id.as_deref(),
        Some("06cdf425-c917-4b57-a772-5b850e9c2a19")
    );
    assert_eq!(s.model.as_deref(), Some("scripted"));
    // The system prompt once, then user, assistant and tool messages:
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/tools.jsonl')];print(min(1,sum(r['type']=='system.message' for r in R))+sum(r['type'] in('user.message','assistant.message','tool.execution_complete') for r in R))"
    assert_eq!(s.messages.len(), 10);
    assert_eq!(
        roles(&s),
        [
            "system",
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/tools.jsonl')];print(sum(len(r['data']['toolRequests']) for r in R if r['type']=='assistant.message'))"
    assert_eq!(calls(&s).len(), 4);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/tools.jsonl')];print([(r['data']['toolCallId'],r['data']['success']) for r in R if r['type']=='tool.execution_complete'])"
    let got = results(&s);
    assert_eq!(got.len(), 4);
    assert!(got.iter().all(|(_, e)| *e == Some(false)));
    assert!(all_paired(&s));
    // Two parallel views in the first assistant message, with its reasoning text.
    let first = &s.messages[2];
    assert_eq!(first.client_calls().count(), 2);
    assert!(
        matches!(&first.parts[0], Part::Reasoning { text, .. } if text.starts_with("I should read"))
    );
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/tools.jsonl')];print([(r['data']['usage']['inputTokens'],r['data']['usage']['outputTokens']) for r in R if r['type']=='session.usage_record'])"
    assert_eq!(
        usage_of(&s),
        [(5549, 66), (5703, 56), (5816, 39), (5911, 17)]
    );
    let usage = s.messages[2].usage.as_ref().unwrap();
    assert!(usage.input_includes_cache);
    assert_eq!(usage.cache_read, Some(0));
    assert!(s.marks.is_empty());
    assert!(s.children.is_empty());
    assert!(s.source.skipped.is_empty());
}

#[test]
fn failing_and_compacted_session_counts() {
    let s = load("failing-compact.jsonl");
    assert_eq!(
        s.id.as_deref(),
        Some("7c0040ae-c284-4cb9-a26d-a47e18e54095")
    );
    // The system prompt once (recorded twice, lines 3 and 36), user, assistant, tool messages
    // and the compaction's summary:
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/failing-compact.jsonl')];print(min(1,sum(r['type']=='system.message' for r in R))+sum(r['type'] in('user.message','assistant.message','tool.execution_complete') for r in R)+sum(r['type']=='session.compaction_complete' and 'summaryContent' in r['data'] for r in R))"
    assert_eq!(s.messages.len(), 11);
    assert_eq!(
        roles(&s),
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "user",
            "user",
            "assistant"
        ]
    );
    assert_eq!(s.messages[0].source_indices, [2, 35]);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/failing-compact.jsonl')];print(sum(len(r['data']['toolRequests']) for r in R if r['type']=='assistant.message'))"
    assert_eq!(calls(&s).len(), 3);
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/failing-compact.jsonl')];print([(r['data']['toolCallId'],r['data']['success']) for r in R if r['type']=='tool.execution_complete'])"
    assert_eq!(
        results(&s),
        [
            ("call_0001", Some(true)),
            ("call_0003", Some(false)),
            ("call_0002", Some(false)),
        ]
    );
    assert!(all_paired(&s));
    // The failed view is sent to the model as its error message.
    assert_eq!(s.messages[3].parts[0].plain_text(), "Path does not exist");
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/failing-compact.jsonl')];print([(i,r['data'].get('trigger'),r['data'].get('preCompactionTokens'),r['data'].get('postCompactionTokens')) for i,r in enumerate(R) if r['type'].startswith('session.compaction')])"
    assert_eq!(s.marks.len(), 1);
    let mark = &s.marks[0];
    assert_eq!(mark.kind, "compaction");
    assert_eq!(mark.source_index, 31);
    assert_eq!(mark.trigger.as_deref(), Some("manual"));
    assert_eq!(
        (mark.pre_tokens, mark.post_tokens),
        (Some(10524), Some(10442))
    );
    let summary = &s.messages[mark.before_message];
    assert_eq!(summary.source_index, 31);
    assert!(
        matches!(&summary.parts[..], [Part::Summary { text }] if text.starts_with("<overview>"))
    );
    // The summarizer call's own model.* trace makes no message; the usage of every
    // conversation call is on its message, the id chatcmpl-0001 used again after the resume:
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/failing-compact.jsonl')];print([(r['data']['usage']['apiCallId'],r['data']['usage']['inputTokens'],r['data']['usage']['outputTokens']) for r in R if r['type']=='session.usage_record'])"
    assert_eq!(
        usage_of(&s),
        [(5549, 30), (5638, 62), (5796, 22), (5809, 13)]
    );
    assert!(s.source.skipped.is_empty());
}

#[test]
fn subagent_session_counts() {
    let s = load("subagent.jsonl");
    // The main agent's events (no agentId): system once, user, assistant, tool:
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/subagent.jsonl')];M=[r for r in R if 'agentId' not in r];print(min(1,sum(r['type']=='system.message' for r in M))+sum(r['type'] in('user.message','assistant.message','tool.execution_complete') for r in M))"
    assert_eq!(s.messages.len(), 5);
    assert_eq!(
        roles(&s),
        ["system", "user", "assistant", "tool", "assistant"]
    );
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/subagent.jsonl')];print([(r.get('agentId'),[t['toolCallId'] for t in r['data']['toolRequests']]) for r in R if r['type']=='assistant.message'])"
    assert_eq!(calls(&s), ["call_0001"]);
    assert_eq!(results(&s), [("call_0001", Some(false))]);
    assert!(all_paired(&s));
    assert_eq!(usage_of(&s), [(5550, 65), (5669, 17)]);
    // The explore sub-agent (agentId b6bc79f9-…): its own prompt, task, view call and answer.
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/subagent.jsonl')];A=[r for r in R if 'agentId' in r];print(min(1,sum(r['type']=='system.message' for r in A))+sum(r['type'] in('user.message','assistant.message','tool.execution_complete') for r in A))"
    assert_eq!(s.children.len(), 1);
    let child = &s.children[0];
    assert_eq!(
        (child.id.as_deref(), child.title.as_deref()),
        (
            Some("b6bc79f9-1589-4cec-b26b-0f432b39d2b1"),
            Some("Explore calc module")
        )
    );
    assert_eq!(child.messages.len(), 5);
    assert_eq!(
        roles(child),
        ["system", "user", "assistant", "tool", "assistant"]
    );
    assert_eq!(calls(child), ["call_0002"]);
    assert_eq!(results(child), [("call_0002", Some(false))]);
    assert!(all_paired(child));
    // python3 -c "import json;R=[json.loads(l) for l in open('fixtures/copilot-cli/subagent.jsonl')];print([(r.get('agentId','main')[:8],r['data']['usage']['inputTokens'],r['data']['usage']['outputTokens']) for r in R if r['type']=='session.usage_record'])"
    assert_eq!(usage_of(child), [(2041, 27), (2118, 13)]);
    assert!(child.messages[0].parts[0]
        .plain_text()
        .starts_with("[GitHub Copilot CLI 1.0.102's system prompt, 7,820 characters"));
}

/// Hand-written in the schema's shapes: an older CLI's `assistant.usage` after its message, a
/// truncation, records lacking what their kind needs, a malformed line and an unknown event.
#[test]
fn broken_and_older_records_are_reported_not_dropped() {
    let text = concat!(
        r#"{"type":"session.start","data":{"sessionId":"s1","version":1,"producer":"copilot-agent","copilotVersion":"0.0.350","startTime":"t","selectedModel":"m1"},"id":"e0","timestamp":"t","parentId":null}"#,
        "\n",
        r#"{"type":"user.message","data":{"content":"hi"},"id":"e1","timestamp":"t","parentId":"e0"}"#,
        "\n",
        r#"{"type":"assistant.message","data":{"messageId":"m","content":"","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{"command":"ls"}}],"apiCallId":"x1"},"id":"e2","timestamp":"t","parentId":"e1"}"#,
        "\n",
        r#"{"type":"assistant.usage","data":{"model":"m1","inputTokens":100,"outputTokens":7,"cacheReadTokens":60,"apiCallId":"x1"},"id":"e3","timestamp":"t","parentId":"e2"}"#,
        "\n",
        r#"{"type":"tool.execution_complete","data":{"success":true,"result":{"content":"a"}},"id":"e4","timestamp":"t","parentId":"e3"}"#,
        "\n",
        "{not json\n",
        r#"{"type":"user.message","data":{"contnet":"typo"},"id":"e6","timestamp":"t","parentId":"e4"}"#,
        "\n",
        r#"{"type":"session.truncation","data":{"tokenLimit":10,"preTruncationTokensInMessages":90,"preTruncationMessagesLength":3,"postTruncationTokensInMessages":40,"postTruncationMessagesLength":2,"tokensRemovedDuringTruncation":50,"messagesRemovedDuringTruncation":1,"performedBy":"BasicTruncator"},"id":"e7","timestamp":"t","parentId":"e6"}"#,
        "\n",
        r#"{"type":"session.error","data":{"errorType":"rate_limit","message":"slow down"},"id":"e8","timestamp":"t","parentId":"e7"}"#,
        "\n",
    );
    let s = read(text);
    assert_eq!(s.model.as_deref(), Some("m1"));
    assert_eq!(roles(&s), ["user", "assistant", "event"]);
    let usage = s.messages[1]
        .usage
        .as_ref()
        .expect("usage after the message");
    assert_eq!((usage.input, usage.cache_read), (Some(100), Some(60)));
    assert_eq!(usage.context_input(), Some(100), "input includes the cache");
    let mut skipped: Vec<usize> = s.source.skipped.iter().map(|k| k.line).collect();
    skipped.sort_unstable();
    assert_eq!(skipped, [5, 6, 7]);
    assert_eq!(s.marks.len(), 1);
    assert_eq!(s.marks[0].kind, "truncation");
    assert_eq!(
        (s.marks[0].pre_tokens, s.marks[0].post_tokens),
        (Some(90), Some(40))
    );
}

/// Copilot CLI events were refused by name until ctxray read them; a session directory
/// (`events.jsonl` beside `workspace.yaml`) is read as its events.
#[test]
fn events_and_session_directories_are_read_not_refused() {
    let text = concat!(
        r#"{"type":"session.start","data":{"sessionId":"s","producer":"copilot-agent"},"id":"e1","timestamp":"t","parentId":null}"#,
        "\n",
        r#"{"type":"user.message","data":{"content":"hi"},"id":"e2","timestamp":"t","parentId":"e1"}"#,
        "\n"
    );
    assert_eq!(read(text).messages.len(), 1);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("events.jsonl"), text).unwrap();
    std::fs::write(dir.path().join("workspace.yaml"), "id: s\n").unwrap();
    assert!(crate::formats::is_session_dir(dir.path()));
    let s = load_path(dir.path(), None).unwrap();
    assert_eq!(s.format, Format::COPILOT_CLI);
    assert_eq!(s.id.as_deref(), Some("s"));
}
