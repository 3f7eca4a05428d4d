//! Live follow: a growing file read by `TailReader` and a stream by `StdinReader`, against
//! real files in a temp dir.

use std::fs::{self, OpenOptions};
use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use ctxray::live::{Batch, ResetReason, StdinEvent, StdinReader, TailEvent, TailReader};
use serde_json::json;

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

fn lines(event: TailEvent) -> Batch {
    match event {
        TailEvent::Lines(batch) => batch,
        other => panic!("expected lines, got {other:?}"),
    }
}

fn indices(batch: &Batch) -> Vec<usize> {
    batch.records.iter().map(|r| r.index).collect()
}

#[test]
fn appended_lines_one_by_one_continue_the_numbering() {
    let (_dir, path) = temp_file("s.jsonl", b"{\"n\":0}\n{\"n\":1}\n");
    let (mut tail, first) = TailReader::open(&path).unwrap();
    assert_eq!(indices(&first), [0, 1]);
    assert_eq!(first.records[1].value, json!({"n": 1}));
    assert_eq!(first.records[1].range, 8..15);
    assert_eq!(first.line_count, 2);
    assert!(matches!(tail.poll().unwrap(), TailEvent::Idle));
    for n in 2..6 {
        append(&path, format!("{{\"n\":{n}}}\n").as_bytes());
        let batch = lines(tail.poll().unwrap());
        assert_eq!(indices(&batch), [n]);
        assert_eq!(batch.records[0].value, json!({ "n": n }));
        assert_eq!(batch.offset, 8 * n as u64);
        assert_eq!(batch.records[0].range, 8 * n..8 * n + 7);
        assert_eq!(batch.bytes, format!("{{\"n\":{n}}}\n").as_bytes());
    }
    append(&path, b"{\"n\":6}\n{\"n\":7}\n");
    assert_eq!(indices(&lines(tail.poll().unwrap())), [6, 7]);
    assert_eq!(tail.next_line(), 8);
}

#[test]
fn a_line_in_halves_is_held_back_until_its_newline() {
    let (_dir, path) = temp_file("s.jsonl", b"");
    let (mut tail, first) = TailReader::open(&path).unwrap();
    assert!(first.is_empty());
    append(&path, b"{\"role\":\"us");
    assert!(matches!(tail.poll().unwrap(), TailEvent::Idle));
    assert_eq!(tail.pending(), b"{\"role\":\"us");
    append(&path, b"er\"}");
    assert!(matches!(tail.poll().unwrap(), TailEvent::Idle));
    append(&path, b"\n{\"x\":");
    let batch = lines(tail.poll().unwrap());
    assert_eq!(indices(&batch), [0]);
    assert_eq!(batch.records[0].value, json!({"role": "user"}));
    assert_eq!(batch.bytes, b"{\"role\":\"user\"}\n");
    assert_eq!(tail.pending(), b"{\"x\":");
    append(&path, b"1}\n");
    let batch = lines(tail.poll().unwrap());
    assert_eq!(indices(&batch), [1]);
    assert_eq!(batch.records[0].range, 16..23);
}

#[test]
fn no_byte_is_lost_or_duplicated_over_many_small_appends() {
    let (_dir, path) = temp_file("s.jsonl", b"");
    let (mut tail, mut seen) = TailReader::open(&path).unwrap();
    let mut content = Vec::new();
    for n in 0..40 {
        content.extend_from_slice(
            format!("{{\"n\":{n},\"text\":\"{}\"}}\n", "x".repeat(n)).as_bytes(),
        );
    }
    let mut records = Vec::new();
    for piece in content.chunks(7) {
        append(&path, piece);
        if let TailEvent::Lines(batch) = tail.poll().unwrap() {
            records.extend(batch.records.iter().map(|r| (r.index, r.value.clone())));
            seen.extend(batch);
        }
    }
    assert_eq!(seen.bytes, content);
    assert!(tail.pending().is_empty());
    assert_eq!(records.len(), 40);
    for (i, (index, value)) in records.iter().enumerate() {
        assert_eq!(*index, i);
        assert_eq!(value["n"], json!(i));
        let range = seen.records[i].range.clone();
        assert_eq!(
            &seen.bytes[range],
            serde_json::to_vec(value).unwrap().as_slice()
        );
    }
}

#[test]
fn truncation_resets_and_rereads_from_line_zero() {
    let (_dir, path) = temp_file("s.jsonl", b"{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");
    let (mut tail, first) = TailReader::open(&path).unwrap();
    assert_eq!(first.records.len(), 3);
    fs::write(&path, b"{\"b\":1}\n").unwrap();
    match tail.poll().unwrap() {
        TailEvent::Reset(ResetReason::Truncated { len: 8, read: 24 }) => {}
        other => panic!("expected truncation, got {other:?}"),
    }
    let batch = lines(tail.poll().unwrap());
    assert_eq!(indices(&batch), [0]);
    assert_eq!(batch.records[0].value, json!({"b": 1}));
    assert_eq!(batch.offset, 0);
}

