//! Seed 003 through the binary: five tiny rounds then "continue" (`max_messages=4
//! keep_messages=2 receipts=true`), as a native pydantic-ai file the oracle wrote with the real
//! framework and as the same turns in OpenAI chat. 0.62 (`guard=none`) compacts and grows the
//! request (the framework's own estimate, 19 before); `guard=shrink` (0.63) rejects every
//! growing summary and the request stays as it was.

use std::process::Command;

use serde_json::Value;

const NATIVE: &str = "fixtures/pydantic-ai/seed-003-tiny-rounds.json";
const CHAT: &str = "fixtures/openai-chat/seed-003-tiny-rounds.json";
const SEED: [&str; 8] = [
    "--preset",
    "pydantic-ai-harness",
    "--set",
    "max_messages=4",
    "--set",
    "keep_messages=2",
    "--set",
    "receipts=true",
];

fn path(rel: &str) -> String {
    format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn ctxray(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn with(cmd: &str, source: &str, guard: &str, extra: &[&str]) -> Value {
    let source = path(source);
    let guard = format!("guard={guard}");
    let mut args = vec![cmd, source.as_str()];
    args.extend(SEED);
    args.extend(["--set", guard.as_str(), "--json"]);
    args.extend(extra);
    ctxray(&args)
}

/// The framework's own estimate of a pydantic-ai-harness history (`estimate_context_tokens`,
/// the plain estimate with no provider usage): the trigger's measure under `max_tokens`.
fn estimate(file: &str) -> u64 {
    let plan = ctxray(&[
        "plan",
        file,
        "--preset",
        "pydantic-ai-harness",
        "--set",
        "max_tokens=1000000",
        "--json",
    ]);
    plan["trigger"]["value"].as_u64().unwrap()
}

#[test]
fn guard_none_compacts_and_grows_the_tiny_request_as_0_62_does() {
    let dir = tempfile::tempdir().unwrap();
    for source in [NATIVE, CHAT] {
        assert_eq!(estimate(&path(source)), 19, "{source}");
        let out = dir.path().join("after.json");
        let out = out.to_str().unwrap();
        let c = with("compact", source, "none", &["-o", out, "--force"]);
        let r = &c["result"];
        assert_eq!(r["rejected"], false, "{source}");
        assert_eq!(r["history_format"], "pydantic-ai", "{source}");
        let history = r["history"].as_array().unwrap();
        let kinds: Vec<&str> = history
            .iter()
            .map(|m| m["parts"][0]["part_kind"].as_str().unwrap_or(""))
            .collect();
        // first user turn, summary, receipt, the last response and the request being sent
        assert_eq!(
            kinds,
            [
                "user-prompt",
                "compaction",
                "user-prompt",
                "text",
                "user-prompt"
            ],
            "{source}"
        );
        assert!(history[2].to_string().contains("receipt.v1"), "{source}");
        assert!(r["tokens_after"].as_u64() > r["tokens_before"].as_u64());
        assert!(estimate(out) > 19, "{source}: the request grows");
    }
}

#[test]
fn guard_shrink_rejects_a_growing_summary_in_compact() {
    for source in [NATIVE, CHAT] {
        let c = with("compact", source, "shrink", &[]);
        let r = &c["result"];
        assert_eq!(r["rejected"], true, "{source}");
        assert_eq!(r["tokens_after"], r["tokens_before"], "{source}");
        assert!(r["rejected_tokens_after"].as_u64() > r["tokens_before"].as_u64());
        let records = r["history"].as_array().unwrap().len();
        assert_eq!(records, 11, "{source}: the history as it was");
    }
}

#[test]
fn replay_guard_shrink_makes_no_compaction_and_leaves_the_request_unchanged() {
    for source in [NATIVE, CHAT] {
        let open = with("replay", source, "none", &[]);
        assert!(open["count"].as_u64().unwrap() > 0, "{source}");
        let grew = open["compactions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["tokens_after"].as_u64() > c["tokens_before"].as_u64());
        assert!(
            grew,
            "{source}: 0.62 inserts a summary that grows the request"
        );

        let guarded = with("replay", source, "shrink", &[]);
        assert_eq!(guarded["count"], 0, "{source}");
        let rejected = guarded["rejected"].as_array().unwrap();
        let fired = guarded["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["fired"] == true)
            .count();
        assert!(!rejected.is_empty(), "{source}");
        assert_eq!(rejected.len(), fired, "{source}: every attempt rejected");
        for step in guarded["steps"].as_array().unwrap() {
            assert_eq!(step["tokens"], step["tokens_before"], "{source}");
        }
        let last = guarded["steps"].as_array().unwrap().last().unwrap().clone();
        let report = ctxray(&["report", &path(source), "--json"]);
        assert_eq!(last["tokens"], report["total_tokens"], "{source}");
    }
}
