//! The replay as Markdown for an issue tracker: the session, each run's configuration and
//! totals side by side, the sawtooth as a text sparkline, each run's compactions (and attempts
//! a guard rejected) and their findings. Long tables fold into `<details>`; the finished
//! document is masked.
//!
//! Owns: the Markdown layout of a replay. Must not: run replays, or print.

use std::fmt::Write;

use super::super::md::{badge, cell, code, fold, plain, row};
use super::super::{masked, thousands};
use super::{
    checks_text, compaction_cells, finding_groups, letter, rejected_cells, settings_text,
    sparkline, summaries_text, top, Doc, Run, COMPACTION_HEAD, COMPACTION_NUMERIC, REJECTED_HEAD,
    SUMMARY,
};

/// Sparkline width, in columns.
const WIDTH: usize = 64;
/// A table with more rows than this is folded in `<details>`.
const FOLD_ROWS: usize = 40;

/// The whole replay report as Markdown.
pub fn render(d: &Doc) -> String {
    let mut out = String::new();
    header(&mut out, d);
    configuration(&mut out, d);
    sawtooth(&mut out, d);
    for (i, run) in d.runs.iter().enumerate() {
        compactions(&mut out, d, i, run);
    }
    masked(&out)
}

/// `A: label` when comparing, else nothing.
fn run_name(d: &Doc, i: usize, run: &Run) -> String {
    if d.compare() {
        format!("{}: {}", letter(i), code(run.label))
    } else {
        String::new()
    }
}

fn header(out: &mut String, d: &Doc) {
    let a = d.analysis;
    let s = &a.session;
    let _ = writeln!(out, "# ctxray replay: {}\n", code(&s.source.path));
    let _ = writeln!(out, "| | |\n|---|---|");
    crate::export::md::session_rows(out, a);
    row(
        out,
        "session",
        &format!(
            "{} messages · {} tokens",
            s.messages.len(),
            thousands(a.total_tokens() as u64)
        ),
    );
}

/// Each run's preset, settings and totals, one column a run.
fn configuration(out: &mut String, d: &Doc) {
    let _ = writeln!(
        out,
        "\n## {}\n",
        if d.compare() { "Comparison" } else { "Replay" }
    );
    let mut head = String::from("| |");
    let mut rule = String::from("|---|");
    for (i, run) in d.runs.iter().enumerate() {
        if d.compare() {
            let _ = write!(head, " {} |", run_name(d, i, run));
        } else {
            head.push_str(" |");
        }
        rule.push_str("---|");
    }
    let _ = writeln!(out, "{head}\n{rule}");
    let line = |out: &mut String, key: &str, value: &dyn Fn(&Run) -> String| {
        let _ = write!(out, "| {key} |");
        for run in d.runs {
            let _ = write!(out, " {} |", value(run));
        }
        out.push('\n');
    };
    line(out, "preset", &|r| {
        format!("{} ({})", code(r.replay.preset), cell(r.replay.framework))
    });
    line(out, "settings", &|r| code(&settings_text(r.replay)));
    line(out, "checks", &|r| checks_text(r.replay).to_string());
    line(out, "summaries", &|r| summaries_text(r.replay));
    line(out, "check points", &|r| r.replay.steps.len().to_string());
    for (key, value) in SUMMARY {
        line(out, key, &|r| cell(&value(r.replay)));
    }
}

/// The sparkline of every run on one scale, `▲` where a compaction fired.
fn sawtooth(out: &mut String, d: &Doc) {
    let top = top(d.runs);
    if top == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Sawtooth\n\nContext tokens at each check point ({} tokens at the top; ▲ a compaction).\n\n```text",
        thousands(top)
    );
    for (i, run) in d.runs.iter().enumerate() {
        let (line, marks) = sparkline(run.replay, top, WIDTH);
        let name = if d.compare() {
            format!("{} ", letter(i))
        } else {
            String::new()
        };
        let pad = " ".repeat(name.chars().count());
        let _ = writeln!(out, "{name}{line}");
        if !marks.is_empty() {
            let _ = writeln!(out, "{pad}{marks}");
        }
    }
    out.push_str("```\n");
}

/// A run's compactions, rejected attempts and findings.
fn compactions(out: &mut String, d: &Doc, i: usize, run: &Run) {
    let r = run.replay;
    let name = run_name(d, i, run);
    let title = |what: &str| {
        if name.is_empty() {
            what.to_string()
        } else {
            format!("{what} · {name}")
        }
    };
    let _ = writeln!(out, "\n## {}\n", title("Compactions"));
    if r.compactions.is_empty() {
        let _ = writeln!(out, "None: the trigger never fired.");
    } else {
        let mut table = String::new();
        let _ = writeln!(table, "| {} |", COMPACTION_HEAD.join(" | "));
        let rule: Vec<&str> = COMPACTION_NUMERIC
            .iter()
            .map(|&n| if n { "--:" } else { "---" })
            .collect();
        let _ = writeln!(table, "|{}|", rule.join("|"));
        for (k, c) in r.compactions.iter().enumerate() {
            let cells: Vec<String> = compaction_cells(k, c).iter().map(|s| cell(s)).collect();
            let _ = writeln!(table, "| {} |", cells.join(" | "));
        }
        fold(
            out,
            &format!("{} compactions", r.compactions.len()),
            &table,
            r.compactions.len() > FOLD_ROWS,
        );
    }
    if !r.rejected.is_empty() {
        let _ = writeln!(
            out,
            "\n### {}\n\nThe framework compacted here and threw the result away (its guard); the history was kept.\n",
            title("Rejected by the guard")
        );
        let mut table = String::new();
        let _ = writeln!(table, "| {} |\n|--:|--:|--:|", REJECTED_HEAD.join(" | "));
        for x in &r.rejected {
            let _ = writeln!(table, "| {} |", rejected_cells(x).join(" | "));
        }
        fold(
            out,
            &format!("{} rejected", r.rejected.len()),
            &table,
            r.rejected.len() > FOLD_ROWS,
        );
    }
    findings(out, r, &title("Findings"));
}

/// Each finding code once, with the compactions it was raised at.
fn findings(out: &mut String, r: &crate::replay::Replay, title: &str) {
    let seen = finding_groups(r);
    if seen.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n### {title}\n");
    for (f, at) in seen {
        let list: Vec<String> = at.iter().take(12).map(|k| k.to_string()).collect();
        let more = if at.len() > 12 {
            format!(" +{}", at.len() - 12)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "- {} `{}` at compaction {}{more}: {}",
            badge(f.severity.as_str()),
            f.code,
            list.join(", "),
            plain(&masked(&f.detail))
        );
    }
}
