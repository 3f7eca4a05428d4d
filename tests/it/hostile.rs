//! Hostile and broken input against the release binary: every file of `fixtures/hostile/` (and
//! the big ones, made here at run time) through `report` and `plan` with every preset. Each is
//! either refused with one clear line (file, line, what was expected) and exit 2, or read with
//! the bad lines reported as skipped; none panics, hangs (a deadline kills a hung child) or
//! grows without bound (the child's peak memory is read back).

use crate::support::bounded;

use crate::support::pty;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

const SMALL: Duration = Duration::from_secs(60);
const BIG: Duration = Duration::from_secs(300);

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hostile")
        .join(name)
}

fn arg(path: &Path) -> String {
    path.to_str().expect("a UTF-8 path").to_string()
}

/// Every preset, with the settings its framework requires (it has no default for them).
fn presets() -> Vec<Vec<String>> {
    static LIST: std::sync::OnceLock<Vec<Vec<String>>> = std::sync::OnceLock::new();
    LIST.get_or_init(list_presets).clone()
}

fn list_presets() -> Vec<Vec<String>> {
    let run = bounded::run(&["presets", "--json"], SMALL);
    let list = run.json("presets --json");
    let names: Vec<String> = list
        .as_array()
        .expect("a list of presets")
        .iter()
        .map(|p| p["name"].as_str().expect("a name").to_string())
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    names
        .into_iter()
        .map(|name| {
            let sets: &[&str] = match name.as_str() {
                "agent-framework-sliding" => &["keep_last_groups=2"],
                "agent-framework-truncation" => &["max_n=2000", "compact_to=1000"],
                "agent-framework-context-window" => &["max_output_tokens=1000"],
                "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => &["max_messages=4"],
                _ => &[],
            };
            let mut args = vec!["--preset".to_string(), name];
            for s in sets {
                args.extend(["--set".to_string(), s.to_string()]);
            }
            args
        })
        .collect()
}

fn plan_args(path: &Path, preset: &[String]) -> Vec<String> {
    let mut args = vec!["plan".to_string(), arg(path)];
    args.extend(preset.iter().cloned());
    args.push("--json".to_string());
    args
}

/// `report` and `plan` with every preset refuse the file with exit 2 and one line holding `wants`.
fn refused_everywhere(path: &Path, wants: &[&str]) {
    let what = format!("report {}", path.display());
    bounded::run(&["report".to_string(), arg(path)], SMALL).assert_refused(&what, wants);
    for preset in presets() {
        let what = format!("plan {} {}", path.display(), preset.join(" "));
        bounded::run(&plan_args(path, &preset), SMALL).assert_refused(&what, wants);
    }
}

/// `report --json` reads the file; `plan` succeeds with every preset. Returns the report.
fn read_everywhere(path: &Path) -> Value {
    let report = bounded::run(&["report".to_string(), arg(path), "--json".into()], SMALL)
        .json(&format!("report {}", path.display()));
    for preset in presets() {
        let what = format!("plan {} {}", path.display(), preset.join(" "));
        let plan = bounded::run(&plan_args(path, &preset), SMALL).json(&what);
        assert!(plan["trigger"]["fired"].is_boolean(), "{what}");
    }
    report
}

fn skipped(report: &Value) -> Vec<(u64, String)> {
    report["source"]["skipped"]
        .as_array()
        .expect("source.skipped")
        .iter()
        .map(|s| {
            let line = s["line"].as_u64().expect("line");
            (line, s["reason"].as_str().expect("reason").to_string())
        })
        .collect()
}

fn message_count(report: &Value) -> usize {
    report["messages"].as_array().expect("messages").len()
}

#[test]
fn a_truncated_last_line_is_a_reported_skip_and_the_rest_is_read() {
    let report = read_everywhere(&fixture("truncated-last-line.jsonl"));
    assert_eq!(message_count(&report), 5);
    let skipped = skipped(&report);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].0, 6);
    assert!(skipped[0].1.contains("truncated last line"), "{skipped:?}");
}

