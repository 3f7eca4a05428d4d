//! Shareable reports: a session's analysis, a preset's plan, the diff of its summarized range,
//! a compaction's result and a replay (`replay`) rendered as Markdown (for issue trackers) or
//! one self-contained HTML page (for browsers, offline).
//!
//! Owns: what a shared report shows and how every piece of session content is masked before it
//! lands in one. Pure: builds strings from core data (the HTML page also into a writer the CLI
//! hands in, so that a page larger than the session is never held whole); must not print, read
//! files, run presets or touch a terminal (the CLI computes the plan and the diff and hands them
//! in).

pub mod html;
pub mod md;
pub mod replay;

use crate::analysis::Analysis;
use crate::compaction::{Finding, Plan};
use crate::diff::Diff;
use crate::session::Part;

/// What a compaction produced, for the report (the CLI carries it out).
#[derive(Debug, Clone, Copy)]
pub struct Compacted<'a> {
    /// `offline`, `openai:MODEL`, `anthropic:MODEL`.
    pub summarizer: &'a str,
    pub summary: Option<&'a str>,
    pub after: &'a Analysis,
    pub findings: &'a [Finding],
}

/// Everything one report shows; sections whose data is absent are left out.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    pub analysis: &'a Analysis,
    /// Show the per-message token table (off for `diff`, which is about the summarized range).
    pub messages: bool,
    pub plan: Option<&'a Plan>,
    pub diff: Option<&'a Diff>,
    pub compacted: Option<Compacted<'a>>,
}

impl<'a> Report<'a> {
    /// The session's findings, then the plan's, then the compaction's.
    pub fn findings(&self) -> Vec<&'a Finding> {
        let mut all: Vec<&Finding> = self.analysis.findings.iter().collect();
        if let Some(p) = self.plan {
            all.extend(&p.findings);
        }
        if let Some(c) = self.compacted {
            all.extend(c.findings);
        }
        all
    }
}

/// `text` with every secret replaced by `[REDACTED:<kind>]`. Masking happens on whole content,
/// before any clipping, so a secret cut in two is never shown in part.
pub fn masked(text: &str) -> String {
    crate::secrets::mask(text).0
}

/// The texts of consecutive lines with every secret masked, including one that spans lines (a
/// PEM block): its first line carries `[REDACTED:<kind>]`, the lines it covers lose that part.
pub fn masked_lines<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    let lines: Vec<&str> = lines.collect();
    let joined = lines.join("\n");
    let found = crate::secrets::find(&joined);
    let mut out = Vec::with_capacity(lines.len());
    let mut start = 0;
    // The matches are in order and never overlap: those a line holds are a run of them, the
    // first being the first that ends after the line starts.
    let mut first = 0;
    for line in lines {
        let end = start + line.len();
        while found.get(first).is_some_and(|m| m.range.end <= start) {
            first += 1;
        }
        let held = found[first..].iter().take_while(|m| m.range.start < end);
        out.push(masked_line(&joined, start..end, held));
        start = end + 1;
    }
    out
}

/// The line at `line` of `joined` with `held` (the matches it holds, in order) masked: a match
/// that starts in it leaves `[REDACTED:<kind>]`, one that started on an earlier line leaves
/// nothing.
fn masked_line<'m>(
    joined: &str,
    line: std::ops::Range<usize>,
    held: impl Iterator<Item = &'m crate::secrets::SecretMatch>,
) -> String {
    let (start, end) = (line.start, line.end);
    let mut text = String::new();
    let mut at = start;
    for m in held {
        let from = m.range.start.max(start);
        text.push_str(&joined[at.max(start)..from.max(at)]);
        if m.range.start >= start {
            text.push_str(&format!("[REDACTED:{}]", m.kind));
        }
        at = m.range.end.min(end);
    }
    if at < end {
        text.push_str(&joined[at.max(start)..end]);
    }
    text
}

/// Each message's fate under `plan` (see [`crate::compaction::plan::Split::fates`]), as the
/// reports name it; none without a plan.
pub fn fates(a: &Analysis, plan: Option<&Plan>) -> Vec<&'static str> {
    plan.map_or_else(Vec::new, |p| {
        p.split
            .fates(a.session.messages.len())
            .into_iter()
            .map(|f| f.as_str())
            .collect()
    })
}

