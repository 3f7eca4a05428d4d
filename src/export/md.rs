//! The Markdown report: reads well pasted into an issue tracker. A header (file, format, model,
//! window), the context gauge, the token table with bar glyphs, the plan's trigger and split,
//! the summarizer input, the diff of the summarized range with losses marked, the compaction's
//! result and the findings. Long content goes in collapsible `<details>` blocks; every piece of
//! session content is masked (`[REDACTED:<kind>]`), and the finished document is masked again.
//!
//! Owns: Markdown layout and escaping. Must not: compute plans or diffs, or print.

use std::fmt::Write;

use super::{
    clip, fate_at, fates, masked, masked_lines, message_text, part_summary, pct, preview,
    thousands, Report,
};
use crate::analysis::Analysis;
use crate::compaction::plan::source_fates;
use crate::compaction::Plan;
use crate::diff::{summarizer_input_chars, Diff};

/// Width of the token bars, in cells.
const BAR: usize = 16;
/// A table with more rows than this is folded in `<details>`.
const FOLD_ROWS: usize = 40;

/// The whole report as Markdown.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    header(&mut out, r);
    if r.messages {
        messages(&mut out, r.analysis, r.plan);
    }
    if let Some(plan) = r.plan {
        split(&mut out, r.analysis, plan);
        summarizer(&mut out, plan);
    }
    if let (Some(plan), Some(d)) = (r.plan, r.diff) {
        diff(&mut out, r.analysis, plan, d);
    }
    if let Some(c) = r.compacted {
        compacted(&mut out, r.analysis, c);
    }
    findings(&mut out, r);
    for (i, child) in r.analysis.children.iter().enumerate() {
        let _ = writeln!(out, "\n---\n\n**Subagent {}**\n", i + 1);
        let sub = Report {
            analysis: child,
            messages: r.messages,
            plan: None,
            diff: None,
            compacted: None,
        };
        let body = render(&sub);
        // Demote the subagent's headings one level under its own.
        for line in body.lines() {
            if line.starts_with('#') {
                let _ = writeln!(out, "#{line}");
            } else {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    masked(&out)
}

fn header(out: &mut String, r: &Report) {
    let a = r.analysis;
    let s = &a.session;
    let _ = writeln!(out, "# ctxray: {}\n", code(&s.source.path));
    let _ = writeln!(out, "| | |\n|---|---|");
    session_rows(out, a);
    let total = a.total_tokens() as u64;
    row(
        out,
        "context",
        &format!(
            "{} messages · {} tokens · `{}` {:.1}% of the window",
            a.session.messages.len(),
            thousands(total),
            gauge(total, a.window, 20),
            pct(total, a.window.max(1))
        ),
    );
    if let Some(ctx) = a.last_reported_context() {
        row(
            out,
            "last reported context",
            &format!("{} tokens", thousands(ctx)),
        );
    }
    if let Some(plan) = r.plan {
        let settings: Vec<String> = plan
            .settings
            .pairs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        row(
            out,
            "preset",
            &format!(
                "{} ({}) · {}",
                code(plan.preset),
                cell(plan.framework),
                code(&settings.join(" "))
            ),
        );
        let t = &plan.trigger;
        row(
            out,
            "trigger",
            &format!(
                "{}: {} ({} {} by {})",
                if t.fired {
                    "**fires**"
                } else {
                    "does not fire"
                },
                cell(&t.reason),
                t.value,
                t.measure,
                cell(&t.estimator)
            ),
        );
    }
}

fn messages(out: &mut String, a: &Analysis, plan: Option<&Plan>) {
    let s = &a.session;
    let _ = writeln!(out, "\n## Tokens per message\n");
    let largest = a
        .counts
        .messages
        .iter()
        .map(|c| c.total())
        .max()
        .unwrap_or(0) as u64;
    let mut table = String::new();
    let fate_head = if plan.is_some() { " fate |" } else { "" };
    let fate_rule = if plan.is_some() { "---|" } else { "" };
    let _ = writeln!(
        table,
        "| # | role |{fate_head} parts | tools | tokens | | preview |\n|--:|---|{fate_rule}---|---|--:|---|---|"
    );
    let mut marks = s.marks.iter().peekable();
    let fates = fates(a, plan);
    for (m, c) in s.messages.iter().zip(&a.counts.messages) {
        while let Some(mark) = marks.next_if(|k| k.before_message <= m.index) {
            mark_row(&mut table, mark, plan.is_some());
        }
        let fate_cell = if plan.is_some() {
            format!(" {} |", fate_at(&fates, m.index))
        } else {
            String::new()
        };
        let _ = writeln!(
            table,
            "| {} | {} |{fate_cell} {} | {} | {} | {} | {} |",
            m.index,
            m.role.as_str(),
            part_summary(&m.parts),
            cell(&m.tool_names().join(", ")),
            thousands(c.total() as u64),
            bar_cell(c.total() as u64, largest, BAR),
            cell(&preview(&message_text(&m.parts), 60))
        );
    }
    for mark in marks {
        mark_row(&mut table, mark, plan.is_some());
    }
    fold(
        out,
        &format!("{} messages", s.messages.len()),
        &table,
        s.messages.len() > FOLD_ROWS,
    );
}

fn mark_row(out: &mut String, mark: &crate::session::CompactionMark, with_fate: bool) {
    let tokens = match (mark.pre_tokens, mark.post_tokens) {
        (Some(a), Some(b)) => format!(" {} → {} tokens", thousands(a), thousands(b)),
        (Some(a), None) => format!(" from {} tokens", thousands(a)),
        _ => String::new(),
    };
    let trigger = mark
        .trigger
        .as_deref()
        .map_or(String::new(), |t| format!(" ({})", cell(t)));
    let empty = if with_fate { " |" } else { "" };
    let _ = writeln!(
        out,
        "| | **{}**{trigger}{tokens} |{empty} | | | | |",
        cell(&mark.kind)
    );
}

fn split(out: &mut String, a: &Analysis, plan: &Plan) {
    let _ = writeln!(out, "\n## Split\n");
    let s = &plan.split;
    let fates = source_fates(&a.session, s);
    let tokens = |ix: &[usize]| -> u64 {
        ix.iter()
            .filter_map(|&i| a.counts.messages.get(i))
            .map(|c| c.total() as u64)
            .sum()
    };
    let total = a.total_tokens() as u64;
    let _ = writeln!(
        out,
        "| fate | messages | tokens | share | records |\n|---|---|--:|---|--:|"
    );
    for (name, ix, records) in [
        ("pinned", &s.pinned, None),
        ("summarized", &s.summarized, Some(fates.summarized.len())),
        ("kept", &s.kept, Some(fates.kept.len())),
        ("dropped", &s.dropped, Some(fates.dropped.len())),
    ] {
        let t = tokens(ix);
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} |",
            ranges(ix),
            thousands(t),
            bar_cell(t, total, BAR),
            records.map_or("".to_string(), |n| n.to_string())
        );
    }
    // Tool-call groups by where the plan puts their messages.
    let groups = &a.grouping.groups;
    if groups.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n| tool-call group | messages | fate | complete |\n|---|---|---|---|"
    );
    let mut rows = String::new();
    let all = super::fates(a, Some(plan));
    for (g, grp) in groups.iter().enumerate() {
        let fates: Vec<&str> = grp.messages.iter().map(|&i| fate_at(&all, i)).collect();
        let mut distinct: Vec<&str> = Vec::new();
        for f in &fates {
            if !distinct.contains(f) {
                distinct.push(f);
            }
        }
        let verdict = if distinct.len() > 1 {
            format!("**split**: {}", distinct.join(" / "))
        } else {
            distinct.first().copied().unwrap_or("-").to_string()
        };
        let names: Vec<String> = grp
            .messages
            .iter()
            .filter_map(|&i| a.session.messages.get(i))
            .flat_map(|m| m.tool_names())
            .collect();
        let _ = writeln!(
            rows,
            "| {g} {} | {} | {verdict} | {} |",
            cell(&clip(&names.join(", "), 40)),
            ranges(&grp.messages),
            if grp.complete() { "yes" } else { "**no**" }
        );
    }
    out.push_str(&rows);
}