#[test]
fn invalid_utf8_in_a_line_skips_that_line_and_names_the_byte() {
    let report = read_everywhere(&fixture("invalid-utf8.jsonl"));
    assert_eq!(message_count(&report), 5);
    let skipped = skipped(&report);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].0, 4);
    assert!(
        skipped[0].1.contains("not valid UTF-8: byte 0xff"),
        "{skipped:?}"
    );
}

#[test]
fn invalid_utf8_in_a_document_is_refused_with_its_line() {
    refused_everywhere(
        &fixture("invalid-utf8.json"),
        &["invalid-utf8.json:6:", "not valid UTF-8", "expected"],
    );
}

#[test]
fn a_nesting_bomb_document_is_refused() {
    refused_everywhere(
        &fixture("nesting-bomb.json"),
        &["nesting-bomb.json:1:", "nested more than 128 levels deep"],
    );
}

#[test]
fn a_nesting_bomb_line_is_skipped_and_the_rest_is_read() {
    let report = read_everywhere(&fixture("nesting-bomb-line.jsonl"));
    assert_eq!(message_count(&report), 6);
    let skipped = skipped(&report);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].0, 3);
    assert!(skipped[0].1.contains("nested more than 128"), "{skipped:?}");
}

#[test]
fn files_that_are_not_sessions_are_refused() {
    refused_everywhere(
        &fixture("not-a-session.txt"),
        &["not-a-session.txt:1:", "expected JSON or JSON Lines"],
    );
    refused_everywhere(
        &fixture("not-a-session.json"),
        &["not-a-session.json", "not any known session format"],
    );
}

#[test]
fn binary_garbage_is_refused_as_binary() {
    refused_everywhere(
        &fixture("binary-garbage.bin"),
        &[
            "binary-garbage.bin:1:",
            "binary data, expected JSON or JSON Lines",
        ],
    );
}

#[test]
fn empty_and_blank_files_are_refused() {
    refused_everywhere(
        &fixture("empty.jsonl"),
        &["empty.jsonl", "the file is empty"],
    );
    refused_everywhere(
        &fixture("whitespace-only.jsonl"),
        &["whitespace-only.jsonl", "the file is empty"],
    );
}

/// The parts of a report that must not depend on line ends or a byte-order mark.
fn content(report: &Value) -> Value {
    let messages: Vec<Value> = report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            serde_json::json!([
                m["role"],
                m["parts"],
                m["tokens"],
                m["source_index"],
                m["group"]
            ])
        })
        .collect();
    serde_json::json!({
        "format": report["source"]["format"],
        "records": report["source"]["records"],
        "skipped": report["source"]["skipped_lines"],
        "total": report["total_tokens"],
        "messages": messages,
    })
}

fn report_of(name: &str) -> Value {
    let path = fixture(name);
    bounded::run(&["report".to_string(), arg(&path), "--json".into()], SMALL)
        .json(&format!("report {name}"))
}

#[test]
fn crlf_and_a_bom_read_exactly_as_the_plain_file() {
    let base = report_of("baseline.jsonl");
    assert_eq!(message_count(&base), 6);
    for name in ["crlf.jsonl", "bom.jsonl", "bom-crlf.jsonl"] {
        let report = report_of(name);
        assert_eq!(content(&report), content(&base), "{name}");
    }
    let base = report_of("baseline.json");
    let report = read_everywhere(&fixture("bom-crlf.json"));
    assert_eq!(message_count(&base), 3);
    assert_eq!(content(&report), content(&base), "bom-crlf.json");
}

#[test]
fn crlf_and_a_bom_give_the_same_summarizer_input() {
    for preset in presets() {
        let plan = |name: &str| {
            let what = format!("plan {name} {}", preset.join(" "));
            let v = bounded::run(&plan_args(&fixture(name), &preset), SMALL).json(&what);
            serde_json::json!([v["split"], v["summarizer"], v["trigger"]["fired"]])
        };
        assert_eq!(plan("bom-crlf.jsonl"), plan("baseline.jsonl"), "{preset:?}");
    }
}

