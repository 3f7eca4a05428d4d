//! The output formats of the commands (`--format`), listed once.
//!
//! Owns: [`Shown`] (what a command computed, ready to be written), the [`Output`] trait (one
//! implementation per format: which commands it shows, how its bytes reach stdout, how it
//! writes each), [`OUTPUTS`] (the one list), [`OutputFormat`] (a format by its contract name,
//! parsed from `--format` against the list) and the refusal of a format a command has not.
//! The commands compute; the formats write. Adding an output format is a module here with one
//! implementation and one line in [`OUTPUTS`].

mod document;
mod github;
mod html;
mod json;
mod jsonl;
mod junit;
mod md;
mod text;

use std::io::Write;

use crate::analysis::Analysis;
use crate::compaction::carry_out::Compacted;
use crate::compaction::Plan;
use crate::diff::Diff;
use crate::replay::Replay;

use super::check_report::{FailOn, FileCheck};
use super::guard::{self, Allow};
use super::replay_cmd::Side;
use super::style::Style;

/// What a command computed, for an output format to write.
pub enum Shown<'a> {
    Report(&'a Analysis),
    Plan(&'a Analysis, &'a Plan),
    Diff(&'a Analysis, &'a Plan, &'a Diff),
    Compact(&'a Analysis, &'a Plan, &'a Compacted),
    /// One replay per side (one without `--compare`).
    Replay(&'a Analysis, &'a [(Side, Replay)]),
    Check {
        results: &'a [FileCheck],
        preset: &'a str,
        fail_on: FailOn,
    },
}

/// The command a [`Shown`] is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Report,
    Plan,
    Diff,
    Compact,
    Replay,
    Check,
}

impl Command {
    fn name(self) -> &'static str {
        match self {
            Command::Report => "report",
            Command::Plan => "plan",
            Command::Diff => "diff",
            Command::Compact => "compact",
            Command::Replay => "replay",
            Command::Check => "check",
        }
    }
}

impl Shown<'_> {
    pub fn command(&self) -> Command {
        match self {
            Shown::Report(..) => Command::Report,
            Shown::Plan(..) => Command::Plan,
            Shown::Diff(..) => Command::Diff,
            Shown::Compact(..) => Command::Compact,
            Shown::Replay(..) => Command::Replay,
            Shown::Check { .. } => Command::Check,
        }
    }
}

/// How a format's bytes reach stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    /// As written: the format escapes session text itself (serde's JSON, the HTML writer).
    Escaped,
    /// Through `guard::Guard`, which strips what could drive a terminal or a CI log; `sgr`
    /// keeps ctxray's own colours (on a colour terminal), `workflow` its `::` lines.
    Guarded { sgr: bool, workflow: bool },
}

/// One output format.
pub trait Output: Sync {
    /// The name `--format` takes.
    fn name(&self) -> &'static str;

    /// Whether this format shows what `command` computes.
    fn shows(&self, command: Command) -> bool;

    /// How its bytes reach stdout.
    fn sink(&self) -> Sink {
        Sink::Guarded {
            sgr: false,
            workflow: false,
        }
    }

    /// Whether it shows records as they were in the source (the summarizer request, raw
    /// messages): the command then keeps the source's bytes. Text and JSON show counts only.
    fn shows_raw(&self) -> bool {
        true
    }

    /// Writes `shown` (a command it [`shows`](Output::shows)); `style` is the text colours.
    fn write(&self, out: &mut dyn Write, shown: &Shown, style: Style) -> anyhow::Result<()>;
}

/// Every output format, in the order `--help` lists them.
pub static OUTPUTS: &[&dyn Output] = &[
    &text::Text,
    &json::Json,
    &jsonl::Jsonl,
    &md::Md,
    &html::Html,
    &github::Github,
    &junit::Junit,
];

/// An output format, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutputFormat(&'static str);

impl OutputFormat {
    pub const TEXT: OutputFormat = OutputFormat("text");
    pub const JSON: OutputFormat = OutputFormat("json");
    pub const JSONL: OutputFormat = OutputFormat("jsonl");
    pub const MD: OutputFormat = OutputFormat("md");
    pub const HTML: OutputFormat = OutputFormat("html");
    pub const GITHUB: OutputFormat = OutputFormat("github");

    pub fn name(self) -> &'static str {
        self.0
    }

    /// The format's implementation.
    pub fn output(self) -> &'static dyn Output {
        let found = OUTPUTS.iter().copied().find(|o| o.name() == self.0);
        found.unwrap_or(OUTPUTS[0])
    }

    /// `--format`'s parser: one of [`OUTPUTS`]' names (listed in `--help`).
    pub fn parser() -> impl clap::builder::TypedValueParser<Value = OutputFormat> {
        use clap::builder::TypedValueParser;
        let names: Vec<&'static str> = OUTPUTS.iter().map(|o| o.name()).collect();
        clap::builder::PossibleValuesParser::new(names).map(|name: String| {
            let found = OUTPUTS.iter().find(|o| o.name() == name);
            OutputFormat(found.map_or("text", |o| o.name()))
        })
    }

    /// Refuses a format `command` cannot be written in, naming the ones it can.
    pub fn check(self, command: Command) -> anyhow::Result<()> {
        if self.output().shows(command) {
            return Ok(());
        }
        let can: Vec<&str> = OUTPUTS
            .iter()
            .filter(|o| o.shows(command))
            .map(|o| o.name())
            .collect();
        Err(anyhow::anyhow!(
            "--format {} is not available for `{}` (use {})",
            self.0,
            command.name(),
            or_list(&can)
        ))
    }

    /// Writes `shown` to `out` in this format, refused when it has no such command.
    pub fn write(self, out: &mut dyn Write, shown: &Shown, style: Style) -> anyhow::Result<()> {
        self.check(shown.command())?;
        self.output().write(out, shown, style)
    }
}

/// Stdout for `format`, as its [`Sink`] says: JSON and HTML as written (serde and the HTML
/// writer escape them), every other format through a `guard::Guard` (colour kept only for text on a
/// colour terminal, `::` lines only for `github`).
pub fn stdout(format: OutputFormat, no_color: bool) -> Box<dyn Write> {
    match format.output().sink() {
        Sink::Escaped => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
        Sink::Guarded { sgr, workflow } => Box::new(guard::stdout(Allow {
            sgr: sgr && crate::cli::style::use_color(no_color),
            workflow,
        })),
    }
}

/// `a, b or c`.
fn or_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A command's `shown` this format does not write (its `shows` refused it first).
fn not_shown(format: &str, shown: &Shown) -> anyhow::Error {
    anyhow::anyhow!(
        "--format {format} is not available for `{}`",
        shown.command().name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_found_by_its_name_and_refusals_name_the_others() {
        for o in OUTPUTS {
            assert_eq!(OutputFormat(o.name()).output().name(), o.name());
        }
        let err = OutputFormat::MD
            .check(Command::Check)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "--format md is not available for `check` (use text, json, jsonl, github or junit)"
        );
        let err = OutputFormat::GITHUB
            .check(Command::Diff)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "--format github is not available for `diff` (use text, json, md or html)"
        );
        assert!(OutputFormat::JSON.check(Command::Replay).is_ok());
    }
}
