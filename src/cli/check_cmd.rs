//! `ctxray check`: `plan` on every file (every session of a file of many, every session file
//! under a directory), for CI and for triage over many runs; the other files are still checked
//! and reported when one is unusable.
//!
//! Owns: running the checks and where each finding's file line is. What was found and how it
//! is laid out is `check_report`'s.

use std::collections::HashMap;

use std::io::Write;

use super::check_report::{self, exit_code, summary, Checked, FailOn, FileCheck};
use super::loading::Raw;
use super::many;
use super::{OutputFormat, PresetArgs};
use crate::compaction::Finding;

/// Checks every source (the files under a directory given, each instance of an evaluation
/// log), `jobs` at a time; an unknown preset or setting is refused before any file is read.
/// `jsonl` writes each source's findings as it finishes; the other layouts write them all, in
/// the order given, at the end.
pub fn run(
    sources: &[String],
    preset: &PresetArgs,
    common: &super::Common,
    fail_on: FailOn,
    jobs: usize,
) -> anyhow::Result<i32> {
    let format = common.output();
    format.check(super::output::Command::Check)?;
    let found = crate::compaction::presets::find(&preset.preset)?;
    crate::compaction::Settings::resolve(found.name(), found.params(), &preset.sets)?;
    let expanded = many::expand(sources);
    let streamed = format == OutputFormat::JSONL;
    let mut out = streamed.then(|| super::output::stdout(format, common.no_color));
    let mut done: Vec<Option<Vec<FileCheck>>> = vec![None; expanded.len()];
    let mut passed = 0;
    many::run(
        &expanded,
        jobs,
        |source| check_source(source, preset, common),
        |i, checks| {
            let checks = match checks {
                Err(e) if many::not_a_session(&expanded[i], &e) => {
                    passed += 1;
                    Vec::new()
                }
                Err(e) => vec![FileCheck {
                    path: expanded[i].path.clone(),
                    session: None,
                    outcome: Err(super::error_text(&e)),
                }],
                Ok(checks) => checks,
            };
            if let Some(out) = out.as_mut() {
                let _ = out
                    .write_all(check_report::jsonl(&checks, &preset.preset).as_bytes())
                    .and_then(|()| out.flush());
            }
            done[i] = Some(checks);
        },
    );
    let results: Vec<FileCheck> = done.into_iter().flatten().flatten().collect();
    if !streamed {
        super::show(
            common,
            &super::output::Shown::Check {
                results: &results,
                preset: &preset.preset,
                fail_on,
            },
        )?;
    }
    // Text lists unusable files with the findings; the other layouts also say it on stderr.
    if format != OutputFormat::TEXT {
        for r in &results {
            if let Err(e) = &r.outcome {
                eprintln!("ctxray: {}", super::guard::message(e));
            }
        }
    }
    if passed > 0 {
        eprintln!("ctxray: {passed} file(s) found that are not sessions passed over");
    }
    eprintln!("ctxray: {}", summary(&results, fail_on));
    Ok(exit_code(&results, fail_on))
}

/// One source's checks: one per session it holds as a unit of its own.
fn check_source(
    source: &many::Source,
    preset: &PresetArgs,
    common: &super::Common,
) -> anyhow::Result<Vec<FileCheck>> {
    let analysis = super::loading::analyse_quietly(&source.path, common, Raw::Keep)?;
    let units = many::units(&analysis);
    let several = units.len() > 1 || !std::ptr::eq(units[0], &analysis);
    units
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            let sets = super::demo_sets(a, preset)?;
            let outcome = super::plan_cmd::plan_read_by_message(a, &preset.preset, &sets)
                .map(|plan| {
                    let findings: Vec<Finding> =
                        a.findings.iter().chain(&plan.findings).cloned().collect();
                    Checked {
                        format: a.session.format.name(),
                        fired: plan.trigger.fired,
                        lines: source_lines(&a.session, &findings),
                        findings,
                    }
                })
                .map_err(|e| super::error_text(&e));
            Ok(FileCheck {
                path: source.path.clone(),
                session: several.then(|| unit_name(a, i)),
                outcome,
            })
        })
        .collect()
}

/// How one session of a file of many is named: its id, else its title, else its place.
fn unit_name(a: &crate::analysis::Analysis, i: usize) -> String {
    let s = &a.session;
    s.id.clone()
        .or_else(|| s.title.clone())
        .unwrap_or_else(|| format!("{}", i + 1))
}

/// The 1-based file line of the first message each finding names: the line breaks before
/// its record's start, counted over the source a megabyte at a time (a session read a chunk at
/// a time reads its file again for it).
fn source_lines(session: &crate::session::Session, findings: &[Finding]) -> HashMap<usize, usize> {
    let starts: Vec<(usize, usize)> = findings
        .iter()
        .filter_map(|f| {
            let m = *f.messages.first()?;
            Some((session.messages.get(m)?.raw.as_ref()?.start, m))
        })
        .collect();
    let offsets: Vec<usize> = starts.iter().map(|&(start, _)| start).collect();
    let lines = session.lines_at(&offsets).unwrap_or_default();
    starts.iter().map(|&(_, m)| m).zip(lines).collect()
}
