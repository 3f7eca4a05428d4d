//! `ctxray replay`: a session replayed under a preset (or two configurations side by side),
//! printed as a sawtooth sparkline and a table of compactions, as JSON, or as a Markdown or
//! HTML report (`crate::export::replay`).
//!
//! Owns: parsing `--compare` specs, and the text rendering of `replay::Replay` (its JSON is
//! `report::view::replay`). The replay itself is `crate::replay` (pure). `--format
//! github|junit` are refused: they report `check`'s findings per file, which a replay does not
//! produce.

use crate::compaction::presets;
use std::io::Write;
use std::sync::Arc;

use anyhow::anyhow;

use super::progress_line;
use super::style::Style;
use crate::analysis::Analysis;
use crate::export::replay::{
    self as export, evidence_text, fidelity_text, input_facts_text, percent, threshold_text,
};
use crate::replay::{self, Replay};

/// Sparkline width, in columns.
const WIDTH: usize = 64;
/// Compactions the text table lists.
const TABLE_ROWS: usize = 20;

/// One cell of the comparison table.
type Cell = fn(&Replay) -> String;

/// One side of a replay: a preset and its settings, and how the user named it.
pub struct Side {
    pub label: String,
    pub preset: String,
    pub sets: Vec<String>,
}

/// The sides `--compare A B` names: each a preset name, or `K=V,...` settings layered over
/// `--preset` and its `--set`s.
pub fn sides(preset: &str, sets: &[String], specs: &[String]) -> anyhow::Result<Vec<Side>> {
    specs
        .iter()
        .map(|spec| {
            let spec = spec.trim();
            if spec.is_empty() {
                return Err(anyhow!(
                    "--compare: an empty configuration; give a preset name or K=V,..."
                ));
            }
            if spec.contains('=') {
                let mut all = sets.to_vec();
                all.extend(
                    spec.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                );
                Ok(Side {
                    label: spec.to_string(),
                    preset: preset.to_string(),
                    sets: all,
                })
            } else {
                Ok(Side {
                    label: spec.to_string(),
                    preset: spec.to_string(),
                    sets: sets.to_vec(),
                })
            }
        })
        .collect()
}

/// Checks every side's preset and settings before the source is read.
pub fn validate(sides: &[Side]) -> anyhow::Result<()> {
    for s in sides {
        let p = presets::find(&s.preset)?;
        crate::compaction::Settings::resolve(p.name(), p.params(), &s.sets)?;
    }
    Ok(())
}

pub fn run_side(a: &Analysis, side: &Side, options: &replay::Options) -> anyhow::Result<Replay> {
    let p = presets::find(&side.preset)?;
    Ok(replay::replay(a, p, &side.sets, options)?)
}

/// The sawtooth as text, `WIDTH` columns at most (see `export::replay::sparkline`).
pub fn sparkline(r: &Replay, top: u64) -> (String, String) {
    export::sparkline(r, top, WIDTH)
}

pub fn write_text(
    out: &mut impl Write,
    a: &Analysis,
    r: &Replay,
    st: Style,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}",
        st.bold(&format!(
            "{} · {}",
            crate::text::inline(&a.session.source.path),
            r.preset
        ))
    )?;
    writeln!(
        out,
        "{}",
        st.dim(&format!(
            "{} · checks before each {} · window {} · threshold {}{}",
            r.framework,
            if r.checks_at == crate::compaction::preset::CheckPoint::UserTurn {
                "user turn"
            } else {
                "request"
            },
            r.window,
            threshold_text(r),
            r.summary_tokens
                .map(|n| format!(" · summaries of {n} tokens"))
                .unwrap_or_default()
        ))
    )?;
    let top = r.steps.iter().map(|s| s.tokens_before).max().unwrap_or(0);
    let (line, marks) = sparkline(r, top);
    writeln!(out, "\n  {line}  {top} tokens at the top")?;
    if !marks.is_empty() {
        writeln!(out, "  {}", st.dim(&marks))?;
    }
    let fidelity = r.input_fidelity();
    writeln!(
        out,
        "\n{} compaction(s){} · peak {} tokens · {} tokens summarized or dropped · evidence lost: {}\nthe summarizer inputs hold {} · {} of the summarized ranges",
        r.compactions.len(),
        if r.rejected.is_empty() {
            String::new()
        } else {
            format!(" ({} more rejected by the guard)", r.rejected.len())
        },
        r.peak_tokens(),
        r.removed_tokens(),
        evidence_text(r.evidence_lost()),
        fidelity_text(fidelity),
        input_facts_text(fidelity)
    )?;
    if r.compactions.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n  {:>3}  {:>8}  {:>9}  {:>17}  {:>11}  {:>10}  {:>9}  {:>8}  {:>9}  {:>8}  findings",
        "#",
        "record",
        "threshold",
        "tokens",
        "messages",
        "summarized",
        "sum. in",
        "chars in",
        "facts in",
        "summary"
    )?;
    for (i, c) in r.compactions.iter().enumerate().take(TABLE_ROWS) {
        let codes: Vec<&str> = c.findings.iter().map(|f| f.code).collect();
        writeln!(
            out,
            "  {:>3}  {:>8}  {:>9}  {:>17}  {:>11}  {:>10}  {:>9}  {:>8}  {:>9}  {:>8}  {}",
            i + 1,
            c.at_source_index,
            c.threshold,
            format!("{} → {}", c.tokens_before, c.tokens_after),
            format!("{} → {}", c.messages_before, c.messages_after),
            c.summarized,
            c.summarizer_input_tokens,
            if c.input.chars == 0 {
                "—".into()
            } else {
                percent(c.input.chars_seen, c.input.chars)
            },
            if c.input.facts == 0 {
                "—".into()
            } else {
                format!("{}/{}", c.input.facts_present, c.input.facts)
            },
            c.summary_tokens,
            st.dim(&codes.join(", "))
        )?;
    }
    if r.compactions.len() > TABLE_ROWS {
        writeln!(
            out,
            "  {}",
            st.dim(&format!(
                "… {} more (--json lists every one)",
                r.compactions.len() - TABLE_ROWS
            ))
        )?;
    }
    Ok(())
}

