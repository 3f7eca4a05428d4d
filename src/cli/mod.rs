//! The command line: argument parsing and one module per command.
//!
//! Owns: the CLI contract of DESIGN.md (commands, flags, format names, exit codes). Commands
//! print to stdout; errors are one line on stderr and exit 2.

mod formats_cmd;
mod report_json;
mod report_text;
mod style;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::analysis::{Analysis, Options};
use crate::formats;
use crate::session::Format;
use crate::tokens::Encoding;

/// Exit code for unusable input or usage.
pub const EXIT_USAGE: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "ctxray",
    version,
    about = "X-ray an LLM agent's context window: tokens per message, tool-call groups, compaction marks"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Messages, tokens, tool-call groups, compaction marks and findings of a session.
    Report {
        /// Session file or directory (`-` reads stdin).
        source: String,
        #[command(flatten)]
        common: Common,
    },
    /// The session formats ctxray reads, with the names `--from` takes.
    Formats {
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    Md,
    Html,
    Github,
    Junit,
}

/// Flags every command takes.
#[derive(Debug, Clone, Args, Default)]
pub struct Common {
    /// Input format, overriding detection (see `ctxray formats`).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub from: Option<Format>,
    /// Model name, overriding the session's (sets window and encoding from the registry).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Context window in tokens, overriding the source and the registry.
    #[arg(long, value_name = "N")]
    pub window: Option<u64>,
    /// Tokenizer to count with.
    #[arg(long, value_name = "ENC", value_parser = parse_encoding)]
    pub tokenizer: Option<Encoding>,
    /// Output format.
    #[arg(long, value_enum, value_name = "FMT")]
    pub format: Option<OutputFormat>,
    /// Same as `--format json`.
    #[arg(long)]
    pub json: bool,
    /// No colours in text output.
    #[arg(long)]
    pub no_color: bool,
    /// A configuration file layered over the defaults (e.g. `[models."name"]` entries).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

impl Common {
    fn output(&self) -> OutputFormat {
        if self.json {
            OutputFormat::Json
        } else {
            self.format.unwrap_or(OutputFormat::Text)
        }
    }

    fn options(&self) -> Options {
        Options {
            model: self.model.clone(),
            window: self.window,
            tokenizer: self.tokenizer,
        }
    }
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

fn parse_encoding(s: &str) -> Result<Encoding, String> {
    s.parse()
}

/// Runs the parsed command line; the error is printed by `main` as one line, exit 2.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Report { source, common } => report(&source, &common),
        Command::Formats { common } => formats_cmd::run(common.output()),
    }
}

fn report(source: &str, common: &Common) -> anyhow::Result<i32> {
    let registry = crate::config::load_registry(common.config.as_deref())?;
    let session = load_source(source, common.from)?;
    let analysis = Analysis::new(session, &registry, &common.options());
    let mut out = std::io::stdout().lock();
    match common.output() {
        OutputFormat::Json => {
            let value = report_json::report(&analysis);
            serde_json::to_writer_pretty(&mut out, &value)?;
            writeln!(out)?;
        }
        OutputFormat::Text => {
            let color = style::use_color(common.no_color);
            report_text::write(&mut out, &analysis, color)?;
        }
        other => {
            return Err(anyhow!(
                "--format {} is not available for `report` (use text or json)",
                other
                    .to_possible_value()
                    .map_or("?".into(), |v| v.get_name().to_string())
            ))
        }
    }
    out.flush().ok();
    Ok(0)
}

/// Loads a session from a path, or stdin for `-`.
pub fn load_source(source: &str, from: Option<Format>) -> anyhow::Result<crate::session::Session> {
    if source == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("stdin: cannot read")?;
        return Ok(formats::load_bytes(bytes, None, "<stdin>", from)?);
    }
    Ok(formats::load_path(Path::new(source), from)?)
}
