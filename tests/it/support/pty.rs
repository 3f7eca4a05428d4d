//! The binary in a real pseudo-terminal (util-linux `script`), its output collected as it
//! arrives and read through a terminal emulator: keys can be sent when the screen shows what
//! they answer, not after fixed delays.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The binary running in `script`'s pseudo-terminal, its output collected as it comes.
pub struct Pty {
    pub child: Child,
    stdin: ChildStdin,
    out: Arc<Mutex<Vec<u8>>>,
    rows: u16,
    cols: u16,
    /// `script`'s own copy of the session, removed with the `Pty`.
    _typescript: tempfile::NamedTempFile,
}

/// A state directory shared by this test process in which the first run has happened.
fn seen_state_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ctxray-pty-state-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("first-run-done"), b"").unwrap();
    dir
}

impl Pty {
    /// `ctxray ARGS` in a 120×30 terminal.
    pub fn start(args: &str) -> Pty {
        Pty::start_with("", 120, 30, args)
    }

    /// `ctxray ARGS` in a `cols`×`rows` terminal, after the shell commands `prefix` (a
    /// `ulimit`, say).
    pub fn start_with(prefix: &str, cols: u16, rows: u16, args: &str) -> Pty {
        Pty::start_env(&[], prefix, cols, rows, args)
    }

    /// [`Pty::start_with`] with `vars` added to the program's environment.
    /// Unless `vars` name a state directory, the program gets one where its first run has
    /// happened (no legend), and the user's own is never written.
    pub fn start_env(vars: &[(&str, &str)], prefix: &str, cols: u16, rows: u16, args: &str) -> Pty {
        let bin = env!("CARGO_BIN_EXE_ctxray");
        let cmd = format!("{prefix}stty cols {cols} rows {rows}; exec {bin} {args}");
        let state = seen_state_dir();
        let typescript = tempfile::NamedTempFile::new().expect("a typescript file");
        let mut child = Command::new("script")
            .args(["-q", "-e", "-c", &cmd])
            .arg(typescript.path())
            .env("CTXRAY_STATE_DIR", &state)
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("util-linux `script` is needed for the pseudo-terminal tests");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&out);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Pty {
            child,
            stdin,
            out,
            rows,
            cols,
            _typescript: typescript,
        }
    }

    pub fn send(&mut self, keys: &str) {
        // The program may already have ended (a test of an error path).
        let _ = self.stdin.write_all(keys.as_bytes());
        let _ = self.stdin.flush();
    }

    /// The screen as the output so far leaves it.
    pub fn screen(&self) -> String {
        let mut term = vt100::Parser::new(self.rows, self.cols, 0);
        term.process(&self.out.lock().unwrap());
        term.screen().contents()
    }

    /// Waits until the screen holds `needle`; panics with the screen after `limit`.
    pub fn wait_for(&self, needle: &str, limit: Duration) {
        self.wait_until(needle, |screen| screen.contains(needle), limit);
    }

    /// Waits until `ready` holds of the screen; panics with the screen after `limit`, saying
    /// it waited for `what`.
    pub fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool, limit: Duration) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if ready(&self.screen()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("{what:?} never shown; the screen:\n{}", self.screen());
    }

    /// Waits until the output so far (every frame drawn, not only the last) holds `needle`;
    /// panics with the screen after `limit`.
    pub fn wait_drawn(&self, needle: &str, limit: Duration) {
        let start = Instant::now();
        while start.elapsed() < limit {
            let out = self.output();
            if out.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("{needle:?} never drawn; the screen:\n{}", self.screen());
    }

    /// Waits for the program to end: its status and how long that took.
    pub fn wait_exit(&mut self, limit: Duration) -> (Option<i32>, Duration) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status.code(), start.elapsed());
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return (None, start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn output(&self) -> Vec<u8> {
        self.out.lock().unwrap().clone()
    }
}
