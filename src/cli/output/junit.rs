//! `--format junit`: a JUnit XML report, one test case per file (`check`).

use std::io::Write;

use super::{not_shown, Command, Output, Shown};
use crate::cli::check_report;
use crate::cli::style::Style;

pub struct Junit;

impl Output for Junit {
    fn name(&self) -> &'static str {
        "junit"
    }

    fn shows(&self, command: Command) -> bool {
        command == Command::Check
    }

    fn write(&self, out: &mut dyn Write, shown: &Shown, _: Style) -> anyhow::Result<()> {
        let Shown::Check {
            results,
            preset,
            fail_on,
        } = shown
        else {
            return Err(not_shown(self.name(), shown));
        };
        out.write_all(check_report::junit(results, preset, *fail_on).as_bytes())?;
        Ok(())
    }
}
