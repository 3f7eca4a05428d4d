//! The summarizer input as first written: every event rebuilt whole and the request's bound
//! read whole at each cap. The test oracle of `fixed`'s request and cap (the findings made of
//! them are `fixed`'s own).

use serde_json::Value;

use super::super::events::Record;
use super::super::render::{llm_message, s, to_llm_content, Item};
use super::super::view::{rec, Ev, Kind};
use super::{action, CAP, MARKER, RETRIES};
use crate::compaction::findings::Finding;
use crate::compaction::plan::PromptMessage;
use crate::compaction::preset::PlanInput;

/// The request, and what it still loses.
pub fn summarizer(
    records: &[Record],
    forgotten: &[Ev],
    input: &PlanInput,
) -> (Vec<PromptMessage>, Vec<Finding>) {
    let window = usize::try_from(input.window).unwrap_or(usize::MAX);
    let mut cap = CAP;
    let mut retries = 0;
    let (mut messages, mut cut) = attempt(records, forgotten, cap);
    // Over the window when a bound says so already; counted only near it.
    let over = |m: &[PromptMessage]| -> bool {
        let least = m
            .iter()
            .map(|p| crate::tokens::bound::at_least(&p.content) + 4)
            .sum::<usize>()
            + 3;
        least > window || super::tokens(m, input) > window
    };
    while over(&messages) && retries < RETRIES && cap > 0 {
        cap = cap * 4 / 5;
        retries += 1;
        (messages, cut) = attempt(records, forgotten, cap);
    }
    let findings = super::findings(records, forgotten, &cut, cap, retries, window, || {
        super::tokens(&messages, input)
    });
    (messages, findings)
}

fn attempt(records: &[Record], forgotten: &[Ev], cap: usize) -> (Vec<PromptMessage>, Vec<usize>) {
    let (strings, cuts): (Vec<String>, Vec<usize>) =
        forgotten.iter().map(|e| whole(records, e, cap)).unzip();
    (
        super::super::prompt(super::super::events_prompt(&strings)),
        cuts,
    )
}

/// Head and tail of `text` within `cap` characters, and how many were cut.
pub fn head_tail(text: &str, cap: usize) -> (String, usize) {
    let len = text.chars().count();
    if len <= cap {
        return (text.to_string(), 0);
    }
    let head = cap / 2;
    let tail = cap - head;
    let mut out: String = text.chars().take(head).collect();
    out.push_str(MARKER);
    out.extend(text.chars().skip(len - tail));
    (out, len - cap)
}

/// One event, whole.
fn whole(records: &[Record], ev: &Ev, cap: usize) -> (String, usize) {
    let v = rec(records, ev);
    let source = v
        .get("source")
        .and_then(Value::as_str)
        .unwrap_or("environment");
    match ev.kind {
        Kind::Action => (action(v, source), 0),
        Kind::Summary => (
            format!(
                "CondensationSummaryEvent ({source})\n  user: {}",
                s(v, "summary")
            ),
            0,
        ),
        Kind::Observation | Kind::Reject | Kind::AgentError => answer(v, ev.kind, source, cap),
        Kind::Message | Kind::System => {
            let m = llm_message(records, ev);
            let joined = m
                .content
                .iter()
                .map(Item::display)
                .collect::<Vec<_>>()
                .join("\n");
            let (text, cut) = head_tail(&joined, cap);
            let class = if ev.kind == Kind::System {
                "SystemPromptEvent"
            } else {
                "MessageEvent"
            };
            (format!("{class} ({source})\n  {}: {text}", m.role), cut)
        }
    }
}

