//! `ctxray compact` on the binary: the offline compaction of a real session, its JSON result,
//! the written file loaded again, and the refusals that protect files.

use std::process::Command;

fn ctxray(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

const DEMO: &str = "fixtures/samples/claude-code-demo.jsonl";

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_result_is_the_plan_applied_with_the_summary_where_the_preset_puts_it() {
    let plan = json(&ctxray(&[
        "plan",
        DEMO,
        "--preset",
        "dimos",
        "--set",
        "context_window=6000",
        "--json",
    ]));
    let doc = json(&ctxray(&[
        "compact",
        DEMO,
        "--preset",
        "dimos",
        "--set",
        "context_window=6000",
        "--json",
    ]));
    // The compact document is the plan document plus `result`.
    assert_eq!(doc["split"], plan["split"]);
    assert_eq!(doc["summarizer"], plan["summarizer"]);
    let r = &doc["result"];
    assert_eq!(r["summarizer"], "offline");
    let summary = r["summary"].as_str().unwrap();
    assert!(summary.contains("Glob"), "{summary}");
    let before = r["tokens_before"].as_u64().unwrap();
    let after = r["tokens_after"].as_u64().unwrap();
    assert_eq!(before, plan["total_tokens"].as_u64().unwrap());
    assert!(after < before, "{after} ≥ {before}");
    let messages = r["messages"].as_array().unwrap();
    let kept = plan["split"]["kept"].as_array().unwrap().len()
        + plan["split"]["pinned"].as_array().unwrap().len();
    assert_eq!(messages.len(), kept + 1, "kept messages plus the summary");
    let sum: u64 = messages.iter().map(|m| m["tokens"].as_u64().unwrap()).sum();
    assert_eq!(sum, after);
    assert_eq!(
        messages[0]["role"], "user",
        "dimos inserts a HumanMessage first"
    );
}

#[test]
fn a_preset_that_does_not_fire_leaves_the_history_alone() {
    let doc = json(&ctxray(&["compact", DEMO, "--preset", "dimos", "--json"]));
    let r = &doc["result"];
    assert!(r["summary"].is_null());
    assert_eq!(r["tokens_before"], r["tokens_after"]);
}

#[test]
fn the_written_session_loads_again_with_the_same_tokens_and_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("compacted.json");
    let out_s = out.to_str().unwrap();
    let args = [
        "compact",
        DEMO,
        "--preset",
        "dimos",
        "--set",
        "context_window=6000",
        "--json",
        "-o",
        out_s,
    ];
    let doc = json(&ctxray(&args));
    let report = json(&ctxray(&["report", out_s, "--json"]));
    // A Claude Code session is written as Claude Code records a compaction.
    assert_eq!(report["source"]["format"], "claude-code");
    assert_eq!(report["total_tokens"], doc["result"]["tokens_after"]);
    let tokens = |ms: &serde_json::Value, f: &dyn Fn(&serde_json::Value) -> u64| {
        ms.as_array().unwrap().iter().map(f).collect::<Vec<u64>>()
    };
    assert_eq!(
        tokens(&report["messages"], &|m| m["tokens"].as_u64().unwrap()
            + m["overhead_tokens"].as_u64().unwrap()),
        tokens(&doc["result"]["messages"], &|m| m["tokens"]
            .as_u64()
            .unwrap())
    );
    let marks = report["marks"].as_array().unwrap();
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(marks[0]["kind"], "compact_boundary");
    assert_eq!(marks[0]["pre_tokens"], doc["result"]["tokens_before"]);
    // The kept messages are their original lines, byte for byte.
    let original = std::fs::read_to_string(DEMO).unwrap();
    let original: Vec<&str> = original.lines().collect();
    let written = std::fs::read_to_string(&out).unwrap();
    let written: Vec<&str> = written.lines().collect();
    let kept = doc["kept_source_indices"].as_array().unwrap();
    assert!(!kept.is_empty());
    for (k, line) in kept.iter().zip(&written[2..]).skip(1) {
        assert_eq!(*line, original[k.as_u64().unwrap() as usize]);
    }
    // Again: refused without --force, the file untouched; with --force it is replaced.
    let before = std::fs::read(&out).unwrap();
    let again = ctxray(&args);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(ctxray(&forced).status.success());
    // The input is never the output without --force.
    let copy = dir.path().join("in.jsonl");
    std::fs::copy(DEMO, &copy).unwrap();
    let c = copy.to_str().unwrap();
    let refused = ctxray(&[
        "compact",
        c,
        "--preset",
        "dimos",
        "--set",
        "context_window=6000",
        "-o",
        c,
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(DEMO).unwrap());
}

#[test]
fn compacting_the_compacted_history_again_keeps_going() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("one.json");
    let f = first.to_str().unwrap();
    json(&ctxray(&[
        "compact",
        DEMO,
        "--preset",
        "custom",
        "--set",
        "trigger_tokens=1000",
        "--set",
        "keep_last=4",
        "--json",
        "-o",
        f,
    ]));
    let doc = json(&ctxray(&[
        "compact",
        f,
        "--preset",
        "custom",
        "--set",
        "trigger_tokens=500",
        "--set",
        "keep_last=2",
        "--json",
    ]));
    let summarized = doc["split"]["summarized"].as_array().unwrap();
    assert!(!summarized.is_empty());
    // The earlier summary is among what the second compaction summarizes.
    let input = doc["summarizer"]["messages"].to_string();
    assert!(input.contains("Offline digest of"), "{input}");
}

#[test]
fn a_secret_in_a_kept_line_is_masked_in_the_written_file_and_the_rest_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("with-secret.jsonl");
    let secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789";
    let mut text = std::fs::read_to_string(DEMO).unwrap();
    // The last user line is kept by the cut: put a key in it.
    let at = text.rfind("Thanks!").expect("the demo's last user request");
    text.insert_str(at, &format!("OPENAI_API_KEY={secret} "));
    std::fs::write(&input, &text).unwrap();
    let out = dir.path().join("out.jsonl");
    let args = [
        "compact",
        input.to_str().unwrap(),
        "--preset",
        "dimos",
        "--set",
        "context_window=6000",
        "-o",
        out.to_str().unwrap(),
    ];
    let run = ctxray(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(String::from_utf8_lossy(&run.stdout).contains("1 secret(s) masked"));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(!written.contains(secret));
    assert!(written.contains("Thanks!"));
    let report = json(&ctxray(&["report", out.to_str().unwrap(), "--json"]));
    assert_eq!(report["source"]["format"], "claude-code");
}

#[test]
fn a_source_read_from_stdin_is_written_as_openai_chat_and_loads_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let run = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args([
            "compact",
            "-",
            "--preset",
            "dimos",
            "--set",
            "context_window=6000",
            "--json",
            "-o",
            out.to_str().unwrap(),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(
            std::fs::File::open(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO))
                .unwrap(),
        )
        .output()
        .unwrap();
    let doc = json(&run);
    let report = json(&ctxray(&["report", out.to_str().unwrap(), "--json"]));
    assert_eq!(report["source"]["format"], "openai-chat");
    assert_eq!(
        report["messages"].as_array().unwrap().len(),
        doc["result"]["messages"].as_array().unwrap().len()
    );
}
