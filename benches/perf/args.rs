//! The bench's command line.

use std::path::PathBuf;

use crate::write::Shape;

pub struct Args {
    pub size: u64,
    pub shapes: Vec<Shape>,
    pub reference: bool,
    /// Time every preset's plan (some are slow on large sessions), not just `PLAN_PRESETS`.
    pub all_presets: bool,
    /// Only parse, count and dump the texts (for `tools/bench/compare.py`).
    pub count_only: bool,
    /// Only what the count cache saves and costs (`cache::cache`).
    pub cache_only: bool,
    pub dump_texts: Option<PathBuf>,
    pub dir: PathBuf,
    /// Messages of the many-rows session for the frame timing (0: skip).
    pub many: usize,
    /// Only the table of every command and preset through the binary (`commands::table`).
    pub commands: bool,
    /// How long one command of that table may run before it is stopped.
    pub timeout: std::time::Duration,
    /// Runs of each row of that table, the fastest kept (`report` is always the fastest of three).
    pub runs: usize,
}

fn parse_size(s: &str) -> Option<u64> {
    let (digits, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1_000),
        'm' | 'M' => (&s[..s.len() - 1], 1_000_000),
        'g' | 'G' => (&s[..s.len() - 1], 1_000_000_000),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok().map(|n| n * mult)
}

impl Args {
    /// `None` when not run by `cargo bench` (no `--bench` flag): a test build.
    pub fn parse() -> Option<Args> {
        let raw: Vec<String> = std::env::args().skip(1).collect();
        if !raw.iter().any(|a| a == "--bench") {
            return None;
        }
        let mut args = Args {
            size: 100_000_000,
            shapes: Shape::ALL.to_vec(),
            reference: false,
            all_presets: false,
            count_only: false,
            cache_only: false,
            dump_texts: None,
            dir: std::env::temp_dir().join("ctxray-bench"),
            many: 100_000,
            commands: false,
            timeout: std::time::Duration::from_secs(300),
            runs: 1,
        };
        let mut it = raw.into_iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--size" => {
                    args.size = it
                        .next()
                        .and_then(|s| parse_size(&s))
                        .expect("--size N[k|M|G]")
                }
                "--format" => {
                    let name = it.next().unwrap_or_default();
                    args.shapes =
                        vec![Shape::parse(&name).expect("--format claude-code|codex|openai-chat")];
                }
                "--reference" => args.reference = true,
                "--all-presets" => args.all_presets = true,
                "--count-only" => args.count_only = true,
                "--cache-only" => args.cache_only = true,
                "--dump-texts" => args.dump_texts = it.next().map(PathBuf::from),
                "--dir" => args.dir = it.next().map(PathBuf::from).expect("--dir DIR"),
                "--many" => args.many = it.next().and_then(|s| s.parse().ok()).expect("--many N"),
                "--commands" => args.commands = true,
                "--runs" => {
                    args.runs = it
                        .next()
                        .and_then(|s| s.parse().ok())
                        .filter(|&n| n >= 1)
                        .expect("--runs N (1 or more)");
                }
                "--timeout" => {
                    let secs = it
                        .next()
                        .and_then(|s| s.parse().ok())
                        .expect("--timeout SECS");
                    args.timeout = std::time::Duration::from_secs(secs);
                }
                _ => {}
            }
        }
        Some(args)
    }
}
