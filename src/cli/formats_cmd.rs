//! `ctxray formats`: the input formats and the names `--from` and `source.format` use.

use std::io::Write;

use super::OutputFormat;
use crate::session::Format;

pub fn run(output: OutputFormat) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    if output == OutputFormat::Json {
        let list: Vec<serde_json::Value> = Format::ALL
            .iter()
            .map(|f| serde_json::json!({"name": f.name(), "description": f.description()}))
            .collect();
        serde_json::to_writer_pretty(&mut out, &list)?;
        writeln!(out)?;
    } else {
        for f in Format::ALL {
            writeln!(out, "{:<18} {}", f.name(), f.description())?;
        }
    }
    Ok(0)
}
