//! Secrets on the binary: a key in the environment never appears in anything ctxray prints or
//! writes (every command, the error paths, a server that echoes the key back), and secrets in a
//! session are flagged by `plan` and masked in what `compact -o` writes.

use crate::support;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use support::http_server::{Reply, TestServer};

const OPENAI_KEY: &str = "sk-proj-envKey7Qx2Lm9Vb4Nc8Zt1Wr6Ys3Pa0";
const ANTHROPIC_KEY: &str = "sk-ant-api03-envKey5Hd8Jk2Lp7Mq1Nr4St9Uv";
/// Not shaped like any provider's key: only the environment says it is one.
const PLAIN_KEY: &str = "local-server-key-4f1c9e2b7a";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], openai_key: &str) -> Run {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("RUST_LOG", "trace")
        .env("RUST_BACKTRACE", "1")
        .env("OPENAI_API_KEY", openai_key)
        .env("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the binary runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn assert_no_key(what: &str, texts: &[&str]) {
    for text in texts {
        for key in [OPENAI_KEY, ANTHROPIC_KEY, PLAIN_KEY] {
            assert!(!text.contains(key), "{what}: the key leaked: {text}");
        }
    }
}

/// Every file under `dir`, as text.
fn files_in(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("readable").flatten() {
        out.push(String::from_utf8_lossy(&std::fs::read(e.path()).expect("file")).into_owned());
    }
    out
}

#[test]
fn a_key_in_the_environment_is_never_printed_or_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("compacted.json");
    let out_s = out.to_str().expect("utf-8");
    let demo = "fixtures/samples/claude-code-demo.jsonl";
    let preset = ["--preset", "dimos", "--set", "context_window=6000"];
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["--help"],
        vec!["--version"],
        vec!["presets", "--json"],
        vec!["formats"],
        vec!["report", demo, "--json"],
        vec!["report", demo],
        // Error paths: a broken file, an unknown preset, a bad flag, the summarizer refused.
        vec!["report", "fixtures/hostile/binary-garbage.bin"],
        vec!["plan", demo, "--preset", "no-such-preset"],
        vec!["report", demo, "--no-such-flag"],
        // No terminal: the inspector refuses with one line.
        vec![demo],
    ];
    for cmd in ["plan", "diff"] {
        let mut v = vec![cmd, demo];
        v.extend(preset);
        cases.push(v.clone());
        v.push("--json");
        cases.push(v);
    }
    let mut compact = vec!["compact", demo];
    compact.extend(preset);
    compact.extend(["-o", out_s, "--json"]);
    cases.push(compact);
    let mut refused = vec!["compact", demo];
    refused.extend(preset);
    // A closed port: the network summarizer fails and says so.
    refused.extend([
        "--summarizer",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]);
    cases.push(refused.clone());
    for key in [OPENAI_KEY, PLAIN_KEY] {
        for args in &cases {
            let r = run(args, key);
            assert!(r.code.is_some(), "{args:?}: killed by a signal");
            assert_no_key(&format!("{args:?}"), &[&r.stdout, &r.stderr]);
        }
    }
    let r = run(&refused, PLAIN_KEY);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    let written = files_in(dir.path());
    assert_eq!(written.len(), 1, "only the -o file is written");
    assert_no_key(
        "the -o file",
        &written.iter().map(String::as_str).collect::<Vec<_>>(),
    );
}

