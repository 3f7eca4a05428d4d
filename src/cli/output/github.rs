//! `--format github`: GitHub Actions workflow commands, one annotation per finding (`check`).

use std::io::Write;

use super::{not_shown, Command, Output, Shown, Sink};
use crate::cli::check_report;
use crate::cli::style::Style;

pub struct Github;

impl Output for Github {
    fn name(&self) -> &'static str {
        "github"
    }

    fn shows(&self, command: Command) -> bool {
        command == Command::Check
    }

    fn sink(&self) -> Sink {
        Sink::Guarded {
            sgr: false,
            workflow: true,
        }
    }

    fn write(&self, out: &mut dyn Write, shown: &Shown, _: Style) -> anyhow::Result<()> {
        let Shown::Check { results, .. } = shown else {
            return Err(not_shown(self.name(), shown));
        };
        out.write_all(check_report::github(results).as_bytes())?;
        Ok(())
    }
}
