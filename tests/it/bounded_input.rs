//! Input that never ends, or that costs more than its content, against the release binary:
//! an endless FIFO or endless stdin given as the source, an endless config, a conversation
//! directory whose event files are a device and a FIFO, a followed file replaced by a link to an
//! endless FIFO,
//! a JSONL line over the limit, and millions of records that carry nothing. Each child runs
//! under an address-space cap and a deadline, so a reader without a bound fails the test
//! instead of taking the machine's memory; its peak memory is read back.

use crate::support::bounded;
use crate::support::devices::{endless, CharDevice};

use crate::support::pty;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

const DEADLINE: Duration = Duration::from_secs(120);
/// The address space a child may take: far above what a bounded read needs.
const CAP: u64 = 3 << 30;

fn run(args: &[&str]) -> bounded::Run {
    bounded::run_capped(args, Stdio::null(), CAP, DEADLINE)
}

#[test]
fn an_endless_fifo_given_as_the_source_is_refused_at_the_input_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let zero = endless(&dir.path().join("zero")).display().to_string();
    let run = run(&["report", &zero, "--max-input", "64M"]);
    run.assert_refused(
        "report of the endless FIFO",
        &[
            format!("{zero}: more than 64 MiB read from a non-regular file").as_str(),
            "(raise with --max-input SIZE)",
        ],
    );
    assert!(
        run.peak_rss < 400 << 20,
        "peaked at {} MB",
        run.peak_rss >> 20
    );
}