fn summarizer(out: &mut String, plan: &Plan) {
    if plan.summarizer.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Summarizer input\n\n{} message(s), {} characters.\n",
        plan.summarizer.len(),
        thousands(summarizer_input_chars(plan) as u64)
    );
    for m in &plan.summarizer {
        let content = masked(&m.content);
        let title = format!(
            "{} · {} characters",
            m.role.as_str(),
            thousands(m.content.chars().count() as u64)
        );
        details(out, &title, &fenced(&content, "text"));
    }
    if let Some(ins) = &plan.insertion {
        let _ = writeln!(
            out,
            "The summary goes back as a `{}` message at position {}{}.",
            ins.role.as_str(),
            ins.position,
            if ins.prefix.is_empty() {
                String::new()
            } else {
                format!(", after the prefix {}", code(&preview(&ins.prefix, 60)))
            }
        );
    }
}

fn diff(out: &mut String, a: &Analysis, plan: &Plan, d: &Diff) {
    let _ = writeln!(out, "\n## Summarized range against the summarizer input\n");
    if d.messages.is_empty() {
        let _ = writeln!(out, "Nothing is summarized: {}", cell(&plan.trigger.reason));
        return;
    }
    let _ = writeln!(
        out,
        "{} messages summarized · {} of {} characters reach the summarizer ({:.0}%) · evidence survival {}/{} ({:.0}%)\n",
        d.messages.len(),
        thousands(d.seen_chars as u64),
        thousands(d.raw_chars as u64),
        pct(d.seen_chars as u64, d.raw_chars as u64),
        d.evidence_survived,
        d.evidence_total,
        d.evidence_survival() * 100.0
    );
    let _ = writeln!(
        out,
        "| # | role | seen | chars seen | lost |\n|--:|---|---|--:|---|"
    );
    for m in &d.messages {
        let lost = crate::report::lost::Lost::of(m).pieces(
            cell,
            |f| format!("{} {}", f.kind, code(&clip(&f.text, 40))),
            ", ",
        );
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | {} / {} | {} |",
            m.index,
            m.role.as_str(),
            seen_bar(m.seen_chars as u64, m.raw_chars as u64, BAR),
            thousands(m.seen_chars as u64),
            thousands(m.raw_chars as u64),
            if lost.is_empty() {
                "—".to_string()
            } else {
                format!("❌ {}", lost.join(" · "))
            }
        );
    }
    // The raw side line by line: `-` lines never reach the summarizer, `~` lines only in part.
    let shown =
        (d.messages.iter()).filter_map(|m| a.session.messages.get(m.index).map(|msg| (m, msg)));
    let mut body = String::new();
    for (m, msg) in shown {
        let seen = crate::diff::message_lines(msg, m);
        let _ = writeln!(body, "@@ #{} {} @@", m.index, m.role.as_str());
        let texts = masked_lines(seen.iter().map(|l| l.text.as_str()));
        for (l, text) in seen.iter().zip(&texts) {
            let text = clip(text, 200);
            let mark = if l.seen >= l.chars {
                ' '
            } else if l.seen == 0 {
                '-'
            } else {
                '~'
            };
            let _ = writeln!(body, "{mark} {text}");
        }
    }
    let _ = writeln!(
        out,
        "\nLines marked `-` never reach the summarizer; `~` reach it cut short.\n"
    );
    details(
        out,
        &format!("raw summarized lines ({} messages)", d.messages.len()),
        &fenced(&body, "diff"),
    );
}

