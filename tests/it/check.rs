//! `ctxray check` on the binary: exit codes by threshold and unusable input, and each output
//! layout (text lines, GitHub annotations, well-formed JUnit XML, JSON).

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

const CHAT: &str = "fixtures/openai-chat/completion-log.json";
const MIX: &str = "fixtures/langchain/anthropic-openai-mix.json";

/// The file line where CHAT's message #2 (the assistant turn) opens: the line before its
/// content.
fn assistant_line() -> usize {
    let file = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CHAT))
        .unwrap();
    let content = file
        .lines()
        .position(|l| l.contains("The chart is a single white pixel"))
        .unwrap();
    assert_eq!(file.lines().nth(content - 1).map(str::trim), Some("{"));
    content
}

fn check(files: &[&str], extra: &[&str]) -> Output {
    let mut args = vec!["check"];
    args.extend(files);
    args.extend([
        "--preset",
        "openhands",
        "--set",
        "max_size=6",
        "--set",
        "keep_first=1",
    ]);
    args.extend(extra);
    run(&args)
}

#[test]
fn warnings_pass_by_default_and_fail_at_fail_on_warn() {
    let o = check(&[CHAT, MIX], &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = stdout(&o);
    let at = assistant_line();
    assert!(text.contains(&format!(
        "{CHAT}:{at}: warn tool-arguments-dropped: 2 summarized tool call(s)"
    )));
    assert!(text.contains(&format!("{MIX}:")) && text.contains(" warn image-dropped: "));
    assert!(text.contains("(message #2)"));
    // One finding a line, each `file:line: severity code: detail (message #N)` or `file: …`.
    for l in text.lines() {
        let (head, _) = l.split_once(": ").unwrap();
        assert!(head.starts_with(CHAT) || head.starts_with(MIX), "{l}");
    }
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("checked 2 file(s)"), "{err}");

    assert_eq!(
        check(&[CHAT], &["--fail-on", "warn"]).status.code(),
        Some(1)
    );
    assert_eq!(
        check(&[CHAT], &["--fail-on", "info"]).status.code(),
        Some(1)
    );
    assert_eq!(
        check(&[CHAT], &["--fail-on", "error"]).status.code(),
        Some(0)
    );
}

#[test]
fn an_error_finding_fails_the_default_threshold() {
    // A secret in the summarized range is sent to the summarizer: an error.
    let dir = tempfile::tempdir().unwrap();
    let key = format!("sk-proj-{}", "Zq3xW9vB".repeat(5));
    let chat = serde_json::json!([
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": format!("my key is {key}")},
        {"role": "assistant", "content": "noted"},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "bye"},
    ]);
    let path = dir.path().join("leaky.json");
    std::fs::write(&path, serde_json::to_vec(&chat).unwrap()).unwrap();
    let o = check(&[path.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.contains(": error secret-in-summarizer-input: "),
        "{text}"
    );
    assert!(!text.contains(&key[..16]), "{text}");
}

#[test]
fn an_unusable_file_exits_2_and_the_others_are_still_reported() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "this is not json\n").unwrap();
    let bad = bad.to_str().unwrap();
    let o = check(&[CHAT, bad, "missing.jsonl"], &["--fail-on", "warn"]);
    assert_eq!(o.status.code(), Some(2));
    let text = stdout(&o);
    assert!(text.contains(&format!(
        "{CHAT}:{}: warn tool-arguments-dropped",
        assistant_line()
    )));
    assert!(
        text.contains(&format!("{bad}: error unusable-input: {bad}:1")),
        "{text}"
    );
    assert!(
        text.contains("missing.jsonl: error unusable-input: "),
        "{text}"
    );
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
}

#[test]
fn a_bad_preset_or_format_is_refused_before_any_file_is_read() {
    let o = run(&["check", CHAT, "--preset", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty());
    let o = check(&[CHAT], &["--format", "md"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["check", "--preset", "openhands"]);
    assert_eq!(o.status.code(), Some(2), "no SOURCE is a usage error");
}

#[test]
fn github_format_writes_workflow_annotations() {
    let o = check(&[CHAT], &["--format", "github"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines
        .iter()
        .all(|l| l.starts_with("::warning file=") || l.starts_with("::notice file=")));
    assert_eq!(
        lines[0],
        format!("::warning file={CHAT},line={},title=ctxray tool-arguments-dropped::2 summarized tool call(s) are shown as their action class name only: the summarizer never sees their arguments (message #2)", assistant_line())
    );
}

#[test]
fn junit_format_is_well_formed_xml_with_one_case_per_file() {
    use quick_xml::events::Event;
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("a<b>&.jsonl");
    std::fs::write(&bad, "{\"oops\n").unwrap();
    let o = check(
        &[CHAT, MIX, bad.to_str().unwrap()],
        &["--format", "junit", "--fail-on", "warn"],
    );
    assert_eq!(o.status.code(), Some(2));
    let xml = stdout(&o);
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut cases, mut failures, mut errors) = (Vec::new(), 0, 0);
    loop {
        match reader
            .read_event()
            .unwrap_or_else(|e| panic!("not well-formed: {e}\n{xml}"))
        {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == "testcase" => {
                let name = e.try_get_attribute("name").unwrap().unwrap();
                cases.push(
                    name.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .unwrap()
                        .into_owned(),
                );
            }
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == "failure" => failures += 1,
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == "error" => errors += 1,
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(
        cases,
        vec![
            CHAT.to_string(),
            MIX.to_string(),
            bad.to_str().unwrap().to_string()
        ]
    );
    assert_eq!((failures, errors), (2, 1), "{xml}");
    assert!(
        xml.contains("<testsuites name=\"ctxray check\" tests=\"3\" failures=\"2\" errors=\"1\">")
    );
}

#[test]
fn json_format_names_every_file_and_the_verdict() {
    let o = check(&[CHAT, "missing.jsonl"], &["--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["fail_on"], "error");
    assert_eq!(v["exit_code"], 2);
    assert_eq!(v["files"][0]["path"], CHAT);
    assert_eq!(
        v["files"][0]["findings"][0]["code"],
        "tool-arguments-dropped"
    );
    assert_eq!(v["files"][0]["failed"], false);
    assert!(v["files"][1]["error"]
        .as_str()
        .unwrap()
        .contains("missing.jsonl"));
}
