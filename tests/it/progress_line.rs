//! The progress line of printed commands on a large session: drawn on stderr only when stderr
//! is a terminal (util-linux `script` gives the binary a pseudo-terminal), erased before the
//! output, and never a byte of it when stderr is a pipe.

use crate::write;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A generated Claude Code session just over the size that shows a line.
fn large_session(dir: &Path) -> PathBuf {
    let path = dir.join("large.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    write::write_session(write::Shape::ClaudeCode, 21 << 20, 11, &mut out).unwrap();
    drop(out);
    path
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn large_input_with_piped_stderr_prints_nothing_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let session = large_session(dir.path());
    let s = session.to_str().unwrap();
    for args in [
        vec!["report", "--json", "--no-cache", s],
        vec!["plan", "--preset", "codex", "--json", "--no-cache", s],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_ctxray"))
            .args(&args)
            .env("CTXRAY_CACHE_DIR", dir.path().join("cache"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        let _: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    }
}

/// Runs `args` in a pseudo-terminal with stdout to `stdout_file`; returns what the terminal got.
fn in_pty(args: &str, stdout_file: &Path) -> Vec<u8> {
    let bin = env!("CARGO_BIN_EXE_ctxray");
    let cmd = format!(
        "stty cols 120 rows 30; {bin} {args} > '{}'",
        stdout_file.display()
    );
    let typescript = tempfile::NamedTempFile::new().expect("a typescript file");
    let mut child = Command::new("script")
        .args(["-q", "-e", "-c", &cmd])
        .arg(typescript.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("util-linux `script` is needed for the pseudo-terminal tests");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{args}: {:?}", out.status);
            return out.stdout;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{args}: hung");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn on_a_terminal_the_line_shows_while_loading_and_is_gone_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let session = large_session(dir.path());
    let json = dir.path().join("out.json");
    let args = format!("report --json --no-cache '{}'", session.display());
    let tty = in_pty(&args, &json);
    // Loading a 21 MB session takes longer than one redraw period: the line names the phase
    // it is in (reading the file, or counting, which may now be over within one period) and
    // how far it has come.
    assert!(
        contains(&tty, b"ctxray: reading ") || contains(&tty, b"ctxray: counting tokens "),
        "{:?}",
        String::from_utf8_lossy(&tty)
    );
    assert!(contains(&tty, b"% of "));
    // Drawn in place, and erased: the screen ends blank.
    assert!(contains(&tty, b"\r\x1b[K"));
    let mut screen = vt100::Parser::new(30, 120, 0);
    screen.process(&tty);
    assert_eq!(screen.screen().contents().trim(), "");
    // The output itself is untouched.
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(report["total_tokens"].as_u64().unwrap() > 1_000_000);
}

#[test]
fn a_small_input_draws_no_line_even_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let small =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/claude-code-demo.jsonl");
    let tty = in_pty(
        &format!("report --json --no-cache '{}'", small.display()),
        &json,
    );
    assert!(
        !contains(&tty, b"ctxray: "),
        "{:?}",
        String::from_utf8_lossy(&tty)
    );
    let _: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
}

/// A replay that runs for seconds (Agent Framework's 1.23 summarization compacts at nearly
/// every check on a generated session of 4 MB) draws where it stands on a terminal, and
/// erases it; with stderr piped it writes nothing there.
#[test]
fn a_long_replay_on_a_terminal_says_how_far_it_has_come() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("replay.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&session).unwrap());
    write::write_session(write::Shape::ClaudeCode, 4 << 20, 11, &mut out).unwrap();
    drop(out);
    let json = dir.path().join("out.json");
    let args = format!(
        "replay --preset agent-framework --json --no-cache '{}'",
        session.display()
    );
    let tty = in_pty(&args, &json);
    let shown = String::from_utf8_lossy(&tty);
    assert!(
        contains(&tty, b"ctxray: replaying under agent-framework"),
        "{shown:?}"
    );
    assert!(contains(&tty, b" \xc2\xb7 check "), "{shown:?}");
    assert!(contains(&tty, b" compactions \xc2\xb7 "), "{shown:?}");
    let mut screen = vt100::Parser::new(30, 120, 0);
    screen.process(&tty);
    assert_eq!(screen.screen().contents().trim(), "");
    let replay: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(replay["compactions"].as_array().unwrap().len() > 100);
    let piped = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args([
            "replay",
            "--preset",
            "agent-framework",
            "--json",
            "--no-cache",
        ])
        .arg(&session)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert!(
        piped.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&piped.stderr)
    );
    assert_eq!(piped.stdout, std::fs::read(&json).unwrap());
}
