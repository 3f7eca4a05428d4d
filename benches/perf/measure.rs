//! Measurements of one session file: the first frames, token accounting against tiktoken-rs,
//! every preset's plan, the report binary's time and peak memory; and frame times at many rows.

use ctxray::compaction::presets;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset::{self, PlanInput};
use ctxray::formats::load_bytes;
use ctxray::session::{Part, Role, Session};
use ctxray::tokens::{count_session, Counter, Encoding, ImageCosting, Registry};
use ctxray::tui::app::App;
use ctxray::tui::state::AppState;
use ctxray::tui::theme::Theme;
use ctxray::tui::{update::update, views, Msg};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

use crate::args::Args;
use crate::write::Shape;

pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed().as_secs_f64())
}

/// CPU seconds this process has used (user + system).
pub fn cpu_secs() -> f64 {
    // SAFETY: `getrusage` only writes the struct it is given, zeroed here first.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return 0.0;
        }
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

pub fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e6)
}

/// Every text the accounting counts, in message order (what `message_tokens` sums over).
pub fn texts_of(session: &Session) -> Vec<&str> {
    fn part<'a>(p: &'a Part, out: &mut Vec<&'a str>) {
        match p {
            Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => {
                out.push(text)
            }
            Part::ToolCall {
                name, arguments, ..
            } => {
                out.push(name);
                out.push(arguments);
            }
            Part::ToolResult { content, .. } => content.iter().for_each(|c| part(c, out)),
            Part::Image(_) | Part::Opaque { .. } => {}
        }
    }
    let mut out = Vec::new();
    for m in session.messages.iter().filter(|m| m.role != Role::Event) {
        m.parts.iter().for_each(|p| part(p, &mut out));
    }
    out
}

/// Counts `texts` on every core with `count`; returns (tokens, wall s, cpu s).
fn count_parallel(texts: &[&str], count: impl Fn(&str) -> usize + Sync) -> (usize, f64, f64) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let cpu = cpu_secs();
    let (tokens, wall) = timed(|| {
        std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut sum = 0;
                        loop {
                            let i = next.fetch_add(64, Ordering::Relaxed);
                            let Some(chunk) = texts.get(i..(i + 64).min(texts.len())) else {
                                break;
                            };
                            if chunk.is_empty() {
                                break;
                            }
                            sum += chunk.iter().map(|t| count(t)).sum::<usize>();
                        }
                        sum
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
        })
    });
    (tokens, wall, cpu_secs() - cpu)
}

pub fn render(state: &mut AppState, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    let mut layout = None;
    terminal
        .draw(|f| layout = Some(views::render(f, state, &Theme::dark())))
        .expect("draw");
    if let Some(layout) = layout {
        update(state, Msg::Frame(layout));
    }
    let buf = terminal.backend().buffer();
    buf.content().iter().map(|c| c.symbol()).collect()
}

fn loading_frame(path: &Path) -> f64 {
    let progress = std::sync::Arc::new(ctxray::progress::Progress::new());
    let app = App::loading(path.display().to_string(), progress, None, vec![], false);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    timed(|| {
        terminal
            .draw(|f| {
                views::render_app(f, &app, &Theme::dark());
            })
            .expect("draw")
    })
    .1
}

