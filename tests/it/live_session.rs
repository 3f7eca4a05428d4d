//! Live follow of whole sessions: `LiveFile` over a growing file and `LiveSession` fed by a
//! stream, compared after every step with the batch parse of the same bytes.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use ctxray::formats::load_bytes;
use ctxray::live::{LiveFile, LiveSession, LiveUpdate, StdinEvent, StdinReader};

fn append(path: &Path, bytes: &[u8]) {
    let mut f = OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

fn temp_file(name: &str, content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    fs::write(&path, content).unwrap();
    (dir, path)
}

fn fixture(name: &str) -> Vec<u8> {
    fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name),
    )
    .unwrap()
}

/// Message (source_indices, role, part count) of a session, to compare two parses.
fn shape(session: &ctxray::session::Session) -> Vec<(Vec<usize>, &'static str, usize)> {
    session
        .messages
        .iter()
        .map(|m| (m.source_indices.clone(), m.role.as_str(), m.parts.len()))
        .collect()
}

fn follow_matches_batch_parse(fixture_name: &str) {
    follow_bytes_matches_batch_parse(&fixture(fixture_name), "live.jsonl", 1);
}

/// Every message and mark, in full, to compare two parses exactly.
fn debug_messages(session: &ctxray::session::Session) -> Vec<String> {
    session.messages.iter().map(|m| format!("{m:?}")).collect()
}

/// Follows `full` written half a line at a time: after every poll the followed session equals
/// the batch parse of the same bytes exactly, and the messages before the reported
/// `first_changed` are exactly those of the previous poll. The batch parse is compared after
/// every `every`-th line (and the last).
fn follow_bytes_matches_batch_parse(full: &[u8], name: &str, every: usize) {
    let all_lines: Vec<&[u8]> = full.split_inclusive(|&b| b == b'\n').collect();
    let (_dir, path) = temp_file(name, all_lines[0]);
    let mut live = LiveFile::open(&path, None).unwrap();
    let mut written = all_lines[0].to_vec();
    let mut previous = live.session().map(debug_messages).unwrap_or_default();
    for (n, line) in all_lines.iter().enumerate().skip(1) {
        let (head, tail) = line.split_at(line.len() / 2);
        let compare = n % every == 0 || n + 1 == all_lines.len();
        for half in [head, tail] {
            append(&path, half);
            written.extend_from_slice(half);
            let before = live.session().map_or(0, |s| s.messages.len());
            let update = live.poll().unwrap();
            let shown = live.session().unwrap();
            let now = debug_messages(shown);
            if compare && written.ends_with(b"\n") {
                let expected = load_bytes(written.clone(), Some(path.clone()), "x", None).unwrap();
                assert_eq!(
                    now,
                    debug_messages(&expected),
                    "after {} bytes",
                    written.len()
                );
                assert_eq!(
                    format!("{:?}", shown.marks),
                    format!("{:?}", expected.marks)
                );
                assert_eq!(shown.source.skipped, expected.source.skipped);
                assert_eq!(shown.source.records, expected.source.records);
                assert_eq!(shown.source.record_indices, expected.source.record_indices);
                assert_eq!(shown.children.len(), expected.children.len());
            }
            if let LiveUpdate::Changed { first_changed } = update {
                assert!(first_changed <= before);
                assert_eq!(
                    now[..first_changed.min(now.len())],
                    previous[..first_changed.min(previous.len())],
                    "a message before first_changed {first_changed} changed, after {} bytes",
                    written.len()
                );
            }
            previous = now;
        }
    }
    let last = live.session().unwrap();
    assert_eq!(
        last.messages.len(),
        load_bytes(full.to_vec(), None, "x", None)
            .unwrap()
            .messages
            .len()
    );
}

#[test]
fn a_followed_claude_code_session_equals_the_batch_parse_after_every_line() {
    follow_matches_batch_parse("claude-code/mixed.jsonl");
}

#[test]
fn a_followed_codex_session_equals_the_batch_parse_after_every_line() {
    follow_matches_batch_parse("codex/local-compaction.jsonl");
    follow_matches_batch_parse("codex/older-cli.jsonl");
}

#[test]
fn followed_real_sessions_equal_the_batch_parse_after_every_line() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples");
    let mut followed = 0;
    for dir in ["claude_code", "codex"] {
        for entry in fs::read_dir(samples.join(dir)).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let bytes = fs::read(&path).unwrap();
                let lines = bytes.iter().filter(|&&b| b == b'\n').count();
                follow_bytes_matches_batch_parse(&bytes, "live.jsonl", (lines / 60).max(1));
                followed += 1;
            }
        }
    }
    assert!(followed >= 5, "only {followed} samples");
}

#[test]
fn a_followed_file_that_is_replaced_is_reloaded() {
    let (_dir, path) = temp_file("live.jsonl", &fixture("codex/older-cli.jsonl"));
    let mut live = LiveFile::open(&path, None).unwrap();
    let before = live.session().unwrap().messages.len();
    assert!(before > 1);
    let first_line = fixture("codex/older-cli.jsonl")
        .split(|&b| b == b'\n')
        .next()
        .unwrap()
        .to_vec();
    fs::write(&path, [first_line.as_slice(), b"\n"].concat()).unwrap();
    assert_eq!(live.poll().unwrap(), LiveUpdate::Reloaded);
    let expected = load_bytes([first_line.as_slice(), b"\n"].concat(), None, "x", None).unwrap();
    assert_eq!(shape(live.session().unwrap()), shape(&expected));
    assert_eq!(live.poll().unwrap(), LiveUpdate::Unchanged);
}

