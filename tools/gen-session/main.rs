//! `gen-session`: writes a realistic agent session of a given size, for benchmarks and tests.
//!
//! ```text
//! cargo run --release --example gen-session -- FORMAT SIZE OUT [SEED]
//!   FORMAT  claude-code | codex | openai-chat
//!   SIZE    bytes, with an optional k/M/G suffix (10M, 100M, 500M)
//! ```

mod text;
mod write;

use std::io::BufWriter;
use std::process::ExitCode;

fn parse_size(s: &str) -> Option<u64> {
    let (digits, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1_000),
        'm' | 'M' => (&s[..s.len() - 1], 1_000_000),
        'g' | 'G' => (&s[..s.len() - 1], 1_000_000_000),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok().map(|n| n * mult)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen-session claude-code|codex|openai-chat SIZE OUT [SEED]";
    let (Some(shape), Some(size), Some(out)) = (
        args.first().and_then(|s| write::Shape::parse(s)),
        args.get(1).and_then(|s| parse_size(s)),
        args.get(2),
    ) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let seed = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(7);
    let result = std::fs::File::create(out).and_then(|f| {
        let mut w = BufWriter::new(f);
        let n = write::write_session(shape, size, seed, &mut w)?;
        std::io::Write::flush(&mut w)?;
        Ok(n)
    });
    match result {
        Ok(n) => {
            println!("{out}: {} {n} bytes", shape.name());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{out}: {e}");
            ExitCode::from(2)
        }
    }
}