/// A realistic JSON line of about `size` bytes: one assistant message of varied prose and code.
fn write_big_line_session(path: &Path, size: usize) {
    let words = [
        "the",
        "context",
        "window",
        "fills",
        "with",
        "tool",
        "output:",
        "error[E0308]",
        "mismatched",
        "types",
        "src/main.rs:42:17",
        "expected",
        "`usize`,",
        "found",
        "`i64`",
        "Résumé",
        "naïve",
        "日本語",
        "テキスト",
        "fn",
        "main()",
        "{",
        "}",
        "let",
        "x",
        "=",
        "3.14;",
        "\"quoted\"",
        "tab\there",
        "path\\to\\file",
        "emoji🦀",
        "0x1F600",
        "SELECT",
        "*",
        "FROM",
    ];
    let mut text = String::with_capacity(size + 64);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    while text.len() < size {
        // xorshift: varied, repeatable words.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        text.push_str(words[(state % words.len() as u64) as usize]);
        text.push(if state % 11 == 0 { '\n' } else { ' ' });
    }
    let lines = [
        serde_json::json!({"role": "user", "content": "Run the tests and show me the output."}),
        serde_json::json!({"role": "assistant", "content": text}),
        serde_json::json!({"role": "user", "content": "Thanks, now summarise it."}),
    ];
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    for line in lines {
        serde_json::to_writer(&mut f, &line).expect("write");
        f.write_all(b"\n").expect("write");
    }
    f.flush().expect("flush");
}

/// A child's peak is its own, not the test process's: Linux hands a parent's high-water mark
/// to its child through `exec`, and tests that hold large sessions run beside these ones.
#[test]
fn a_child_s_peak_memory_is_its_own_not_the_test_process_s() {
    let held = vec![1u8; 300 << 20];
    let touched: u64 = held.iter().step_by(4096).map(|&b| u64::from(b)).sum();
    assert_eq!(touched, (300 << 20) / 4096);
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/claude-code-demo.jsonl");
    let run = bounded::run(&["report".to_string(), arg(&path), "--json".into()], BIG);
    run.json("report of the demo");
    assert!(
        run.peak_rss < 200 << 20 && run.peak_rss > 4 << 20,
        "report of a small session peaked at {} MB beside a test process holding 300 MB",
        run.peak_rss >> 20
    );
    drop(held);
}

#[test]
fn a_line_of_50_mb_is_read_and_memory_stays_bounded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big-line.jsonl");
    write_big_line_session(&path, 50 << 20);
    let len = std::fs::metadata(&path).expect("written").len();
    assert!(len > 50 << 20);
    let run = bounded::run(&["report".to_string(), arg(&path), "--json".into()], BIG);
    let report = run.json("report of a 50 MB line");
    assert_eq!(message_count(&report), 3);
    assert!(report["messages"][1]["tokens"].as_u64().expect("tokens") > 5_000_000);
    // Measured: about 4 times the file (the buffer, the parsed value, the message's text).
    assert!(
        run.peak_rss < 6 * len,
        "report peaked at {} MB for a {} MB file",
        run.peak_rss >> 20,
        len >> 20
    );
    // Presets that render the record themselves (OpenHands' str(event)) and the slowest one.
    for preset in ["openhands", "codex", "agent-framework"] {
        let args = ["plan", &arg(&path), "--preset", preset, "--json"];
        let run = bounded::run(&args, BIG);
        let plan = run.json(&format!("plan --preset {preset} of a 50 MB line"));
        assert!(plan["trigger"]["fired"].is_boolean());
        // Measured: up to about 9 times the file (renderings of the one huge message).
        assert!(
            run.peak_rss < 12 * len,
            "plan --preset {preset} peaked at {} MB for a {} MB file",
            run.peak_rss >> 20,
            len >> 20
        );
    }
}

/// A `.eval` archive whose header is real and whose entries expand far past any JSON log's
/// ratio: one 1 GiB entry of spaces, written in chunks so the test itself stays small.
fn write_zip_bomb(path: &Path, entries: &[(&str, u64)]) {
    use zip::write::SimpleFileOptions;
    let file = std::fs::File::create(path).expect("create");
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    let header = br#"{"version": 2, "status": "success", "eval": {"task": "bomb", "model": "openai/gpt-4o"}}"#;
    zip.start_file("header.json", options).expect("entry");
    zip.write_all(header).expect("write");
    let chunk = vec![b' '; 1 << 20];
    for (name, size) in entries {
        zip.start_file(*name, options).expect("entry");
        zip.write_all(b"{\"id\": 1, \"epoch\": 1, \"messages\": []")
            .expect("write");
        let mut left = *size;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            zip.write_all(&chunk[..n]).expect("write");
            left -= n as u64;
        }
        zip.write_all(b"}").expect("write");
    }
    zip.finish().expect("finish");
}

