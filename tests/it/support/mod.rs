//! What the oracle tests share: reading a golden's index lists and comparing a plan's
//! summarizer request with the golden's, byte for byte, with the first difference shown.

#![allow(dead_code)]

pub mod bounded;
pub mod devices;
pub mod headless;
pub mod http_server;
pub mod lcg;
pub mod pty;
pub mod wire;

use ctxray::compaction::plan::source_fates;
use ctxray::compaction::Plan;
use ctxray::session::Session;
use serde_json::Value;

/// A golden's list of indices.
pub fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect()
}

/// Where two texts first differ, with context from both.
pub fn first_difference(a: &str, b: &str) -> String {
    let at = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map(|((i, _), _)| i)
        .unwrap_or(a.len().min(b.len()));
    let start = (0..=at.saturating_sub(80))
        .rev()
        .find(|&i| a.is_char_boundary(i) && b.is_char_boundary(i))
        .unwrap_or(0);
    let clip = |s: &str| -> String { s.get(start..).unwrap_or("").chars().take(200).collect() };
    format!(
        "byte {at} (lengths {} vs {}): want {:?} got {:?}",
        a.len(),
        b.len(),
        clip(a),
        clip(b)
    )
}

/// The summarizer messages of `plan` against the golden's `expected.summarizer.messages`.
pub fn check_summarizer(e: &Value, plan: &Plan) -> Vec<String> {
    let mut bad = Vec::new();
    let want: Vec<(String, String)> = match e["summarizer"].get("messages") {
        Some(Value::Array(ms)) => ms
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap().to_string(),
                    m["content"].as_str().unwrap().to_string(),
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    if want.len() != plan.summarizer.len() {
        bad.push(format!(
            "summarizer messages: want {} got {}",
            want.len(),
            plan.summarizer.len()
        ));
    }
    for (i, ((role, content), got)) in want.iter().zip(&plan.summarizer).enumerate() {
        if role != got.role.as_str() {
            bad.push(format!(
                "summarizer[{i}] role: want {role} got {}",
                got.role.as_str()
            ));
        }
        if *content != got.content {
            bad.push(format!(
                "summarizer[{i}] content: {}",
                first_difference(content, &got.content)
            ));
        }
    }
    bad
}

/// The plan's source-record fates against the golden's kept/summarized/dropped lists.
pub fn check_fates(e: &Value, session: &Session, plan: &Plan) -> Vec<String> {
    let fates = source_fates(session, &plan.split);
    let mut bad = Vec::new();
    for (label, got, key) in [
        ("kept", &fates.kept, "kept_source_indices"),
        ("summarized", &fates.summarized, "summarized_source_indices"),
        ("dropped", &fates.dropped, "dropped_source_indices"),
    ] {
        let want = indices(&e[key]);
        if *got != want {
            bad.push(format!("{label}: want {want:?} got {got:?}"));
        }
    }
    bad
}

/// A Hermes golden's settings as `--set` values: its constructor settings, then the state it
/// ran in (compressions so far, the auxiliary summarizer's window).
pub fn hermes_sets(g: &Value) -> Vec<String> {
    let mut out: Vec<String> = g["settings"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect();
    let count = g["compressor_state"]["compression_count"]
        .as_u64()
        .unwrap_or(0);
    if count > 0 {
        out.push(format!("compression_count={count}"));
    }
    if let Some(aux) = g["auxiliary"]["context_length"].as_u64() {
        out.push(format!("aux_context_length={aux}"));
    }
    out
}

/// An OpenAI chat session: `pairs` user/assistant exchanges, each message exactly `tokens`
/// o200k tokens and `4 × tokens − 1` characters; message #i is source record i.
pub fn chat_session(pairs: usize, tokens: usize) -> String {
    use ctxray::tokens::{Counter, Encoding};
    let text = ctxray::replay::filler::summary_of(tokens, &Counter::new(Encoding::O200kBase));
    assert_eq!(text.len(), 4 * tokens - 1);
    let messages: Vec<Value> = (0..pairs)
        .flat_map(|_| {
            [
                serde_json::json!({"role": "user", "content": text}),
                serde_json::json!({"role": "assistant", "content": text}),
            ]
        })
        .collect();
    serde_json::json!({ "model": "gpt-4o", "messages": messages }).to_string()
}

/// An OpenAI chat session of `rounds` tool rounds after a system prompt: each a user request
/// naming a file, an assistant `run_shell` call (a `cargo test` command and a timeout), its
/// result of 30 lines (about 2,000 characters of test names, paths, line numbers and
/// timings), and an assistant answer with a path and two numbers. Every round's facts are its
/// own (`k` in each name), so what a summarizer input keeps of a round is measurable.
pub fn tool_session(rounds: usize) -> String {
    let mut messages =
        vec![serde_json::json!({"role": "system", "content": "You are a coding agent."})];
    for k in 0..rounds {
        let id = format!("call_{k:04}");
        let result: Vec<String> = (0..30)
            .map(|j| {
                format!(
                    "test parser_case_{k}::sub_check_{j} at src/module_{k}.rs:{} ... {} in {} ms",
                    100 + j * 7,
                    if j % 3 == 0 { "FAILED" } else { "ok" },
                    1000 + k * 31 + j
                )
            })
            .collect();
        let arguments = serde_json::json!({
            "command": format!("cargo test -p crate_{k} parser_case_{k}"),
            "timeout": 600 + k,
        });
        messages.extend([
            serde_json::json!({"role": "user", "content": format!("The test parser_case_{k} fails in src/module_{k}.rs; please fix it.")}),
            serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": id, "type": "function", "function": {"name": "run_shell", "arguments": arguments.to_string()}}
            ]}),
            serde_json::json!({"role": "tool", "tool_call_id": id, "content": result.join("\n")}),
            serde_json::json!({"role": "assistant", "content": format!(
                "Fixed parser_case_{k}: the off-by-one in src/module_{k}.rs line {} is gone, {} tests pass.",
                140 + k,
                2000 + k
            )}),
        ]);
    }
    serde_json::json!({ "model": "gpt-4o", "messages": messages }).to_string()
}

