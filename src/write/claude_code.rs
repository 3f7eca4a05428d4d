//! A compacted Claude Code session written the way Claude Code records a compaction: the kept
//! messages' own lines, and in the summary's place a `compact_boundary` system line followed by
//! the `isCompactSummary` user line, chained by `parentUuid` (the first kept line after the
//! summary hangs from it), so Claude Code's readers and ctxray load it again with the boundary.
//!
//! Owns: choosing the original lines of each kept message, masking secrets in them (a line
//! without secrets is copied byte for byte), and the two compaction lines. Must not: parse the
//! session or hold its source whole (the caller gives the original lines, read on demand, and
//! the compacted `Session`).

use std::hash::{Hash, Hasher};

use serde_json::{json, Map, Value};

use crate::session::raw_lines::Block;
use crate::session::{Part, RawLines, Session};

/// Fields every Claude Code line carries, copied from the original onto the compaction lines.
const COMMON: &[&str] = &["cwd", "sessionId", "version", "gitBranch", "userType"];

/// The compacted session as Claude Code JSONL; the second value counts the secrets masked.
/// `lines` are the source file's (whose numbers the messages' `source_indices` name; only the
/// kept ones and the last few are read); `pre_tokens` is the history's size before the
/// compaction.
pub fn to_jsonl(lines: &RawLines, compacted: &Session, pre_tokens: usize) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    // Written into memory: no write can fail.
    let masked = write_jsonl(&mut out, lines, compacted, pre_tokens).unwrap_or_default();
    (out, masked)
}

/// [`to_jsonl`] written to `out` a line at a time, not held whole; returns the secrets masked.
pub fn write_jsonl(
    out: &mut dyn std::io::Write,
    lines: &RawLines,
    compacted: &Session,
    pre_tokens: usize,
) -> std::io::Result<usize> {
    write_in_runs(out, lines, compacted, pre_tokens, BATCH_BYTES)
}

