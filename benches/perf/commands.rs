//! Every command and every preset through the release binary, as a user runs them: wall time
//! and peak memory of each child process, set against `report --json` on the same file and
//! against the file's size, printed as a Markdown table with each row's budget (`plan` and
//! `diff` within 2× of `report`, `replay` within 5×, peak memory within 1.5× of the file).
//! The commands built on them have their budget: `check` (a plan of each file) and `compact`
//! (a plan carried out with the offline summarizer, the history written) 2×, like `plan`;
//! `export` (a plan and its diff, written as a page) 2×, like `diff`.
//!
//! ```text
//! cargo bench --bench perf -- --commands [--size 100M] [--format claude-code] [--timeout 300]
//! ```

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One child's wall time and peak resident memory; `None` when it ran past the timeout.
struct Run {
    wall: Option<Duration>,
    peak_kb: u64,
    /// The exit status (`None`: killed at the timeout).
    code: Option<i32>,
}

/// Runs the binary with `args` (output thrown away), killed after `timeout`. The child is
/// reaped by `wait4`, which also gives its own peak memory (clippy cannot see that).
#[allow(clippy::zombie_processes)]
fn run(args: &[&str], timeout: Duration) -> Run {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the ctxray binary");
    let pid = child.id() as libc::pid_t;
    loop {
        let mut status = 0;
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our own child, `status` and `usage` are valid for writes.
        let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if done == pid {
            return Run {
                wall: Some(start.elapsed()),
                peak_kb: usage.ru_maxrss as u64,
                code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
            };
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Run {
                wall: None,
                peak_kb: 0,
                code: None,
            };
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The presets, as `ctxray presets` names them.
fn presets() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .arg("presets")
        .output()
        .expect("ctxray presets");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Prints the table for one file, each row the fastest of `runs` (a row that fails or times
/// out is not run again).
pub fn table(path: &Path, timeout: Duration, runs: usize) {
    let file = path.to_str().expect("a UTF-8 path");
    let file_kb = std::fs::metadata(path).map_or(1, |m| m.len() / 1024).max(1);
    // The fastest of three: the budgets divide by it, so a slow first run must not loosen them.
    let report = fastest(&["report", file, "--json", "--no-cache"], timeout, 3);
    let base = report.wall.map_or(f64::NAN, |w| w.as_secs_f64());
    println!(
        "\n{} ({} MB)\n\n| command | preset | wall | × report (budget) | peak memory | × file (≤ 1.5) |\n|---|---|--:|--:|--:|--:|",
        path.display(),
        file_kb / 1024
    );
    row("report --json", "", &report, base, 1.0, file_kb);
    for preset in presets() {
        let sets = settings(&preset);
        let label = if sets.is_empty() {
            preset.clone()
        } else {
            format!("{preset} `{}`", sets.join(" "))
        };
        for (command, budget) in COMMANDS {
            let mut args = vec![*command, file, "--preset", preset.as_str()];
            for s in &sets {
                args.extend(["--set", s]);
            }
            args.extend(output(command));
            let r = fastest(&args, timeout, runs);
            row(command, &label, &r, base, *budget, file_kb);
        }
    }
}

/// The commands that take a preset, with their time budget against `report`.
const COMMANDS: &[(&str, f64)] = &[
    ("plan", 2.0),
    ("diff", 2.0),
    ("replay", 5.0),
    ("check", 2.0),
    ("compact", 2.0),
    ("export", 2.0),
];

/// Where a command that writes a file writes it: to stdout, which is thrown away.
fn output(command: &str) -> &'static [&'static str] {
    match command {
        "compact" | "export" => &["-o", "-"],
        _ => &[],
    }
}

/// Whether a child's exit status is a success: `check` exits 1 for a finding that reaches
/// `--fail-on`, which is its answer, not a failure.
fn succeeded(code: Option<i32>, command: &str) -> bool {
    code == Some(0) || (command == "check" && code == Some(1))
}

/// The fastest of `runs` runs of `args`. A first run that fails or times out is the answer
/// (not run again); a later one that does is passed over.
fn fastest(args: &[&str], timeout: Duration, runs: usize) -> Run {
    let ok = |r: &Run| succeeded(r.code, args[0]);
    let mut best = run(args, timeout);
    for _ in 1..runs {
        if best.wall.is_none() || !ok(&best) {
            break;
        }
        let again = run(args, timeout);
        if ok(&again) && again.wall.is_some_and(|w| best.wall.is_some_and(|b| w < b)) {
            best = again;
        }
    }
    best
}

/// The settings a preset refuses to run without, at values a long session would use: a
/// preset not listed here that gains a required setting shows as refused.
fn settings(preset: &str) -> Vec<&'static str> {
    match preset {
        "agent-framework-sliding" => vec!["keep_last_groups=20"],
        "agent-framework-truncation" => vec!["max_n=200", "compact_to=100"],
        "agent-framework-context-window" => vec!["max_output_tokens=4096"],
        "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => vec!["max_tokens=150000"],
        _ => Vec::new(),
    }
}

fn row(command: &str, preset: &str, r: &Run, base: f64, budget: f64, file_kb: u64) {
    let mark = |ok: bool| if ok { "✓" } else { "✗" };
    let (wall, ratio) = match r.wall {
        // A preset that needs a setting (`--set max_messages=…`) refuses to run without one.
        Some(_) if !succeeded(r.code, command.split(' ').next().unwrap_or_default()) => {
            let code = r.code.map_or("a signal".into(), |c| format!("exit {c}"));
            println!("| `{command}` | {preset} | refused ({code}) | — | — | — |");
            return;
        }
        Some(w) => {
            let ratio = w.as_secs_f64() / base;
            (
                format!("{:.2} s", w.as_secs_f64()),
                format!("{ratio:.1}× (≤ {budget}) {}", mark(ratio <= budget)),
            )
        }
        None => ("timed out".to_string(), format!("— (≤ {budget}) ✗")),
    };
    let memory = r.peak_kb as f64 / file_kb as f64;
    let (peak, times) = if r.wall.is_some() {
        (
            format!("{} MB", r.peak_kb / 1024),
            format!("{memory:.2}× {}", mark(memory <= 1.5)),
        )
    } else {
        ("—".into(), "—".into())
    };
    println!("| `{command}` | {preset} | {wall} | {ratio} | {peak} | {times} |");
}
