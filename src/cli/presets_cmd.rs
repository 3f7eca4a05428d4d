//! `ctxray presets`: the presets, the framework version each emulates, and their settings.

use crate::compaction::presets;
use std::io::Write;

use serde_json::json;

use super::OutputFormat;

pub fn run(output: OutputFormat) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    let presets = presets::all();
    if output == OutputFormat::JSON {
        let list: Vec<_> = presets
            .iter()
            .map(|p| {
                json!({
                    "name": p.name(),
                    "framework": p.framework(),
                    "description": p.description(),
                    "approximate": p.approximate(),
                    "settings": p.params().iter().map(|s| json!({"name": s.name, "default": s.default, "help": s.help})).collect::<Vec<_>>(),
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &list)?;
        writeln!(out)?;
        return Ok(0);
    }
    let w = presets.iter().map(|p| p.name().len()).max().unwrap_or(0) + 2;
    for p in presets {
        let approx = if p.approximate() {
            "  (approximate: from documented behaviour)"
        } else {
            ""
        };
        writeln!(out, "{:<w$}{}{approx}", p.name(), p.framework())?;
        writeln!(out, "{:<w$}{}", "", p.description())?;
        for s in p.params() {
            writeln!(
                out,
                "{:<w$}  --set {}={}  {}",
                "", s.name, s.default, s.help
            )?;
        }
    }
    Ok(0)
}
