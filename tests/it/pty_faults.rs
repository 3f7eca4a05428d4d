//! The inspector in a real pseudo-terminal when something goes wrong while it runs. A long
//! computation (an offline compaction of a large session): it says it is working, `q` quits at
//! once, and a signal leaves the terminal restored — the computation is abandoned, not waited
//! for. A followed file broken and then repaired: the error shows, then goes.
//!
//! The screen is read through a terminal emulator as it arrives; keys are sent when the
//! screen shows what they answer, not after fixed delays.

use crate::support::pty;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pty::Pty;

/// An OpenAI chat session of about `bytes` bytes: tool calls, results and prose drawn from a
/// vocabulary by a fixed generator, so that compacting it takes a while.
fn write_session(path: &std::path::Path, bytes: usize) {
    const WORDS: &[&str] = &[
        "context",
        "window",
        "token",
        "compaction",
        "summary",
        "threshold",
        "cache",
        "build",
        "latency",
        "refactor",
        "module",
        "function",
        "request",
        "response",
        "memory",
        "session",
        "tool",
        "result",
        "config",
        "benchmark",
        "parser",
        "message",
        "history",
        "agent",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut prose = |n: usize| -> String {
        (0..n)
            .map(|_| {
                let r = next();
                match r % 11 {
                    0 => format!(
                        "src/{}_{}.rs",
                        WORDS[(r >> 8) as usize % WORDS.len()],
                        r % 997
                    ),
                    1 => format!("{}", r % 100_000),
                    _ => WORDS[(r >> 8) as usize % WORDS.len()].to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut messages =
        vec![serde_json::json!({"role": "system", "content": "You are a coding agent."})];
    let mut size = 0;
    let mut i = 0;
    while size < bytes {
        let id = format!("call_{i}");
        let batch = [
            serde_json::json!({"role": "user", "content": prose(60)}),
            serde_json::json!({"role": "assistant", "content": prose(20), "tool_calls": [{
                "id": id, "type": "function",
                "function": {"name": "bash", "arguments": serde_json::json!({"command": prose(8)}).to_string()}
            }]}),
            serde_json::json!({"role": "tool", "tool_call_id": id, "content": prose(150)}),
        ];
        for m in batch {
            size += m.to_string().len();
            messages.push(m);
        }
        i += 1;
    }
    let doc = serde_json::json!({"model": "gpt-4o", "messages": messages});
    std::fs::write(path, doc.to_string()).unwrap();
}

/// A session whose offline hermes compaction takes at least 2 s on this machine (timed with
/// `ctxray compact`): 16 MB, doubled until it does, at most 256 MB.
fn large_session() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy-session-5813.json");
    let mut size = 16 << 20;
    loop {
        write_session(&path, size);
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_ctxray"))
            .args(["compact", path.to_str().unwrap(), "--preset", "hermes"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        if start.elapsed() >= Duration::from_secs(2) || size >= 256 << 20 {
            return dir;
        }
        size *= 2;
    }
}

/// The inspector on a large session, compacting it (the status line says it is working).
fn compacting() -> (tempfile::TempDir, Pty) {
    let dir = large_session();
    let path = dir.path().join("busy-session-5813.json");
    let mut pty = Pty::start(&format!("{} --preset hermes", path.display()));
    pty.wait_for("hermes fires", Duration::from_secs(60));
    pty.send("c");
    pty.wait_for("compacting (offline)…", Duration::from_secs(10));
    (dir, pty)
}

#[test]
fn q_quits_at_once_while_a_compaction_runs() {
    let (_dir, mut pty) = compacting();
    pty.send("q");
    let (code, took) = pty.wait_exit(Duration::from_secs(60));
    let out = pty.output();
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    assert!(
        !pty.screen().contains("compaction 1 ·"),
        "the compaction ended before q was obeyed ({took:?}): {}",
        pty.screen()
    );
    assert!(took < Duration::from_secs(2), "q took {took:?}");
    assert!(left_the_alternate_screen(&out), "alternate screen not left");
}

#[test]
fn sigterm_during_a_compaction_restores_the_terminal_and_exits_143() {
    let (_dir, mut pty) = compacting();
    let pid = pty.child.id();
    // `script` runs the binary with exec: its child is the one to signal.
    let children =
        std::fs::read_to_string(ctxray::procfs::path(format!("{pid}/task/{pid}/children")))
            .unwrap();
    let target = children
        .split_whitespace()
        .next()
        .expect("no child process");
    assert!(Command::new("kill")
        .args(["-TERM", target])
        .status()
        .unwrap()
        .success());
    let (code, took) = pty.wait_exit(Duration::from_secs(60));
    let out = pty.output();
    assert_eq!(code, Some(143), "{}", String::from_utf8_lossy(&out));
    assert!(took < Duration::from_secs(2), "SIGTERM took {took:?}");
    assert!(left_the_alternate_screen(&out), "alternate screen not left");
    let on = out.windows(8).rposition(|w| w == b"\x1b[?1000h").unwrap();
    let off = out.windows(8).rposition(|w| w == b"\x1b[?1000l");
    assert!(
        off.is_some_and(|off| off > on),
        "mouse capture not released"
    );
}

fn left_the_alternate_screen(out: &[u8]) -> bool {
    let enter = out.windows(8).rposition(|w| w == b"\x1b[?1049h");
    let leave = out.windows(8).rposition(|w| w == b"\x1b[?1049l");
    matches!((enter, leave), (Some(e), Some(l)) if l > e)
}

#[test]
fn a_followed_file_broken_then_repaired_clears_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("followed.jsonl");
    let good = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl"),
    )
    .unwrap();
    std::fs::write(&path, &good).unwrap();
    let mut pty = Pty::start(&format!("--follow {}", path.display()));
    pty.wait_for("23 of 23", Duration::from_secs(20));
    // Replaced, as an editor or a log rotation does: first by binary data, then by the session.
    let swap = dir.path().join("swap");
    let binary: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&swap, binary).unwrap();
    std::fs::rename(&swap, &path).unwrap();
    pty.wait_for("binary data", Duration::from_secs(10));
    std::fs::write(&swap, &good).unwrap();
    std::fs::rename(&swap, &path).unwrap();
    let start = Instant::now();
    while pty.screen().contains("binary data") && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let screen = pty.screen();
    assert!(
        !screen.contains("binary data"),
        "the error stayed:\n{screen}"
    );
    assert!(screen.contains("23 of 23"), "{screen}");
    pty.send("q");
    assert_eq!(pty.wait_exit(Duration::from_secs(10)).0, Some(0));
}
