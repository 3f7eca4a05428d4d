//! `ctxray compact --summarizer openai|anthropic` on the binary against a local server that
//! speaks the real wire formats: what was sent is the plan's summarizer input, what came back is
//! the summary in the result, errors exit 2 with a clear message, and the key is nowhere in the
//! output.

use crate::support;

use serde_json::Value;
use support::http_server::{Reply, TestServer};
use support::wire::{anthropic_events, openai_events};

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

/// Runs `compact` on the demo with `preset_args`, the model streaming `summary`.
async fn compact_with_summary(preset_args: &[&str], summary: &str) -> Value {
    let server = TestServer::start(vec![Reply::sse(&openai_events(&[summary]))]).await;
    let base = format!("{}/v1", server.url());
    let mut a = vec!["compact".to_string(), DEMO.to_string()];
    a.extend(preset_args.iter().map(|s| s.to_string()));
    a.extend(
        ["--summarizer", "openai", "--base-url", &base, "--json"]
            .iter()
            .map(|s| s.to_string()),
    );
    let run = ctxray(a, vec![("OPENAI_API_KEY", KEY.to_string())]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn codes(doc: &Value) -> Vec<String> {
    doc["result"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

/// Distinct words, so the count is far from any tokenizer's merges: about one token each.
fn long_summary(words: usize) -> String {
    (0..words).map(|i| format!("fact{i} ")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_summary_longer_than_hermes_asked_for_is_flagged() {
    let hermes = ["--preset", "hermes", "--set", "config_context_length=7000"];
    // Hermes' prompt says `Target ~2000 tokens` here.
    let short = compact_with_summary(&hermes, "Goal: a TODO app. Done: Glob, Read.").await;
    assert!(!codes(&short).contains(&"summary-over-budget".to_string()));
    let long = compact_with_summary(&hermes, &long_summary(1500)).await;
    let found = long["result"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "summary-over-budget")
        .expect("no summary-over-budget");
    assert!(
        found["detail"].as_str().unwrap().contains("about 2000"),
        "{found}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_growing_summary_is_kept_by_0_62_and_rejected_under_guard_shrink() {
    let harness = [
        "--preset",
        "pydantic-ai-harness",
        "--set",
        "max_tokens=1000",
        "--set",
        "keep_messages=16",
    ];
    let summary = long_summary(3000);
    let kept = compact_with_summary(&harness, &summary).await;
    let r = &kept["result"];
    assert!(r["tokens_after"].as_u64() > r["tokens_before"].as_u64());
    assert_eq!(r["rejected"], false);
    assert!(codes(&kept).contains(&"summary-grows-request".to_string()));

    let mut guarded_args = harness.to_vec();
    guarded_args.extend(["--set", "guard=shrink"]);
    let guarded = compact_with_summary(&guarded_args, &summary).await;
    let r = &guarded["result"];
    assert_eq!(r["rejected"], true);
    assert_eq!(r["tokens_after"], r["tokens_before"]);
    assert_eq!(r["summary"], summary.as_str(), "the summary is still shown");
    let c = codes(&guarded);
    assert!(c.contains(&"summary-rejected".to_string()), "{c:?}");
}

/// A server that sends one byte of its event stream every 0.2 s never trips the idle timeout;
/// `--summarizer-timeout 1` ends the call at its overall deadline and closes the connection.
#[tokio::test(flavor = "multi_thread")]
async fn a_trickling_server_is_cut_at_the_summarizer_timeout() {
    use std::time::{Duration, Instant};
    use support::http_server::Step;
    let stream = openai_events(&["A summary that would take minutes at this pace."]).concat();
    let mut reply = Reply::sse(&[]);
    for byte in stream.chars() {
        reply.steps.push(Step::Send(byte.to_string()));
        reply.steps.push(Step::Wait(Duration::from_millis(200)));
    }
    let server = TestServer::start(vec![reply]).await;
    let base = format!("{}/v1", server.url());
    let started = Instant::now();
    let run = ctxray(
        args(&[
            "--summarizer",
            "openai",
            "--base-url",
            &base,
            "--summarizer-timeout",
            "1",
        ]),
        vec![("OPENAI_API_KEY", KEY.to_string())],
    )
    .await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("took longer than 1 s"),
        "{}",
        run.stderr
    );
    // The trickle alone lasts minutes; the deadline (not the stream's end) stopped the call.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert!(server.closed_within(0, Duration::from_secs(10)).await);
}

/// `--summarizer-timeout` is range-checked like the other numbers.
#[tokio::test(flavor = "multi_thread")]
async fn a_summarizer_timeout_out_of_range_is_a_usage_error() {
    for bad in ["0", "86401", "-3", "soon"] {
        let flag = format!("--summarizer-timeout={bad}");
        let run = ctxray(args(&["--summarizer", "openai", &flag]), vec![]).await;
        assert_eq!(run.code, 2, "{bad}: {}", run.stderr);
        assert!(
            run.stderr.contains("from 1 to 86400"),
            "{bad}: {}",
            run.stderr
        );
    }
}

/// A summary past 1 MiB is an error naming the cap; the connection is closed (the server,
/// which would otherwise hold it open, sees it closed) and nothing is written.
#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_summary_is_refused_and_the_connection_closed() {
    use std::time::Duration;
    use support::http_server::Finish;
    let piece = "x".repeat(64 * 1024);
    let pieces: Vec<&str> = (0..20).map(|_| piece.as_str()).collect();
    let mut events = openai_events(&pieces);
    events.truncate(1 + pieces.len());
    let server = TestServer::start(vec![Reply::sse(&events).finish(Finish::Hang)]).await;
    let base = format!("{}/v1", server.url());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("compacted.json");
    let run = ctxray(
        args(&[
            "--summarizer",
            "openai",
            "--base-url",
            &base,
            "-o",
            out.to_str().unwrap(),
        ]),
        vec![("OPENAI_API_KEY", KEY.to_string())],
    )
    .await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("larger than the cap of 1 MiB"),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "a refused summary was written");
    assert!(server.closed_within(0, Duration::from_secs(10)).await);
}