#[test]
fn an_in_place_rewrite_that_grows_the_file_resets() {
    let (_dir, path) = temp_file("s.jsonl", b"{\"a\":1}\n");
    let (mut tail, _) = TailReader::open(&path).unwrap();
    let mut f = OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(b"{\"z\":9}\n{\"z\":10}\n").unwrap();
    drop(f);
    assert!(matches!(
        tail.poll().unwrap(),
        TailEvent::Reset(ResetReason::Rewritten)
    ));
    assert_eq!(indices(&lines(tail.poll().unwrap())), [0, 1]);
}

#[test]
fn a_rewrite_sharing_a_long_common_prefix_is_noticed() {
    let prefix = format!("{{\"parentUuid\":null,\"pad\":\"{}\"", "p".repeat(200));
    let (_dir, path) = temp_file("s.jsonl", format!("{prefix},\"id\":\"a\"}}\n").as_bytes());
    let (mut tail, _) = TailReader::open(&path).unwrap();
    let other = format!("{prefix},\"id\":\"b\"}}\n{prefix},\"id\":\"c\"}}\n");
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .write_all(other.as_bytes())
        .unwrap();
    assert!(matches!(
        tail.poll().unwrap(),
        TailEvent::Reset(ResetReason::Rewritten)
    ));
    let batch = lines(tail.poll().unwrap());
    assert_eq!(batch.records[0].value["id"], json!("b"));
}

#[test]
fn rotation_follows_the_new_file_at_the_path() {
    let (dir, path) = temp_file("s.jsonl", b"{\"old\":1}\n");
    let (mut tail, _) = TailReader::open(&path).unwrap();
    let rotated = dir.path().join("s.jsonl.1");
    fs::rename(&path, &rotated).unwrap();
    // The path is gone: the open file is still followed.
    append(&rotated, b"{\"old\":2}\n");
    let batch = lines(tail.poll().unwrap());
    assert_eq!(
        (indices(&batch), batch.records[0].value.clone()),
        (vec![1], json!({"old": 2}))
    );
    fs::write(&path, b"{\"new\":1}\n{\"new\":2}\n").unwrap();
    assert!(matches!(
        tail.poll().unwrap(),
        TailEvent::Reset(ResetReason::Replaced)
    ));
    let batch = lines(tail.poll().unwrap());
    assert_eq!(indices(&batch), [0, 1]);
    assert_eq!(batch.records[1].value, json!({"new": 2}));
    append(&rotated, b"{\"old\":3}\n");
    assert!(matches!(tail.poll().unwrap(), TailEvent::Idle));
}

#[test]
fn crlf_lines_parse_and_ranges_exclude_the_cr() {
    let (_dir, path) = temp_file("s.jsonl", b"{\"a\":1}\r\n{\"a\":2}\r");
    let (mut tail, first) = TailReader::open(&path).unwrap();
    assert_eq!(first.records[0].range, 0..7);
    assert_eq!(tail.pending(), b"{\"a\":2}\r");
    append(&path, b"\n");
    let batch = lines(tail.poll().unwrap());
    assert_eq!(batch.records[0].value, json!({"a": 2}));
    assert_eq!(batch.records[0].range, 9..16);
    assert!(batch.skipped.is_empty());
}

#[test]
fn a_bom_at_the_start_is_ignored_even_when_split() {
    let (_dir, path) = temp_file("s.jsonl", b"\xEF\xBB");
    let (mut tail, first) = TailReader::open(&path).unwrap();
    assert!(first.is_empty());
    append(&path, b"\xBF{\"a\":1}\n");
    let batch = lines(tail.poll().unwrap());
    assert_eq!(batch.records[0].value, json!({"a": 1}));
    assert_eq!(batch.records[0].range, 3..10);
    assert_eq!(batch.records[0].index, 0);
    assert!(batch.skipped.is_empty());
    assert_eq!(batch.bytes, b"\xEF\xBB\xBF{\"a\":1}\n");
}

#[test]
fn a_malformed_line_is_reported_with_its_line_and_reading_goes_on() {
    let (_dir, path) = temp_file("s.jsonl", b"{\"a\":1}\n");
    let (mut tail, _) = TailReader::open(&path).unwrap();
    append(&path, b"{\"a\":\n42\n{\"a\":3}\n");
    let batch = lines(tail.poll().unwrap());
    assert_eq!(indices(&batch), [3]);
    assert_eq!(batch.skipped.len(), 2);
    assert_eq!(batch.skipped[0].line, 2);
    assert!(
        batch.skipped[0].reason.starts_with("invalid JSON"),
        "{:?}",
        batch.skipped
    );
    assert_eq!(batch.skipped[1].line, 3);
    assert_eq!(
        batch.skipped[1].reason,
        "expected a JSON object, found a bare value"
    );
}

