//! `--format md` on real fixtures: the Markdown of report, plan, diff and compact, snapshotted,
//! and secrets in a session never reaching the document.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn md(args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--format", "md"]);
    let out = run(&all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const CHAT: &str = "fixtures/openai-chat/completion-log.json";
const PRESET: [&str; 6] = [
    "--preset",
    "openhands",
    "--set",
    "max_size=6",
    "--set",
    "keep_first=1",
];

fn with_preset<'a>(cmd: &'a str, file: &'a str) -> Vec<&'a str> {
    let mut v = vec![cmd, file];
    v.extend(PRESET);
    v
}

#[test]
fn report_md_of_a_claude_code_session_with_a_subagent() {
    let doc = md(&["report", "fixtures/claude-code/mixed.jsonl"]);
    assert!(doc.contains("**Subagent 1**"));
    insta::assert_snapshot!(doc);
}

#[test]
fn plan_md_shows_split_summarizer_input_and_losses() {
    let doc = md(&with_preset("plan", CHAT));
    // The summarizer input is folded; the raw side marks the lost arguments.
    assert!(doc.contains("<details><summary>user · "));
    assert!(doc.contains("\n- wc -l notes.txt\n"), "{doc}");
    insta::assert_snapshot!(doc);
}

#[test]
fn diff_md_is_the_summarized_range_only() {
    let doc = md(&with_preset("diff", CHAT));
    assert!(!doc.contains("## Tokens per message"));
    insta::assert_snapshot!(doc);
}

#[test]
fn compact_md_shows_before_after_and_the_summary() {
    let doc = md(&with_preset("compact", CHAT));
    assert!(doc.contains("## Compaction"));
    insta::assert_snapshot!(doc);
}

#[test]
fn a_plan_that_does_not_fire_says_so() {
    let doc = md(&[
        "plan",
        "fixtures/claude-code/mixed.jsonl",
        "--preset",
        "openhands",
    ]);
    assert!(doc.contains("| trigger | does not fire: "), "{doc}");
    assert!(doc.contains("Nothing is summarized"), "{doc}");
}

#[test]
fn secrets_in_the_session_are_masked_in_every_markdown_document() {
    let dir = tempfile::tempdir().unwrap();
    let key = format!("sk-proj-{}", "Zq3xW9vB".repeat(5));
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7s3cr3t\nline2secretbody\n-----END RSA PRIVATE KEY-----";
    let long = "lorem ipsum ".repeat(20);
    let messages = serde_json::json!([
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": format!("{long} my key is {key} please deploy")},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "run", "arguments": serde_json::json!({"command": format!("export AWS_ACCESS_KEY_ID={aws}")}).to_string()}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": pem},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "thanks"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "bye"},
    ]);
    let path = dir.path().join("chat.json");
    std::fs::write(&path, serde_json::to_vec(&messages).unwrap()).unwrap();
    let file = path.to_str().unwrap();
    for cmd in ["report", "plan", "diff", "compact"] {
        let mut args = vec![cmd, file];
        if cmd != "report" {
            args.extend([
                "--preset",
                "openhands-fixed",
                "--set",
                "max_size=6",
                "--set",
                "keep_first=1",
            ]);
        }
        let page = {
            let mut a = args.clone();
            a.extend(["--format", "html"]);
            String::from_utf8(run(&a).stdout).unwrap()
        };
        for secret in [
            &key[..16],
            aws,
            "MIIEowIBAAKCAQEA7s3cr3t",
            "line2secretbody",
        ] {
            assert!(!page.contains(secret), "html {cmd}: {secret} leaked");
        }
        assert!(page.contains("[REDACTED:"), "html {cmd}: nothing masked");
        let doc = md(&args);
        for secret in [
            &key[..16],
            aws,
            "MIIEowIBAAKCAQEA7s3cr3t",
            "line2secretbody",
        ] {
            assert!(!doc.contains(secret), "{cmd}: {secret} leaked:\n{doc}");
        }
        assert!(doc.contains("[REDACTED:"), "{cmd}: nothing masked:\n{doc}");
    }
    assert!(Path::new(file).exists());
}
