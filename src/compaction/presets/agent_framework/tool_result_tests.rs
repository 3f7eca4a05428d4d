//! The batched `ToolResultCompactionStrategy` against the framework's own order (each summary
//! inserted and the list re-annotated from it before the next group), kept here as the oracle,
//! on generated histories with the shapes that make the steps differ: late, parallel and
//! orphan results, reused call ids, repeated and missing message ids, empty messages,
//! pre-excluded messages and lists annotated before they grew.

use serde_json::{json, Map, Value};

use super::annotate::{annotate_groups, group_maps};
use super::model::AfMsg;
use super::run::{Notes, Run};
use super::settled::Outside;
use super::strategies::tool_groups;
use super::tool_result::{collapse, collapse_groups};
use super::Version;

/// The framework's loop, step by step.
fn by_step(run: &mut Run, keep: i64) -> bool {
    let (tools, keep_ids) = tool_groups(run, keep);
    if tools.len() as i64 <= keep {
        return false;
    }
    let mut g = group_maps(&run.msgs);
    let mut changed = false;
    for id in tools.iter().filter(|id| !keep_ids.contains(*id)) {
        let members = g.of(id).to_vec();
        let summary = collapse(run, id, &members, &mut changed);
        let at = g.start(id).unwrap_or(0);
        run.insert(at, summary);
        annotate_groups(&mut run.msgs, Some(at), false, run.v, &run.outside);
        g = group_maps(&run.msgs);
    }
    changed
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
    fn one_in(&mut self, n: u64) -> bool {
        n > 0 && self.next(n) == 0
    }
}

/// How awkward a generated history is (0: never).
#[derive(Clone, Copy)]
struct Odds {
    reuse_call_id: u64,
    repeat_msg_id: u64,
    no_msg_id: u64,
    empty: u64,
    excluded: u64,
    orphan: u64,
    late: u64,
}

fn msg(role: &str, id: Option<String>, contents: Vec<Value>) -> AfMsg {
    AfMsg {
        role: role.into(),
        id,
        contents: super::model::Contents::new(contents),
        props: Map::new().into(),
        extra: Map::new(),
        origin: None,
        known: Default::default(),
    }
}

fn result_text(rng: &mut Rng, i: usize) -> Value {
    match rng.next(8) {
        0 => json!(i),
        1 => json!("  padded  "),
        2 => json!("x".repeat(3000)),
        _ => json!(format!("out {i}")),
    }
}

fn calls(rng: &mut Rng, o: Odds, n: &mut usize, pending: &mut Vec<(String, String)>) -> Vec<Value> {
    (0..1 + rng.next(3))
        .map(|_| {
            *n += 1;
            let cid = if *n > 1 && rng.one_in(o.reuse_call_id) {
                format!("c{}", 1 + rng.next(*n as u64 - 1))
            } else {
                format!("c{n}")
            };
            let (call, result) = match rng.next(6) {
                0 => ("computer_tool_call", "computer_tool_result"),
                1 => ("mcp_server_tool_call", "mcp_server_tool_result"),
                _ => ("function_call", "function_result"),
            };
            pending.push((cid.clone(), result.to_string()));
            let name = format!("tool{}", rng.next(3));
            json!({"type": call, "call_id": cid, "name": name, "tool_name": name, "arguments": "{}"})
        })
        .collect()
}

fn results(rng: &mut Rng, o: Odds, i: usize, pending: &mut Vec<(String, String)>) -> Vec<Value> {
    (0..1 + rng.next(2))
        .map(|_| {
            if pending.is_empty() || rng.one_in(o.orphan) {
                let cid = format!("orphan{}", rng.next(4));
                return json!({"type": "function_result", "call_id": cid, "result": "lost"});
            }
            let k = if rng.one_in(o.late) {
                rng.next(pending.len() as u64) as usize
            } else {
                0
            };
            let (cid, kind) = pending.remove(k);
            let out = result_text(rng, i);
            json!({"type": kind, "call_id": cid, "result": out, "output": out})
        })
        .collect()
}

/// A history of users, texts, reasoning, parallel calls and their results.
fn history(rng: &mut Rng, len: usize, o: Odds) -> Vec<AfMsg> {
    let mut msgs = Vec::new();
    let mut pending = Vec::new();
    let mut n = 0;
    for i in 0..len {
        let id = if rng.one_in(o.no_msg_id) {
            None
        } else if i > 0 && rng.one_in(o.repeat_msg_id) {
            let earlier = rng.next(i as u64);
            Some(match rng.next(3) {
                0 => format!("tool_summary_group_m{earlier}"),
                _ => format!("m{earlier}"),
            })
        } else {
            Some(format!("m{i}"))
        };
        let text = |t: &str| json!({"type": "text", "text": t});
        let mut m = match rng.next(10) {
            0 if i == 0 => msg("system", id, vec![text("sys")]),
            0 | 1 => msg("user", id, vec![text("question")]),
            2 => msg("assistant", id, vec![text("answer")]),
            3 => msg(
                "assistant",
                id,
                vec![json!({"type": "text_reasoning", "text": "hmm"})],
            ),
            4..=6 => msg("assistant", id, calls(rng, o, &mut n, &mut pending)),
            _ => msg("tool", id, results(rng, o, i, &mut pending)),
        };
        if rng.one_in(o.empty) {
            m.contents = super::model::Contents::new(Vec::new());
        }
        if rng.one_in(o.excluded) {
            m.props_mut().insert("_excluded".into(), json!(true));
        }
        msgs.push(m);
    }
    msgs
}

