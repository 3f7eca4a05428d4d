//! The HTTP summarizers against a local server started by each test that speaks the real wire
//! formats: OpenAI chat-completion chunks and Anthropic message events over SSE, error bodies,
//! rate limits, server errors, silence, cut streams, a closed port. Asserts what was sent
//! (path, headers, model, the plan's messages byte for byte, secrets masked, no key anywhere it
//! should not be) and what came back (streamed deltas, text, usage, one-line errors).

use crate::support;
use ctxray::compaction::presets;

use std::time::{Duration, Instant};

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::compaction::{PromptMessage, PromptRole};
use ctxray::formats::load_bytes;
use ctxray::summarize::{
    prepare, Anthropic, ApiKey, DeltaSink, HttpOptions, OpenAi, SummarizeError, Summarizer, Summary,
};
use ctxray::tokens::Registry;
use serde_json::{json, Value};
use support::http_server::{Finish, Framing, Recorded, Reply, Step, TestServer};
use support::wire::{anthropic_events, openai_events};
use tokio::sync::mpsc;

const KEY: &str = "sk-test-Q9cWz4Lm7Rt2Vx8Kp3Nd6Hb1";

/// The summarizer request of a real plan: agent-framework over the Claude Code demo session.
fn real_plan() -> Vec<PromptMessage> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/samples/claude-code-demo.jsonl"
    );
    let session = load_bytes(std::fs::read(path).unwrap(), None, "demo", None).unwrap();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    let p = presets::find("agent-framework").unwrap();
    let plan = preset::run(p, &PlanInput::new(&analysis), &[]).unwrap();
    assert!(plan.trigger.fired);
    assert_eq!(plan.summarizer[0].role, PromptRole::System);
    assert!(plan.summarizer[1].content.len() > 10_000);
    assert_eq!(prepare(&plan.summarizer).masked, 0);
    plan.summarizer
}

fn fast() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(3),
        total_timeout: Some(Duration::from_secs(20)),
        max_attempts: 3,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(50),
    }
}

fn openai(server: &TestServer, options: HttpOptions) -> OpenAi {
    let key = ApiKey::new(KEY, "OPENAI_API_KEY").unwrap();
    let base = format!("{}/v1", server.url());
    OpenAi::new(Some(&base), Some("gpt-test"), key)
        .unwrap()
        .with_options(options)
        .unwrap()
}

fn anthropic(server: &TestServer) -> Anthropic {
    let key = ApiKey::new(KEY, "ANTHROPIC_API_KEY").unwrap();
    Anthropic::new(Some(&server.url()), Some("claude-test"), key)
        .unwrap()
        .with_max_tokens(1024)
        .with_options(fast())
        .unwrap()
}

/// Runs `s` over `messages`, collecting the deltas as they arrive, each with the time it came.
async fn run(
    s: &dyn Summarizer,
    messages: &[PromptMessage],
) -> (
    Result<Summary, SummarizeError>,
    Vec<(String, Instant)>,
    Instant,
) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let call = async {
        let r = s.summarize(messages, DeltaSink::from(tx)).await;
        (r, Instant::now())
    };
    let collect = async {
        let mut got = Vec::new();
        while let Some(d) = rx.recv().await {
            got.push((d, Instant::now()));
        }
        got
    };
    let ((r, done), got) = tokio::join!(call, collect);
    (r, got, done)
}

fn body(r: &Recorded) -> Value {
    serde_json::from_str(&r.body).unwrap()
}

/// The key appears in no error text and nowhere in a request but its own header.
fn assert_no_key(e: &SummarizeError) {
    assert!(!e.to_string().contains(KEY), "{e}");
    assert!(!format!("{e:?}").contains(KEY), "{e:?}");
    assert!(!e.to_string().contains('\n'), "one line: {e}");
}

fn roles_and_contents(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let s = |k: &str| m[k].as_str().unwrap().to_string();
            (s("role"), s("content"))
        })
        .collect()
}

fn plan_pairs(ms: &[PromptMessage]) -> Vec<(String, String)> {
    ms.iter()
        .map(|m| (m.role.as_str().to_string(), m.content.clone()))
        .collect()
}

