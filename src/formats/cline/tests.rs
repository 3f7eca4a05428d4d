//! Tests of the Cline reader over real task histories the Cline CLI 2.18.0 wrote
//! (`fixtures/cline/`, recorded by `tools/oracle/cline/run.sh` against a scripted model), and
//! over small inline histories for the shapes those runs do not produce.

use std::path::Path;

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, Part, Role, Session};
use crate::structure::groups::group_messages;

fn load(rel: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    match load_path(&path, None) {
        Ok(s) => s,
        Err(e) => panic!("{rel}: {e}"),
    }
}

fn inline(json: &str) -> Session {
    match load_bytes(json.as_bytes().to_vec(), None, "-", None) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// (messages, tool calls, tool results, results whose call is in the session).
fn counts(s: &Session) -> (usize, usize, usize, usize) {
    let calls: Vec<&str> = s
        .messages
        .iter()
        .flat_map(|m| m.client_calls().map(|(id, _)| id))
        .collect();
    let results: Vec<&str> = s.messages.iter().flat_map(|m| m.result_ids()).collect();
    let paired = results.iter().filter(|id| calls.contains(id)).count();
    (s.messages.len(), calls.len(), results.len(), paired)
}

#[test]
fn native_tool_calls_pair_with_their_result_texts() {
    let s = load("fixtures/cline/native.json");
    assert_eq!(s.format, Format::CLINE);
    // Independent counts over the raw file:
    // messages:  jq length native.json                                        → 8
    // calls:     jq '[.[].content[] | select(.type=="tool_use")] | length'    → 6
    // results:   python3 -c "import json,re; h=json.load(open('native.json'));
    //            print(sum(bool(re.match(r'\[\w+( for .*)?\] Result:', b.get('text',''), re.S))
    //            for m in h if m['role']=='user' for b in m['content']))"     → 5
    // Every result answers a call; the last call (attempt_completion) ends the task unanswered.
    assert_eq!(counts(&s), (8, 6, 5, 5));
    let grouping = group_messages(&s);
    let unanswered: Vec<&str> = grouping
        .groups
        .iter()
        .flat_map(|g| g.unanswered.iter().map(String::as_str))
        .collect();
    assert_eq!(unanswered, ["call_0006"]);
    assert!(grouping.groups.iter().all(|g| g.orphaned.is_empty()));
    // Two parallel calls answered in call order, then the environment details stay text.
    let kinds: Vec<&str> = s.messages[2].parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, ["tool_result", "tool_result", "text"]);
    assert_eq!(s.messages[2].role, Role::User);
    assert_eq!(
        s.messages[2].result_ids().collect::<Vec<_>>(),
        ["call_0001", "call_0002"]
    );
    // The read of a missing file failed; the command did not.
    let errors: Vec<Option<bool>> = s.messages[4]
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolResult { is_error, .. } => Some(*is_error),
            _ => None,
        })
        .collect();
    assert_eq!(errors, [Some(true), None]);
    // Usage from metrics.tokens; the OpenAI-compatible handler's prompt includes the cache.
    let usage = s.messages[1].usage.as_ref().expect("usage");
    assert_eq!(
        (usage.input, usage.output, usage.cache_read),
        (Some(3176), Some(67), Some(0))
    );
    assert!(usage.input_includes_cache);
    assert_eq!(s.model.as_deref(), Some("gpt-5"));
    assert_eq!(
        s.messages[1].timestamp.as_deref().map(str::len),
        Some("2026-12-03T16:52:03.000Z".len())
    );
}

#[test]
fn xml_tool_calls_in_text_pair_with_their_result_texts() {
    let s = load("fixtures/cline/xml.json");
    assert_eq!(s.format, Format::CLINE);
    // Independent counts over the raw file:
    // messages:  jq length xml.json                                           → 9
    // calls:     python3 -c "import json,re; h=json.load(open('xml.json'));
    //            print(sum(len(re.findall(r'<(read_file|list_files|execute_command|
    //            attempt_completion)>', b.get('text',''))) for m in h if m['role']=='assistant'
    //            for b in m['content']))"                                     → 5
    // results:   the same one-liner as for native.json over xml.json          → 5
    // The history ends at the last result: the CLI exits on attempt_completion before the
    // assistant message that called it is saved.
    assert_eq!(counts(&s), (9, 5, 5, 5));
    let grouping = group_messages(&s);
    assert!(grouping.groups.iter().all(|g| g.complete()));
    // Text, then the call; its arguments are the tag's inner text as written.
    match &s.messages[1].parts[..] {
        [Part::Text { text }, Part::ToolCall {
            id,
            name,
            arguments,
            ..
        }] => {
            assert_eq!(text, "I'll read the code first.\n\n");
            assert_eq!((id.as_str(), name.as_str()), ("1-0", "read_file"));
            assert_eq!(arguments, "\n<path>calc.py</path>\n");
        }
        other => panic!("{other:?}"),
    }
    // Two calls in one message, answered in order by one user message.
    let names: Vec<(&str, &str)> = s.messages[5].client_calls().collect();
    assert_eq!(names, [("5-0", "list_files"), ("5-1", "read_file")]);
    assert_eq!(
        s.messages[6].result_ids().collect::<Vec<_>>(),
        ["5-0", "5-1"]
    );
}