/// The inspector's own load of `path` (the background task it runs), to its first frame and
/// to the frame with the whole session: a large file is shown while it is read.
fn inspector_open(path: &Path) {
    let loader = ctxray::tui::tasks::Loader {
        from: None,
        registry: Registry::bundled(),
        options: Options::default(),
        limits: Default::default(),
    };
    let progress = std::sync::Arc::new(ctxray::progress::Progress::new());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let start = Instant::now();
    ctxray::tui::tasks::spawn_load(
        ctxray::tui::tasks::Source::Path(path.to_path_buf()),
        loader,
        progress,
        tx,
    );
    let mut state: Option<AppState> = None;
    let mut first = None;
    let mut first_messages = 0;
    while let Some(msg) = rx.blocking_recv() {
        match msg {
            Msg::Loaded(analysis) => {
                let mut s = AppState::new(*analysis, None, vec![]);
                render(&mut s, 120, 40);
                first = Some(start.elapsed().as_secs_f64());
                first_messages = s.len();
                state = Some(s);
            }
            Msg::LoadFailed(e) => panic!("load failed: {e}"),
            // The task ends (and the channel closes) when the whole session was sent.
            other => {
                if let Some(s) = state.as_mut() {
                    update(s, other);
                    render(s, 120, 40);
                }
            }
        }
    }
    let all = start.elapsed().as_secs_f64();
    let n = state.as_ref().map_or(0, |s| s.len());
    println!(
        "  inspector open (its load task): first frame {:.3} s ({first_messages} messages shown) · whole session on screen {all:.3} s ({n} messages)",
        first.unwrap_or(f64::NAN)
    );
}

pub fn session(path: &Path, shape: Shape, args: &Args) {
    let shown = path.display().to_string();
    let file_len = std::fs::metadata(path).map_or(0, |m| m.len());
    println!("\n== {} · {} MB", shape.name(), mb(file_len));
    let loading = loading_frame(path);
    if !args.count_only {
        inspector_open(path);
    }
    let (bytes, read) = timed(|| std::fs::read(path).expect("read"));
    let cpu = cpu_secs();
    let (session, parse) = timed(|| {
        load_bytes(bytes, Some(path.to_path_buf()), &shown, None).expect("generated session loads")
    });
    let parse_cpu = cpu_secs() - cpu;
    let texts = texts_of(&session);
    let text_bytes: usize = texts.iter().map(|t| t.len()).sum();
    println!(
        "  read {read:.3} s · parse {parse:.3} s (cpu {parse_cpu:.2} s) · {} messages · {} texts, {} MB of text",
        session.messages.len(),
        texts.len(),
        mb(text_bytes as u64)
    );
    let counter = Counter::new(Encoding::O200kBase);
    let (tokens, wall, cpu) = count_parallel(&texts, |t| counter.count(t));
    let rate = |wall: f64| {
        format!(
            "{:.1} MB/s of text · {:.2} M tokens/s",
            text_bytes as f64 / 1e6 / wall,
            tokens as f64 / 1e6 / wall
        )
    };
    println!("  count o200k (bpe-openai, all cores): {tokens} tokens in {wall:.3} s (cpu {cpu:.2} s) · {}", rate(wall));
    if args.reference {
        let (ref_tokens, ref_wall, ref_cpu) =
            count_parallel(&texts, |t| counter.count_reference(t));
        assert_eq!(ref_tokens, tokens, "the backends disagree");
        println!(
            "  count o200k (tiktoken-rs, all cores): {ref_tokens} tokens in {ref_wall:.3} s (cpu {ref_cpu:.2} s) · {} · bpe-openai is {:.2}× faster",
            rate(ref_wall),
            ref_wall / wall
        );
    }
    if let Some(dump) = &args.dump_texts {
        let mut out = std::io::BufWriter::new(std::fs::File::create(dump).expect("dump file"));
        for t in &texts {
            serde_json::to_writer(&mut out, t).expect("write");
            out.write_all(b"\n").expect("write");
        }
        out.flush().expect("flush");
        println!("  texts written to {}", dump.display());
    }
    if args.count_only {
        println!("count_result {{\"tokens\":{tokens},\"wall\":{wall},\"cpu\":{cpu},\"text_bytes\":{text_bytes}}}");
        return;
    }
    let (counts, count_s) = timed(|| count_session(&session, &counter, ImageCosting::Openai));
    println!(
        "  count_session: {count_s:.3} s, {} tokens with overhead",
        counts.total()
    );
    drop(texts);
    let registry = Registry::bundled();
    let (analysis, analyse) = timed(|| Analysis::new(session, &registry, &Options::default()));
    plans(&analysis, args.all_presets);
    let (mut state, state_s) = timed(|| AppState::new(analysis, None, vec![]));
    let (_, frame) = timed(|| render(&mut state, 120, 40));
    println!(
        "  first frame: loading screen {:.2} ms; inspector {:.3} s = read {read:.3} + parse {parse:.3} + analyse {analyse:.3} + state {state_s:.3} + render {:.4}",
        loading * 1e3,
        read + parse + analyse + state_s + frame,
        frame
    );
    drop(state);
    report_binary(path, file_len);
}

