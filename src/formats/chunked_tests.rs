//! The chunk-at-a-time load against the whole-file load: the same session (but its bytes)
//! from every Claude Code and Codex file at hand, cut at every size, and the same refusal;
//! kept, the same raw records, read again from the file.

use std::path::{Path, PathBuf};

use super::chunked::{load_in, Bytes};
use super::{detect, load_path_within, LoadError, Loaded};
use crate::limits::Limits;
use crate::session::{Format, Session};

/// Everything a session holds but its bytes, as text.
fn shown(s: &Session) -> String {
    let children: Vec<String> = s.children.iter().map(shown).collect();
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?}\n{:?}\n{:?}\n{} {:?} {:?} {:?}\n{:?}",
        s.format,
        s.id,
        s.title,
        s.model,
        s.reported_window,
        s.source.path,
        s.messages,
        s.marks,
        s.source.records,
        s.source.record_indices,
        s.source.skipped,
        s.source.abandoned,
        children
    )
}

/// What a command reads of a session's bytes: every message's raw record, the first line and
/// the whole source (its children's too).
fn raw(s: &Session) -> String {
    let records: Vec<Option<Vec<u8>>> = s
        .messages
        .iter()
        .map(|m| s.raw_record(m).map(|r| r.into_owned()))
        .collect();
    let children: Vec<String> = s.children.iter().map(raw).collect();
    format!(
        "{records:?}\n{:?}\n{:?}\n{children:?}",
        s.raw_first_line(),
        s.raw_bytes().map(|b| b.len())
    )
}

fn whole_raw(path: &Path, limits: &Limits) -> Result<String, String> {
    load_path_within(path, None, limits)
        .map(|s| format!("{}\n{}", shown(&s), raw(&s)))
        .map_err(|e| e.to_string())
}

fn kept(path: &Path, limits: &Limits, chunk: usize) -> Result<String, String> {
    load_in(path, None, limits, None, |_| {}, chunk, Bytes::Kept)
        .map(|s| format!("{}\n{}", shown(&s), raw(&s)))
        .map_err(|e: LoadError| e.to_string())
}

fn whole(path: &Path, limits: &Limits) -> Result<String, String> {
    load_path_within(path, None, limits)
        .map(|s| shown(&s))
        .map_err(|e| e.to_string())
}

fn chunked(path: &Path, limits: &Limits, chunk: usize) -> Result<String, String> {
    let mut heads = 0;
    let got = load_in(
        path,
        None,
        limits,
        None,
        |_| heads += 1,
        chunk,
        Bytes::Released,
    )
    .map(|s| shown(&s))
    .map_err(|e: LoadError| e.to_string());
    assert!(heads <= 1, "the head is shown once");
    got
}

fn assert_same(path: &Path, limits: &Limits) {
    let expected = whole(path, limits);
    let expected_raw = whole_raw(path, limits);
    for chunk in [1, 61, 4096, 1 << 20] {
        assert_eq!(
            chunked(path, limits, chunk),
            expected,
            "{} in chunks of {chunk}",
            path.display()
        );
        assert_eq!(
            kept(path, limits, chunk),
            expected_raw,
            "{} kept, in chunks of {chunk}",
            path.display()
        );
    }
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            jsonl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}

/// Every Claude Code and Codex JSON Lines file of the fixtures and samples (subagent files,
/// compactions, older Codex event shapes, BOM and CRLF files among them).
#[test]
fn every_claude_code_and_codex_file_reads_the_same_in_chunks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    jsonl_files(&root.join("fixtures"), &mut files);
    jsonl_files(&root.join("../shared/samples"), &mut files);
    let mut checked = 0;
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let line_by_line = Loaded::new(bytes, None, "x")
            .ok()
            .and_then(|l| detect::detect(&l).ok())
            .is_some_and(|f| matches!(f, Format::CLAUDE_CODE | Format::CODEX));
        if line_by_line {
            assert_same(&file, &Limits::default());
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} files");
}

fn line(i: usize, text: &str) -> String {
    serde_json::json!({
        "type": if i % 2 == 0 { "user" } else { "assistant" },
        "uuid": format!("u{i}"),
        "parentUuid": if i == 0 { None } else { Some(format!("u{}", i - 1)) },
        "sessionId": "s",
        "message": {
            "role": if i % 2 == 0 { "user" } else { "assistant" },
            "id": format!("m{i}"),
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}]
        }
    })
    .to_string()
}

fn write(dir: &Path, name: &str, body: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).expect("writes");
    path
}

/// Hand-made files: malformed and bare lines, blank lines, CRLF, a BOM, a lone surrogate
/// escape, a truncated last line, a long line; a line over the limit (the same refusal, the
/// same line number); a first line that is not a record and a file that is not a session.
#[test]
fn awkward_files_read_or_fail_the_same_in_chunks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut body = String::from("\u{feff}");
    for i in 0..40 {
        let text = match i % 7 {
            3 => "x".repeat(5000),
            1 => "caf\\u00e9 \\ud83d cut".to_string(),
            _ => format!("message {i}"),
        };
        body.push_str(&line(i, &text));
        body.push_str(match i % 5 {
            0 => "\r\n",
            1 => "\n\n   \n",
            _ => "\n",
        });
        if i % 9 == 4 {
            body.push_str("{\"broken\": \n42\n");
        }
    }
    let awkward = body.clone() + "{\"type\": \"user\", \"uuid\"";
    let cases = [
        write(dir.path(), "awkward.jsonl", awkward.as_bytes()),
        write(dir.path(), "complete.jsonl", body.as_bytes()),
        write(
            dir.path(),
            "first-bad.jsonl",
            format!("not json\n{body}").as_bytes(),
        ),
        write(
            dir.path(),
            "garbage.jsonl",
            b"{\"a\": 1}\n{\"b\": 2}\nzzz\n",
        ),
    ];
    for path in &cases {
        assert_same(path, &Limits::default());
    }
    let limits = Limits {
        line: 4000,
        ..Limits::default()
    };
    let refused = whole(&cases[1], &limits);
    assert!(
        refused.as_ref().is_err_and(|e| e.contains(":6:")),
        "{refused:?}"
    );
    let long_later = write(
        dir.path(),
        "long-later.jsonl",
        format!(
            "{}\n{}\n{}\n",
            line(0, "a"),
            line(1, "b"),
            line(2, &"y".repeat(9000))
        )
        .as_bytes(),
    );
    assert!(whole(&long_later, &limits).is_err_and(|e| e.contains(":3:")));
    assert_same(&long_later, &limits);
    assert_same(&cases[1], &limits);
}