/// One line appended to a 10 MB session is read into it exactly: the same messages as the
/// whole file parsed again. (How long it takes is measured by `benches/perf`'s follow row.)
#[test]
fn one_line_appended_to_a_10_mb_session_is_read_exactly() {
    let base = fixture("claude-code/mixed.jsonl");
    let mut content = Vec::new();
    while content.len() < 10 << 20 {
        content.extend_from_slice(&base);
    }
    let (_dir, path) = temp_file("big.jsonl", &content);
    let mut live = LiveFile::open(&path, None).unwrap();
    let line = base.split_inclusive(|&b| b == b'\n').next().unwrap();
    append(&path, line);
    let update = live.poll().unwrap();
    assert!(matches!(update, LiveUpdate::Changed { .. }));
    content.extend_from_slice(line);
    let loaded = ctxray::formats::Loaded::new(content, None, "x").unwrap();
    let format = live.session().unwrap().format;
    let expected = ctxray::formats::parse(format, &loaded).unwrap();
    assert_eq!(shape(live.session().unwrap()), shape(&expected));
}

/// A reader that hands out predefined chunks, one per `read`.
struct Chunks(Vec<Vec<u8>>);

impl Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Ok(0);
        }
        let chunk = self.0.remove(0);
        buf[..chunk.len()].copy_from_slice(&chunk);
        Ok(chunk.len())
    }
}

#[test]
fn a_streamed_session_without_final_newline_equals_the_batch_parse() {
    let mut full = fixture("codex/local-compaction.jsonl");
    while full.last() == Some(&b'\n') {
        full.pop();
    }
    let chunks = full.chunks(333).map(<[u8]>::to_vec).collect();
    let mut reader = StdinReader::new(Chunks(chunks), "-");
    let mut live = LiveSession::new(None, None, "-");
    let mut updates = 0;
    loop {
        let (batch, end) = match reader.poll().unwrap() {
            StdinEvent::Idle => continue,
            StdinEvent::Lines(batch) => (batch, false),
            StdinEvent::End(batch) => (batch, true),
        };
        if live.apply(&batch, reader.pending()).unwrap() != LiveUpdate::Unchanged {
            updates += 1;
        }
        if end {
            break;
        }
    }
    assert!(updates > 1);
    let expected = load_bytes(full, None, "-", None).unwrap();
    let shown = live.session().unwrap();
    assert_eq!(live.format(), Some(expected.format));
    assert_eq!(shape(shown), shape(&expected));
    assert_eq!(shown.marks, expected.marks);
}

#[test]
fn a_file_that_is_empty_at_first_gets_its_session_later() {
    let (_dir, path) = temp_file("live.jsonl", b"");
    let mut live = LiveFile::open(&path, None).unwrap();
    assert!(live.session().is_none());
    assert_eq!(live.poll().unwrap(), LiveUpdate::Unchanged);
    let full = fixture("claude-code/mixed.jsonl");
    append(&path, &full);
    assert_eq!(
        live.poll().unwrap(),
        LiveUpdate::Changed { first_changed: 0 }
    );
    let expected = load_bytes(full, None, "x", None).unwrap();
    assert_eq!(shape(live.session().unwrap()), shape(&expected));
}

#[test]
fn a_complete_last_record_is_shown_before_its_newline_and_never_twice() {
    let full = fixture("codex/local-compaction.jsonl");
    let body = full.strip_suffix(b"\n").unwrap();
    let cut = body.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let (_dir, path) = temp_file("live.jsonl", &body[..cut]);
    let mut live = LiveFile::open(&path, None).unwrap();
    let before = shape(live.session().unwrap());
    append(&path, &body[cut..]);
    assert!(matches!(live.poll().unwrap(), LiveUpdate::Changed { .. }));
    assert_eq!(live.tail().pending(), &body[cut..]);
    let expected = shape(&load_bytes(full.clone(), None, "x", None).unwrap());
    assert_eq!(shape(live.session().unwrap()), expected);
    assert_ne!(before, expected);
    append(&path, b"\n");
    live.poll().unwrap();
    assert_eq!(shape(live.session().unwrap()), expected);
    assert_eq!(live.poll().unwrap(), LiveUpdate::Unchanged);
}

/// A followed file is read with the line limit it was opened with: a line over it keeps the
/// session from parsing, the same file under a raised limit reads.
#[test]
fn a_followed_file_keeps_the_line_limit_it_was_opened_with() {
    let text = String::from_utf8(fixture("claude-code/mixed.jsonl")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.insert(
        2,
        format!(r#"{{"type":"progress","data":"{}"}}"#, "z".repeat(3000)),
    );
    let (_dir, path) = temp_file("long.jsonl", (lines.join("\n") + "\n").as_bytes());
    let tight = LiveFile::open_within(&path, None, 1000).unwrap();
    assert!(tight.session().is_none());
    let raised = LiveFile::open_within(&path, None, 4000).unwrap();
    let expected = load_bytes(fs::read(&path).unwrap(), None, "x", None).unwrap();
    assert_eq!(shape(raised.session().unwrap()), shape(&expected));
}
