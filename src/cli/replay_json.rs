//! `ctxray replay --json`: a replay (or the runs of `--compare`) as plain JSON.
//!
//! Owns: the JSON shape of `replay::Replay`; fields are only ever added. Must not: run the
//! replay or print.

use serde_json::{json, Value};

use super::replay_cmd::Side;
use crate::analysis::Analysis;
use crate::replay::{Compaction, Fidelity, Replay};

/// What a summarizer input held of its range: characters and facts, each seen of all.
fn fidelity_json(f: Fidelity) -> Value {
    json!({
        "chars": f.chars,
        "chars_seen": f.chars_seen,
        "facts": f.facts,
        "facts_present": f.facts_present,
    })
}

fn compaction_json(c: &Compaction) -> Value {
    json!({
        "at_source_index": c.at_source_index,
        "message": c.message,
        "threshold": c.threshold,
        "tokens_before": c.tokens_before,
        "tokens_after": c.tokens_after,
        "messages_before": c.messages_before,
        "messages_after": c.messages_after,
        "summarized": c.summarized,
        "dropped": c.dropped,
        "removed_tokens": c.removed_tokens,
        "summarizer_input_tokens": c.summarizer_input_tokens,
        "input": fidelity_json(c.input),
        "summary_tokens": c.summary_tokens,
        "evidence": c.evidence.map(|(facts, lost)| json!({"facts": facts, "lost": lost})),
        "reason": c.reason,
        "findings": c.findings.iter().map(|f| json!({
            "code": f.code, "severity": f.severity.as_str(), "messages": f.messages, "detail": f.detail,
        })).collect::<Vec<_>>(),
    })
}

pub fn replay_json(a: &Analysis, r: &Replay) -> Value {
    let steps: Vec<Value> = r
        .steps
        .iter()
        .map(|s| {
            json!({
                "source_index": s.source_index,
                "message": s.message,
                "tokens": s.tokens,
                "tokens_before": s.tokens_before,
                "fired": s.fired,
                "value": s.value,
                "threshold": s.threshold,
            })
        })
        .collect();
    let rejected: Vec<Value> = r
        .rejected
        .iter()
        .map(|x| {
            json!({
                "at_source_index": x.at_source_index,
                "tokens_before": x.tokens_before,
                "tokens_after": x.tokens_after,
            })
        })
        .collect();
    json!({
        "source": {"path": a.session.source.path, "format": a.session.format.name()},
        "preset": {"name": r.preset, "framework": r.framework, "settings": r.settings.to_json()},
        "checks_at": r.checks_at.as_str(),
        "window": r.window,
        "measure": r.measure,
        "threshold": r.threshold,
        "thresholds": r.thresholds(),
        "summary_tokens": r.summary_tokens,
        "steps": steps,
        "compactions": r.compactions.iter().map(compaction_json).collect::<Vec<_>>(),
        "rejected": rejected,
        "count": r.compactions.len(),
        "peak_tokens": r.peak_tokens(),
        "removed_tokens": r.removed_tokens(),
        "input_fidelity": fidelity_json(r.input_fidelity()),
        "evidence_lost": r.evidence_lost().map(|(facts, lost)| json!({"facts": facts, "lost": lost})),
    })
}

pub fn compare_json(a: &Analysis, runs: &[(Side, Replay)]) -> Value {
    json!({
        "compare": runs.iter().map(|(side, r)| {
            let mut v = replay_json(a, r);
            if let Value::Object(map) = &mut v {
                map.insert("label".into(), side.label.clone().into());
            }
            v
        }).collect::<Vec<_>>(),
    })
}
