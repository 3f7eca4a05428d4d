//! `ctxray compact --summarizer openai|anthropic` on the binary against a local server that
//! speaks the real wire formats: what was sent is the plan's summarizer input, what came back is
//! the summary in the result, errors exit 2 with a clear message, and the key is nowhere in the
//! output.

mod support;

use serde_json::{json, Value};
use support::http_server::{Reply, TestServer};

const DEMO: &str = "fixtures/samples/claude-code-demo.jsonl";
const KEY: &str = "sk-test-compact-0123456789abcdef";
const SETTINGS: [&str; 4] = ["--preset", "dimos", "--set", "context_window=6000"];

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the binary off the async runtime, so the test server keeps answering meanwhile.
async fn ctxray(args: Vec<String>, env: Vec<(&'static str, String)>) -> Run {
    tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxray"))
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .envs(env)
            .output()
            .unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    })
    .await
    .unwrap()
}

fn args(extra: &[&str]) -> Vec<String> {
    let mut v = vec!["compact".to_string(), DEMO.to_string()];
    v.extend(SETTINGS.iter().map(|s| s.to_string()));
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn openai_events(deltas: &[&str]) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-test-2025-01-01",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    out.extend(
        deltas
            .iter()
            .map(|d| chunk(json!({ "content": d }), Value::Null)),
    );
    out.push(chunk(json!({}), json!("stop")));
    out.push("data: [DONE]\n\n".into());
    out
}

fn anthropic_events(deltas: &[&str]) -> Vec<String> {
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut out = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                "role": "assistant", "model": "claude-test-1", "content": [],
                "stop_reason": null, "usage": {"input_tokens": 900, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    for d in deltas {
        out.push(event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": d}}),
        ));
    }
    out.push(event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push(event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 12}}),
    ));
    out.push(event("message_stop", json!({"type": "message_stop"})));
    out
}

async fn plan() -> Value {
    let mut a = vec!["plan".to_string(), DEMO.to_string()];
    a.extend(SETTINGS.iter().map(|s| s.to_string()));
    a.push("--json".into());
    let run = ctxray(a, vec![]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// `(role, content)` of each message, so requests and plans compare directly.
fn pairs(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let content = match &m["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (m["role"].as_str().unwrap().to_string(), content)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_summary_is_what_the_server_streamed_and_the_request_is_the_plan() {
    let deltas = ["The user asked for ", "a TODO app; ", "Glob and Read ran."];
    let server = TestServer::start(vec![Reply::sse(&openai_events(&deltas))]).await;
    let base = format!("{}/v1", server.url());
    let run = ctxray(
        args(&[
            "--summarizer",
            "openai",
            "--base-url",
            &base,
            "--summarizer-model",
            "gpt-test",
            "--json",
        ]),
        vec![("OPENAI_API_KEY", KEY.to_string())],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    let r = &doc["result"];
    assert_eq!(r["summary"], deltas.concat());
    assert_eq!(r["summarizer"], "openai:gpt-test-2025-01-01");
    assert!(r["tokens_after"].as_u64().unwrap() < r["tokens_before"].as_u64().unwrap());

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].path, "/v1/chat/completions");
    let body: Value = serde_json::from_str(&sent[0].body).unwrap();
    assert_eq!(body["model"], "gpt-test");
    let plan = plan().await;
    assert_eq!(
        pairs(&body["messages"]),
        pairs(&plan["summarizer"]["messages"])
    );
    assert_eq!(doc["summarizer"], plan["summarizer"]);
    for text in [&run.stdout, &run.stderr] {
        assert!(!text.contains(KEY), "the key leaked: {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_summary_lands_in_the_result_and_the_written_file() {
    let deltas = ["Goal: a TODO app. ", "Tools: Glob, Read."];
    let server = TestServer::start(vec![Reply::sse(&anthropic_events(&deltas))]).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("compacted.json");
    let run = ctxray(
        args(&[
            "--summarizer",
            "anthropic",
            "--base-url",
            &server.url(),
            "--summarizer-model",
            "claude-test",
            "-o",
            out.to_str().unwrap(),
            "--json",
        ]),
        vec![("ANTHROPIC_API_KEY", KEY.to_string())],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["result"]["summary"], deltas.concat());
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].header("x-api-key"), Some(KEY));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains(&deltas.concat()), "{written}");
    assert!(!written.contains(KEY));
    assert!(!run.stderr.contains(KEY) && !run.stdout.contains(KEY));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_key_exits_2_with_the_status_and_without_the_key() {
    let body = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let server = TestServer::start(vec![Reply::json(401, body)]).await;
    let base = format!("{}/v1", server.url());
    let run = ctxray(
        args(&["--summarizer", "openai", "--base-url", &base]),
        vec![("OPENAI_API_KEY", KEY.to_string())],
    )
    .await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("401"), "{}", run.stderr);
    assert!(!run.stderr.contains(KEY) && !run.stdout.contains(KEY));
    assert_eq!(server.requests().len(), 1, "a 401 is not retried");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_key_nothing_is_sent() {
    let server = TestServer::start(vec![Reply::sse(&openai_events(&["x"]))]).await;
    let base = format!("{}/v1", server.url());
    let run = ctxray(
        args(&["--summarizer", "openai", "--base-url", &base]),
        vec![],
    )
    .await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("OPENAI_API_KEY"), "{}", run.stderr);
    assert!(server.requests().is_empty());
}