/// [`write_jsonl`], the source's lines read in runs of at most `batch` bytes.
fn write_in_runs(
    out: &mut dyn std::io::Write,
    lines: &RawLines,
    compacted: &Session,
    pre_tokens: usize,
    batch: usize,
) -> std::io::Result<usize> {
    let parsed = |i: usize| -> Option<Value> {
        lines
            .get(i)
            .and_then(|l| serde_json::from_str::<Value>(&l).ok())
    };
    // The session's own fields, from its last line that has them.
    let mut common = Map::new();
    let mut last_uuid = None;
    let mut last_time = None;
    for v in (0..lines.len()).rev().filter_map(parsed) {
        if common.is_empty() && v.get("sessionId").is_some() {
            for k in COMMON {
                if let Some(x) = v.get(*k) {
                    common.insert((*k).to_string(), x.clone());
                }
            }
        }
        if last_uuid.is_none() && v.get("isSidechain").and_then(Value::as_bool) != Some(true) {
            last_uuid = v.get("uuid").cloned();
        }
        if last_time.is_none() {
            last_time = v.get("timestamp").cloned();
        }
        if !common.is_empty() && last_uuid.is_some() && last_time.is_some() {
            break;
        }
    }
    // The summary the compaction inserted (a summary read from the file is copied as it was).
    let inserted = compacted
        .marks
        .iter()
        .find(|k| k.kind == crate::session::CompactionMark::CTXRAY)
        .map(|k| k.before_message);
    // Each message's records in order, the inserted summary in its place, and the records of
    // the messages after the summary (whose uuids the boundary names).
    let mut before = Vec::new();
    let mut inserted_summary = None;
    let records_from = |at: usize| -> Vec<usize> {
        (compacted.messages.iter().skip(at))
            .flat_map(records_of)
            .collect()
    };
    for (at, m) in compacted.messages.iter().enumerate() {
        let summary = m.parts.iter().find_map(|p| match p {
            Part::Summary { text } if inserted == Some(m.index) => Some(text.as_str()),
            _ => None,
        });
        if let Some(text) = summary {
            let after = records_from(at + 1);
            let kept = (m.index != at).then(|| records_from(m.index + 1));
            inserted_summary = Some((text, after, kept));
            break;
        }
        before.extend(records_of(m));
    }
    let mut masked = 0;
    copy_lines(out, (lines, batch), &before, None, &mut masked)?;
    let Some((text, after, kept)) = inserted_summary else {
        return Ok(masked);
    };
    let (text, n) = crate::secrets::mask(text);
    masked += n;
    let kept = kept.as_deref().unwrap_or(&after);
    let kept_uuids: Vec<Value> = runs((lines, batch), kept, |block, i| line_uuid(&block.get(i)?))
        .filter_map(|(_, made)| made)
        .flat_map(|(_, uuids)| uuids.into_iter().flatten())
        .collect();
    let boundary_id = uuid_from(&[&text, "boundary", &pre_tokens.to_string()]);
    let summary_id = uuid_from(&[&text, "summary"]);
    let mut metadata = json!({"trigger": "manual", "preTokens": pre_tokens});
    if !kept_uuids.is_empty() {
        metadata["preservedMessages"] = json!({"anchorUuid": summary_id, "uuids": kept_uuids});
    }
    let mut boundary = Map::new();
    boundary.insert("type".into(), json!("system"));
    boundary.insert("subtype".into(), json!("compact_boundary"));
    boundary.insert("timestamp".into(), last_time.clone().unwrap_or(Value::Null));
    boundary.insert("parentUuid".into(), Value::Null);
    boundary.insert(
        "logicalParentUuid".into(),
        last_uuid.clone().unwrap_or(Value::Null),
    );
    boundary.insert("isSidechain".into(), json!(false));
    boundary.extend(common.clone());
    boundary.insert("uuid".into(), json!(boundary_id));
    boundary.insert("content".into(), json!("Conversation compacted"));
    boundary.insert("level".into(), json!("info"));
    boundary.insert("compactMetadata".into(), metadata);
    let mut line = Map::new();
    line.insert("type".into(), json!("user"));
    line.insert("timestamp".into(), last_time.clone().unwrap_or(Value::Null));
    line.insert("parentUuid".into(), json!(boundary_id));
    line.insert("isSidechain".into(), json!(false));
    line.extend(common.clone());
    line.insert("uuid".into(), json!(summary_id));
    line.insert(
        "message".into(),
        json!({"role": "user", "content": [{"type": "text", "text": text}]}),
    );
    line.insert("isCompactSummary".into(), json!(true));
    line.insert("isVisibleInTranscriptOnly".into(), json!(true));
    for v in [Value::Object(boundary), Value::Object(line)] {
        out.write_all(v.to_string().as_bytes())?;
        out.write_all(b"\n")?;
    }
    copy_lines(out, (lines, batch), &after, Some(&summary_id), &mut masked)?;
    Ok(masked)
}

/// The source lines of message `m`.
fn records_of(m: &crate::session::Message) -> Vec<usize> {
    if m.source_indices.is_empty() {
        vec![m.source_index]
    } else {
        m.source_indices.clone()
    }
}

/// Source bytes read, and the lines of them masked on every core, at a time.
const BATCH_BYTES: usize = 8 << 20;
/// Lines of a run below which it is mapped on one core.
const PARALLEL_LINES: usize = if cfg!(test) { 2 } else { 256 };