fn run_of(msgs: Vec<AfMsg>, v: Version, annotated_before: usize) -> Run {
    let mut msgs = msgs;
    let mut rest = msgs.split_off(annotated_before.min(msgs.len()));
    annotate_groups(&mut msgs, None, false, v, &Outside::default());
    msgs.append(&mut rest);
    annotate_groups(&mut msgs, None, false, v, &Outside::default());
    Run {
        v,
        summary: None,
        msgs,
        calls: Vec::new(),
        rendered: Vec::new(),
        log: Vec::new(),
        collisions: Vec::new(),
        inserted: Vec::new(),
        notes: Notes::default(),
        outside: Outside::default(),
        reached: false,
    }
}

fn dicts(r: &Run) -> Vec<Value> {
    r.msgs.iter().map(AfMsg::to_dict).collect()
}

/// Runs both on `cases` histories; returns (groups collapsed, framework steps taken).
fn compare(seed: u64, cases: usize, odds: impl Fn(&mut Rng) -> Odds) -> (usize, usize) {
    let mut rng = Rng(seed);
    let (mut collapsed, mut steps) = (0, 0);
    for case in 0..cases {
        let o = odds(&mut rng);
        let len = 2 + rng.next(80) as usize;
        let keep = rng.next(4) as i64;
        let v = if case % 2 == 0 {
            Version::V1_23
        } else {
            Version::V1_17
        };
        let msgs = history(&mut rng, len, o);
        let before = if rng.one_in(3) {
            rng.next(len as u64) as usize
        } else {
            0
        };
        let mut framework = run_of(msgs.clone(), v, before);
        let mut ours = run_of(msgs, v, before);
        let changed = by_step(&mut framework, keep);
        let (ours_changed, taken) = collapse_groups(&mut ours, keep);
        assert_eq!(ours_changed, changed, "case {case}");
        let (a, b) = (dicts(&ours), dicts(&framework));
        if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
            panic!(
                "case {case}: message {i} of {}/{}:\n ours {:?}\n them {:?}",
                a.len(),
                b.len(),
                a.get(i),
                b.get(i)
            );
        }
        assert_eq!(ours.inserted, framework.inserted, "case {case}");
        assert_eq!(
            ours.notes.collapsed, framework.notes.collapsed,
            "case {case}"
        );
        collapsed += framework.inserted.len();
        steps += taken;
    }
    (collapsed, steps)
}

#[test]
fn batched_collapse_leaves_the_framework_list_on_awkward_histories() {
    let (collapsed, steps) = compare(0x9e37_79b9_7f4a_7c15, 3000, |rng| Odds {
        reuse_call_id: rng.next(12),
        repeat_msg_id: rng.next(15),
        no_msg_id: rng.next(6),
        empty: rng.next(12),
        excluded: rng.next(8),
        orphan: rng.next(8),
        late: rng.next(4),
    });
    assert!(collapsed > 10_000, "too few groups collapsed: {collapsed}");
    assert!(
        steps < collapsed,
        "no step was batched: {steps} of {collapsed}"
    );
}

#[test]
fn batched_collapse_leaves_the_framework_list_on_orderly_histories() {
    let orderly = Odds {
        reuse_call_id: 0,
        repeat_msg_id: 0,
        no_msg_id: 0,
        empty: 0,
        excluded: 0,
        orphan: 0,
        late: 0,
    };
    let (collapsed, steps) = compare(0x2545_f491_4f6c_dd1d, 1000, |_| orderly);
    assert!(collapsed > 3_000, "too few groups collapsed: {collapsed}");
    assert!(
        steps * 2 < collapsed,
        "too few steps batched: {steps} of {collapsed}"
    );
}

#[test]
fn a_history_whose_results_follow_their_calls_takes_one_framework_step() {
    let mut msgs = Vec::new();
    for i in 0..50 {
        let call = json!({"type": "function_call", "call_id": format!("c{i}"), "name": "ls"});
        let result = json!({"type": "function_result", "call_id": format!("c{i}"), "result": "ok"});
        msgs.push(msg(
            "user",
            Some(format!("u{i}")),
            vec![json!({"type": "text", "text": "go"})],
        ));
        msgs.push(msg("assistant", Some(format!("a{i}")), vec![call]));
        msgs.push(msg("tool", Some(format!("t{i}")), vec![result]));
    }
    let mut framework = run_of(msgs.clone(), Version::V1_23, 0);
    let mut ours = run_of(msgs, Version::V1_23, 0);
    assert!(by_step(&mut framework, 1));
    assert_eq!(collapse_groups(&mut ours, 1), (true, 1));
    assert_eq!(dicts(&ours), dicts(&framework));
}
