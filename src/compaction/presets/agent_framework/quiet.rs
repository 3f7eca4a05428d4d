//! `TruncationStrategy`'s trigger without a run, for a history that only grows: without a
//! tokenizer its metric is the count of included messages, folded one message at a time.
//!
//! Owns: that count for histories whose every message becomes one included framework message
//! (the common model rebuilt as `Content` dicts). Must not: answer for Agent Framework's own
//! records or for a history holding an excluded message (both may carry annotations and
//! exclusions the count cannot see), for a count over `max_n`, or for any other strategy;
//! then it says `None` and the full plan decides.

use super::params::{build, Strategy};
use super::{run, AfPreset};
use crate::compaction::plan::Trigger;
use crate::compaction::preset::PlanInput;
use crate::compaction::quiet::Memo;
use crate::compaction::settings::Settings;
use crate::session::{Format, Role};

pub fn trigger(
    preset: &AfPreset,
    input: &PlanInput,
    settings: &Settings,
    memo: &mut Memo,
) -> Option<Trigger> {
    if input.session.format == Format::AgentFramework {
        return None;
    }
    let Strategy::Truncation(t) = build(preset.kind, settings, input.window).ok()? else {
        return None;
    };
    if t.tokens {
        return None;
    }
    let messages = &input.session.messages;
    // [0]: messages that become an included framework message; [1]: excluded ones (events).
    let acc = memo.fold(
        "agent-framework included",
        messages.len(),
        |acc, i| match messages.get(i).map(|m| m.role) {
            Some(Role::Event) => acc[1] += 1,
            Some(_) => acc[0] += 1,
            None => {}
        },
    );
    let n = i64::try_from(acc[0]).ok()?;
    if acc[1] > 0 || n > t.max_n {
        return None;
    }
    let (name, value, threshold, rule) = run::truncation_messages(n, t.max_n);
    Some(run::trigger(false, (name, value, threshold, &rule), value))
}
