//! The text of the picker's cells: last activity as relative time, sizes, where a session
//! lives, and which characters of a cell the filter matched.
//!
//! Owns: turning one discovered session's facts into short strings, deterministically (the
//! reference time is passed in). Must not style, lay out or read the clock or the disk.

use std::path::{Component, Path};
use std::time::SystemTime;

use crate::live::discover::Found;

/// `just now`, `3 min ago`, `5 h ago`, `2 d ago`, `4 mo ago`, `1 y ago`; times after `now`
/// (a clock skew) count as just now.
pub fn ago(then: SystemTime, now: SystemTime) -> String {
    let secs = now.duration_since(then).map_or(0, |d| d.as_secs());
    const MIN: u64 = 60;
    const HOUR: u64 = 60 * MIN;
    const DAY: u64 = 24 * HOUR;
    match secs {
        s if s < MIN => "just now".to_string(),
        s if s < HOUR => format!("{} min ago", s / MIN),
        s if s < DAY => format!("{} h ago", s / HOUR),
        s if s < 30 * DAY => format!("{} d ago", s / DAY),
        s if s < 365 * DAY => format!("{} mo ago", s / (30 * DAY)),
        s => format!("{} y ago", s / (365 * DAY)),
    }
}

/// `812 B`, `4 KB`, `756 KB`, `1.4 MB`, `2.0 GB` (powers of 1024).
pub fn size(bytes: u64) -> String {
    const KB: u64 = 1024;
    const MB: u64 = KB * 1024;
    const GB: u64 = MB * 1024;
    match bytes {
        b if b < KB => format!("{b} B"),
        b if b < MB => format!("{} KB", (b + KB / 2) / KB),
        b if b < GB => format!("{:.1} MB", b as f64 / MB as f64),
        b => format!("{:.1} GB", b as f64 / GB as f64),
    }
}

/// Where a session lives: the directory the agent worked in (under `home` as `~/…`) when the
/// session says; else in its tool's terms: the Codex day directory (or `archived`), the
/// OpenHands conversation id, the Gemini CLI project.
pub fn place(found: &Found, home: Option<&Path>) -> String {
    if let Some(cwd) = found.cwd.as_deref() {
        return tilde(cwd, home);
    }
    let path = found.path.as_path();
    let names = names(path);
    let found_place = crate::formats::registry::of(found.tool).picker_place(&names);
    found_place
        .filter(|p| !p.is_empty())
        .or_else(|| parent_name(path))
        .unwrap_or_default()
}

/// `dir` with `home` shown as `~`.
pub fn tilde(dir: &str, home: Option<&Path>) -> String {
    let home = home.and_then(Path::to_str).map(|h| h.trim_end_matches('/'));
    match home {
        Some(h) if !h.is_empty() && dir == h => "~".to_string(),
        Some(h) if !h.is_empty() => match dir.strip_prefix(h) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => dir.to_string(),
        },
        _ => dir.to_string(),
    }
}

/// The message count as the inspector will show it once parsed; until then (or for a session
/// too large to parse here) discovery's record count, marked as an estimate of records.
pub fn messages(found: &Found) -> String {
    match (found.exact, found.messages) {
        (Some(n), _) => crate::text::thousands(n as u64),
        (None, Some(1)) => "~1 line".to_string(),
        (None, Some(n)) => format!("~{} lines", crate::text::thousands(n as u64)),
        (None, None) => "—".to_string(),
    }
}

