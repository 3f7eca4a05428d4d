//! `--format jsonl`: one JSON object a line, for runs over many sessions whose output is loaded
//! into a table (DuckDB's `read_json_auto`, pandas): `report` writes one object a session (the
//! `report --json` document; an evaluation log's instances each on their own line), `check` one
//! a finding (and one an unusable file). Each line is written as its source finishes.

use std::io::Write;

use super::{Command, Output, Shown, Sink};
use crate::cli::check_report;
use crate::cli::many::units;
use crate::cli::style::Style;
use crate::report::view::session::Report;

pub struct Jsonl;

impl Output for Jsonl {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn shows(&self, command: Command) -> bool {
        matches!(command, Command::Report | Command::Check)
    }

    fn sink(&self) -> Sink {
        Sink::Escaped
    }

    fn shows_raw(&self) -> bool {
        false
    }

    fn write(&self, out: &mut dyn Write, shown: &Shown, _: Style) -> anyhow::Result<()> {
        match shown {
            Shown::Report(a) => {
                for unit in units(a) {
                    serde_json::to_writer(&mut *out, &Report::of(unit))?;
                    writeln!(out)?;
                }
            }
            Shown::Check {
                results, preset, ..
            } => out.write_all(check_report::jsonl(results, preset).as_bytes())?,
            _ => anyhow::bail!("--format jsonl shows report and check"),
        }
        Ok(())
    }
}
