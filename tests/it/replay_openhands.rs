//! `replay` of a native OpenHands event file under `openhands`: the trigger measures the View
//! the condenser is given (the events so far, earlier condensations applied), not the file.
//! The file is generated: a system prompt, a task, then terminal rounds — some of them two
//! parallel calls of one response (the second action has no message of its own) — with state
//! updates between, 340 events in all.

use ctxray::analysis::{Analysis, Options};
use ctxray::compaction::preset;
use ctxray::compaction::presets;
use ctxray::formats::load_bytes;
use ctxray::replay::{self, Replay};
use ctxray::tokens::Registry;
use serde_json::{json, Value};

fn event(n: usize, kind: &str, source: &str, body: Value) -> Value {
    let mut v = json!({
        "id": format!("0a0e9999-0000-4000-8000-{n:012}"),
        "timestamp": format!("2025-03-14T09:{:02}:{:02}", n / 60 % 60, n % 60),
        "source": source,
    });
    for (k, x) in body.as_object().unwrap() {
        v[k] = x.clone();
    }
    v["kind"] = kind.into();
    v
}

/// A native event log of about `events` events (JSONL), with a `Condensation` of the first
/// rounds written in (and not counted) when `own_condensation`, as a real run at another
/// `max_size` would have.
fn event_log(events: usize, own_condensation: bool) -> String {
    let text = |t: &str| json!([{"type": "text", "text": t}]);
    let mut out = vec![
        event(
            0,
            "SystemPromptEvent",
            "agent",
            json!({"system_prompt": {"type": "text", "text": "You are OpenHands agent."}, "tools": []}),
        ),
        event(
            1,
            "MessageEvent",
            "user",
            json!({"llm_message": {"role": "user", "content": text("Migrate every module to the new logging API.")}}),
        ),
    ];
    let mut round = 0;
    let mut extra = 0;
    while out.len() - extra < events {
        let n = out.len();
        let response = format!("chatcmpl-{round}");
        let calls = if round % 4 == 3 { 2 } else { 1 };
        let mut actions = Vec::new();
        for c in 0..calls {
            let call = format!("call_{round}_{c}");
            let command = format!("grep -rn logging src/mod_{round}_{c}.py");
            actions.push(call.clone());
            out.push(event(n + c, "ActionEvent", "agent", json!({
                "thought": if c == 0 { text(&format!("Round {round}: look at the next module.")) } else { json!([]) },
                "action": {"command": command, "kind": "TerminalAction"},
                "tool_name": "terminal", "tool_call_id": call,
                "tool_call": {"id": call, "name": "terminal", "arguments": json!({"command": command}).to_string(), "origin": "completion"},
                "llm_response_id": response,
            })));
        }
        for (c, call) in actions.iter().enumerate() {
            out.push(event(out.len(), "ObservationEvent", "environment", json!({
                "tool_name": "terminal", "tool_call_id": call,
                "observation": {"content": text(&format!("src/mod_{round}_{c}.py:3:import logging")), "is_error": false, "kind": "TerminalObservation"},
            })));
        }
        if round % 5 == 4 {
            out.push(event(
                out.len(),
                "ConversationStateUpdateEvent",
                "environment",
                json!({"key": "execution_status", "value": "running"}),
            ));
        }
        if own_condensation && round == 12 {
            let forgotten: Vec<Value> = out[2..20].iter().map(|e| e["id"].clone()).collect();
            out.push(event(out.len(), "Condensation", "environment", json!({
                "forgotten_event_ids": forgotten, "summary": "Rounds 0 to 8 migrated.", "summary_offset": 2, "llm_response_id": "chatcmpl-summary",
            })));
            extra += 1;
        }
        round += 1;
    }
    out.iter().map(|e| e.to_string() + "\n").collect()
}

fn replayed(log: &str, max_size: usize) -> Replay {
    let session = load_bytes(log.as_bytes().to_vec(), None, "events.jsonl", None).unwrap();
    assert_eq!(session.format.name(), "openhands");
    let a = Analysis::new(session, &Registry::bundled(), &Options::default());
    let p = presets::find("openhands").unwrap();
    let sets = vec![format!("max_size={max_size}")];
    replay::replay(&a, p, &sets, &replay::Options::default()).unwrap()
}

