//! `ctxray formats`: the input formats and the names `--from` and `source.format` use.

use std::io::Write;

use super::OutputFormat;

pub fn run(output: OutputFormat) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    if output == OutputFormat::JSON {
        let list: Vec<serde_json::Value> = crate::formats::registry::FORMATS
            .iter()
            .map(|f| serde_json::json!({"name": f.format().name(), "description": f.description()}))
            .collect();
        serde_json::to_writer_pretty(&mut out, &list)?;
        writeln!(out)?;
    } else {
        for f in crate::formats::registry::FORMATS {
            writeln!(out, "{:<18} {}", f.format().name(), f.description())?;
        }
    }
    Ok(0)
}