/// An observation, rejection or error: head and tail of its text.
fn answer(v: &Value, kind: Kind, source: &str, cap: usize) -> (String, usize) {
    match kind {
        Kind::Observation => {
            let content: String = to_llm_content(&v["observation"])
                .iter()
                .map(Item::display)
                .collect();
            let (text, cut) = head_tail(&content, cap);
            (
                format!(
                    "ObservationEvent ({source})\n  Tool: {}\n  Result: {text}",
                    s(v, "tool_name")
                ),
                cut,
            )
        }
        Kind::Reject => {
            let reason = v
                .get("rejection_reason")
                .and_then(Value::as_str)
                .unwrap_or("User rejected the action");
            let (text, cut) = head_tail(reason, cap);
            (
                format!(
                    "UserRejectObservation ({source})\n  Tool: {}\n  Reason: {text}",
                    s(v, "tool_name")
                ),
                cut,
            )
        }
        Kind::AgentError => {
            let (text, cut) = head_tail(s(v, "error"), cap);
            (
                format!(
                    "AgentErrorEvent ({source})\n  Tool: {}\n  Error: {text}",
                    s(v, "tool_name")
                ),
                cut,
            )
        }
        _ => (String::new(), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::{decided, OpenHandsFixed};
    use crate::analysis::{Analysis, Options};
    use crate::compaction::preset::{PlanInput, Preset};
    use crate::compaction::settings::Settings;
    use crate::tokens::Registry;

    /// A Claude Code session of `turns` tool calls whose results run from a few characters to
    /// several caps long, in plain and multi-byte text.
    fn long_results(turns: usize) -> Vec<u8> {
        let mut out = String::new();
        for i in 0..turns {
            let id = format!("toolu_{i}");
            let len = [3, 700, 9_999, 10_000, 10_001, 25_000, 61_000][i % 7];
            let text: String = ["ab cd ", "é ø ", "\n  x"][i % 3]
                .chars()
                .cycle()
                .take(len)
                .collect();
            let lines = [
                serde_json::json!({"type": "user", "uuid": format!("q{i}"), "sessionId": "s",
                    "message": {"role": "user", "content": format!("step {i}: {}", "why ".repeat(i % 5))}}),
                serde_json::json!({"type": "assistant", "uuid": format!("a{i}"), "sessionId": "s",
                    "message": {"role": "assistant", "id": format!("m{i}"), "model": "claude-sonnet-4-5",
                    "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": format!("ls {i}")}}]}}),
                serde_json::json!({"type": "user", "uuid": format!("r{i}"), "sessionId": "s",
                    "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}}),
            ];
            for l in lines {
                out.push_str(&l.to_string());
                out.push('\n');
            }
        }
        out.into_bytes()
    }

    /// The summarizer built piece by piece gives the request and findings of the one rebuilt
    /// whole at every cap: on sessions with results shorter and longer than the cap, at windows
    /// from far under the request (every retry) to far over it (none), and on the OpenHands
    /// samples. Fails when a cut keeps one character too many, or when a piece is reused at a
    /// cap that changes it.
    #[test]
    fn piece_by_piece_is_the_whole_rebuild() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut sessions = vec![
            crate::formats::load_bytes(long_results(60), None, "long", None).expect("loads"),
            crate::formats::load_bytes(long_results(25), None, "middle", None).expect("loads"),
            crate::formats::load_bytes(long_results(9), None, "short", None).expect("loads"),
        ];
        for path in [
            "../shared/samples/openhands/v0_trajectory/basic_gui_mode.json",
            "../shared/samples/openhands/v1_sdk/goal-events.jsonl",
            "fixtures/openhands/conversation",
            "fixtures/openhands/events-malformed-line.jsonl",
        ] {
            if let Ok(s) = crate::formats::load_path(&root.join(path), None) {
                sessions.push(s);
            }
        }
        let registry = Registry::bundled();
        let mut retried = 0;
        let mut compared = 0;
        for session in sessions {
            let analysis = Analysis::new(session, &registry, &Options::default());
            for window in [500, 2_000, 5_000, 20_000, 40_000, 150_000, 10_000_000] {
                let mut input = PlanInput::new(&analysis);
                input.window = window;
                for max_size in ["max_size=4", "max_size=20"] {
                    let settings = Settings::resolve(
                        "openhands-fixed",
                        OpenHandsFixed.params(),
                        &[max_size.to_string()],
                    )
                    .expect("settings");
                    let Ok(d) = decided(&OpenHandsFixed, &input, &settings) else {
                        continue;
                    };
                    let (a, b) = d.forgotten;
                    let forgotten = d.view.events.get(a..b).unwrap_or_default();
                    if forgotten.is_empty() {
                        continue;
                    }
                    let new = super::super::summarizer(&d.records, forgotten, &input);
                    let old = super::summarizer(&d.records, forgotten, &input);
                    assert_eq!(format!("{new:?}"), format!("{old:?}"), "window {window}");
                    retried +=
                        usize::from(old.1.iter().any(|f| f.code == "summarizer-window-overflow"));
                    compared += 1;
                }
            }
        }
        assert!(
            compared >= 20 && retried >= 5,
            "{compared} compared, {retried} retried"
        );
    }
}