/// Chromium on this machine: `CTXRAY_CHROMIUM`, else the first of its usual names on `PATH`.
pub fn browser() -> Option<std::path::PathBuf> {
    if let Ok(p) = std::env::var("CTXRAY_CHROMIUM") {
        return Some(p.into());
    }
    ["chromium", "chromium-browser", "google-chrome", "chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// The browser for a test marked as needing Chromium: such a test is run only when asked
/// (`--ignored`), so a machine without one fails it rather than passing it unopened.
pub fn browser_or_fail() -> std::path::PathBuf {
    browser().unwrap_or_else(|| {
        panic!("no Chromium on this machine: install the `chromium` package or set CTXRAY_CHROMIUM")
    })
}

/// Headless Chromium on the local `page` with a fresh `profile`, its scripts run: stdout holds
/// the DOM it built, stderr its log (console messages included). Panics when it fails.
pub fn headless(
    chromium: &std::path::Path,
    page: &std::path::Path,
    profile: &std::path::Path,
) -> std::process::Output {
    let out = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
            &format!("--user-data-dir={}", profile.display()),
            "--virtual-time-budget=2000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `fixtures/oracle`, where the goldens of the real frameworks live.
pub fn oracle_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/oracle")
}

/// The `*.golden.json` files of one preset's oracle directory, in name order.
pub fn goldens(dir: &str) -> Vec<std::path::PathBuf> {
    let mut out: Vec<std::path::PathBuf> = std::fs::read_dir(oracle_dir().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".golden.json"))
        .collect();
    out.sort();
    out
}

/// A JSON file.
pub fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The analysis of an OpenHands golden's input, with the golden's model and window.
pub fn openhands_analysis(name: &str, g: &Value) -> ctxray::analysis::Analysis {
    use ctxray::analysis::{Analysis, Options};
    let path = oracle_dir().join(format!("openhands/{name}.input.jsonl"));
    let session = ctxray::formats::load_path(&path, None).unwrap();
    let options = Options {
        model: g["model"].as_str().map(str::to_string),
        window: g["context_window"].as_u64(),
        ..Options::default()
    };
    Analysis::new(session, &ctxray::tokens::Registry::bundled(), &options)
}
