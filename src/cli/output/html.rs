//! `--format html`: one self-contained page for a browser.

use std::io::Write;

use super::{not_shown, Command, Output, Shown, Sink};
use crate::cli::style::Style;
use crate::export;

pub struct Html;

impl Output for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn shows(&self, command: Command) -> bool {
        command != Command::Check
    }

    fn sink(&self) -> Sink {
        Sink::Escaped
    }

    fn write(&self, out: &mut dyn Write, shown: &Shown, _: Style) -> anyhow::Result<()> {
        let text =
            super::document::document(shown, export::html::render, export::replay::html::render)
                .ok_or_else(|| not_shown(self.name(), shown))?;
        out.write_all(text.as_bytes())?;
        Ok(())
    }
}
