//! The harness' trigger alone, for a replay's checks on a session in another format than
//! pydantic-ai's own: the record count and `estimate_context_tokens` kept as a running fold over
//! the messages (records are built in order: a request message joins the request before it or
//! starts one, a response is a record of its own and the usage anchor when it reports input).
//!
//! Owns: that fold and the quiet answer. Must not: cut or render (the full plan does when a
//! limit is exceeded), or answer for pydantic-ai's own format (whose records the raw messages
//! group, see `history`).

use super::common::parts_of;
use super::estimate::{segments, Estimator};
use super::history::Rec;
use super::{limits, trigger};
use crate::compaction::plan::Trigger;
use crate::compaction::preset::{PlanInput, Preset};
use crate::compaction::quiet::Memo;
use crate::compaction::settings::Settings;
use crate::session::{Format, Role};

/// Slots of the fold.
const RECORDS: usize = 0;
/// The last record: 0 none, 1 a request, 2 a request with the harness' own summary, 3 a
/// response.
const LAST: usize = 1;
const LAST_SOURCE: usize = 2;
const ANCHORED: usize = 3;
/// Input + output tokens of the anchor.
const ANCHOR: usize = 4;
/// Raw measure of the segments after the anchor.
const LATER: usize = 5;
/// Raw measure of every segment.
const ALL: usize = 6;

/// The trigger `plan` reports when no limit is exceeded (`None` otherwise, for settings `plan`
/// refuses, and for pydantic-ai's own format).
pub fn quiet(
    preset: &dyn Preset,
    input: &PlanInput,
    settings: &Settings,
    memo: &mut Memo,
) -> Option<Trigger> {
    let session = input.session;
    if session.format == Format::PYDANTIC_AI {
        return None;
    }
    let limits = limits(preset, input, settings).ok()?;
    let est = Estimator {
        tokenizer: settings.str("tokenizer").map(|_| input.counter),
    };
    let acc = memo.fold("pydantic-ai-harness", session.messages.len(), |acc, i| {
        let m = &session.messages[i];
        if m.role == Role::Event {
            return;
        }
        let request = m.role != Role::Assistant;
        let carried = m.raw.is_none();
        let parts = parts_of(m);
        let own = parts.iter().any(|p| p.is_own_summary());
        let same_record = !carried || acc[LAST_SOURCE] == m.source_index as u64;
        let rec = Rec {
            request,
            parts,
            ..Rec::default()
        };
        let raw = est.raw(&segments(&rec)) as u64;
        acc[ALL] += raw;
        if request && acc[LAST] == 1 && same_record && !own {
            acc[LATER] += raw;
            return;
        }
        acc[RECORDS] += 1;
        acc[LAST] = if !request {
            3
        } else if own {
            2
        } else {
            1
        };
        acc[LAST_SOURCE] = m.source_index as u64;
        let usage = m.usage.as_ref();
        let input_tokens = usage.and_then(|u| u.context_input()).unwrap_or(0);
        if !request && input_tokens > 0 {
            let output = usage.and_then(|u| u.output).unwrap_or(0);
            (acc[ANCHORED], acc[ANCHOR], acc[LATER]) = (1, input_tokens + output, 0);
        } else {
            acc[LATER] += raw;
        }
    });
    let count = acc[RECORDS] as usize;
    let estimate = if acc[ANCHORED] == 1 {
        (acc[ANCHOR] as usize).saturating_add(est.of_raw(acc[LATER] as usize))
    } else {
        est.of_raw(acc[ALL] as usize)
    };
    let by_count = limits.max_messages.is_some_and(|m| count > m);
    let by_tokens = limits.token_trigger.is_some_and(|t| estimate > t);
    let exceeds = by_count || by_tokens;
    (!exceeds).then(|| trigger(&limits, count, estimate, false, false, &est))
}