#[test]
fn stdin_that_never_ends_is_refused_at_the_input_limit() {
    for command in ["report", "plan"] {
        let mut args = vec![command, "-", "--max-input", "32M"];
        if command == "plan" {
            args.extend(["--preset", "claude-code"]);
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let zero =
            std::fs::File::open(endless(&dir.path().join("zero"))).expect("the endless FIFO");
        let run = bounded::run_capped(&args, Stdio::from(zero), CAP, DEADLINE);
        run.assert_refused(
            &format!("{command} - < the endless FIFO"),
            &[
                "<stdin>: more than 32 MiB read from a non-regular file",
                "--max-input SIZE",
            ],
        );
        assert!(
            run.peak_rss < 400 << 20,
            "peaked at {} MB",
            run.peak_rss >> 20
        );
    }
}

#[test]
fn a_config_that_never_ends_or_is_too_large_is_refused() {
    let session = fixture("claude-code/mixed.jsonl");
    let endless_dir = tempfile::tempdir().expect("temp dir");
    let zero = endless(&endless_dir.path().join("zero"))
        .display()
        .to_string();
    let run = run(&["report", &session, "--config", &zero]);
    run.assert_refused(
        "--config of the endless FIFO",
        &[
            format!("{zero}: a configuration file larger than 1 MiB").as_str(),
            "(raise with --max-config SIZE)",
        ],
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let big = dir.path().join("big.toml");
    let padding = format!("# {}\n", "x".repeat(1 << 20));
    std::fs::write(
        &big,
        format!("{padding}[models.\"mine\"]\ncontext_window = 1000\n"),
    )
    .expect("write");
    let big_arg = big.display().to_string();
    run_refused_then_read(
        &["report", &session, "--config", &big_arg, "--json"],
        &[],
        &["--max-config", "2M"],
        "a configuration file larger than 1 MiB",
    );
}

/// Refused with `why` with `tight` added to `args`, read with `raise` instead.
fn run_refused_then_read(args: &[&str], tight: &[&str], raise: &[&str], why: &str) -> Value {
    let refused: Vec<&str> = args.iter().chain(tight).copied().collect();
    run(&refused).assert_refused(&refused.join(" "), &[why]);
    let raised: Vec<&str> = args.iter().chain(raise).copied().collect();
    run(&raised).json(&raised.join(" "))
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
        .display()
        .to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn skipped(report: &Value) -> Vec<String> {
    report["source"]["skipped"]
        .as_array()
        .expect("source.skipped")
        .iter()
        .map(|s| s["reason"].as_str().expect("reason").to_string())
        .collect()
}

#[test]
fn event_files_that_are_a_device_or_a_fifo_are_skipped_unread() {
    let dir = tempfile::tempdir().expect("temp dir");
    let conversation = dir.path().join("conversation");
    copy_dir(Path::new(&fixture("openhands/conversation")), &conversation);
    let events = conversation.join("events");
    let mut names: Vec<String> = std::fs::read_dir(&events)
        .expect("events")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let (device, fifo) = (&names[3], &names[5]);
    std::fs::remove_file(events.join(device)).expect("rm");
    let char_device = CharDevice::open();
    std::os::unix::fs::symlink(char_device.path(), events.join(device)).expect("symlink");
    std::fs::remove_file(events.join(fifo)).expect("rm");
    let c_path = std::ffi::CString::new(events.join(fifo).display().to_string()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0, "mkfifo");
    let conv = conversation.display().to_string();
    let report = run(&["report", &conv, "--json"]).json("report of the conversation");
    let reasons = skipped(&report);
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with(device.as_str()) && r.contains("not a regular file (a device)")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with(fifo.as_str()) && r.contains("not a regular file (a FIFO)")),
        "{reasons:?}"
    );
    assert!(!report["messages"].as_array().expect("messages").is_empty());
}

#[test]
fn a_jsonl_line_over_the_limit_is_refused_with_its_number() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("long-line.jsonl");
    let session = std::fs::read_to_string(fixture("claude-code/mixed.jsonl")).expect("fixture");
    let mut lines: Vec<String> = session.lines().map(str::to_string).collect();
    let long = format!(r#"{{"type":"progress","data":"{}"}}"#, "z".repeat(3 << 20));
    lines.insert(2, long);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let shown = path.display().to_string();
    let report = run_refused_then_read(
        &["report", &shown, "--json"],
        &["--max-line", "2M"],
        &[],
        &format!("{shown}:3: a line longer than 2 MiB (raise with --max-line SIZE)"),
    );
    assert!(!report["messages"].as_array().expect("messages").is_empty());
}

#[test]
fn three_million_empty_records_cost_little() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("empty.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    for _ in 0..3_000_000 {
        file.write_all(b"{}\n").expect("write");
    }
    file.flush().expect("flush");
    drop(file);
    let shown = path.display().to_string();
    for from in ["claude-code", "codex", "openhands"] {
        for command in [vec!["report"], vec!["plan", "--preset", from]] {
            let args: Vec<&str> = command
                .iter()
                .copied()
                .chain([&*shown, "--from", from])
                .collect();
            let what = args.join(" ");
            let run = run(&args);
            run.assert_sane(&what);
            assert_eq!(run.code, Some(0), "{what}: {}", run.stderr);
            assert!(
                run.peak_rss < 300 << 20,
                "{what}: peaked at {} MB for 3,000,000 empty records",
                run.peak_rss >> 20
            );
        }
    }
    let detected = run(&["report", &shown]);
    detected.assert_refused("report without --from", &["not any known session format"]);
    assert!(
        detected.peak_rss < 300 << 20,
        "detection peaked at {} MB",
        detected.peak_rss >> 20
    );
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn a_followed_file_replaced_by_a_link_to_an_endless_fifo_is_not_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("f.jsonl");
    std::fs::copy(fixture("claude-code/mixed.jsonl"), &path).expect("copy");
    let prefix = format!("ulimit -v {}; ", CAP >> 10);
    let mut pty = pty::Pty::start_with(&prefix, 200, 30, &format!("{} --follow", path.display()));
    let limit = Duration::from_secs(20);
    // Followed first, then swapped for a link to an endless FIFO.
    pty.wait_until(
        "the session",
        |screen| screen.contains("mixed.jsonl") || screen.contains("f.jsonl"),
        limit,
    );
    let link = dir.path().join("link");
    let zero = endless(&dir.path().join("zero"));
    std::os::unix::fs::symlink(&zero, &link).expect("symlink");
    std::fs::rename(&link, &path).expect("rename");
    pty.wait_drawn("not a regular file", limit);
    pty.send("q");
    let (code, _) = pty.wait_exit(Duration::from_secs(10));
    let out = pty.output();
    let screen = String::from_utf8_lossy(&out);
    assert_eq!(code, Some(0), "{screen}");
    assert!(!contains(&out, "panicked"), "{screen}");
}
