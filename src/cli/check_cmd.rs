//! `ctxray check`: `plan` on every file, for CI; the other files are still checked and
//! reported when one is unusable.
//!
//! Owns: running the checks and where each finding's file line is. What was found and how it
//! is laid out is `check_report`'s.

use std::collections::HashMap;

use super::check_report::{exit_code, summary, Checked, FailOn, FileCheck};
use super::{OutputFormat, PresetArgs};
use crate::compaction::Finding;

/// Checks every source; an unknown preset or setting is refused before any file is read.
pub fn run(
    sources: &[String],
    preset: &PresetArgs,
    common: &super::Common,
    fail_on: FailOn,
) -> anyhow::Result<i32> {
    let format = common.output();
    format.check(super::output::Command::Check)?;
    let found = crate::compaction::presets::find(&preset.preset)?;
    crate::compaction::Settings::resolve(found.name(), found.params(), &preset.sets)?;
    let results: Vec<FileCheck> = sources
        .iter()
        .map(|source| FileCheck {
            path: source.clone(),
            outcome: super::planned(source, preset, common)
                .map(|(a, plan)| {
                    let findings: Vec<Finding> =
                        a.findings.iter().chain(&plan.findings).cloned().collect();
                    Checked {
                        format: a.session.format.name(),
                        fired: plan.trigger.fired,
                        lines: source_lines(&a.session, &findings),
                        findings,
                    }
                })
                .map_err(|e| super::error_text(&e)),
        })
        .collect();
    super::show(
        common,
        &super::output::Shown::Check {
            results: &results,
            preset: &preset.preset,
            fail_on,
        },
    )?;
    // Text lists unusable files with the findings; the other layouts also say it on stderr.
    if format != OutputFormat::TEXT {
        for r in &results {
            if let Err(e) = &r.outcome {
                eprintln!("ctxray: {}", super::guard::message(e));
            }
        }
    }
    eprintln!("ctxray: {}", summary(&results, fail_on));
    Ok(exit_code(&results, fail_on))
}

/// The 1-based file line of the first message each finding names: the line breaks before
/// its record's start, counted over the source a megabyte at a time (a session read a chunk at
/// a time reads its file again for it).
fn source_lines(session: &crate::session::Session, findings: &[Finding]) -> HashMap<usize, usize> {
    let mut starts: Vec<(usize, usize)> = findings
        .iter()
        .filter_map(|f| {
            let m = *f.messages.first()?;
            Some((session.messages.get(m)?.raw.as_ref()?.start, m))
        })
        .collect();
    starts.sort_unstable();
    let mut lines = HashMap::new();
    let (mut at, mut breaks) = (0, 0);
    let len = session.raw_len();
    for (start, m) in starts {
        while at < start.min(len) {
            let end = start.min(len).min(at + (1 << 20));
            let Some(bytes) = session.raw_range(at..end) else {
                return lines;
            };
            breaks += memchr::memchr_iter(b'\n', &bytes).count();
            at = end;
        }
        lines.insert(m, breaks + 1);
    }
    lines
}