/// The fate at message `i` in `fates` (`-` past its end).
pub fn fate_at(fates: &[&'static str], i: usize) -> &'static str {
    fates.get(i).copied().unwrap_or("-")
}

/// The whole readable content of a message, parts joined by blank lines, masked.
pub fn message_text(parts: &[Part]) -> String {
    let joined = parts
        .iter()
        .map(|p| match p {
            Part::ToolCall {
                name, arguments, ..
            } => format!("{name}({arguments})"),
            Part::Image(_) => "[image]".to_string(),
            Part::Reasoning { text, opaque_len } if text.is_empty() => {
                format!("[reasoning: {opaque_len} opaque bytes]")
            }
            other => other.plain_text(),
        })
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    masked(&joined)
}

/// First non-empty line of `text`, clipped to `width` characters.
pub fn preview(text: &str, width: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    clip(line, width)
}

pub fn clip(s: &str, width: usize) -> String {
    crate::text::clip(s, width)
}

/// Part kinds with counts, e.g. `text,tool_call×2`.
pub fn part_summary(parts: &[Part]) -> String {
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

pub use crate::text::thousands;

/// One fact of a page's header: shown as code (a name to copy) or as text.
pub(crate) enum Fact {
    Code(String),
    Text(String),
}

/// The facts every page opens with about its session: format, title, model, window and
/// tokenizer. Each output renders them its own way.
pub(crate) fn session_facts(a: &Analysis) -> Vec<(&'static str, Fact)> {
    let s = &a.session;
    let mut facts = vec![("format", Fact::Code(s.format.name().to_string()))];
    if let Some(t) = &s.title {
        facts.push(("title", Fact::Text(masked(t))));
    }
    let approximate = if a.info.approximate {
        " (approximate)"
    } else {
        ""
    };
    facts.push((
        "model",
        Fact::Text(format!(
            "{}{approximate}",
            a.model.as_deref().unwrap_or("unknown")
        )),
    ));
    facts.push((
        "window",
        Fact::Text(format!(
            "{} tokens ({})",
            thousands(a.window),
            a.window_source.as_str()
        )),
    ));
    facts.push((
        "tokenizer",
        Fact::Code(a.counter.encoding().name().to_string()),
    ));
    facts
}

/// Per cent of `a` in `b` (100 when `b` is 0).
pub fn pct(a: u64, b: u64) -> f64 {
    if b == 0 {
        100.0
    } else {
        a as f64 * 100.0 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_over_several_lines_is_masked_on_each() {
        let lines = [
            "key:",
            "-----BEGIN RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEA7s3cr3t",
            "-----END RSA PRIVATE KEY----- after",
            "plain",
        ];
        let out = masked_lines(lines.iter().copied());
        assert_eq!(
            out,
            ["key:", "[REDACTED:private-key]", "", " after", "plain"]
        );
    }

    /// `masked_lines` as it was before it walked the matches in order: every match asked of
    /// every line.
    fn masked_lines_asking_each(lines: &[&str]) -> Vec<String> {
        let joined = lines.join("\n");
        let found = crate::secrets::find(&joined);
        let mut out = Vec::new();
        let mut start = 0;
        for line in lines {
            let end = start + line.len();
            let held = found
                .iter()
                .filter(|m| m.range.start < end && m.range.end > start);
            out.push(masked_line(&joined, start..end, held));
            start = end + 1;
        }
        out
    }

    proptest::proptest! {
        /// Lines of keys, key blocks that span lines, and plain words, in any order: walking
        /// the matches in order masks each line as asking every match of it does.
        #[test]
        fn masking_lines_in_order_is_asking_each_match(
            pieces in proptest::collection::vec(0usize..6, 0..40),
        ) {
            let key = format!("sk-proj-{}", "A1b2C3d4".repeat(4));
            let words = [
                "plain words".to_string(),
                format!("a {key} b {key}"),
                "-----BEGIN RSA PRIVATE KEY-----".to_string(),
                "MIIEowIBAAKCAQEA".to_string(),
                "-----END RSA PRIVATE KEY----- tail".to_string(),
                format!("API_TOKEN={key}"),
            ];
            let lines: Vec<&str> = pieces.iter().map(|&i| words[i].as_str()).collect();
            proptest::prop_assert_eq!(
                masked_lines(lines.iter().copied()),
                masked_lines_asking_each(&lines)
            );
        }
    }

    #[test]
    fn message_text_masks_before_anything_is_clipped() {
        let key = format!("sk-proj-{}", "A1b2C3d4".repeat(5));
        let parts = vec![Part::text(format!("export OPENAI_API_KEY={key} now"))];
        let text = message_text(&parts);
        assert!(!text.contains(&key[..12]), "{text}");
        assert!(text.contains("[REDACTED:"), "{text}");
    }

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(part_summary(&[Part::text("a"), Part::text("b")]), "text×2");
    }
}