#[tokio::test]
async fn openai_streams_chunks_in_order_and_sends_the_plan_byte_for_byte() {
    let deltas = [
        "The user asked",
        " for a Next.js",
        " TODO app; ",
        "agents ran in parallel.",
    ];
    let pause = Duration::from_millis(400);
    let reply = Reply::sse(&openai_events(&deltas)).wait_before(3, pause);
    let server = TestServer::start(vec![reply]).await;
    let plan = real_plan();
    let s = openai(&server, fast());
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        server.requests().is_empty(),
        "building a summarizer sends nothing"
    );

    let (r, got, done) = run(&s, &plan).await;
    let summary = r.unwrap();
    let texts: Vec<&str> = got.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(texts, deltas);
    assert_eq!(summary.text, deltas.concat());
    assert!(
        done - got[0].1 >= pause - Duration::from_millis(50),
        "first delta came before the end"
    );
    assert_eq!(summary.model, "gpt-test-2025-01-01");
    assert_eq!(
        (summary.input_tokens, summary.output_tokens),
        (Some(5321), Some(17))
    );
    assert_eq!(summary.masked_secrets, 0);

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    let r = &sent[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    let b = body(r);
    assert_eq!(b["model"], "gpt-test");
    assert_eq!(b["stream"], true);
    assert_eq!(b["stream_options"]["include_usage"], true);
    assert_eq!(roles_and_contents(&b["messages"]), plan_pairs(&plan));
    assert_eq!(r.body.matches(KEY).count(), 0);
    assert!(!format!("{s:?}").contains(KEY));
}

#[tokio::test]
async fn anthropic_streams_events_and_lifts_the_system_prompt() {
    let deltas = ["## Goal\n", "Build a TODO app", " with Next.js."];
    let reply = Reply::sse(&anthropic_events(&deltas))
        .framing(Framing::Close)
        .with_header("request-id", "req_1");
    let server = TestServer::start(vec![reply]).await;
    let plan = real_plan();
    let s = anthropic(&server);
    let (r, got, _) = run(&s, &plan).await;
    let summary = r.unwrap();
    let texts: Vec<&str> = got.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(texts, deltas);
    assert_eq!(summary.text, "## Goal\nBuild a TODO app with Next.js.");
    assert_eq!(summary.model, "claude-test-20250101");
    assert_eq!(
        (summary.input_tokens, summary.output_tokens),
        (Some(4210), Some(23))
    );

    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    let r = &sent[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("authorization"), None);
    let b = body(r);
    assert_eq!(b["model"], "claude-test");
    assert_eq!(b["max_tokens"], 1024);
    assert_eq!(b["stream"], true);
    assert_eq!(b["system"].as_str(), Some(plan[0].content.as_str()));
    assert_eq!(roles_and_contents(&b["messages"]), plan_pairs(&plan[1..]));
}

#[tokio::test]
async fn secrets_are_masked_before_sending_and_counted() {
    let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----";
    let leaked = "sk-proj-Zr8Tq2Wm5Yx7Nc4Vb1Lk9Hd3";
    let messages = vec![
        PromptMessage {
            role: PromptRole::System,
            content: "Summarize the conversation.".into(),
        },
        PromptMessage {
            role: PromptRole::User,
            content: format!("export OPENAI_API_KEY={leaked}\ncat ~/.ssh/id_ed25519\n{pem}\n"),
        },
    ];
    assert_eq!(prepare(&messages).masked, 2);
    let server = TestServer::start(vec![Reply::sse(&openai_events(&["ok"]))]).await;
    let (r, _, _) = run(&openai(&server, fast()), &messages).await;
    assert_eq!(r.unwrap().masked_secrets, 2);
    let sent = &server.requests()[0];
    assert!(!sent.body.contains(leaked));
    assert!(!sent
        .body
        .contains("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"));
    let b = body(sent);
    assert_eq!(b["messages"][0]["content"], "Summarize the conversation.");
    assert_eq!(
        b["messages"][1]["content"],
        "export OPENAI_API_KEY=[REDACTED:openai-key]\ncat ~/.ssh/id_ed25519\n[REDACTED:private-key]\n"
    );
}

#[tokio::test]
async fn a_refused_key_is_said_once_without_retry_and_without_the_key() {
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}}}"#
    );
    let server = TestServer::start(vec![Reply::json(401, &body)]).await;
    let (r, _, _) = run(&openai(&server, fast()), &real_plan()).await;
    let e = r.unwrap_err();
    assert_eq!(
        e.to_string(),
        "the API key was refused (401): check OPENAI_API_KEY"
    );
    assert_no_key(&e);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn not_found_names_the_model_and_the_path() {
    let openai_body = r#"{"error":{"message":"The model `gpt-test` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#;
    let server = TestServer::start(vec![Reply::json(404, openai_body)]).await;
    let (r, _, _) = run(&openai(&server, fast()), &real_plan()).await;
    let e = r.unwrap_err();
    assert_eq!(
        e.to_string(),
        "model \"gpt-test\" or endpoint /v1/chat/completions not found (404): \
         The model `gpt-test` does not exist or you do not have access to it."
    );
    assert_no_key(&e);
    assert_eq!(server.requests().len(), 1);

    let anthropic_body =
        r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-test"}}"#;
    let server = TestServer::start(vec![Reply::json(404, anthropic_body)]).await;
    let (r, _, _) = run(&anthropic(&server), &real_plan()).await;
    assert_eq!(
        r.unwrap_err().to_string(),
        "model \"claude-test\" or endpoint /v1/messages not found (404): model: claude-test"
    );
}

