//! A session built to attack the terminal and the CI log (OSC 0/52/8, CSI 2J and ?1049h, C1,
//! BS, CR, bidi overrides, GitHub workflow commands), with a hostile file name, through every
//! command and every text-like output format: nothing reaches stdout or stderr as a control
//! character, and no line starts a workflow command.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HOSTILE: &str = "A\u{1b}]0;pwned-title\u{7}B\u{1b}]52;c;aGFja2Vk\u{7}C\u{1b}]8;;http://evil.example/\u{1b}\\link\u{1b}]8;;\u{1b}\\D\u{1b}[2J\u{1b}[?1049hE\u{9b}31mF\u{8}\u{8}G\rH\u{202e}I\u{2066}J\u{200f}K\u{61c}L\u{85}M\u{7f}";

fn hostile_text(n: usize) -> String {
    format!(
        "turn {n} {HOSTILE}\n::error::owned by the session {n}\n::stop-commands::tok{n}\n  ::warning::indented\n##[error]legacy\nend {n}"
    )
}

/// A tool name long enough to be cut in the middle of its OSC sequence in the report columns.
fn hostile_tool(n: usize) -> String {
    format!("run\u{1b}]0;t{n}\u{7}_\u{1b}]52;c;aGk=\u{7}\u{202e}tool")
}

fn session() -> String {
    let mut messages = vec![serde_json::json!({"role": "system", "content": hostile_text(0)})];
    for n in 1..=4 {
        let id = format!("call\u{1b}[2J{n}\u{9b}\r");
        messages.push(serde_json::json!({"role": "user", "content": hostile_text(n)}));
        messages.push(serde_json::json!({
            "role": "assistant",
            "content": hostile_text(n + 10),
            "tool_calls": [{"id": id, "type": "function",
                "function": {"name": hostile_tool(n), "arguments": format!("{{\"cmd\": {:?}}}", hostile_text(n))}}]
        }));
        messages.push(serde_json::json!({"role": "tool", "tool_call_id": id, "content": hostile_text(n + 20)}));
    }
    messages.push(serde_json::json!({"role": "assistant", "content": hostile_text(99)}));
    serde_json::to_string_pretty(&serde_json::json!({"messages": messages})).unwrap_or_default()
}

/// A file name carrying the same attacks (no `/`, no NUL).
fn hostile_name(stem: &str) -> String {
    format!("{stem}\u{1b}]0;name\u{7}\u{1b}[2J\u{202e}\r::error::x.json")
}

struct Fixture {
    _dir: tempfile::TempDir,
    session: PathBuf,
    broken: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join(hostile_name("s"));
    std::fs::write(&session, session_bytes()).unwrap();
    let broken = dir.path().join(hostile_name("broken"));
    std::fs::write(&broken, b"this is not a session\n").unwrap();
    Fixture {
        _dir: dir,
        session,
        broken,
    }
}

fn session_bytes() -> Vec<u8> {
    session().into_bytes()
}

fn run(args: &[&str], file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args.iter().map(std::ffi::OsStr::new))
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn is_forbidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// Lines `--format github` writes itself: an annotation with a file property.
fn own_annotation(line: &str) -> bool {
    ["::error file=", "::warning file=", "::notice file="]
        .iter()
        .any(|p| line.starts_with(p))
}

fn assert_no_controls(what: &str, text: &str) {
    if let Some((i, c)) = text.char_indices().find(|(_, c)| is_forbidden(*c)) {
        let from = text[..i].char_indices().rev().nth(40).map_or(0, |(j, _)| j);
        panic!(
            "{what}: U+{:04X} reaches the output after {:?}",
            c as u32,
            &text[from..i]
        );
    }
}

fn assert_inert(what: &str, stream: &[u8], github: bool) {
    let text = String::from_utf8_lossy(stream);
    assert_no_controls(what, &text);
    for line in text.lines() {
        let start = line.trim_start();
        let workflow = start.starts_with("::") || start.starts_with("##[");
        assert!(
            !workflow || (github && own_annotation(line)),
            "{what}: a line starts a workflow command: {line:?}"
        );
    }
}

fn assert_run_inert(args: &[&str], file: &Path, github: bool) {
    let out = run(args, file);
    let what = args.join(" ");
    assert!(out.status.code().is_some_and(|c| c <= 2), "{what}: {out:?}");
    assert_inert(&format!("{what} (stdout)"), &out.stdout, github);
    assert_inert(&format!("{what} (stderr)"), &out.stderr, false);
}

#[test]
fn the_fixture_is_a_session_that_fires_and_carries_every_attack() {
    let f = fixture();
    let out = run(
        &[
            "plan",
            "--preset",
            "dimos",
            "--set",
            "context_window=200",
            "--json",
        ],
        &f.session,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["trigger"]["fired"], true);
    // JSON keeps the text exactly (escaped by serde), so the attack is really in the session.
    assert!(doc.to_string().contains("::error::owned"));
    assert!(doc.to_string().contains("\\u001b]52;c;"));
}

#[test]
fn report_prints_no_control_sequence_or_workflow_command() {
    let f = fixture();
    for format in ["text", "md"] {
        assert_run_inert(&["report", "--format", format], &f.session, false);
    }
}

#[test]
fn html_pages_carry_no_control_character_either() {
    let f = fixture();
    for args in [
        &["report", "--format", "html"][..],
        &[
            "plan",
            "--preset",
            "dimos",
            "--set",
            "context_window=200",
            "--format",
            "html",
        ][..],
    ] {
        let out = run(args, &f.session);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_no_controls(&args.join(" "), &String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn plan_diff_compact_and_replay_print_none_either() {
    let f = fixture();
    let preset = ["--preset", "dimos", "--set", "context_window=200"];
    for command in ["plan", "diff", "compact", "replay"] {
        let formats: &[&str] = if command == "replay" {
            &["text"]
        } else {
            &["text", "md"]
        };
        for format in formats {
            let mut args = vec![command];
            args.extend(preset);
            args.extend(["--format", format]);
            assert_run_inert(&args, &f.session, false);
        }
    }
}

#[test]
fn check_prints_none_in_any_format_and_keeps_its_own_annotations() {
    let f = fixture();
    for format in ["text", "md", "github", "junit"] {
        let args = [
            "check",
            "--preset",
            "dimos",
            "--set",
            "context_window=200",
            "--format",
            format,
        ];
        let out = Command::new(env!("CARGO_BIN_EXE_ctxray"))
            .args(args)
            .arg(&f.session)
            .arg(&f.broken)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let what = format!("check --format {format}");
        assert_inert(&format!("{what} (stdout)"), &out.stdout, format == "github");
        assert_inert(&format!("{what} (stderr)"), &out.stderr, false);
        if format == "github" {
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.lines().any(own_annotation), "{text}");
        }
    }
}

#[test]
fn errors_naming_a_hostile_file_are_inert() {
    let f = fixture();
    for command in [&["report"][..], &["plan", "--preset", "dimos"][..]] {
        let out = run(command, &f.broken);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(!out.stderr.is_empty());
        assert_inert(&format!("{command:?} error"), &out.stderr, false);
    }
}
