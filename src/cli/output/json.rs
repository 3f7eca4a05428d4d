//! `--format json` (and `--json`): the contract's documents (DESIGN.md), pretty-printed.

use std::io::Write;

use super::{Command, Output, Shown, Sink};
use crate::cli::style::Style;
use crate::cli::{check_cmd, compact_cmd, diff_cmd, plan_cmd, replay_json, report_json};

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
            Shown::Report(a) => pretty(out, &report_json::report(a))?,
            Shown::Plan(a, plan) => pretty(out, &plan_cmd::plan_json(a, plan))?,
            Shown::Diff(a, plan, d) => pretty(out, &diff_cmd::diff_json(a, plan, d))?,
            Shown::Compact(a, plan, done) => {
                pretty(out, &compact_cmd::compact_json(a, plan, done))?
            }
            Shown::Replay(a, [(_, r)]) => pretty(out, &replay_json::replay_json(a, r))?,
            Shown::Replay(a, runs) => pretty(out, &replay_json::compare_json(a, runs))?,
            Shown::Check {
                results,
                preset,
                fail_on,
            } => pretty(out, &check_cmd::json_doc(results, preset, *fail_on))?,
        }
        writeln!(out)?;
        Ok(())
    }
}

/// `value` as pretty JSON.
fn pretty(out: &mut dyn Write, value: &impl serde::Serialize) -> serde_json::Result<()> {
    serde_json::to_writer_pretty(out, value)
}