pub fn write_compare(
    out: &mut impl Write,
    a: &Analysis,
    runs: &[(Side, Replay)],
    st: Style,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}",
        st.bold(&format!(
            "{} · replay",
            crate::text::inline(&a.session.source.path)
        ))
    )?;
    let top = runs
        .iter()
        .flat_map(|(_, r)| r.steps.iter().map(|s| s.tokens_before))
        .max()
        .unwrap_or(0);
    for (i, (side, r)) in runs.iter().enumerate() {
        let (line, marks) = sparkline(r, top);
        let name = char::from(b'A' + i as u8);
        writeln!(out, "\n{name}  {} ({})", side.label, r.preset)?;
        writeln!(out, "   {line}")?;
        if !marks.is_empty() {
            writeln!(out, "   {}", st.dim(&marks))?;
        }
    }
    writeln!(out)?;
    let rows: [(&str, Cell); 9] = [
        ("compactions", |r| r.compactions.len().to_string()),
        ("rejected", |r| r.rejected.len().to_string()),
        ("window", |r| r.window.to_string()),
        ("threshold", threshold_text),
        ("tokens summarized", |r| r.removed_tokens().to_string()),
        ("peak tokens", |r| r.peak_tokens().to_string()),
        ("input fidelity", |r| fidelity_text(r.input_fidelity())),
        ("facts in input", |r| input_facts_text(r.input_fidelity())),
        ("evidence lost", |r| evidence_text(r.evidence_lost())),
    ];
    write!(out, "  {:<18}", "")?;
    for i in 0..runs.len() {
        write!(out, "  {:<30}", char::from(b'A' + i as u8))?;
    }
    writeln!(out)?;
    for (label, value) in &rows {
        write!(out, "  {label:<18}")?;
        for (_, r) in runs {
            write!(out, "  {:<30}", value(r))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// `ctxray replay`: one replay, or two side by side with `--compare`.
pub fn run(
    source: &str,
    preset: &super::PresetArgs,
    summary_tokens: Option<usize>,
    compare: &[String],
    common: &super::Common,
) -> anyhow::Result<i32> {
    common.output().check(super::output::Command::Replay)?;
    let mut sides = if compare.is_empty() {
        vec![Side {
            label: preset.preset.clone(),
            preset: preset.preset.clone(),
            sets: preset.sets.clone(),
        }]
    } else {
        sides(&preset.preset, &preset.sets, compare)?
    };
    validate(&sides)?;
    let analysis = super::analyse(source, common)?;
    // With `--demo` each side is scaled until its own preset fires.
    for side in &mut sides {
        let args = super::PresetArgs {
            preset: side.preset.clone(),
            sets: std::mem::take(&mut side.sets),
            demo: preset.demo,
        };
        side.sets = super::demo_sets(&analysis, &args)?;
    }
    let mut runs = Vec::new();
    for side in sides {
        // A long replay (minutes, for a preset whose history keeps growing) says where it
        // stands on stderr when that is a terminal.
        let watch = Arc::new(replay::Watch::default());
        let line = progress_line::wanted_for_work()
            .then(|| progress_line::Line::replay(Arc::clone(&watch), side.label.clone()));
        let options = replay::Options {
            summary_tokens,
            watch: Some(watch),
        };
        let r = run_side(&analysis, &side, &options);
        drop(line);
        runs.push((side, r?));
    }
    super::show(common, &super::output::Shown::Replay(&analysis, &runs))?;
    Ok(0)
}