/// Presets timed by default: the formats' own frameworks and the generic one.
const PLAN_PRESETS: &[&str] = &["codex", "claude-code", "dimos", "custom"];

fn plans(analysis: &Analysis, all: bool) {
    let input = PlanInput::new(analysis);
    let mut line = String::from("  plan:");
    let chosen = presets::all()
        .into_iter()
        .filter(|p| all || PLAN_PRESETS.contains(&p.name()));
    for p in chosen {
        let (result, secs) = timed(|| preset::run(p, &input, &[]));
        let fired = match result {
            Ok(plan) if plan.trigger.fired => "fired",
            Ok(_) => "not fired",
            Err(_) => "error",
        };
        line.push_str(&format!(" {} {:.3} s ({fired});", p.name(), secs));
    }
    println!("{line}");
}

/// GNU `time`, which reports a child's peak memory: `CTXRAY_TIME` if set, else the first
/// `time` on `PATH` (the shell's `time` is a keyword, not a program).
pub fn gnu_time() -> std::path::PathBuf {
    if let Some(given) = std::env::var_os("CTXRAY_TIME") {
        return given.into();
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("time"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| "time".into())
}

/// `ctxray report --json` as a user runs it the first time (no count cache): wall, CPU and peak
/// memory (by GNU `time`).
fn report_binary(path: &Path, file_len: u64) {
    let bin = env!("CARGO_BIN_EXE_ctxray");
    let out = std::process::Command::new(gnu_time())
        .args(["-f", "%e %U %S %M", bin, "report", "--json", "--no-cache"])
        .arg(path)
        .stdout(std::process::Stdio::null())
        .output();
    let Ok(out) = out else {
        println!("  report binary: GNU time not available (set CTXRAY_TIME)");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or("");
    let f: Vec<f64> = last
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if let [wall, user, sys, kb] = f[..] {
        println!(
            "  `ctxray report --json`: wall {wall:.2} s · cpu {:.2} s · peak {:.0} MB = {:.2}× the file",
            user + sys,
            kb / 1e3,
            kb * 1e3 / file_len as f64
        );
    } else {
        println!("  report binary: unexpected output {last:?}");
    }
}

/// Frame times with `n` messages: at the top and at the bottom of the list, moving each frame.
pub fn frames(path: &Path, n: usize) {
    let bytes = std::fs::read(path).expect("read");
    let session = load_bytes(bytes, None, "many", None).expect("loads");
    let messages = session.messages.len();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    let mut state = AppState::new(analysis, None, vec![]);
    render(&mut state, 160, 48);
    let run = |state: &mut AppState, step: fn() -> Msg| {
        let mut times = Vec::new();
        for _ in 0..200 {
            update(state, step());
            times.push(timed(|| render(state, 160, 48)).1 * 1e3);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        (
            times.iter().sum::<f64>() / times.len() as f64,
            times[times.len() * 99 / 100],
        )
    };
    let (top_avg, top_p99) = run(&mut state, || Msg::Down);
    update(&mut state, Msg::Bottom);
    let (bottom_avg, bottom_p99) = run(&mut state, || Msg::Up);
    println!(
        "\n== frame at {messages} messages (asked {n}), 160×48: top avg {top_avg:.2} ms (p99 {top_p99:.2}); bottom avg {bottom_avg:.2} ms (p99 {bottom_p99:.2})"
    );
}