fn openai_stream(text: &str) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let c = json!({"id": "c1", "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-test", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {c}\n\n")
    };
    vec![
        chunk(json!({"role": "assistant", "content": text}), Value::Null),
        chunk(json!({}), json!("stop")),
        "data: [DONE]\n\n".to_string(),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_echoes_the_key_does_not_get_it_printed_or_written() {
    let echo = format!("Summary. The key you sent was {PLAIN_KEY}.");
    let refused = format!(r#"{{"error":{{"message":"Incorrect API key provided: {PLAIN_KEY}"}}}}"#);
    let server = TestServer::start(vec![Reply::sse(&openai_stream(&echo))]).await;
    let refusing = TestServer::start(vec![Reply::json(401, &refused)]).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("compacted.json");
    let (base, bad_base) = (
        format!("{}/v1", server.url()),
        format!("{}/v1", refusing.url()),
    );
    let out_s = out.to_str().expect("utf-8").to_string();
    let (ok, no) = tokio::task::spawn_blocking(move || {
        let common = [
            "compact",
            "fixtures/samples/claude-code-demo.jsonl",
            "--preset",
            "dimos",
        ];
        let mut ok: Vec<&str> = common.to_vec();
        ok.extend(["--set", "context_window=6000", "--summarizer", "openai"]);
        let mut no = ok.clone();
        ok.extend(["--base-url", &base, "--json", "-o", &out_s]);
        no.extend(["--base-url", &bad_base]);
        (run(&ok, PLAIN_KEY), run(&no, PLAIN_KEY))
    })
    .await
    .expect("runs");
    assert_eq!(ok.code, Some(0), "{}", ok.stderr);
    assert!(
        ok.stdout.contains("Summary. The key you sent was"),
        "{}",
        ok.stdout
    );
    assert_no_key("the echoed summary", &[&ok.stdout, &ok.stderr]);
    let written = std::fs::read_to_string(&out).expect("written");
    assert!(written.contains("Summary. The key you sent was"));
    assert_no_key("the -o file", &[&written]);
    assert_eq!(no.code, Some(2), "{}", no.stderr);
    assert!(no.stderr.contains("401"), "{}", no.stderr);
    assert_no_key("the refusal", &[&no.stdout, &no.stderr]);
    // The key went to the endpoint, in its header, and nowhere else in the request.
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].header("authorization"),
        Some(format!("Bearer {PLAIN_KEY}").as_str())
    );
    assert!(!sent[0].body.contains(PLAIN_KEY));
}

#[test]
fn secrets_in_a_session_are_flagged_by_plan_and_masked_by_compact() {
    let dir = tempfile::tempdir().expect("temp dir");
    let session = dir.path().join("leaky.json");
    let pem =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7Qm3p\n-----END RSA PRIVATE KEY-----";
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    let env = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI7K7MDENGbPxRfiCY9EXAMPLEKEY\nGITHUB=ghp_0123456789abcdefghijABCDEFGHIJ0123";
    let mut messages = vec![json!({"role": "user", "content": "Deploy it."})];
    for (i, out) in [env, pem, jwt].iter().enumerate() {
        let id = format!("call_{i}");
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"cat .env\"}"}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": out}));
    }
    for i in 0..6 {
        messages.push(
            json!({"role": "user", "content": format!("step {i}: carry on with the deploy")}),
        );
        messages.push(json!({"role": "assistant", "content": format!("done with step {i}")}));
    }
    std::fs::write(&session, serde_json::to_vec(&messages).expect("json")).expect("write");
    let s = session.to_str().expect("utf-8");
    let preset = [
        "--preset",
        "pydantic-ai-harness",
        "--set",
        "max_messages=6",
        "--set",
        "keep_messages=2",
    ];
    let mut plan_args = vec!["plan", s, "--json"];
    plan_args.extend(preset);
    let plan = run(&plan_args, PLAIN_KEY);
    assert_eq!(plan.code, Some(0), "{}", plan.stderr);
    let plan: Value = serde_json::from_str(&plan.stdout).expect("json");
    assert_eq!(plan["trigger"]["fired"], true, "{plan}");
    let finding = plan["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["code"] == "secret-in-summarizer-input")
        .unwrap_or_else(|| panic!("no secret finding: {}", plan["findings"]));
    let detail = finding["detail"].as_str().expect("detail");
    for kind in [
        "private-key",
        "jwt",
        "credential-assignment",
        "github-token",
    ] {
        assert!(detail.contains(kind), "{kind} not named: {detail}");
    }
    assert_eq!(finding["messages"], json!([2, 4, 6]), "{finding}");
    let out = dir.path().join("compacted.json");
    let mut compact = vec!["compact", s, "-o", out.to_str().expect("utf-8")];
    compact.extend(preset);
    let r = run(&compact, PLAIN_KEY);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let written = std::fs::read_to_string(&out).expect("written");
    for secret in [
        "MIIEowIBAAKCAQEAx7Qm3p",
        "dozjgNryP4J3jVmNHl0w5N",
        "wJalrXUtnFEMI7K7MDENG",
        "ghp_0123456789",
    ] {
        assert!(!written.contains(secret), "{secret} written: {written}");
    }
    assert!(written.contains("[REDACTED:"), "{written}");
}

/// A session that quotes the environment's own key (not shaped like any provider's) and a
/// database URL with its password: the text and Markdown outputs show neither, the written
/// file masks both, and a short dummy key masks nothing.
#[test]
fn the_environment_s_key_and_url_passwords_in_a_session_are_masked_where_shown() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("chat.json");
    let mut msgs = vec![json!({"role": "system", "content": "You are a coding agent."})];
    for i in 0..30 {
        msgs.push(json!({"role": "user", "content": format!("step {i}: run ollama serve, export KEY={PLAIN_KEY} and connect to postgres://app:hunter2@db:5432/prod, then read {}", "x".repeat(300))}));
        msgs.push(json!({"role": "assistant", "content": format!("done {i}")}));
    }
    std::fs::write(&src, serde_json::to_vec(&msgs).unwrap()).unwrap();
    let src = src.to_str().unwrap();
    let sets = ["--preset", "hermes", "--set", "config_context_length=3000"];
    for cmd in ["report", "plan", "diff", "compact"] {
        for format in ["text", "md"] {
            let mut args = vec![cmd, src, "--format", format];
            if cmd != "report" {
                args.extend(sets);
            }
            let r = run(&args, PLAIN_KEY);
            assert_eq!(r.code, Some(0), "{cmd} {format}: {}", r.stderr);
            assert_no_key(&format!("{cmd} {format}"), &[&r.stdout, &r.stderr]);
            if cmd == "compact" {
                assert!(
                    !r.stdout.contains("hunter2"),
                    "{cmd} {format}: {}",
                    r.stdout
                );
            }
        }
    }
    let out = dir.path().join("out.json");
    let mut args = vec!["compact", src, "-o", out.to_str().unwrap()];
    args.extend(sets);
    assert_eq!(run(&args, PLAIN_KEY).code, Some(0));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(!written.contains(PLAIN_KEY) && !written.contains("hunter2"));
    assert!(written.contains("postgres://app:[REDACTED:url-credentials]@db"));
    // A dummy key is too short to be one: the text keeps its letters.
    let mut args = vec!["plan", src];
    args.extend(sets);
    let r = run(&args, "ollama");
    assert!(r.stdout.contains("run ollama serve"), "{}", r.stdout);
}