#[test]
fn a_zip_bomb_eval_is_refused_within_its_budget() {
    let dir = tempfile::tempdir().expect("temp dir");
    let one = dir.path().join("one-entry.eval");
    write_zip_bomb(&one, &[("samples/1_epoch_1.json", 1 << 30)]);
    let many = dir.path().join("many-entries.eval");
    let names: Vec<String> = (1..=24)
        .map(|i| format!("samples/{i}_epoch_1.json"))
        .collect();
    let entries: Vec<(&str, u64)> = names.iter().map(|n| (n.as_str(), 24 << 20)).collect();
    write_zip_bomb(&many, &entries);
    for (path, entry) in [(&one, "samples/1_epoch_1.json"), (&many, "_epoch_1.json")] {
        let archive = std::fs::metadata(path).expect("written").len();
        assert!(archive < 4 << 20, "the bomb is small: {archive}");
        let what = format!("report {}", path.display());
        let run = bounded::run(&["report".to_string(), arg(path)], BIG);
        run.assert_refused(&what, &[entry, "decompresses to more than", "not read"]);
        // The budget is 256 MiB for a small archive; nothing near the 1 GiB is held.
        assert!(
            run.peak_rss < 600 << 20,
            "{what}: peaked at {} MB",
            run.peak_rss >> 20
        );
        let plan = ["plan", &arg(path), "--preset", "openhands"];
        bounded::run(&plan, BIG).assert_refused(&what, &[entry, "decompresses to more than"]);
    }
}

#[test]
fn a_directory_without_permission_is_refused() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        eprintln!("skipped: running as root, which reads any directory whatever its mode");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).expect("mkdir");
    std::fs::copy(fixture("baseline.jsonl"), locked.join("s.jsonl")).expect("copy");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let file = locked.join("s.jsonl");
    bounded::run(&["report".to_string(), arg(&file)], SMALL)
        .assert_refused("report in a locked directory", &["s.jsonl", "cannot read"]);
    bounded::run(&["report".to_string(), arg(&locked)], SMALL)
        .assert_refused("report of a locked directory", &["locked", "cannot read"]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn claude_line(uuid: &str, text: &str) -> String {
    format!(
        r#"{{"type":"user","sessionId":"s1","uuid":"{uuid}","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z","message":{{"role":"user","content":"{text}"}}}}"#
    )
}

#[test]
fn a_followed_file_that_shrinks_then_is_replaced_is_read_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("rotating.jsonl");
    let long: Vec<String> = (0..40)
        .map(|i| claude_line(&format!("a{i}"), &format!("FIRST-GENERATION-{i}")))
        .collect();
    std::fs::write(&path, long.join("\n") + "\n").expect("write");
    let mut pty = pty::Pty::start_with("", 120, 30, &format!("{} --follow", path.display()));
    let limit = Duration::from_secs(20);
    pty.wait_drawn("FIRST-GENERATION-0", limit);
    // Truncated in place (copytruncate rotation), then a shorter session written.
    std::fs::write(&path, claude_line("b1", "SHRUNK-MARKER") + "\n").expect("shrink");
    pty.wait_drawn("SHRUNK-MARKER", limit);
    // Replaced by rename (create rotation): another file at the same path.
    let next = dir.path().join("next.jsonl");
    std::fs::write(&next, claude_line("c1", "REPLACED-MARKER") + "\n").expect("write");
    std::fs::rename(&next, &path).expect("rename");
    pty.wait_drawn("REPLACED-MARKER", limit);
    pty.send("q");
    let (code, _) = pty.wait_exit(Duration::from_secs(10));
    let out = pty.output();
    let screen = String::from_utf8_lossy(&out);
    assert_eq!(code, Some(0), "{screen}");
    assert!(!contains(&out, "panicked"), "{screen}");
}
