//! Small correctness faults a red-team pass found, each reproduced through the release binary
//! with a small file and checked here against what the fix promises.

use crate::support::bounded;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

const DEADLINE: Duration = Duration::from_secs(120);

fn fixture(name: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    path.to_str().expect("a UTF-8 path").to_string()
}

fn report(path: &str) -> Value {
    bounded::run(&["report", path, "--json"], DEADLINE).json(path)
}

fn codes(v: &Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("a code").to_string())
        .collect()
}

/// The summarizer input `custom` renders when it summarizes every message: the session's
/// text as read.
fn all_text(path: &str) -> String {
    let plan = bounded::run(
        &[
            "plan",
            path,
            "--preset",
            "custom",
            "--set",
            "trigger_tokens=1",
            "--set",
            "keep_last=0",
            "--json",
        ],
        DEADLINE,
    )
    .json("plan --json");
    let messages = plan["summarizer"]["messages"]
        .as_array()
        .expect("summarizer messages");
    messages
        .iter()
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A JSON document holding `"x \ud83d y"` (what `JSON.stringify` writes for a cut emoji) is
/// read, and the lone half becomes U+FFFD.
#[test]
fn a_lone_surrogate_in_a_json_document_becomes_a_replacement_character() {
    let r = report(&fixture("hostile/lone-surrogate.json"));
    assert_eq!(r["messages"].as_array().map(Vec::len), Some(2));
    let text = all_text(&fixture("hostile/lone-surrogate.json"));
    assert!(text.contains("[assistant] x \u{fffd} y"), "{text}");
}

/// In JSONL the line holding the tool result is kept (no skipped line, no false
/// `tool-call-without-result`), and an escaped backslash before `ud83d` stays text.
#[test]
fn a_lone_surrogate_in_a_tool_result_line_keeps_the_line_and_its_group() {
    let r = report(&fixture("hostile/lone-surrogate.jsonl"));
    assert_eq!(r["source"]["skipped_lines"], 0, "{}", r["source"]);
    let codes = codes(&r);
    assert!(
        !codes
            .iter()
            .any(|c| c == "tool-call-without-result" || c == "skipped-lines"),
        "{codes:?}"
    );
    assert_eq!(r["messages"].as_array().map(Vec::len), Some(4));
    let text = all_text(&fixture("hostile/lone-surrogate.jsonl"));
    assert!(text.contains("result c1: out \u{fffd} end"), "{text}");
    assert!(text.contains(r"[assistant] done \ud83d literal"), "{text}");
    assert_eq!(r["groups"][0]["complete"], true);
}

/// The repair touches only surrogate escapes: a document with another bad escape is still
/// refused with one line naming the file and line.
#[test]
fn a_bad_escape_that_is_not_a_surrogate_is_still_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad-escape.json");
    let body = "[{\"role\": \"user\", \"content\": \"hi\"},\n {\"role\": \"assistant\", \"content\": \"x \\uZZZZ\"}]\n";
    std::fs::write(&path, body).expect("write");
    let shown = path.to_str().expect("a UTF-8 path");
    let run = bounded::run(&["report", shown], DEADLINE);
    run.assert_refused("a bad escape", &[shown, ":2:", "escape"]);
}

/// A 50 MB line packed with lone and escaped-backslash surrogates is read in one linear pass,
/// in place: no line is skipped and memory stays within the bound `tests/it/hostile.rs` holds
/// plain 50 MB lines to.
#[test]
fn a_50_mb_line_of_lone_surrogates_is_read_and_memory_stays_bounded() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("surrogates.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    f.write_all(
        b"{\"role\": \"user\", \"content\": \"go\"}\n{\"role\": \"assistant\", \"content\": \"",
    )
    .expect("write");
    let piece = br"half \ud83d emoji \\ud83d text \ud83d\ude00 pair ";
    for _ in 0..(50 << 20) / piece.len() {
        f.write_all(piece).expect("write");
    }
    f.write_all(b"\"}\n{\"role\": \"user\", \"content\": \"thanks\"}\n")
        .expect("write");
    f.flush().expect("flush");
    drop(f);
    let len = std::fs::metadata(&path).expect("written").len();
    let shown = path.to_str().expect("a UTF-8 path");
    let run = bounded::run(&["report", shown, "--json"], Duration::from_secs(300));
    let r = run.json("report of a 50 MB line of surrogates");
    assert_eq!(r["source"]["skipped_lines"], 0);
    assert_eq!(r["messages"].as_array().map(Vec::len), Some(3));
    assert!(
        run.peak_rss < 6 * len,
        "report peaked at {} MB for a {} MB file",
        run.peak_rss >> 20,
        len >> 20
    );
}