#[test]
fn a_result_no_call_answers_is_kept_as_an_orphan() {
    let s = inline(
        r#"[{"role":"user","content":[{"type":"text","text":"<task>hi</task>"}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}}],"modelInfo":{"modelId":"m","providerId":"anthropic","mode":"act"},"metrics":{"tokens":{"prompt":10,"completion":5,"cached":100}}},
        {"role":"user","content":[{"type":"text","text":"[list_files for '.'] Result:\nx"},{"type":"text","text":"[read_file for 'a'] Result:\nb"}]}]"#,
    );
    assert_eq!(s.format, Format::CLINE);
    assert_eq!(s.messages[2].role, Role::Tool);
    let ids: Vec<&str> = s.messages[2].result_ids().collect();
    assert_eq!(ids, ["2-result-0", "t1"]);
    let grouping = group_messages(&s);
    let orphans: Vec<&str> = grouping
        .groups
        .iter()
        .flat_map(|g| g.orphaned.iter().map(String::as_str))
        .collect();
    assert_eq!(orphans, ["2-result-0"]);
    // Anthropic's input excludes the cache.
    let usage = s.messages[1].usage.as_ref().expect("usage");
    assert_eq!(usage.context_input(), Some(110));
}

#[test]
fn a_header_block_takes_the_output_blocks_after_it() {
    // Roo Code and older Cline: the header alone, the output in the next block; the second
    // call was not run, and the note saying so is its result.
    let s = inline(
        r#"[{"role":"user","content":[{"type":"text","text":"<task>hi</task>"}],"ts":1},
        {"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>é.md</path>\n</read_file>\n<list_files>\n<path>.</path>\n</list_files>"}],"ts":2},
        {"role":"user","content":[{"type":"text","text":"[read_file for 'é.md'] Result:"},{"type":"text","text":"hello"},{"type":"text","text":"Tool [list_files] was not executed because a tool has already been used in this message."},{"type":"text","text":"<environment_details>x</environment_details>"}],"ts":3}]"#,
    );
    assert_eq!(s.format, Format::CLINE);
    match &s.messages[2].parts[..] {
        [Part::ToolResult {
            call_id, content, ..
        }, Part::ToolResult {
            call_id: not_run, ..
        }, Part::Text { .. }] => {
            assert_eq!((call_id.as_str(), not_run.as_str()), ("1-0", "1-1"));
            assert_eq!(content.len(), 2);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn xml_edge_cases_do_not_panic() {
    // An unclosed tool at the end, a parameter holding the closing tag, multi-byte text.
    let s = inline(
        r#"[{"role":"user","content":[{"type":"text","text":"go"}],"ts":1},
        {"role":"assistant","content":[{"type":"text","text":"ü <write_to_file><path>a</path><content></write_to_file> é</content></write_to_file> ö <execute_command><command>ls"}],"ts":2},
        {"role":"user","content":[{"type":"text","text":"[ Result:"},{"type":"text","text":"[write_to_file for 'a'] Result:\nok"}],"ts":3},
        {"role":"assistant"}]"#,
    );
    let calls: Vec<(&str, &str)> = s.messages[1].client_calls().collect();
    assert_eq!(
        calls,
        [("1-0", "write_to_file"), ("1-1", "execute_command")]
    );
    match &s.messages[1].parts[1] {
        Part::ToolCall { arguments, .. } => {
            assert_eq!(
                arguments,
                "<path>a</path><content></write_to_file> é</content>"
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.messages[2].result_ids().collect::<Vec<_>>(), ["1-0"]);
    // The item without content is reported, not made an empty message.
    assert_eq!(s.messages.len(), 3);
    assert_eq!(s.source.skipped.len(), 1);
}

#[test]
fn a_rejection_note_answers_the_call_it_names() {
    // Cline 2.18's `createToolRejectionMessage`: the reason, then the call's description.
    let s = inline(
        r#"[{"role":"user","content":[{"type":"text","text":"go"}]},
        {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"execute_command","input":{}},{"type":"tool_use","id":"b","name":"read_file","input":{}}],"modelInfo":{"modelId":"m","providerId":"openai","mode":"act"}},
        {"role":"user","content":[{"type":"text","text":"[execute_command for 'rm x'] Result:\nThe user denied this operation."},{"type":"text","text":"Skipping tool due to user rejecting a previous tool. [read_file for 'y']"},{"type":"text","text":"Tool [read_file] has been called 3 times consecutively with identical arguments."}]}]"#,
    );
    assert_eq!(s.messages[2].result_ids().collect::<Vec<_>>(), ["a", "b"]);
    // A warning about repeated calls is not a result.
    assert_eq!(s.messages[2].parts[2].kind(), "text");
}
