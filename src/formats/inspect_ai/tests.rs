use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use zip::write::SimpleFileOptions;

use crate::formats::{load_bytes, load_path, Loaded};
use crate::session::{Format, Part, Session};

fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn load(rel: &str) -> Session {
    load_path(&path(rel), None).unwrap()
}

fn roles(s: &Session) -> Vec<&'static str> {
    s.messages.iter().map(|m| m.role.as_str()).collect()
}

fn call_ids(s: &Session, index: usize) -> Vec<String> {
    s.messages[index]
        .client_calls()
        .map(|(id, _)| id.to_string())
        .collect()
}

#[test]
fn real_browser_log_is_its_only_sample() {
    let s = load("../shared/samples/inspect_ai/2025-05-12T20-27-36-04-00_browser.json");
    assert_eq!(s.format, Format::INSPECT_AI);
    assert!(s.children.is_empty());
    assert_eq!(s.model.as_deref(), Some("openai/gpt-4o-mini"));
    assert_eq!(s.title.as_deref(), Some("browser: sample 1 epoch 1"));
    assert_eq!(s.id.as_deref(), Some("ATYFNjyWUz4mZ5Dgj6yd4f"));
    assert_eq!(s.source.records, 10);
    assert_eq!(
        roles(&s),
        vec![
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    assert_eq!(call_ids(&s, 1), vec!["call_35FTpd6shR9efioDgeEBZ33s"]);
    assert_eq!(s.messages[1].tool_names(), vec!["web_browser_go"]);
    match &s.messages[1].parts[..] {
        [Part::ToolCall { arguments, .. }] => {
            assert_eq!(arguments, "{\"url\":\"https://www.aisi.gov.uk/\"}")
        }
        other => panic!("{other:?}"),
    }
    match &s.messages[4].parts[..] {
        [Part::ToolResult {
            call_id,
            is_error,
            content,
        }] => {
            assert_eq!(call_id, "call_O6fzXOPUvPtYflWdOH94RTWy");
            assert_eq!(*is_error, None);
            assert!(content[0].plain_text().starts_with("[793] link"));
        }
        other => panic!("{other:?}"),
    }
    // Usage from the model events, linked by output message id; OpenAI-era: input + output = total.
    let u = s.messages[1].usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.output, u.total, u.cache_read),
        (Some(1124), Some(23), Some(1147), Some(0))
    );
    assert!(u.input_includes_cache);
    let u = s.messages[3].usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.total),
        (Some(1568), Some(1024), Some(1585))
    );
    assert!(u.input_includes_cache);
    let last = &s.messages[9];
    assert_eq!(last.usage.as_ref().unwrap().output, Some(207));
    assert_eq!(last.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    assert!(last.parts[0]
        .plain_text()
        .starts_with("The AI Security Institute (AISI)"));
    // Raw ranges point at the messages inside samples[0].messages.
    let raw = String::from_utf8(s.raw_record(&s.messages[0]).unwrap().into_owned()).unwrap();
    assert!(raw.starts_with('{') && raw.ends_with('}'));
    assert!(raw.contains("\"id\": \"QQZXTTQY46SAxcBZie6XDi\""));
}

#[test]
fn real_eval_archive() {
    let s = load("../shared/samples/inspect_ai/log_read_sample.eval");
    assert_eq!(s.format, Format::INSPECT_AI);
    assert_eq!(s.model.as_deref(), Some("ollama/gemma3"));
    assert_eq!(s.title.as_deref(), Some("popularity: sample 1 epoch 1"));
    assert_eq!(s.id.as_deref(), Some("LKmyJnSm3fgU8aanLnfPkL"));
    assert_eq!(roles(&s), vec!["system", "user", "assistant"]);
    assert_eq!(s.messages[2].parts, vec![Part::text("Yes\n")]);
    let u = s.messages[2].usage.as_ref().unwrap();
    assert_eq!((u.input, u.output, u.total), (Some(66), Some(3), Some(69)));
    // The session's buffer is the decompressed sample, so raw ranges work.
    let raw = String::from_utf8(s.raw_record(&s.messages[2]).unwrap().into_owned()).unwrap();
    assert!(raw.contains("\"nGzA434PSoEkfxyAt9Hj39\""));
}

