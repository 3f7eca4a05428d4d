//! `--format text` (the default): what a person reads in a terminal, in ctxray's colours.

use std::io::Write;

use super::{Command, Output, Shown, Sink};
use crate::cli::style::Style;
use crate::cli::{check_report, compact_cmd, diff_cmd, plan_cmd, replay_cmd, report_text};

pub struct Text;

impl Output for Text {
    fn name(&self) -> &'static str {
        "text"
    }

    fn shows(&self, _command: Command) -> bool {
        true
    }

    fn sink(&self) -> Sink {
        Sink::Guarded {
            sgr: true,
            workflow: false,
        }
    }

    fn shows_raw(&self) -> bool {
        false
    }

    fn write(&self, mut out: &mut dyn Write, shown: &Shown, st: Style) -> anyhow::Result<()> {
        match shown {
            Shown::Report(a) => report_text::write(&mut out, a, st.on)?,
            Shown::Plan(a, plan) => plan_cmd::write_text(&mut out, a, plan, st)?,
            Shown::Diff(a, plan, d) => diff_cmd::write_text(&mut out, a, plan, d, st)?,
            Shown::Compact(a, plan, done) => compact_cmd::write_text(&mut out, a, plan, done, st)?,
            Shown::Replay(a, [(_, r)]) => replay_cmd::write_text(&mut out, a, r, st)?,
            Shown::Replay(a, runs) => replay_cmd::write_compare(&mut out, a, runs, st)?,
            Shown::Check { results, .. } => {
                out.write_all(check_report::text(results).as_bytes())?
            }
        }
        Ok(())
    }
}