/// The file or directory name, for a session without a title.
pub fn file_name(found: &Found) -> String {
    found
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn names(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

fn parent_name(path: &Path) -> Option<String> {
    path.parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
}

/// `text` cut to at most `width` terminal columns from the left, `…` marking the cut (the end of
/// a project path is the part that tells projects apart); a wide character counts two.
pub fn clip_left(text: &str, width: usize) -> String {
    if columns(text) <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut used = 1;
    let mut start = text.len();
    for (i, c) in text.char_indices().rev() {
        let w = columns(c.encode_utf8(&mut [0; 4]));
        if used + w > width {
            break;
        }
        used += w;
        start = i;
    }
    format!("…{}", &text[start..])
}

/// Terminal columns `text` takes.
fn columns(text: &str) -> usize {
    ratatui::text::Span::raw(text).width()
}

/// Which characters of `text` the filter words match, per character: a word found as a
/// substring marks its first occurrence, else a word that is a subsequence of `text` marks the
/// earliest such characters; a word that matches elsewhere (tool, path) marks nothing here.
/// Case-insensitive, as `discover::filter` is.
pub fn highlights(text: &str, query: &str) -> Vec<bool> {
    let hay: Vec<char> = text.chars().map(fold).collect();
    let mut marks = vec![false; hay.len()];
    for word in query.split_whitespace() {
        let needle: Vec<char> = word.chars().map(fold).collect();
        if let Some(at) = find(&hay, &needle) {
            marks[at..at + needle.len()]
                .iter_mut()
                .for_each(|m| *m = true);
        } else if let Some(positions) = subsequence(&hay, &needle) {
            positions.into_iter().for_each(|i| marks[i] = true);
        }
    }
    marks
}

/// One character lowercased to one character, so positions stay aligned with `text`.
fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn find(hay: &[char], needle: &[char]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

fn subsequence(hay: &[char], needle: &[char]) -> Option<Vec<usize>> {
    let mut positions = Vec::with_capacity(needle.len());
    let mut from = 0;
    for c in needle {
        let at = from + hay.get(from..)?.iter().position(|h| h == c)?;
        positions.push(at);
        from = at + 1;
    }
    Some(positions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Format;
    use std::path::PathBuf;
    use std::time::Duration;

    fn found(path: &str, tool: Format) -> Found {
        Found {
            path: PathBuf::from(path),
            tool,
            size_bytes: 0,
            modified: SystemTime::UNIX_EPOCH,
            title: None,
            messages: None,
            exact: None,
            cwd: None,
        }
    }

    #[test]
    fn relative_times_at_each_unit_boundary() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let before = |s: u64| ago(now - Duration::from_secs(s), now);
        assert_eq!(before(0), "just now");
        assert_eq!(before(59), "just now");
        assert_eq!(before(60), "1 min ago");
        assert_eq!(before(3 * 60 + 59), "3 min ago");
        assert_eq!(before(3600), "1 h ago");
        assert_eq!(before(2 * 86_400), "2 d ago");
        assert_eq!(before(29 * 86_400 + 86_399), "29 d ago");
        assert_eq!(before(30 * 86_400), "1 mo ago");
        assert_eq!(before(400 * 86_400), "1 y ago");
        assert_eq!(ago(now + Duration::from_secs(600), now), "just now");
    }

    #[test]
    fn sizes_in_binary_units() {
        assert_eq!(size(0), "0 B");
        assert_eq!(size(1023), "1023 B");
        assert_eq!(size(1024), "1 KB");
        assert_eq!(size(774_477), "756 KB");
        assert_eq!(size(1_468_006), "1.4 MB");
        assert_eq!(size(3 << 30), "3.0 GB");
    }

    #[test]
    fn places_follow_each_tools_layout() {
        let cases = [
            (
                "/h/.claude/projects/-home-u-app/a.jsonl",
                Format::CLAUDE_CODE,
                "-home-u-app",
            ),
            (
                "/h/.codex/sessions/2025/01/02/rollout-x.jsonl",
                Format::CODEX,
                "2025/01/02",
            ),
            (
                "/h/.codex/archived_sessions/rollout-x.jsonl",
                Format::CODEX,
                "archived",
            ),
            (
                "/h/.openhands/conversations/0a1b",
                Format::OPENHANDS,
                "0a1b",
            ),
            (
                concat!("/h/.gemini/", "tmp", "/proj1/chats/session-x.jsonl"),
                Format::GEMINI_CLI,
                "proj1",
            ),
            (
                concat!("/h/.gemini/", "tmp", "/proj1/checkpoint-a.json"),
                Format::GEMINI_CLI,
                "proj1",
            ),
            ("/x/y/log.json", Format::OPENAI_CHAT, "y"),
        ];
        for (path, tool, want) in cases {
            assert_eq!(place(&found(path, tool), None), want, "{path}");
        }
    }

    #[test]
    fn a_recorded_cwd_is_the_place_with_home_as_tilde() {
        let mut f = found(
            "/h/.claude/projects/-home-u-a-b/s.jsonl",
            Format::CLAUDE_CODE,
        );
        f.cwd = Some("/home/u/a-b".to_string());
        let home = Path::new("/home/u");
        assert_eq!(place(&f, Some(home)), "~/a-b");
        assert_eq!(place(&f, None), "/home/u/a-b");
        assert_eq!(tilde("/home/u", Some(home)), "~");
        assert_eq!(tilde("/home/user2/x", Some(home)), "/home/user2/x");
        assert_eq!(tilde("/home/u/x", Some(Path::new("/home/u/"))), "~/x");
    }

    #[test]
    fn counts_are_exact_or_marked_as_lines() {
        let mut f = found("/x/s.jsonl", Format::CODEX);
        assert_eq!(messages(&f), "—");
        f.messages = Some(1437);
        assert_eq!(messages(&f), "~1,437 lines");
        f.exact = Some(23);
        assert_eq!(messages(&f), "23");
    }

    #[test]
    fn clipping_keeps_the_end() {
        assert_eq!(clip_left("-home-u-app", 20), "-home-u-app");
        assert_eq!(clip_left("-Users-alice-code-parser", 10), "…de-parser");
        assert_eq!(clip_left("abc", 0), "");
        assert_eq!(clip_left("~/项目/解析器", 8), "…/解析器");
    }

    #[test]
    fn highlights_substrings_then_subsequences_case_insensitively() {
        let marked = |text: &str, q: &str| -> String {
            text.chars()
                .zip(highlights(text, q))
                .map(|(c, m)| if m { c } else { '.' })
                .collect()
        };
        assert_eq!(
            marked("Speed up the CSV export", "csv"),
            ".............CSV......."
        );
        assert_eq!(
            marked("Speed up the CSV export", "csvexp"),
            ".............CSV.exp..."
        );
        assert_eq!(
            marked("Fix the flaky login test", "LOGIN fix"),
            "Fix...........login....."
        );
        assert_eq!(marked("Write the docs", "zz"), "..............");
        assert_eq!(marked("Ärger über Öl", "öl"), "...........Öl");
    }
}
