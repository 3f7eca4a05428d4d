//! `report` as a terminal table: per message index, role, part kinds, tool names, a token bar,
//! tokens and reported tokens; compaction marks as rules; totals, window fill and findings.

use std::io::{self, Write};

use super::style::Style;
use crate::analysis::Analysis;
use crate::report::view::session::reported_tokens;
use crate::session::Part;

const BAR_WIDTH: usize = 20;

pub fn write(out: &mut impl Write, a: &Analysis, color: bool) -> io::Result<()> {
    write_session(out, a, Style { on: color }, 0)
}

fn write_session(out: &mut impl Write, a: &Analysis, st: Style, depth: usize) -> io::Result<()> {
    let s = &a.session;
    let pad = "  ".repeat(depth);
    let model = a.model.as_deref().unwrap_or("unknown model");
    let approx = if a.info.approximate {
        ", approximate"
    } else {
        ""
    };
    writeln!(
        out,
        "{pad}{}  {}  {}  ({}{approx})",
        st.bold(&crate::text::inline(&s.source.path)),
        s.format.name(),
        crate::text::inline(model),
        a.counter.encoding().name()
    )?;
    if let Some(title) = &s.title {
        writeln!(out, "{pad}{}", st.dim(&crate::text::inline(title)))?;
    }
    let largest = a
        .counts
        .messages
        .iter()
        .map(|c| c.total())
        .max()
        .unwrap_or(0);
    writeln!(
        out,
        "{pad}{}",
        st.dim(&format!(
            "{:>5}  {:<9}  {:<24}  {:<18}  {:<w$}  {:>8}  {:>8}",
            "#",
            "role",
            "parts",
            "tools",
            "",
            "tokens",
            "reported",
            w = BAR_WIDTH
        ))
    )?;
    let mut marks = s.marks.iter().peekable();
    for (m, c) in s.messages.iter().zip(&a.counts.messages) {
        while let Some(mark) = marks.next_if(|k| k.before_message <= m.index) {
            write_mark(out, mark, st, &pad)?;
        }
        let group = match a.grouping.of_message.get(m.index).copied().flatten() {
            Some(g) => {
                let grp = &a.grouping.groups[g];
                let first = grp.messages.first() == Some(&m.index);
                let last = grp.messages.last() == Some(&m.index);
                let glyph = match (first, last) {
                    (true, true) => "[",
                    (true, false) => "┌",
                    (false, true) => "└",
                    _ => "│",
                };
                if grp.complete() {
                    st.dim(glyph)
                } else {
                    st.severity("warn", glyph)
                }
            }
            None => " ".to_string(),
        };
        let parts = part_summary(&m.parts);
        let tools = m.tool_names().join(",");
        let reported = reported_tokens(m).map_or(String::new(), |r| r.to_string());
        writeln!(
            out,
            "{pad}{:>5}{group} {}  {:<24}  {:<18}  {}  {:>8}  {:>8}",
            m.index,
            st.role(m.role.as_str(), &format!("{:<9}", m.role.as_str())),
            clip(&parts, 24),
            clip(&tools, 18),
            bar(c.total(), largest, st),
            thousands(c.total()),
            reported
        )?;
    }
    for mark in marks {
        write_mark(out, mark, st, &pad)?;
    }
    write_totals(out, a, st, &pad)?;
    // A source of many sessions (an evaluation log's instances, a log's samples) has no
    // messages of its own: its children are sessions, not subagents.
    let label = match a.session.messages.is_empty() {
        true => "session:",
        false => "subagent:",
    };
    for child in &a.children {
        writeln!(out)?;
        writeln!(out, "{pad}{}", st.bold(label))?;
        write_session(out, child, st, depth + 1)?;
    }
    Ok(())
}

fn write_mark(
    out: &mut impl Write,
    mark: &crate::session::CompactionMark,
    st: Style,
    pad: &str,
) -> io::Result<()> {
    let tokens = match (mark.pre_tokens, mark.post_tokens) {
        (Some(a), Some(b)) => format!(
            " {} → {} tokens",
            thousands(a as usize),
            thousands(b as usize)
        ),
        (Some(a), None) => format!(" from {} tokens", thousands(a as usize)),
        _ => String::new(),
    };
    let trigger = mark
        .trigger
        .as_deref()
        .map_or(String::new(), |t| format!(" ({t})"));
    writeln!(
        out,
        "{pad}{}",
        st.paint("35", &format!("──── {}{trigger}{tokens} ────", mark.kind))
    )
}

fn write_totals(out: &mut impl Write, a: &Analysis, st: Style, pad: &str) -> io::Result<()> {
    let total = a.total_tokens();
    let text: usize = a.counts.messages.iter().map(|c| c.tokens).sum();
    let fill = if a.window > 0 {
        total as f64 / a.window as f64
    } else {
        0.0
    };
    writeln!(
        out,
        "{pad}{} messages · {} tokens ({} text + {} framing/images) · window {} ({}) · {:.1}% full",
        a.session.messages.len(),
        thousands(total),
        thousands(text),
        thousands(total - text),
        thousands(a.window as usize),
        a.window_source.as_str(),
        fill * 100.0
    )?;
    if let Some(ctx) = a.last_reported_context() {
        writeln!(
            out,
            "{pad}last reported context: {} tokens ({:.1}% of the window)",
            thousands(ctx as usize),
            ctx as f64 * 100.0 / a.window.max(1) as f64
        )?;
    }
    let g = &a.grouping.groups;
    let broken = g.iter().filter(|g| !g.complete()).count();
    writeln!(
        out,
        "{pad}{} tool-call groups ({} incomplete) · {} compaction marks · {} skipped lines",
        g.len(),
        broken,
        a.session.marks.len(),
        a.session.source.skipped.len()
    )?;
    for f in &a.findings {
        let at = if f.messages.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = f.messages.iter().take(6).map(|m| format!("#{m}")).collect();
            format!(" {}", list.join(","))
        };
        writeln!(
            out,
            "{pad}{} {}{at}: {}",
            st.severity(f.severity.as_str(), &format!("{:<5}", f.severity.as_str())),
            f.code,
            crate::text::inline(&f.detail)
        )?;
    }
    Ok(())
}

/// Part kinds with counts, e.g. `text,tool_call×2`.
fn part_summary(parts: &[Part]) -> String {
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for p in parts {
        match kinds.iter_mut().find(|(k, _)| *k == p.kind()) {
            Some((_, n)) => *n += 1,
            None => kinds.push((p.kind(), 1)),
        }
    }
    kinds
        .iter()
        .map(|(k, n)| {
            if *n > 1 {
                format!("{k}×{n}")
            } else {
                k.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn bar(value: usize, largest: usize, st: Style) -> String {
    let eighths = (value * BAR_WIDTH * 8).checked_div(largest).unwrap_or(0);
    let full = eighths / 8;
    let rest = eighths % 8;
    let mut s = "█".repeat(full);
    if rest > 0 {
        s.push(['▏', '▎', '▍', '▌', '▋', '▊', '▉'][rest - 1]);
    }
    let width = s.chars().count();
    let padded = format!("{s}{}", " ".repeat(BAR_WIDTH.saturating_sub(width)));
    st.paint("34", &padded)
}

fn clip(s: &str, width: usize) -> String {
    crate::text::clip(s, width)
}

pub use crate::text::thousands;
