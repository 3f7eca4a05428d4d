//! Runs the binary as a child with a deadline, and reads back how much memory it peaked at.
//!
//! A hung child is killed at the deadline and reported as timed out (no timed assertion: the
//! deadline only keeps a hang from stalling the suite). The child is reaped with `wait4`, so its
//! own peak resident set is known, not the test process's — except that Linux counts in it the
//! high-water mark of the memory the child held before it ran the binary, which is the test
//! process's own (a child is a copy of its parent until `exec`). When the reaped peak is no more
//! than the test process's, the child's high-water mark as the process table (`procfs`) showed
//! it while it ran is taken instead.

use std::ffi::OsStr;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    /// Exit code; `None` when the child was killed by a signal or the deadline.
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// Peak resident set of the child, in bytes.
    pub peak_rss: u64,
}

impl Run {
    /// The run ended by itself, without a panic, a signal or the deadline.
    pub fn assert_sane(&self, what: &str) {
        assert!(!self.timed_out, "{what}: still running at the deadline");
        assert_eq!(self.signal, None, "{what}: killed by a signal");
        assert_ne!(self.code, Some(101), "{what}: panicked: {}", self.stderr);
        assert!(
            !self.stderr.contains("panicked"),
            "{what}: panicked: {}",
            self.stderr
        );
    }

    /// Exit 2 with one line on stderr that contains every one of `wants`, nothing on stdout.
    pub fn assert_refused(&self, what: &str, wants: &[&str]) {
        self.assert_sane(what);
        assert_eq!(self.code, Some(2), "{what}: {}", self.stderr);
        assert_eq!(
            self.stderr.trim_end().lines().count(),
            1,
            "{what}: not one line: {}",
            self.stderr
        );
        for want in wants {
            assert!(
                self.stderr.contains(want),
                "{what}: `{want}` not in: {}",
                self.stderr
            );
        }
        assert!(self.stdout.is_empty(), "{what}: printed to stdout");
    }

    /// Exit 0 and stdout as JSON.
    pub fn json(&self, what: &str) -> serde_json::Value {
        self.assert_sane(what);
        assert_eq!(self.code, Some(0), "{what}: {}", self.stderr);
        serde_json::from_slice(&self.stdout)
            .unwrap_or_else(|e| panic!("{what}: stdout is not JSON: {e}"))
    }
}

/// Runs the binary with `args` (stdin empty), killing it after `deadline`.
#[allow(dead_code)] // Used by some of the test binaries that include this file.
pub fn run<S: AsRef<OsStr>>(args: &[S], deadline: Duration) -> Run {
    let child = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    finish(child, deadline)
}

/// [`run`] with `stdin` given to the child and its address space capped at `cap` bytes, so
/// that a child that would grow without end fails (an allocation error, a signal) instead of
/// taking the machine's memory.
#[allow(dead_code)] // Used by some of the test binaries that include this file.
pub fn run_capped<S: AsRef<OsStr>>(args: &[S], stdin: Stdio, cap: u64, deadline: Duration) -> Run {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_ctxray"));
    command
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let limit = libc::rlimit {
        rlim_cur: cap as libc::rlim_t,
        rlim_max: cap as libc::rlim_t,
    };
    // SAFETY: setrlimit is async-signal-safe and touches only the child's own limits.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    finish(command.spawn().expect("the binary starts"), deadline)
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn finish(mut child: Child, deadline: Duration) -> Run {
    let out = drain(child.stdout.take().expect("stdout piped"));
    let err = drain(child.stderr.take().expect("stderr piped"));
    let pid = child.id() as libc::pid_t;
    // At least what the child inherited: the binary has started (`spawn` returns after `exec`).
    let inherited = own_peak();
    let mut watched = 0u64;
    let mut pause = Duration::from_millis(1);
    let start = Instant::now();
    let mut timed_out = false;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own unreaped child; the pointers are to live locals.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            break;
        }
        assert!(done == 0, "wait4 failed");
        watched = watched.max(high_water(pid).unwrap_or(0));
        if start.elapsed() > deadline && !timed_out {
            timed_out = true;
            let _ = child.kill();
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    }
    let reaped = usage.ru_maxrss.max(0) as u64 * 1024;
    let exited = libc::WIFEXITED(status);
    Run {
        code: exited.then(|| libc::WEXITSTATUS(status)),
        signal: (libc::WIFSIGNALED(status) && !timed_out).then(|| libc::WTERMSIG(status)),
        timed_out,
        stdout: out.join().unwrap_or_default(),
        stderr: String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned(),
        peak_rss: if reaped > inherited || watched == 0 {
            reaped
        } else {
            watched
        },
    }
}

/// The test process's own peak resident set, in bytes.
fn own_peak() -> u64 {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct, filled by the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer is to a live local.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return u64::MAX;
    }
    usage.ru_maxrss.max(0) as u64 * 1024
}

/// A running process's high-water resident set (`VmHWM`), in bytes.
fn high_water(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(ctxray::procfs::path(format!("{pid}/status"))).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