/// `custom keep_last=6` on two interleaved tool rounds (call a, call b, result a, result b):
/// the tail would start at call b and leave call a summarized with its result kept; the cut
/// moves back to call a and both groups are kept whole.
#[test]
fn custom_keep_last_keeps_interleaved_groups_whole() {
    let path = fixture("hostile/interleaved-groups.json");
    let plan = bounded::run(
        &[
            "plan",
            path.as_str(),
            "--preset",
            "custom",
            "--set",
            "trigger_tokens=1",
            "--set",
            "keep_last=6",
            "--json",
        ],
        DEADLINE,
    )
    .json("plan --json");
    assert_eq!(
        plan["split"]["summarized"],
        serde_json::json!([0]),
        "{}",
        plan["split"]
    );
    assert_eq!(
        plan["split"]["kept"],
        serde_json::json!([1, 2, 3, 4, 5, 6, 7])
    );
}

/// Two tool calls sharing one id: a `duplicate-call-id` finding (in `report`, `plan` and
/// `--json`), and each result grouped with its own call.
#[test]
fn a_reused_call_id_is_a_finding_and_each_round_is_its_own_group() {
    let path = fixture("hostile/duplicate-call-id.json");
    let r = report(&path);
    let found: Vec<&Value> = r["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "duplicate-call-id")
        .collect();
    assert_eq!(found.len(), 1, "{}", r["findings"]);
    assert_eq!(found[0]["severity"], "warn");
    assert_eq!(found[0]["messages"], serde_json::json!([1, 4]));
    assert!(
        found[0]["detail"]
            .as_str()
            .expect("a detail")
            .contains("nearest preceding call"),
        "{}",
        found[0]
    );
    let groups: Vec<&Value> = r["groups"].as_array().expect("groups").iter().collect();
    assert_eq!(groups.len(), 2, "{}", r["groups"]);
    assert_eq!(groups[0]["messages"], serde_json::json!([1, 2]));
    assert_eq!(groups[1]["messages"], serde_json::json!([4, 5]));
    assert!(groups.iter().all(|g| g["complete"] == true));

    let text = bounded::run(&["report", path.as_str()], DEADLINE);
    assert!(String::from_utf8_lossy(&text.stdout).contains("duplicate-call-id"));
    let plan = bounded::run(
        &[
            "plan",
            path.as_str(),
            "--preset",
            "custom",
            "--set",
            "trigger_tokens=1",
            "--set",
            "keep_last=1",
        ],
        DEADLINE,
    );
    assert!(
        String::from_utf8_lossy(&plan.stdout).contains("duplicate-call-id"),
        "{}",
        plan.stderr
    );
    let plan_json = bounded::run(
        &[
            "plan",
            path.as_str(),
            "--preset",
            "custom",
            "--set",
            "trigger_tokens=1",
            "--json",
        ],
        DEADLINE,
    )
    .json("plan --json");
    assert!(
        codes(&plan_json).iter().any(|c| c == "duplicate-call-id"),
        "{}",
        plan_json["findings"]
    );
}

/// A PNG header claiming 0xFFFFFFFF × 0xFFFFFFFF pixels costs no more than the largest image
/// each provider accepts (OpenAI 1,445, Anthropic 1,600, Gemini 4,128 tokens, plus the
/// message's 3 framing tokens), instead of hundreds of billions.
#[test]
fn a_forged_image_size_costs_no_more_than_the_largest_accepted_image() {
    let path = fixture("hostile/forged-png-size.json");
    for (model, most) in [
        ("gpt-4o", 1_445),
        ("claude-sonnet-4-5", 1_600),
        ("gemini-2.5-pro", 4_128),
    ] {
        let r = bounded::run(
            &["report", path.as_str(), "--model", model, "--json"],
            DEADLINE,
        )
        .json(model);
        let overhead = r["messages"][0]["overhead_tokens"]
            .as_u64()
            .expect("overhead");
        assert!(overhead <= most + 3, "{model}: {overhead}");
        assert!(
            r["total_tokens"].as_u64().expect("total") < 10_000,
            "{model}"
        );
    }
}