/// The runs of `records` (source line numbers) in order, each with its lines read at once and
/// `f` of each of its records mapped on every core: a run spans at most `batch` bytes of the
/// source (or one line). A run whose lines can no longer be read yields no block.
fn runs<'l, 'a, R: Send>(
    (lines, batch): (&'l RawLines<'a>, usize),
    records: &'l [usize],
    f: impl Fn(&Block, usize) -> R + Sync + 'l,
) -> impl Iterator<Item = (&'l [usize], Option<(Block<'l, 'a>, Vec<R>)>)> + 'l {
    let mut rest = records;
    std::iter::from_fn(move || {
        let (&first, _) = rest.split_first()?;
        let (mut lo, mut hi) = (first, first + 1);
        let mut n = 1;
        while let Some(&i) = rest.get(n) {
            let (l, h) = (lo.min(i), hi.max(i + 1));
            if lines.bytes_of(l, h) > batch {
                break;
            }
            (lo, hi, n) = (l, h, n + 1);
        }
        let (run, next) = rest.split_at(n);
        rest = next;
        let made = lines.block(lo, hi).map(|block| {
            let made = crate::par::map(run, PARALLEL_LINES, |&i| f(&block, i), |_| {});
            (block, made)
        });
        Some((run, made))
    })
}

/// The lines `records` of the source copied to `out`, each with its secrets masked (a line
/// without any written from the run's bytes as it was); the first one there is hangs from
/// `parent` when given.
fn copy_lines(
    out: &mut dyn std::io::Write,
    (lines, batch): (&RawLines, usize),
    records: &[usize],
    parent: Option<&str>,
    masked: &mut usize,
) -> std::io::Result<()> {
    // Only the first line the source has gets the parent.
    let first = parent.and_then(|_| records.iter().position(|&i| i < lines.len()));
    let hang = first.map(|at| records[at]);
    let mut hung = false;
    // A changed line, made on every core; `None` where the line is written as it was.
    let each = |block: &Block, i: usize| -> Option<(String, usize)> {
        let raw = block.get(i)?;
        match masked_line(&raw, None) {
            (std::borrow::Cow::Owned(line), n) => Some((line, n)),
            (std::borrow::Cow::Borrowed(_), _) => None,
        }
    };
    for (run, made) in runs((lines, batch), records, each) {
        let Some((block, made)) = made else { continue };
        for (&i, changed) in run.iter().zip(made) {
            let Some(raw) = block.get(i) else { continue };
            let line = match changed {
                _ if !hung && hang == Some(i) => {
                    hung = true;
                    let (line, n) = masked_line(&raw, parent);
                    *masked += n;
                    line.into_owned()
                }
                Some((line, n)) => {
                    *masked += n;
                    line
                }
                None => {
                    out.write_all(raw.as_bytes())?;
                    out.write_all(b"\n")?;
                    continue;
                }
            };
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// One original line with its secrets masked and, when given, a new `parentUuid`; a line with
/// neither change is lent as it was.
fn masked_line<'r>(raw: &'r str, parent: Option<&str>) -> (std::borrow::Cow<'r, str>, usize) {
    let secrets = crate::secrets::find(raw).len();
    if secrets == 0 && parent.is_none() {
        return (std::borrow::Cow::Borrowed(raw), 0);
    }
    let Ok(mut v) = serde_json::from_str::<Value>(raw) else {
        let (text, n) = crate::secrets::mask(raw);
        return (std::borrow::Cow::Owned(text), n);
    };
    let mut n = 0;
    mask_strings(&mut v, &mut n);
    if let (Some(p), Some(obj)) = (parent, v.as_object_mut()) {
        obj.insert("parentUuid".into(), json!(p));
    }
    (std::borrow::Cow::Owned(v.to_string()), n)
}

fn mask_strings(v: &mut Value, n: &mut usize) {
    match v {
        Value::String(s) => {
            let (masked, k) = crate::secrets::mask(s);
            if k > 0 {
                *s = masked;
                *n += k;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| mask_strings(x, n)),
        Value::Object(map) => map.values_mut().for_each(|x| mask_strings(x, n)),
        _ => {}
    }
}

/// The `uuid` of a line that is a JSON object (the last, as its parsed object keeps it), read
/// without building the rest of the line.
fn line_uuid(line: &str) -> Option<Value> {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Uuid(Option<Value>);
    impl<'de> serde::Deserialize<'de> for Uuid {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
            d.deserialize_map(Fields)
        }
    }
    struct Fields;
    impl<'de> Visitor<'de> for Fields {
        type Value = Uuid;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Uuid, A::Error> {
            let mut uuid = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "uuid" {
                    uuid = Some(map.next_value::<Value>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(Uuid(uuid))
        }
    }
    serde_json::from_str::<Uuid>(line).ok()?.0
}

/// A stable UUID-shaped id from `parts` (the same compaction writes the same ids).
fn uuid_from(parts: &[&str]) -> String {
    let mut halves = [0u64; 2];
    for (seed, half) in halves.iter_mut().enumerate() {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        parts.hash(&mut h);
        *half = h.finish();
    }
    let hex = format!("{:016x}{:016x}", halves[0], halves[1]);
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::PlanInput;

    /// The lines written are the same whatever the runs the source is read in: one line a
    /// run, a few hundred bytes, the whole file at once; for every preset that fires on the
    /// Claude Code fixtures, its summary inserted or not.
    #[test]
    fn the_lines_written_do_not_depend_on_the_runs_read() {
        let mut checked = 0;
        for file in [
            "fixtures/samples/claude-code-demo.jsonl",
            "fixtures/claude-code/compaction.jsonl",
            "fixtures/claude-code/mixed.jsonl",
            "fixtures/claude-code/rewinds.jsonl",
        ] {
            let a = crate::testing::analysed(file);
            let lines = RawLines::of_session(&a.session).unwrap();
            for p in crate::compaction::presets::all() {
                let Some(plan) = crate::testing::fired(&PlanInput::new(&a), p) else {
                    continue;
                };
                for summary in [None, Some("The user asked; sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 was used.")] {
                    let compacted = crate::compaction::apply::apply(&a.session, &plan, summary);
                    let written = |batch: usize| {
                        let mut out = Vec::new();
                        let n = write_in_runs(&mut out, &lines, &compacted, 1234, batch).unwrap();
                        (String::from_utf8(out).unwrap(), n)
                    };
                    let whole = written(usize::MAX);
                    assert!(whole.0.lines().count() >= compacted.messages.len(), "{}", p.name());
                    assert_eq!(written(0), whole, "{} {file}", p.name());
                    assert_eq!(written(300), whole, "{} {file}", p.name());
                    checked += 1;
                }
            }
        }
        assert!(checked >= 30, "{checked}");
    }

    /// The `uuid` read alone is the one the whole line parsed gives: for every line of the
    /// Claude Code fixtures, and lines built to differ (a nested `uuid`, two of them, escapes,
    /// not a string, not an object, not JSON).
    #[test]
    fn a_lines_uuid_is_the_parsed_lines() {
        let whole = |line: &str| {
            serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v.get("uuid").cloned())
        };
        let mut lines: Vec<String> = [
            r#"{"uuid":"a","x":{"uuid":"nested"}}"#,
            r#"{"x":{"uuid":"nested"}}"#,
            r#"{"uuid":"first","uuid":"last"}"#,
            r#"{"u\u0075id":"escaped key","n":1.5e300}"#,
            r#"{"uuid":"\u00e9\n"}"#,
            r#"{"uuid":7}"#,
            r#"{"uuid":null}"#,
            r#"["uuid","a"]"#,
            r#""uuid""#,
            r#"{"uuid":"a""#,
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = std::fs::read_dir(root.join("fixtures/claude-code")).unwrap();
        let files = (dir.flatten().map(|e| e.path()))
            .chain([root.join("fixtures/samples/claude-code-demo.jsonl")]);
        for file in files {
            if let Ok(text) = std::fs::read_to_string(file) {
                lines.extend(text.lines().map(str::to_string));
            }
        }
        assert!(lines.len() > 100, "{}", lines.len());
        let mut found = 0;
        for line in &lines {
            assert_eq!(line_uuid(line), whole(line), "{line}");
            found += usize::from(whole(line).is_some());
        }
        assert!(found > 50, "{found}");
    }
}
