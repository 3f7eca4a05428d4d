//! `compact --json`'s `result.history` and `-o` for the presets whose framework persists its
//! own records: Claude Code (the lines it writes), Codex (the `compacted` item's
//! `replacement_history`), dimos (LangChain dicts); the generic splice for a source of another
//! format; `-o -` and `--to`; secrets masked in what is printed and written.

use std::process::Command;

use serde_json::Value;

fn ctxray(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap()
}

fn json(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `report --json` of a file.
fn report(path: &std::path::Path) -> Value {
    json(&ctxray(&["report", path.to_str().unwrap(), "--json"]))
}

#[test]
fn claude_code_history_is_the_lines_claude_code_keeps_and_loads_back() {
    let doc = json(&ctxray(&[
        "compact",
        "fixtures/samples/claude-code-demo.jsonl",
        "--preset",
        "claude-code",
        "--set",
        "context_window=6000",
        "--json",
    ]));
    let r = &doc["result"];
    assert_eq!(r["history_format"], "claude-code");
    let lines = r["history"].as_array().unwrap();
    let boundary = lines
        .iter()
        .position(|l| l["subtype"] == "compact_boundary")
        .expect("a compact_boundary line");
    let summary = &lines[boundary + 1];
    assert_eq!(summary["isCompactSummary"], true);
    let text = summary["message"]["content"].to_string();
    let offline = r["summary"].as_str().unwrap();
    let first_line = offline.lines().next().unwrap();
    assert!(text.contains(&first_line.replace('"', "\\\"")), "{text}");
    // The lines written by -o are the same records, and load back as the compacted history.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    json(&ctxray(&[
        "compact",
        "fixtures/samples/claude-code-demo.jsonl",
        "--preset",
        "claude-code",
        "--set",
        "context_window=6000",
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]));
    let written: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&written, lines);
    let back = report(&out);
    assert_eq!(back["source"]["format"], "claude-code");
    assert_eq!(
        back["messages"].as_array().unwrap().len(),
        r["messages"].as_array().unwrap().len()
    );
    assert_eq!(back["total_tokens"], r["tokens_after"]);
}