fn compacted(out: &mut String, before: &Analysis, c: super::Compacted) {
    let _ = writeln!(out, "\n## Compaction\n");
    let b = before.total_tokens() as u64;
    let a = c.after.total_tokens() as u64;
    let largest = b.max(a).max(1);
    let _ = writeln!(
        out,
        "| | messages | tokens | |\n|---|--:|--:|---|\n| before | {} | {} | {} |\n| after | {} | {} | {} |\n",
        before.session.messages.len(),
        thousands(b),
        bar_cell(b, largest, 24),
        c.after.session.messages.len(),
        thousands(a),
        bar_cell(a, largest, 24)
    );
    let saved = b as i64 - a as i64;
    let _ = writeln!(
        out,
        "{} {} tokens ({:.1}%) · summarizer: {}\n",
        if saved >= 0 { "Freed" } else { "Grew by" },
        thousands(saved.unsigned_abs()),
        pct(saved.unsigned_abs(), b.max(1)),
        code(c.summarizer)
    );
    if let Some(s) = c.summary {
        details(out, "summary", &fenced(&masked(s), "text"));
    }
}

fn findings(out: &mut String, r: &Report) {
    let all = r.findings();
    let _ = writeln!(out, "\n## Findings\n");
    if all.is_empty() {
        let _ = writeln!(out, "None.");
        return;
    }
    for f in all {
        let at: Vec<String> = f.messages.iter().take(8).map(|m| format!("#{m}")).collect();
        let more = if f.messages.len() > 8 {
            format!(" +{}", f.messages.len() - 8)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "- {} `{}`{}: {}",
            badge(f.severity.as_str()),
            f.code,
            if at.is_empty() {
                String::new()
            } else {
                format!(" ({}{more})", at.join(", "))
            },
            plain(&masked(&f.detail))
        );
    }
}

pub(super) fn badge(severity: &str) -> &'static str {
    match severity {
        "error" => "🛑 **error**",
        "warn" => "⚠️ **warn**",
        _ => "ℹ️ info",
    }
}