#[tokio::test]
async fn rate_limits_are_retried_honouring_retry_after() {
    let limited = Reply::json(
        429,
        r#"{"error":{"message":"Rate limit reached for gpt-test","type":"requests","code":"rate_limit_exceeded"}}"#,
    )
    .with_header("retry-after", "0");
    let ok = Reply::sse(&openai_events(&["after ", "retries"]));
    let server = TestServer::start(vec![limited.clone(), limited, ok]).await;
    let slow_backoff = HttpOptions {
        backoff_base: Duration::from_secs(5),
        backoff_max: Duration::from_secs(10),
        ..fast()
    };
    let started = Instant::now();
    let (r, _, _) = run(&openai(&server, slow_backoff), &real_plan()).await;
    assert_eq!(r.unwrap().text, "after retries");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "Retry-After: 0 was used, not the 5 s backoff"
    );
    let sent = server.requests();
    assert_eq!(sent.len(), 3);
    assert!(
        sent.iter().all(|r| r.body == sent[0].body),
        "each attempt sends the same body"
    );
}

#[tokio::test]
async fn server_errors_give_up_after_the_last_attempt() {
    let server = TestServer::start(vec![Reply::json(
        500,
        r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}"#,
    )])
    .await;
    let (r, _, _) = run(&openai(&server, fast()), &real_plan()).await;
    let e = r.unwrap_err();
    assert_eq!(
        e.to_string(),
        "the provider answered 500 after 3 attempts: The server had an error while processing your request."
    );
    assert_no_key(&e);
    assert_eq!(server.requests().len(), 3);

    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let server = TestServer::start(vec![Reply::json(529, overloaded)]).await;
    let (r, _, _) = run(&anthropic(&server), &real_plan()).await;
    assert_eq!(
        r.unwrap_err().to_string(),
        "the provider answered 529 after 3 attempts: Overloaded"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn silence_is_a_timeout_within_the_configured_time() {
    let server = TestServer::start(vec![Reply::silent()]).await;
    let options = HttpOptions {
        idle_timeout: Duration::from_millis(300),
        ..fast()
    };
    let started = Instant::now();
    let (r, _, _) = run(&openai(&server, options.clone()), &real_plan()).await;
    let e = r.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        e.to_string(),
        format!(
            "no answer within 0.3 s from {}/v1/chat/completions",
            server.url()
        )
    );
    assert_no_key(&e);
    assert_eq!(server.requests().len(), 1, "a timeout is not retried");

    let stalls = Reply::sse(&openai_events(&["half"])).finish(Finish::Hang);
    let mut stalls = stalls;
    stalls.steps.truncate(2);
    let server = TestServer::start(vec![stalls]).await;
    let (r, got, _) = run(&openai(&server, options), &real_plan()).await;
    assert_eq!(got.len(), 1);
    assert!(r
        .unwrap_err()
        .to_string()
        .starts_with("no answer within 0.3 s"));
}

#[tokio::test]
async fn a_stream_that_never_ends_stops_at_the_total_timeout() {
    let mut steps = Vec::new();
    for _ in 0..100 {
        steps.push(Step::Send(": keep-alive\n\n".into()));
        steps.push(Step::Wait(Duration::from_millis(50)));
    }
    let mut endless = Reply::sse(&[]);
    endless.steps = steps;
    let server = TestServer::start(vec![endless]).await;
    let options = HttpOptions {
        total_timeout: Some(Duration::from_millis(600)),
        ..fast()
    };
    let started = Instant::now();
    let (r, _, _) = run(&openai(&server, options), &real_plan()).await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        r.unwrap_err().to_string(),
        format!(
            "the answer took longer than 0.6 s from {}/v1/chat/completions",
            server.url()
        )
    );
}