#[test]
fn two_samples_become_children_with_compaction_marks() {
    let s = load("fixtures/inspect-ai/compaction-two-samples.json");
    assert_eq!(s.format, Format::INSPECT_AI);
    assert!(s.messages.is_empty());
    assert_eq!(s.source.records, 2);
    assert_eq!(s.title.as_deref(), Some("ctf_and_cities"));
    assert_eq!(s.id.as_deref(), Some("Ev7Lq2Ws9Xk4Zp1Rb6Tn3c"));
    assert_eq!(s.children.len(), 2);
    let titles: Vec<&str> = s
        .children
        .iter()
        .filter_map(|c| c.title.as_deref())
        .collect();
    assert_eq!(titles, vec!["sample ctf-3 epoch 1", "sample 7 epoch 1"]);

    let ctf = &s.children[0];
    assert_eq!(ctf.model.as_deref(), Some("anthropic/claude-sonnet-4-5"));
    assert_eq!(
        roles(ctf),
        vec![
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "user",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    // An attachment reference is resolved.
    assert!(ctf.messages[5].parts[0]
        .plain_text()
        .starts_with("import base64, sys"));
    // Anthropic-era usage: input excludes the cache (input + cache + output = total).
    let u = ctf.messages[2].usage.as_ref().unwrap();
    assert_eq!((u.input, u.total), (Some(812), Some(853)));
    let u = ctf.messages[4].usage.as_ref().unwrap();
    assert_eq!(
        (u.input, u.cache_read, u.cache_write, u.total),
        (Some(35), Some(790), Some(102), Some(965))
    );
    assert!(!u.input_includes_cache);
    assert_eq!(u.context_input(), Some(927));
    // The summarizer's own call has no message.
    assert_eq!(ctf.messages.iter().filter(|m| m.usage.is_some()).count(), 4);

    assert_eq!(ctf.marks.len(), 2);
    let summary = &ctf.marks[0];
    assert_eq!(summary.kind, "compaction");
    assert_eq!(summary.trigger.as_deref(), Some("summary"));
    assert_eq!(
        (summary.pre_tokens, summary.post_tokens),
        (Some(9120), Some(1480))
    );
    assert_eq!((summary.before_message, summary.source_index), (6, 6));
    let text = summary.summary.clone().unwrap();
    assert!(text.starts_with("[CONTEXT COMPACTION SUMMARY]"));
    assert_eq!(ctf.messages[6].parts, vec![Part::Summary { text }]);
    let trim = &ctf.marks[1];
    assert_eq!(trim.trigger.as_deref(), Some("trim"));
    assert_eq!(
        (trim.pre_tokens, trim.post_tokens),
        (Some(2010), Some(1650))
    );
    assert_eq!(
        trim.before_message, 9,
        "before the reply of the next model call"
    );
    assert!(trim.summary.is_none());

    let city = &s.children[1];
    assert_eq!(roles(city), vec!["user", "assistant", "tool", "assistant"]);
    match &city.messages[0].parts[..] {
        [Part::Text { .. }, Part::Image(img)] => {
            assert_eq!(img.detail.as_deref(), Some("low"));
            assert_eq!(img.width, Some(1));
        }
        other => panic!("{other:?}"),
    }
    let kinds: Vec<&str> = city.messages[1].parts.iter().map(Part::kind).collect();
    assert_eq!(
        kinds,
        vec!["reasoning", "tool_call", "tool_result", "text", "tool_call"]
    );
    match &city.messages[1].parts[..3] {
        [Part::Reasoning { text, opaque_len }, Part::ToolCall { id, server, .. }, Part::ToolResult { call_id, .. }] =>
        {
            assert_eq!(text, "The skyline looks like Lisbon; check population.");
            assert_eq!(*opaque_len, "gAAAAABo3mT1redactedblobXyZ".len());
            assert!(*server);
            assert_eq!(
                (id.as_str(), call_id.as_str()),
                ("ws_68de01a9c2", "ws_68de01a9c2")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(call_ids(city, 1), vec!["call_Pq7Rs8Tu"]);
    match &city.messages[2].parts[..] {
        [Part::ToolResult {
            call_id,
            content,
            is_error,
        }] => {
            assert_eq!(call_id, "call_Pq7Rs8Tu");
            assert_eq!(*is_error, Some(true));
            assert_eq!(
                content,
                &vec![Part::text("Command timed out before completing.")]
            );
        }
        other => panic!("{other:?}"),
    }
    let u = city.messages[1].usage.as_ref().unwrap();
    assert_eq!((u.reasoning, u.total), (Some(256), Some(1712)));
    assert!(u.input_includes_cache);
}

/// A `.eval` archive in inspect's layout, built from the fixture's first sample.
fn eval_archive(extra: &[(&str, &[u8])]) -> Vec<u8> {
    let log: Value = serde_json::from_slice(
        &std::fs::read(path("fixtures/inspect-ai/compaction-two-samples.json")).unwrap(),
    )
    .unwrap();
    let mut header = log.clone();
    header.as_object_mut().unwrap().remove("samples");
    let sample = serde_json::to_vec(&log["samples"][0]).unwrap();
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut entries: Vec<(&str, Vec<u8>)> = vec![
        (
            "_journal/start.json",
            b"{\"version\": 2, \"eval\": {\"task\": \"started\"}}".to_vec(),
        ),
        ("header.json", serde_json::to_vec(&header).unwrap()),
        ("samples/ctf-3_epoch_1.json", sample),
    ];
    entries.extend(extra.iter().map(|(n, b)| (*n, b.to_vec())));
    for (name, bytes) in entries {
        zip.start_file(name, options).unwrap();
        zip.write_all(&bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn eval_archive_reports_a_broken_sample_and_keeps_the_rest() {
    let bytes = eval_archive(&[("samples/9_epoch_1.json", b"{\"id\": 9, \"messages\": [")]);
    let s = load_bytes(bytes, None, "run.eval", None).unwrap();
    assert_eq!(s.format, Format::INSPECT_AI);
    assert_eq!(
        s.title.as_deref(),
        Some("ctf_and_cities: sample ctf-3 epoch 1")
    );
    assert_eq!(s.source.skipped.len(), 1);
    assert_eq!(s.source.skipped[0].line, 2);
    assert!(s.source.skipped[0]
        .reason
        .starts_with("samples/9_epoch_1.json: invalid JSON"));
    assert_eq!(s.messages.len(), 10);
    assert_eq!(s.marks.len(), 2);
    assert_eq!(s.marks[0].before_message, 6);
    let raw = String::from_utf8(s.raw_record(&s.messages[6]).unwrap().into_owned()).unwrap();
    assert!(raw.starts_with("{\"id\":\"Sq6Tr9Us3Vt5Wu8Xv2Yw4f\""));
}

#[test]
fn eval_entries_past_the_cap_are_refused() {
    let big = vec![b' '; 64 * 1024];
    let bytes = eval_archive(&[("samples/2_epoch_1.json", &big)]);
    let loaded = Loaded::new(bytes, None, "bomb.eval").unwrap();
    let err = super::archive::parse_capped(&loaded, 32 * 1024).unwrap_err();
    assert!(
        err.to_string().contains("bomb.eval/samples/2_epoch_1.json"),
        "{err}"
    );
    assert!(err.to_string().contains("past the 32768 bytes"), "{err}");
    assert!(super::archive::parse_capped(&loaded, 1 << 20).is_ok());
}

#[test]
fn eval_entries_share_one_budget() {
    // Each entry fits the budget alone; together they overdraw it.
    let part = vec![b' '; 20 * 1024];
    let bytes = eval_archive(&[
        ("samples/2_epoch_1.json", &part),
        ("samples/3_epoch_1.json", &part),
    ]);
    let loaded = Loaded::new(bytes, None, "many.eval").unwrap();
    let err = super::archive::parse_capped(&loaded, 48 * 1024).unwrap_err();
    assert!(
        err.to_string().contains("many.eval/samples/3_epoch_1.json"),
        "{err}"
    );
    assert!(super::archive::parse_capped(&loaded, 64 * 1024).is_ok());
}

#[test]
fn a_zip_that_is_not_a_log_is_refused() {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("readme.txt", SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"hello").unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let err = load_bytes(bytes, None, "x.zip", None).unwrap_err();
    assert!(err.to_string().contains("header.json"), "{err}");
    let msg = load_bytes(b"PK\x03\x04garbage".to_vec(), None, "y.eval", None).unwrap_err();
    assert!(
        msg.to_string().contains("not a readable .eval archive"),
        "{msg}"
    );
}

#[test]
fn hostile_values_never_panic() {
    let doc = br#"{"version": 2, "status": "success", "eval": {"task": "t", "model": 5}, "samples": [
        {"messages": [
            {"role": "assistant", "content": [{"type": "reasoning"}, {"type": "tool_use"}, 5, {"type": "audio", "audio": "data:audio/wav;base64,AAAA"}],
             "tool_calls": [{"arguments": "x"}, 3]},
            {"role": "tool", "error": "x", "content": null},
            {"role": "alien", "content": "?"},
            {"role": "user", "content": "attachment://nope", "metadata": {"summary": "yes"}}
         ],
         "events": [{"event": "compaction", "type": "edit"}, {"event": "model", "output": {"usage": {"input_tokens": 5, "output_tokens": 1, "total_tokens": 3}}}],
         "attachments": []},
        5
    ]}"#;
    let s = load_bytes(doc.to_vec(), None, "h.json", None).unwrap();
    assert_eq!(s.children.len(), 2);
    let first = &s.children[0];
    let roles: Vec<&str> = first.messages.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, vec!["assistant", "tool", "event", "user"]);
    assert_eq!(
        first.messages[3].parts,
        vec![Part::text("attachment://nope")]
    );
    match &first.messages[0].parts[3] {
        Part::Opaque { kind, raw } => {
            assert_eq!(kind, "audio");
            assert!(raw.contains("<26 bytes of inline data>"), "{raw}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(first.marks.len(), 1);
    assert_eq!(
        first.marks[0].before_message, 4,
        "unplaced marks go at the end"
    );
    assert!(s.children[1].messages.is_empty());
}
