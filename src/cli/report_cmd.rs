//! `ctxray report`: the report of one session; given several sources or a directory of them,
//! each one's, worked on `--jobs` at a time.
//!
//! Owns: choosing between the one-session report (exactly as it always was: an error is the
//! command's) and the run over many (each source's error said on stderr and the others still
//! reported; files found under a directory that are not sessions passed over), and the order
//! the many are written in: as each finishes for `jsonl`, in the order given for the others.

use std::collections::BTreeMap;
use std::io::Write;

use super::loading::{self, Raw};
use super::many::{self, Source};
use super::output::{self, OutputFormat, Shown};
use super::{guard, Common};

pub fn run(sources: &[String], jobs: usize, common: &Common) -> anyhow::Result<i32> {
    let format = common.output();
    format.check(output::Command::Report)?;
    // The text and JSON reports read only the parsed messages.
    let raw = match format.output().shows_raw() {
        true => Raw::Keep,
        false => Raw::Release,
    };
    let expanded = many::expand(sources);
    let one = matches!(expanded.as_slice(), [Source { found: false, .. }]);
    if one && format != OutputFormat::JSONL {
        let analysis = loading::analyse_keeping(&expanded[0].path, common, raw)?;
        super::show(common, &Shown::Report(&analysis))?;
        return Ok(0);
    }
    if ![
        OutputFormat::TEXT,
        OutputFormat::JSON,
        OutputFormat::JSONL,
        OutputFormat::MD,
    ]
    .contains(&format)
    {
        anyhow::bail!(
            "--format {} writes one session; with several use text, json, md or jsonl",
            format.name()
        );
    }
    let style = super::style::Style {
        on: super::style::use_color(common.no_color),
    };
    let mut out = output::stdout(format, common.no_color);
    // Each session's report, written where the source was worked on.
    let work = |source: &Source| -> anyhow::Result<Vec<Vec<u8>>> {
        let analysis = loading::analyse_quietly(&source.path, common, raw)?;
        many::units(&analysis)
            .into_iter()
            .map(|unit| {
                let mut bytes = Vec::new();
                format.write(&mut bytes, &Shown::Report(unit), style)?;
                Ok(bytes)
            })
            .collect()
    };
    let mut tally = Tally::default();
    // Written in the order given, each as soon as those before it are: finished ones wait.
    let mut waiting: BTreeMap<usize, Vec<Vec<u8>>> = BTreeMap::new();
    let mut next = 0;
    let json = format == OutputFormat::JSON;
    if json {
        out.write_all(b"[")?;
    }
    many::run(&expanded, jobs, work, |i, result| {
        let reports = match result {
            Ok(reports) => {
                tally.reported += 1;
                reports
            }
            Err(e) if many::not_a_session(&expanded[i], &e) => {
                tally.passed += 1;
                Vec::new()
            }
            Err(e) => {
                eprintln!("ctxray: {}", guard::message(&super::error_text(&e)));
                tally.unusable += 1;
                Vec::new()
            }
        };
        if format == OutputFormat::JSONL {
            for line in &reports {
                let _ = out.write_all(line);
            }
            let _ = out.flush();
            return;
        }
        waiting.insert(i, reports);
        while let Some(reports) = waiting.remove(&next) {
            next += 1;
            for report in &reports {
                let _ = write_one(&mut *out, report, json, &mut tally.written);
            }
        }
    });
    if json {
        out.write_all(b"]\n")?;
    }
    out.flush()?;
    eprintln!("ctxray: {}", tally.line(expanded.len()));
    Ok(if tally.unusable > 0 {
        super::EXIT_USAGE
    } else {
        0
    })
}

/// Writes one source's reports: an item of the JSON array, or after a blank line.
fn write_one(
    out: &mut dyn Write,
    bytes: &[u8],
    json: bool,
    written: &mut usize,
) -> std::io::Result<()> {
    if *written > 0 {
        out.write_all(if json { b",\n" } else { b"\n" })?;
    }
    *written += 1;
    match json {
        // Each report is a document and a newline; the array holds the documents.
        true => out.write_all(bytes.strip_suffix(b"\n").unwrap_or(bytes)),
        false => out.write_all(bytes),
    }
}

/// What a run over many sources did, said on stderr at its end.
#[derive(Default)]
struct Tally {
    reported: usize,
    unusable: usize,
    passed: usize,
    written: usize,
}

impl Tally {
    fn line(&self, sources: usize) -> String {
        let mut line = format!("reported {} of {sources} source(s)", self.reported);
        if self.unusable > 0 {
            line.push_str(&format!("; {} unusable", self.unusable));
        }
        if self.passed > 0 {
            line.push_str(&format!(
                "; {} file(s) found that are not sessions passed over",
                self.passed
            ));
        }
        line
    }
}