#[test]
fn empty_appends_and_blank_lines() {
    let (_dir, path) = temp_file("s.jsonl", b"{\"a\":1}\n");
    let (mut tail, _) = TailReader::open(&path).unwrap();
    append(&path, b"");
    assert!(matches!(tail.poll().unwrap(), TailEvent::Idle));
    append(&path, b"\n  \n");
    let batch = lines(tail.poll().unwrap());
    assert!(batch.records.is_empty() && batch.skipped.is_empty());
    assert_eq!((batch.first_line, batch.line_count), (1, 2));
    append(&path, b"{\"a\":4}\n");
    assert_eq!(indices(&lines(tail.poll().unwrap())), [3]);
    assert!(matches!(tail.poll().unwrap(), TailEvent::Idle));
}

#[test]
fn a_huge_line_in_many_appends_is_read_once() {
    let (_dir, path) = temp_file("s.jsonl", b"{\"a\":1}\n{\"big\":\"");
    let (mut tail, _) = TailReader::open(&path).unwrap();
    let piece = vec![b'y'; 1 << 20];
    let len = |path: &Path| std::fs::metadata(path).unwrap().len();
    for _ in 0..30 {
        append(&path, &piece);
        assert!(matches!(tail.poll().unwrap(), TailEvent::Idle));
        // Each poll reads only what was appended: a reader that went back to the start of
        // the pending line, or of the file, would have read more than the file holds.
        assert_eq!(tail.offset(), len(&path));
    }
    append(&path, b"\"}\n");
    let batch = lines(tail.poll().unwrap());
    assert_eq!(tail.offset(), len(&path));
    assert_eq!(indices(&batch), [1]);
    assert_eq!(
        batch.records[0].value["big"].as_str().map(str::len),
        Some(30 << 20)
    );
}

/// A reader that hands out predefined chunks, one per `read`.
struct Chunks(Vec<Vec<u8>>);

impl Read for Chunks {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Ok(0);
        }
        let chunk = self.0.remove(0);
        assert!(chunk.len() <= buf.len());
        buf[..chunk.len()].copy_from_slice(&chunk);
        Ok(chunk.len())
    }
}

#[test]
fn stdin_reads_incrementally_and_flushes_the_last_line_at_end() {
    let chunks = [
        &b"\xEF"[..],
        b"\xBB\xBF{\"a\"",
        b":1}\r\n{\"b\":2}\n{\"c\"",
        b":3}",
    ];
    let mut reader = StdinReader::new(Chunks(chunks.iter().map(|c| c.to_vec()).collect()), "-");
    assert!(matches!(reader.poll().unwrap(), StdinEvent::Idle));
    assert!(matches!(reader.poll().unwrap(), StdinEvent::Idle));
    let StdinEvent::Lines(batch) = reader.poll().unwrap() else {
        panic!("expected lines")
    };
    assert_eq!(indices(&batch), [0, 1]);
    assert_eq!(batch.records[0].range, 3..10);
    assert!(matches!(reader.poll().unwrap(), StdinEvent::Idle));
    assert_eq!(reader.pending(), b"{\"c\":3}");
    let StdinEvent::End(last) = reader.poll().unwrap() else {
        panic!("expected end")
    };
    assert_eq!(indices(&last), [2]);
    assert_eq!(last.records[0].value, json!({"c": 3}));
    assert!(reader.is_done());
    let StdinEvent::End(again) = reader.poll().unwrap() else {
        panic!("expected end")
    };
    assert!(again.is_empty());
}

#[test]
fn stdin_reports_a_truncated_last_line_and_reads_huge_lines_linearly() {
    let mut reader = StdinReader::new(Cursor::new(b"{\"a\":1}\n{\"a\":".to_vec()), "-");
    let all = reader.read_all().unwrap();
    assert_eq!(indices(&all), [0]);
    assert_eq!(all.skipped[0].line, 2);
    assert_eq!(
        all.skipped[0].reason,
        "truncated last line (incomplete JSON)"
    );

    let mut big = b"{\"big\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'z', 30 << 20));
    big.extend_from_slice(b"\"}\n{\"after\":1}\n");
    let all = StdinReader::new(Cursor::new(big), "-").read_all().unwrap();
    assert_eq!(indices(&all), [0, 1]);
    assert_eq!(all.records[1].value, json!({"after": 1}));
}
