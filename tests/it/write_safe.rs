//! Hostile command lines on the binary: `-o` at what is not a regular file, numbers beyond any
//! sane range, and a reader that closes stdout early.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

fn ctxray(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("CTXRAY_NO_CACHE", "1")
        .output()
        .unwrap()
}

const DEMO: &str = "fixtures/samples/claude-code-demo.jsonl";

fn refused(out: &std::process::Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
#[test]
fn a_symlink_at_out_is_refused_even_with_force_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("precious.txt");
    std::fs::write(&target, "keep").unwrap();
    let link = dir.path().join("out.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let l = link.to_str().unwrap();
    for args in [
        vec!["compact", DEMO, "--preset", "dimos", "-o", l, "--force"],
        vec!["export", DEMO, "--preset", "dimos", "-o", l, "--force"],
    ] {
        refused(&ctxray(&args), &format!("{l}: is a symbolic link"));
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert_eq!(names(dir.path()), ["out.json", "precious.txt"]);
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_at_out_is_refused_even_with_force_and_stays_a_fifo() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let f = fifo.to_str().unwrap();
    for args in [
        vec!["compact", DEMO, "--preset", "dimos", "-o", f, "--force"],
        vec!["export", DEMO, "--preset", "dimos", "-o", f, "--force"],
    ] {
        refused(&ctxray(&args), &format!("{f}: is a FIFO"));
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        assert_eq!(names(dir.path()), ["out.json"]);
    }
}

/// Read-only: the source does not exist, so without the refusal the command fails on the
/// source before it could write; the refusal must come first and name the device.
#[cfg(unix)]
#[test]
fn a_device_at_out_is_refused_before_anything_is_read_or_written() {
    let device = crate::support::devices::CharDevice::open();
    let null = device.arg();
    for command in ["compact", "export"] {
        let out = ctxray(&[
            command,
            "no/such/session.jsonl",
            "--preset",
            "dimos",
            "-o",
            &null,
            "--force",
        ]);
        refused(&out, &format!("{null}: is a character device"));
    }
}

#[test]
fn export_to_dash_writes_the_page_to_stdout_not_a_file_named_dash() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(["export", "--preset", "dimos", "-o", "-"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(DEMO))
        .current_dir(dir.path())
        .env("CTXRAY_NO_CACHE", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("<!doctype html>"));
    assert!(names(dir.path()).is_empty());
}

#[test]
fn huge_or_negative_numbers_are_usage_errors_not_panics() {
    let max = "18446744073709551615";
    refused(
        &ctxray(&[
            "replay",
            DEMO,
            "--preset",
            "dimos",
            "--set",
            "context_window=6000",
            "--summary-tokens",
            max,
        ]),
        "from 0 to 1000000",
    );
    refused(
        &ctxray(&["report", DEMO, "--window", max]),
        "from 1 to 1000000000000",
    );
    refused(&ctxray(&["report", DEMO, "--window", "0"]), "from 1 to");
    for set in [
        "context_window=9223372036854775807",
        "context_window=-1",
        "trigger_ratio=-0.5",
        "trigger_ratio=1e300",
    ] {
        refused(
            &ctxray(&["plan", DEMO, "--preset", "dimos", "--set", set]),
            "from 0 to 1000000000000",
        );
    }
}

/// A session whose `report --json` is far larger than a pipe's buffer.
fn large_session(dir: &Path) -> std::path::PathBuf {
    let messages: Vec<_> = (0..6000)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            serde_json::json!({"role": role, "content": format!("message {i}: hello there")})
        })
        .collect();
    let path = dir.join("big.json");
    std::fs::write(
        &path,
        serde_json::json!({ "messages": messages }).to_string(),
    )
    .unwrap();
    path
}

#[test]
fn a_reader_that_closes_stdout_early_ends_the_output_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let big = large_session(dir.path());
    for format in ["--json", "--no-color"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ctxray"))
            .args(["report", format])
            .arg(&big)
            .env("CTXRAY_NO_CACHE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 10];
        child.stdout.take().unwrap().read_exact(&mut head).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {stderr}");
        assert!(stderr.is_empty(), "{format}: {stderr}");
    }
}
