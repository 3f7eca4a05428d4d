//! `--format json` (and `--json`): the contract's documents (DESIGN.md), pretty-printed.

use std::io::Write;

use super::{Command, Output, Shown, Sink};
use crate::cli::check_report;
use crate::cli::style::Style;
use crate::report::view::diff::DiffDoc;
use crate::report::view::plan::{CompactDoc, PlanDoc};
use crate::report::view::replay::{CompareDoc, ReplayDoc};
use crate::report::view::session::Report;

pub struct Json;

impl Output for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn shows(&self, _command: Command) -> bool {
        true
    }

    fn sink(&self) -> Sink {
        Sink::Escaped
    }

    fn shows_raw(&self) -> bool {
        false
    }

    fn write(&self, out: &mut dyn Write, shown: &Shown, _: Style) -> anyhow::Result<()> {
        match shown {
            Shown::Report(a) => pretty(out, &Report::of(a))?,
            Shown::Plan(a, plan) => pretty(out, &PlanDoc::of(a, plan))?,
            Shown::Diff(a, plan, d) => pretty(out, &DiffDoc::of(a, plan, d))?,
            Shown::Compact(a, plan, done) => pretty(out, &CompactDoc::of(a, plan, done))?,
            Shown::Replay(a, [(_, r)]) => pretty(out, &ReplayDoc::of(a, r))?,
            Shown::Replay(a, runs) => {
                let runs = runs.iter().map(|(side, r)| (side.label.as_str(), r));
                pretty(out, &CompareDoc::of(a, runs))?
            }
            Shown::Check {
                results,
                preset,
                fail_on,
            } => pretty(out, &check_report::json_doc(results, preset, *fail_on))?,
        }
        writeln!(out)?;
        Ok(())
    }
}

/// `value` as pretty JSON.
fn pretty(out: &mut dyn Write, value: &impl serde::Serialize) -> serde_json::Result<()> {
    serde_json::to_writer_pretty(out, value)
}