#[tokio::test]
async fn a_cut_or_malformed_stream_is_a_clear_error() {
    let mut cut = Reply::sse(&openai_events(&["Hello", " wor"])).finish(Finish::Cut);
    cut.steps.truncate(3);
    cut.steps
        .push(Step::Send("data: {\"choices\":[{\"delta\":{\"con".into()));
    let server = TestServer::start(vec![cut]).await;
    let (r, got, _) = run(&openai(&server, fast()), &real_plan()).await;
    assert_eq!(got.len(), 2);
    let e = r.unwrap_err();
    assert!(
        e.to_string()
            .starts_with("the stream ended before the answer was complete (after 9 characters): "),
        "{e}"
    );
    assert_no_key(&e);

    let mut closed = Reply::sse(&anthropic_events(&["Partial"])).framing(Framing::Close);
    closed.steps.truncate(4);
    let server = TestServer::start(vec![closed]).await;
    let (r, _, _) = run(&anthropic(&server), &real_plan()).await;
    assert_eq!(
        r.unwrap_err().to_string(),
        "the stream ended before the answer was complete (after 7 characters)"
    );

    let garbage = Reply::sse(&["data: {\"choices\": [oops\n\n".to_string()]);
    let server = TestServer::start(vec![garbage]).await;
    let (r, _, _) = run(&openai(&server, fast()), &real_plan()).await;
    assert_eq!(
        r.unwrap_err().to_string(),
        "malformed stream from the provider: a chunk is not JSON: {\"choices\": [oops"
    );

    let mut failing = anthropic_events(&["Start"]);
    failing.truncate(4);
    failing.push(format!(
        "event: error\ndata: {}\n\n",
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    ));
    let server = TestServer::start(vec![Reply::sse(&failing)]).await;
    let (r, _, _) = run(&anthropic(&server), &real_plan()).await;
    assert_eq!(
        r.unwrap_err().to_string(),
        "the provider reported an error: overloaded_error: Overloaded"
    );
}

#[tokio::test]
async fn a_closed_port_is_connection_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let key = ApiKey::new(KEY, "OPENAI_API_KEY").unwrap();
    let base = format!("http://{addr}/v1");
    let s = OpenAi::new(Some(&base), Some("gpt-test"), key)
        .unwrap()
        .with_options(fast())
        .unwrap();
    let (r, _, _) = run(&s, &real_plan()).await;
    let e = r.unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("cannot connect to http://{addr}/v1/chat/completions: connection refused")
    );
    assert_no_key(&e);
}

#[tokio::test]
async fn dropping_the_call_mid_stream_closes_the_connection() {
    let reply =
        Reply::sse(&openai_events(&["first", "never"])).wait_before(2, Duration::from_secs(30));
    let server = TestServer::start(vec![reply]).await;
    let s = openai(&server, fast());
    let plan = real_plan();
    let (tx, mut rx) = mpsc::unbounded_channel();
    {
        let call = s.summarize(&plan, DeltaSink::from(tx));
        tokio::select! {
            r = call => panic!("the call ended: {r:?}"),
            d = rx.recv() => assert_eq!(d.as_deref(), Some("first")),
        }
    }
    assert!(server.closed_within(0, Duration::from_secs(3)).await);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn a_missing_key_names_its_variable() {
    let e = ApiKey::from_env("CTXRAY_TEST_KEY_THAT_IS_NEVER_SET").unwrap_err();
    assert_eq!(
        e.to_string(),
        "CTXRAY_TEST_KEY_THAT_IS_NEVER_SET is not set: export it to use this summarizer"
    );
    let key = ApiKey::new(KEY, "OPENAI_API_KEY").unwrap();
    assert_eq!(format!("{key} {key:?}"), "*** ApiKey(OPENAI_API_KEY=***)");
}

#[tokio::test]
async fn a_key_echoed_across_deltas_never_streams_out() {
    // The key arrives split over three deltas, between ordinary text.
    let (a, b) = KEY.split_at(7);
    let (b, c) = b.split_at(9);
    let deltas = [
        "Summary: the key was ",
        a,
        b,
        c,
        " — done. ",
        "Ünïcode tail.",
    ];
    let server = TestServer::start(vec![Reply::sse(&openai_events(&deltas))]).await;
    let s = openai(&server, fast());
    let (r, got, _) = run(&s, &real_plan()).await;
    let streamed: String = got.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(
        streamed, "Summary: the key was *** — done. Ünïcode tail.",
        "the stream is the summary, scrubbed, nothing lost"
    );
    assert!(got
        .iter()
        .all(|(d, _)| !d.contains(&KEY[..7]) || !d.contains(&KEY[7..])));
    assert_eq!(r.unwrap().text, streamed);
}