/// The header rows about the session: its file, then [`super::session_facts`].
pub(super) fn session_rows(out: &mut String, a: &Analysis) {
    row(out, "file", &code(&a.session.source.path));
    for (key, fact) in super::session_facts(a) {
        let value = match fact {
            super::Fact::Code(c) => code(&c),
            super::Fact::Text(t) => cell(&t),
        };
        row(out, key, &value);
    }
}

pub(super) fn row(out: &mut String, key: &str, value: &str) {
    let _ = writeln!(out, "| {key} | {value} |");
}

/// `value` of `largest` as eighth-block glyphs, `width` cells at most.
pub fn bar(value: u64, largest: u64, width: usize) -> String {
    let eighths = (value as u128 * width as u128 * 8)
        .checked_div(largest as u128)
        .unwrap_or(0)
        .min(width as u128 * 8) as usize;
    let mut s = "█".repeat(eighths / 8);
    if eighths % 8 > 0 {
        s.push(['▏', '▎', '▍', '▌', '▋', '▊', '▉'][eighths % 8 - 1]);
    }
    s
}

/// A bar as inline code (monospace keeps the glyphs aligned); empty when there is nothing.
fn bar_cell(value: u64, largest: u64, width: usize) -> String {
    let b = bar(value, largest, width);
    if b.is_empty() {
        String::new()
    } else {
        format!("`{b}`")
    }
}

/// ctxray's own sentences, which may quote content: tags cannot open, code spans stay.
pub(super) fn plain(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}

/// A full/empty gauge of `value` against `limit`.
fn gauge(value: u64, limit: u64, width: usize) -> String {
    let filled = (value as u128 * width as u128)
        .checked_div(limit as u128)
        .unwrap_or(0)
        .min(width as u128) as usize;
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

fn seen_bar(seen: u64, raw: u64, width: usize) -> String {
    let filled = (seen as u128 * width as u128)
        .checked_div(raw as u128)
        .unwrap_or(width as u128)
        .min(width as u128) as usize;
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

/// Message indices as runs: `#0, #2–#5`.
fn ranges(ix: &[usize]) -> String {
    if ix.is_empty() {
        return "—".into();
    }
    let mut sorted = ix.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<String> = Vec::new();
    let mut start = sorted[0];
    let mut prev = start;
    for &i in &sorted[1..] {
        if i != prev + 1 {
            runs.push(run(start, prev));
            start = i;
        }
        prev = i;
    }
    runs.push(run(start, prev));
    format!("{} ({})", runs.join(", "), sorted.len())
}

fn run(a: usize, b: usize) -> String {
    if a == b {
        format!("#{a}")
    } else {
        format!("#{a}–#{b}")
    }
}

/// Text safe inside a table cell: one line, pipes and markup escaped.
pub(super) fn cell(s: &str) -> String {
    inline(&s.replace(['\n', '\r'], " ")).replace('|', "\\|")
}

/// Text safe inline: HTML and emphasis characters escaped so content cannot open tags or links.
fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out
}

/// `s` as inline code, with a backtick fence longer than any run inside it.
pub(super) fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let fence = "`".repeat(longest_run(&s, '`') + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", s.replace('|', "\\|"))
}

/// A fenced code block whose fence no line of `body` can close.
fn fenced(body: &str, lang: &str) -> String {
    let fence = "`".repeat((longest_run(body, '`') + 1).max(3));
    let body = body.trim_end_matches('\n');
    format!("{fence}{lang}\n{body}\n{fence}\n")
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for ch in s.chars() {
        if ch == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// A collapsible block (GitHub renders Markdown inside it after a blank line).
pub(super) fn details(out: &mut String, summary: &str, body: &str) {
    let _ = writeln!(
        out,
        "<details><summary>{}</summary>\n\n{}\n</details>\n",
        inline(summary),
        body.trim_end()
    );
}

/// Folds `body` when it is long.
pub(super) fn fold(out: &mut String, summary: &str, body: &str, long: bool) {
    if long {
        details(out, summary, body);
    } else {
        out.push_str(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_fences_cannot_be_closed_by_content() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert!(fenced("```\nrm -rf /\n```", "text").starts_with("````text\n"));
    }

    #[test]
    fn cells_stay_one_line_and_cannot_open_tags() {
        assert_eq!(cell("a|b\n<script>"), "a\\|b &lt;script&gt;");
    }

    #[test]
    fn bars_and_runs() {
        assert_eq!(bar(1, 1, 4), "████");
        assert_eq!(bar(1, 2, 4), "██");
        assert_eq!(bar(1, 16, 4), "▎");
        assert_eq!(bar(5, 0, 4), "");
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "#0–#2, #5, #7–#8 (6)");
    }
}
