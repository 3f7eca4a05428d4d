//! The binary as scripts use it: exit codes, one-line errors, JSON shape, formats list.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples")
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn one_clear_line(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "stderr: {err}");
    assert!(!err.contains("panicked"), "stderr: {err}");
    err
}

#[test]
fn a_file_that_is_not_a_session_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        ("notes.txt", b"hello, this is not json\n", "notes.txt:1"),
        ("empty.jsonl", b"", "empty"),
        (
            "other.json",
            b"{\"name\": \"a package\", \"version\": \"1.0\"}\n",
            "not any known session format",
        ),
        (
            "garbage.bin",
            &[0xff, 0xfe, 0x00, 0x01, 0x02],
            "garbage.bin",
        ),
    ];
    for (name, bytes, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = run(&["report", path.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = one_clear_line(&out);
        assert!(err.contains(want), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}: printed to stdout");
    }
}

/// Sessions of tools ctxray does not read are refused by name, exit 2, one line: a directory
/// of opencode storage, a Goose session (which would otherwise look like Chat messages).
#[test]
fn a_session_of_a_refused_tool_names_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let storage = dir.path().join("storage");
    for sub in ["session", "message", "part"] {
        std::fs::create_dir_all(storage.join(sub)).unwrap();
    }
    let goose = dir.path().join("goose.jsonl");
    std::fs::write(
        &goose,
        concat!(
            r#"{"working_dir":"/w","description":"d","schedule_id":null}"#,
            "\n",
            r#"{"role":"user","created":1749923359,"content":[{"type":"text","text":"hi"}]}"#,
            "\n"
        ),
    )
    .unwrap();
    for (path, tool) in [(&storage, "opencode"), (&goose, "Goose")] {
        let out = run(&["report", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{tool}");
        let err = one_clear_line(&out);
        assert!(err.contains(tool), "{tool}: {err}");
    }
}

/// opencode's `opencode.db` is read; a damaged one is one clear line and exit 2, no panic.
#[test]
fn an_opencode_db_is_read_and_a_damaged_one_exits_2() {
    let db = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/opencode/db/short/opencode.db");
    let out = run(&["report", db.to_str().unwrap(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&db).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("opencode.db");
    std::fs::write(&broken, &bytes[..bytes.len() / 2]).unwrap();
    let out = run(&["report", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = one_clear_line(&out);
    assert!(err.contains("opencode database"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_missing_file_and_a_bad_flag_exit_2() {
    let out = run(&["report", "no/such/file.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let line = one_clear_line(&out);
    assert!(line.contains("no/such/file.jsonl: cannot read"), "{line}");
    // The cause once, though the message already names it and the error chain holds it.
    assert_eq!(line.matches("os error").count(), 1, "{line}");
    let out = run(&["report", "x.jsonl", "--from", "nonsense"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("claude-code"));
    let out = run(&["report", "x.jsonl", "--tokenizer", "p50k_base"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn formats_lists_every_contract_name() {
    let out = run(&["formats", "--json"]);
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    for want in [
        "claude-code",
        "codex",
        "openhands",
        "openhands-v0",
        "openai-chat",
        "openai-responses",
        "anthropic",
        "pydantic-ai",
        "langchain",
        "agent-framework",
        "inspect-ai",
        "gemini-cli",
        "openai-agents",
    ] {
        assert!(names.contains(&want), "{want} missing");
    }
}

#[test]
fn report_json_on_a_real_session_has_the_contract_fields() {
    let path = samples().join("api_shapes/openhands-fncall-llm-message.json");
    let out = run(&["report", path.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["source"]["format"], "openai-chat");
    assert_eq!(r["tokenizer"], "o200k_base");
    let messages = r["messages"].as_array().unwrap();
    assert!(!messages.is_empty());
    let sum: u64 = messages
        .iter()
        .map(|m| m["tokens"].as_u64().unwrap() + m["overhead_tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(r["total_tokens"].as_u64().unwrap(), sum);
    for m in messages {
        assert!(m["source_indices"]
            .as_array()
            .unwrap()
            .contains(&m["source_index"]));
    }
    // every group's messages point back at the group
    for g in r["groups"].as_array().unwrap() {
        for i in g["messages"].as_array().unwrap() {
            assert_eq!(messages[i.as_u64().unwrap() as usize]["group"], g["id"]);
        }
    }
}

#[test]
fn flags_override_window_and_tokenizer() {
    let path = samples().join("api_shapes/openhands-fncall-llm-message.json");
    let p = path.to_str().unwrap();
    let base: serde_json::Value =
        serde_json::from_slice(&run(&["report", p, "--json"]).stdout).unwrap();
    let out = run(&[
        "report",
        p,
        "--json",
        "--window",
        "1000",
        "--tokenizer",
        "cl100k_base",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["context_window"], 1000);
    assert_eq!(r["context_window_source"], "flag");
    assert_eq!(r["tokenizer"], "cl100k_base");
    let tokens = |r: &serde_json::Value| -> Vec<u64> {
        r["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["tokens"].as_u64().unwrap())
            .collect()
    };
    assert_ne!(tokens(&r), tokens(&base));
    assert!(r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "over-context-window"));
}

#[test]
fn stdin_is_read_for_dash() {
    let path = samples().join("api_shapes/openhands-fncall-llm-message.json");
    let mut child = bin()
        .args(["report", "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(path).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["source"]["path"], "<stdin>");
    assert_eq!(r["source"]["format"], "openai-chat");
}

#[test]
fn text_report_shows_totals_and_has_no_colour_when_piped() {
    let path = samples().join("api_shapes/openhands-fncall-llm-message.json");
    let out = run(&["report", path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'));
    assert!(text.contains("tool-call groups"));
    assert!(text.contains("tokens ("));
}

#[test]
fn a_malformed_line_is_reported_and_the_rest_loads() {
    let src = std::fs::read_to_string(samples().join("codex/timvw-sample_session.jsonl")).unwrap();
    let mut lines: Vec<&str> = src.lines().collect();
    lines.insert(
        2,
        "{\"timestamp\": \"2025-12-24T10:00:01Z\", \"type\": \"respo",
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = run(&["report", path.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["source"]["skipped_lines"], 1);
    assert_eq!(r["source"]["skipped"][0]["line"], 3);
    assert!(r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == "skipped-lines"));
    assert!(!r["messages"].as_array().unwrap().is_empty());
}

#[test]
fn plan_and_diff_refuse_unknown_presets_and_settings_with_exit_2() {
    let path = samples().join("frameworks/langchain_messages_to_dict.json");
    let p = path.to_str().unwrap();
    for args in [
        vec!["plan", p, "--preset", "nonesuch"],
        vec!["plan", p, "--preset", "dimos", "--set", "max_size=3"],
        vec![
            "plan",
            p,
            "--preset",
            "dimos",
            "--set",
            "trigger_ratio=high",
        ],
        vec!["diff", p, "--preset", "dimos", "--set", "keep_ratio"],
        vec!["plan", "no/such.json", "--preset", "nonesuch"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = one_clear_line(&out);
        assert!(
            !err.contains("no/such.json"),
            "preset checked before the file: {err}"
        );
    }
}

#[test]
fn plan_json_names_every_source_record_once() {
    let path = samples().join("frameworks/langchain_messages_to_dict.json");
    let out = run(&[
        "plan",
        path.to_str().unwrap(),
        "--preset",
        "dimos",
        "--set",
        "context_window=100",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["preset"]["name"], "dimos");
    assert_eq!(r["preset"]["settings"]["context_window"], 100);
    assert_eq!(r["trigger"]["fired"], true);
    let mut all: Vec<u64> = [
        "kept_source_indices",
        "summarized_source_indices",
        "dropped_source_indices",
    ]
    .iter()
    .flat_map(|k| {
        r[*k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
    })
    .collect();
    all.sort_unstable();
    let records = r["source"]["records"].as_u64().unwrap();
    assert_eq!(all, (0..records).collect::<Vec<_>>());
    let msgs = r["summarizer"]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0]["role"], "user");
}

#[test]
fn presets_lists_dimos_with_its_settings() {
    let out = run(&["presets", "--json"]);
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dimos = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "dimos")
        .unwrap();
    assert_eq!(dimos["approximate"], true);
    let names: Vec<&str> = dimos["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "context_window",
            "trigger_ratio",
            "keep_ratio",
            "summarize_with_model",
            "max_chars"
        ]
    );
}

/// `--demo` runs the preset under the settings that make it fire, names them on stderr and
/// in the JSON's settings, and leaves stdout the output alone.
#[test]
fn demo_scales_the_window_until_the_preset_fires() {
    let demo = "fixtures/samples/claude-code-demo.jsonl";
    let plain = run(&["plan", demo, "--preset", "hermes", "--json"]);
    let plain: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert_eq!(plain["trigger"]["fired"], false);
    let out = run(&["plan", demo, "--preset", "hermes", "--demo", "--json"]);
    assert!(out.status.success());
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["trigger"]["fired"], true);
    let window = plan["preset"]["settings"]["config_context_length"]
        .as_u64()
        .unwrap();
    assert!(window < 200_000, "{window}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("demo: config_context_length 200,000 → "),
        "{err}"
    );
    assert!(
        err.contains(&format!("--set config_context_length={window}")),
        "{err}"
    );
    // A preset that fires as set is left alone.
    let out = run(&["plan", demo, "--preset", "agent-framework", "--demo"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("fires as set"));
}

/// A record whose content key is misspelt reads as an empty message: the report says the read
/// is unsure, with the keys the record has, instead of passing it off as a session.
#[test]
fn a_read_that_gives_only_empty_messages_is_reported_as_uncertain() {
    let path = std::env::temp_dir().join(format!("ctxray-uncertain-{}.jsonl", std::process::id()));
    std::fs::write(
        &path,
        r#"{"uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user","message":{"role":"user","contnet":"hi"}}"#,
    )
    .unwrap();
    let o = run(&["report", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let found = doc["findings"].as_array().unwrap();
    let f = found
        .iter()
        .find(|f| f["code"] == "format-uncertain")
        .unwrap_or_else(|| panic!("no format-uncertain in {found:?}"));
    assert_eq!(f["severity"], "warn");
    let detail = f["detail"].as_str().unwrap();
    assert!(detail.contains("message{role, contnet}"), "{detail}");
    // A session read as it should be has no such finding.
    let o = run(&[
        "report",
        "fixtures/samples/claude-code-demo.jsonl",
        "--json",
    ]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("format-uncertain"));
}
