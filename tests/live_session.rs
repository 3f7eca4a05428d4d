//! Live follow of whole sessions: `LiveFile` over a growing file and `LiveSession` fed by a
//! stream, compared after every step with the batch parse of the same bytes.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

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
    let full = fixture(fixture_name);
    let all_lines: Vec<&[u8]> = full.split_inclusive(|&b| b == b'\n').collect();
    let (_dir, path) = temp_file("live.jsonl", all_lines[0]);
    let mut live = LiveFile::open(&path, None).unwrap();
    let mut written = all_lines[0].to_vec();
    for line in &all_lines[1..] {
        let (head, tail) = line.split_at(line.len() / 2);
        for half in [head, tail] {
            append(&path, half);
            written.extend_from_slice(half);
            let before = live.session().map_or(0, |s| s.messages.len());
            let update = live.poll().unwrap();
            let expected = load_bytes(written.clone(), Some(path.clone()), "x", None).unwrap();
            let shown = live.session().unwrap();
            if written.ends_with(b"\n") {
                assert_eq!(
                    shape(shown),
                    shape(&expected),
                    "after {} bytes",
                    written.len()
                );
                assert_eq!(shown.source.skipped, expected.source.skipped);
            }
            if let LiveUpdate::Changed { first_changed } = update {
                assert!(first_changed <= before);
            }
        }
    }
    let last = live.session().unwrap();
    assert_eq!(
        last.messages.len(),
        load_bytes(full, None, "x", None).unwrap().messages.len()
    );
}

#[test]
fn a_followed_claude_code_session_equals_the_batch_parse_after_every_line() {
    follow_matches_batch_parse("claude-code/mixed.jsonl");
}

#[test]
fn a_followed_codex_session_equals_the_batch_parse_after_every_line() {
    follow_matches_batch_parse("codex/local-compaction.jsonl");
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

#[test]
fn reparse_time_of_a_10_mb_session_after_one_appended_line() {
    let base = fixture("claude-code/mixed.jsonl");
    let mut content = Vec::new();
    while content.len() < 10 << 20 {
        content.extend_from_slice(&base);
    }
    let (_dir, path) = temp_file("big.jsonl", &content);
    let started = Instant::now();
    let mut live = LiveFile::open(&path, None).unwrap();
    let opened = started.elapsed();
    let count = live.session().unwrap().messages.len();
    let line = base.split_inclusive(|&b| b == b'\n').next().unwrap();
    append(&path, line);
    let started = Instant::now();
    let update = live.poll().unwrap();
    println!(
        "10 MB session: open+parse {opened:?}; one appended line re-parsed in {:?} ({} messages)",
        started.elapsed(),
        count
    );
    assert!(matches!(update, LiveUpdate::Changed { .. }));
    content.extend_from_slice(line);
    let started = Instant::now();
    let loaded = ctxray::formats::Loaded::new(content.clone(), None, "x").unwrap();
    let split = started.elapsed();
    let format = live.session().unwrap().format;
    let started = Instant::now();
    let expected = ctxray::formats::parse(format, &loaded).unwrap();
    println!(
        "of which: JSONL split + JSON parse {split:?}, {} parse {:?}",
        format.name(),
        started.elapsed()
    );
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