#[test]
fn the_trigger_counts_the_view_and_a_condensation_brings_it_to_about_half() {
    let log = event_log(340, false);
    let events = log.lines().count();
    assert!((340..345).contains(&events));
    let r = replayed(&log, 40);
    assert_eq!(r.measure, "events");
    // Before the first condensation the view is the events so far: the system prompt and the
    // task, then two or three more per request.
    assert_eq!(r.steps[0].value, 2);
    // Between two checks the view grows by the request's events, exactly: two, or four for
    // the parallel calls of every fourth round (the second action is no message of its own,
    // so it has to come along with the records between messages).
    for (k, w) in r.steps.windows(2).enumerate() {
        let grown = if k % 4 == 3 { 4 } else { 2 };
        if !w[0].fired {
            assert_eq!(w[1].value, w[0].value + grown, "step {k}");
        }
    }
    let fired: Vec<usize> = (0..r.steps.len()).filter(|&i| r.steps[i].fired).collect();
    let first = fired[0];
    assert!(r.steps[..first].windows(2).all(|w| w[0].value < w[1].value));
    assert!(r.steps[first].value > 40 && r.steps[first].value <= 44);
    for &i in &fired {
        // keep_first 2, the summary, and the newest 40 // 2 - 2 - 1 = 17 (fewer where the cut
        // moves on to keep a batch whole), then the events of the next request.
        if let Some(next) = r.steps.get(i + 1) {
            assert!(
                (17..=25).contains(&next.value),
                "{} after {}",
                next.value,
                i
            );
        }
    }
    check_count(&log, 40, &r);
}

/// About one compaction per max_size / 2 events of the view: each needs the view to grow from
/// what the last one left (keep_first, the summary, at most max_size // 2 - keep_first - 1
/// newest) to above max_size, and no check sees more than max_size and one request's events
/// (at most 4 here); never one per check.
fn check_count(log: &str, max_size: usize, r: &Replay) {
    let view_events = log
        .lines()
        .filter(|l| !l.contains("\"ConversationStateUpdateEvent\""))
        .count();
    let n = r.compactions.len();
    let (least, most) = (
        view_events / (max_size + 2) - 1,
        view_events / (max_size / 2) + 1,
    );
    assert!(
        (least..=most).contains(&n),
        "max_size {max_size}: {n} compactions for {view_events} view events, want {least}..={most}"
    );
    assert!(
        n * 3 < r.steps.len(),
        "{n} compactions in {} checks",
        r.steps.len()
    );
}

#[test]
fn two_consecutive_checks_never_both_fire() {
    let log = event_log(340, false);
    for max_size in [10, 16, 20, 40, 80] {
        let r = replayed(&log, max_size);
        check_count(&log, max_size, &r);
        assert!(
            r.steps.windows(2).all(|w| !(w[0].fired && w[1].fired)),
            "max_size {max_size}: consecutive compactions"
        );
        assert!(
            r.steps.iter().all(|s| s.value <= max_size as u64 + 4),
            "max_size {max_size}: a view above max_size + one request's events"
        );
    }
}

/// The file's own `Condensation` (made under other settings) is not replayed: the replay
/// condenses where its own settings say, exactly as on the file without it.
#[test]
fn the_file_s_own_condensation_is_not_replayed() {
    let plain = replayed(&event_log(340, false), 40);
    let with_own = replayed(&event_log(340, true), 40);
    let values = |r: &Replay| r.steps.iter().map(|s| s.value).collect::<Vec<_>>();
    let (a, b) = (values(&plain), values(&with_own));
    let at = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!(a.len(), b.len(), "first difference at step {at:?}");
    assert_eq!(a, b, "first difference at step {at:?}");
    assert_eq!(plain.compactions.len(), with_own.compactions.len());
}

/// Until the first compaction, each check measures what `plan` measures on the file cut just
/// before that check's request — including the first check, before any message of the history,
/// when the file opens with state updates and an action (as a resumed SDK log can).
#[test]
fn before_any_compaction_each_check_measures_the_file_cut_there() {
    let mut lines: Vec<String> = (0..3)
        .map(|n| {
            event(
                n,
                "ConversationStateUpdateEvent",
                "environment",
                json!({"key": "execution_status", "value": "running"}),
            )
            .to_string()
        })
        .collect();
    // No system prompt or task: the first request is the first event after the updates.
    let body = event_log(24, false);
    lines.extend(body.lines().skip(2).map(str::to_string));
    let log: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let r = replayed(&log, 1000);
    assert!(r.compactions.is_empty());
    let p = presets::find("openhands").unwrap();
    for s in &r.steps {
        let cut: String = lines[..s.source_index.min(lines.len())]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        let want = if cut.is_empty() {
            0
        } else {
            let session = load_bytes(
                cut.into_bytes(),
                None,
                "cut.jsonl",
                Some(ctxray::session::Format::OPENHANDS),
            )
            .unwrap();
            let a = Analysis::new(session, &Registry::bundled(), &Options::default());
            let sets = vec!["max_size=1000".to_string()];
            preset::run(p, &preset::PlanInput::new(&a), &sets)
                .unwrap()
                .trigger
                .value
        };
        assert_eq!(s.value, want, "check before record {}", s.source_index);
    }
}
