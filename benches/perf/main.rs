//! The performance budget of DESIGN.md, measured on generated sessions: open to first frame,
//! full token accounting (MB/s, tokens/s, against tiktoken-rs on the same texts), `plan` time,
//! peak memory of `ctxray report`, one frame at 100k messages, follow latency.
//!
//! ```text
//! cargo bench --bench perf -- [--size 100M] [--format claude-code|codex|openai-chat]
//!                             [--reference] [--all-presets] [--many N] [--count-only]
//!                             [--dump-texts FILE] [--dir DIR] [--cache-only]
//!                             [--commands [--timeout SECS] [--runs N]]
//! ```
//! `--commands` prints only the table of every command and preset run through the binary, with
//! each row's budget (`commands::table`), each row the fastest of `--runs` (default 1).
//! `--cache-only` measures only the count cache: counting with an empty and a full memo, the
//! file's write and read, and `ctxray report --json` without the cache, cold and warm.
//! `--reference` also counts with tiktoken-rs (slow); `--dump-texts` writes the counted texts as
//! JSON lines for `tools/bench/compare.py`. Not run by `cargo test`.

#[path = "../../tools/gen-session/text.rs"]
mod text;
#[path = "../../tools/gen-session/write.rs"]
mod write;

mod args;
mod cache;
mod commands;
mod follow;
mod measure;

use std::io::Write;
use std::path::{Path, PathBuf};

use args::Args;
use measure::{mb, timed};
use write::Shape;

fn main() {
    let Some(args) = Args::parse() else {
        // Built as a test (`cargo test --benches`): nothing to measure.
        return;
    };
    std::fs::create_dir_all(&args.dir).expect("bench dir");
    println!(
        "ctxray perf bench: {} cores available, size {} MB",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        mb(args.size)
    );
    for shape in &args.shapes {
        let path = generated(&args.dir, *shape, args.size);
        if args.commands {
            commands::table(&path, args.timeout, args.runs);
            continue;
        }
        if args.cache_only {
            println!("\n== {} · {} MB", shape.name(), mb(args.size));
            cache::cache(&path, &args.dir);
            continue;
        }
        measure::session(&path, *shape, &args);
        if !args.count_only {
            follow::follow(&path, &args.dir);
        }
    }
    if args.many > 0 && !args.count_only && !args.cache_only && !args.commands {
        let path = args.dir.join(format!("many-{}.json", args.many));
        if !path.exists() {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
            write::write_many_messages(args.many, 5, &mut out).expect("write");
            out.flush().expect("flush");
        }
        measure::frames(&path, args.many);
    }
}

/// The generated session of `shape` at `size`, written once and reused.
fn generated(dir: &Path, shape: Shape, size: u64) -> PathBuf {
    let path = dir.join(format!("{}-{}.{}", shape.name(), size, shape.extension()));
    if !path.exists() {
        let (written, secs) = timed(|| {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
            let n = write::write_session(shape, size, 7, &mut out).expect("write");
            out.flush().expect("flush");
            n
        });
        println!(
            "generated {} ({} MB) in {secs:.2} s",
            path.display(),
            mb(written)
        );
    }
    path
}
