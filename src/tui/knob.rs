//! The main knob of each preset: the one setting that `+`/`-` turn, the one that moves the cut
//! or the trigger the most visibly, and the step it turns by.
//!
//! Owns: the preset → setting table and the arithmetic of one turn. Must not: know how a preset
//! uses the setting (that is the preset's own code).

use crate::compaction::settings::{Kind, Value};

/// The setting `+`/`-` turn for `preset`.
pub fn knob(preset: &str) -> Option<&'static str> {
    Some(match preset {
        "openhands" | "openhands-fixed" => "max_size",
        "agent-framework" | "agent-framework-1.17" => "target_count",
        "agent-framework-sliding" => "keep_last_groups",
        "agent-framework-truncation" => "max_n",
        "agent-framework-selective-tool"
        | "agent-framework-tool-result"
        | "agent-framework-context-window" => "keep_last_tool_call_groups",
        "agent-framework-token-budget" => "token_budget",
        "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => "keep_messages",
        "hermes" => "protect_last_n",
        "dimos" => "keep_ratio",
        "codex" => "model_auto_compact_token_limit",
        "claude-code" => "context_window",
        "custom" => "keep_last",
        _ => return None,
    })
}

/// The value one turn up (`dir > 0`) or down gives. `current` is the setting in force; a null
/// one starts from `fallback` (e.g. the threshold the preset computed). `None` when the value
/// cannot turn (a string, a boolean, already at the bottom).
pub fn turn(kind: Kind, current: &Value, fallback: Option<u64>, dir: i8) -> Option<String> {
    match (kind, current) {
        (Kind::Int, Value::Int(v)) => step_int(*v, dir),
        (Kind::Int, Value::Null) => step_int(fallback? as i64, dir),
        (Kind::Float, Value::Float(x)) => step_float(*x, dir),
        (Kind::Float, Value::Int(i)) => step_float(*i as f64, dir),
        (Kind::Float, Value::Null) => step_float(0.5, dir),
        _ => None,
    }
}

/// Counts move by one; sizes (≥ 20) by a tenth, rounded to two significant digits, so that a
/// token limit of 200,000 moves to 180,000, not 199,999.
fn step_int(v: i64, dir: i8) -> Option<String> {
    let step = if v.abs() < 20 {
        1
    } else {
        round2(v.abs() / 10)
    };
    let next = if dir > 0 { v + step } else { v - step };
    (next >= 0 && next != v).then(|| next.to_string())
}

fn round2(v: i64) -> i64 {
    let mut scale = 1;
    while v / scale >= 100 {
        scale *= 10;
    }
    (v / scale).max(1) * scale
}

/// Ratios move by 0.05 within 0..=1.
fn step_float(x: f64, dir: i8) -> Option<String> {
    let next = ((x + if dir > 0 { 0.05 } else { -0.05 }) * 100.0).round() / 100.0;
    (0.0..=1.0)
        .contains(&next)
        .then(|| format!("{next}"))
        .filter(|_| (next - x).abs() > f64::EPSILON)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_has_a_knob_it_declares() {
        for p in crate::compaction::presets::all() {
            let name = knob(p.name()).unwrap_or_else(|| panic!("{} has no knob", p.name()));
            assert!(
                p.params().iter().any(|s| s.name == name),
                "{}: {name} is not one of its settings",
                p.name()
            );
        }
    }

    #[test]
    fn turns_by_one_by_a_tenth_or_by_five_hundredths() {
        assert_eq!(
            turn(Kind::Int, &Value::Int(4), None, 1).as_deref(),
            Some("5")
        );
        assert_eq!(turn(Kind::Int, &Value::Int(0), None, -1), None);
        assert_eq!(
            turn(Kind::Int, &Value::Int(200_000), None, -1).as_deref(),
            Some("180000")
        );
        assert_eq!(
            turn(Kind::Int, &Value::Int(240), None, 1).as_deref(),
            Some("264")
        );
        assert_eq!(
            turn(Kind::Int, &Value::Null, Some(5000), 1).as_deref(),
            Some("5500")
        );
        assert_eq!(turn(Kind::Int, &Value::Null, None, 1), None);
        assert_eq!(
            turn(Kind::Float, &Value::Float(0.35), None, 1).as_deref(),
            Some("0.4")
        );
        assert_eq!(turn(Kind::Float, &Value::Float(1.0), None, 1), None);
        assert_eq!(turn(Kind::Bool, &Value::Bool(true), None, 1), None);
    }
}