#[test]
fn codex_history_is_the_replacement_history_with_the_summary_last() {
    let args = [
        "compact",
        "fixtures/codex/local-compaction.jsonl",
        "--preset",
        "codex",
        "--set",
        "context_window=2000",
    ];
    let doc = json(&ctxray(&[&args[..], &["--json"]].concat()));
    let r = &doc["result"];
    assert_eq!(doc["trigger"]["fired"], true);
    assert_eq!(r["history_format"], "codex");
    let items = r["history"].as_array().unwrap();
    assert!(items.iter().all(|i| i["type"] == "message"));
    let last = items.last().unwrap();
    assert_eq!(last["role"], "user");
    let text = last["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("You are resuming an in-progress task after context compaction."));
    assert!(text.ends_with(r["summary"].as_str().unwrap()));
    // Tool calls and their outputs do not survive a Codex compaction.
    assert!(!r["history"].to_string().contains("function_call"));
    // `-o -`: the rollout Codex would resume from, on stdout; it loads back as Codex.
    let out = ctxray(&[&args[..], &["-o", "-"]].concat());
    assert!(out.status.success());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    std::fs::write(&path, &out.stdout).unwrap();
    let rollout: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let compacted = rollout.last().unwrap();
    assert_eq!(compacted["type"], "compacted");
    assert_eq!(&compacted["payload"]["replacement_history"], &r["history"]);
    let back = report(&path);
    assert_eq!(back["source"]["format"], "codex");
    assert_eq!(
        back["messages"].as_array().unwrap().len(),
        r["messages"].as_array().unwrap().len()
    );
}

#[test]
fn a_langchain_source_is_written_back_as_langchain_and_another_source_as_openai_chat() {
    let dir = tempfile::tempdir().unwrap();
    let lc = dir.path().join("lc.json");
    let doc = json(&ctxray(&[
        "compact",
        "fixtures/langchain/anthropic-openai-mix.json",
        "--preset",
        "dimos",
        "--set",
        "context_window=3000",
        "--json",
        "-o",
        lc.to_str().unwrap(),
    ]));
    assert_eq!(doc["result"]["history_format"], "langchain");
    let written: Value = serde_json::from_slice(&std::fs::read(&lc).unwrap()).unwrap();
    assert_eq!(written, doc["result"]["history"]);
    let back = report(&lc);
    assert_eq!(back["source"]["format"], "langchain");
    assert_eq!(back["total_tokens"], doc["result"]["tokens_after"]);
    // An OpenAI chat source compacted by dimos: the LangChain list is shown, the file written
    // stays OpenAI chat (the source's format); --to langchain writes the framework's list.
    let chat = "fixtures/oracle/hermes-fallback/claude-code-demo.input.json";
    let dimos = |extra: &[&str]| {
        let base = [
            "compact",
            chat,
            "--preset",
            "dimos",
            "--set",
            "context_window=3000",
        ];
        ctxray(&[&base[..], extra].concat())
    };
    let doc = json(&dimos(&["--json"]));
    assert_eq!(doc["result"]["history_format"], "langchain");
    let out = dimos(&["-o", "-"]);
    let written: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(written[0].get("role").is_some(), "OpenAI chat dicts");
    let out = dimos(&["-o", "-", "--to", "langchain"]);
    let written: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(written, doc["result"]["history"]);
    // A format neither the source nor the framework is: a clear refusal.
    let out = dimos(&["-o", "-", "--to", "gemini-cli"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("openai-chat or langchain"), "{err}");
}

#[test]
fn secrets_in_the_history_are_masked_where_it_is_printed_and_written() {
    let key = "sk-proj-Zq8Xr2LmN4vB6tY0uP3sK9wE1dF7gH5jQaWsEdRfTgYh";
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("chat.json");
    let mut msgs = vec![serde_json::json!({"role": "system", "content": "be brief"})];
    for i in 0..30 {
        msgs.push(serde_json::json!({"role": "user", "content": format!("step {i}: use {key} and read the long file {}", "x".repeat(400))}));
        msgs.push(
            serde_json::json!({"role": "assistant", "content": format!("done {i} with {key}")}),
        );
    }
    std::fs::write(&src, serde_json::to_vec(&msgs).unwrap()).unwrap();
    let out = dir.path().join("out.json");
    let run = ctxray(&[
        "compact",
        src.to_str().unwrap(),
        "--preset",
        "hermes",
        "--set",
        "config_context_length=3000",
        "--json",
        "-o",
        out.to_str().unwrap(),
    ]);
    let doc = json(&run);
    assert_eq!(
        doc["trigger"]["fired"], true,
        "{}",
        doc["trigger"]["reason"]
    );
    assert!(doc["result"]["history"]
        .as_array()
        .is_some_and(|h| !h.is_empty()));
    assert!(!doc["result"]["history"].to_string().contains(key));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(!written.contains(key));
    assert!(written.contains("[REDACTED:openai-key]"), "{written}");
}

/// A chat session whose tool results hold a fact past their first 600 characters.
fn late_fact_session(dir: &std::path::Path) -> std::path::PathBuf {
    let mut msgs =
        vec![serde_json::json!({"role": "system", "content": "You are a coding agent."})];
    for i in 0..8 {
        let id = format!("call_{i}");
        msgs.push(
            serde_json::json!({"role": "user", "content": format!("Run step {i} of the build.")}),
        );
        msgs.push(serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "execute_bash", "arguments": format!("{{\"command\": \"make step{i}\"}}")}}
        ]}));
        let log = format!(
            "{} then linking failed in zqxlibrary{i}.so",
            "compiling module ok; ".repeat(40)
        );
        msgs.push(serde_json::json!({"role": "tool", "tool_call_id": id, "content": log}));
        msgs.push(
            serde_json::json!({"role": "assistant", "content": format!("Step {i} is done.")}),
        );
    }
    let path = dir.join("late-fact.json");
    std::fs::write(&path, serde_json::to_vec(&msgs).unwrap()).unwrap();
    path
}

#[test]
fn the_offline_digest_quotes_only_what_the_summarizer_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let src = late_fact_session(dir.path());
    let summary = |preset: &str| -> (String, String) {
        let doc = json(&ctxray(&[
            "compact",
            src.to_str().unwrap(),
            "--preset",
            preset,
            "--set",
            "max_size=10",
            "--json",
        ]));
        assert_eq!(doc["trigger"]["fired"], true, "{preset}");
        let input: String = doc["summarizer"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"].as_str().unwrap().to_string())
            .collect();
        (
            doc["result"]["summary"].as_str().unwrap().to_string(),
            input,
        )
    };
    // openhands 1.58 shows the summarizer `str(event)`: an observation cut to a 500-character
    // preview (the library that failed to link is past it), an action without its arguments.
    // The digest quotes neither.
    let (digest, input) = summary("openhands");
    assert!(!input.contains("zqxlibrary0"), "{input}");
    assert!(!input.contains("make step0"), "{input}");
    assert!(!digest.contains("make step0"), "{digest}");
    assert!(
        digest.contains("execute_bash → compiling module ok"),
        "{digest}"
    );
    // openhands-fixed shows whole events: the digest quotes the arguments it sees.
    let (digest, input) = summary("openhands-fixed");
    assert!(input.contains("zqxlibrary0"));
    assert!(input.contains("make step0"));
    assert!(
        digest.contains(r#"execute_bash {"command": "make step0"}"#),
        "{digest}"
    );
}
