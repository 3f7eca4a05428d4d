//! `--format md`: a Markdown document to paste into an issue or a pull request.

use std::io::Write;

use super::{not_shown, Command, Output, Shown};
use crate::cli::style::Style;
use crate::export;

pub struct Md;

impl Output for Md {
    fn name(&self) -> &'static str {
        "md"
    }

    fn shows(&self, command: Command) -> bool {
        command != Command::Check
    }

    fn write(&self, out: &mut dyn Write, shown: &Shown, _: Style) -> anyhow::Result<()> {
        let text = super::document::document(shown, export::md::render, export::replay::md::render)
            .ok_or_else(|| not_shown(self.name(), shown))?;
        out.write_all(text.as_bytes())?;
        Ok(())
    }
}
