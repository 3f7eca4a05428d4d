//! The triggers of the strategies that measure included messages or included tokens
//! (`TruncationStrategy`, `TokenBudgetComposedStrategy`, `ContextWindowCompactionStrategy`)
//! without a run, for a history that only grows.
//!
//! The first check on a memo annotates the whole list as a run does (`Base`), which also
//! covers the list a compaction left (excluded messages included, the runs a replay settled
//! read through `settled::Outside` as a run reads them); the messages appended after
//! it are folded one at a time. An appended message that the framework would annotate into
//! the existing list can change nothing there — no annotation or exclusion flag of its own, an
//! id of its own and no `call_id` the base holds — so it adds one included message and its own
//! estimate, and the base's included messages stay as they were: the base ended in included
//! messages (the only ones a new span can join), its ids were given without a collision, and
//! it had a message to re-annotate from; an id-less message gets the `msg_<place>` id the
//! framework gives it, when no other message holds that id.
//!
//! Owns: those numbers and that proof. Must not: answer when any of it fails (then `None`, and
//! the full plan decides), for a metric over the threshold, or for any other strategy.

use foldhash::{HashSet, HashSetExt};

use super::annotate::{annotate_groups, annotate_tokens, group_id, included_tokens};
use super::estimate::count_message;
use super::groups::is_reasoning_only;
use super::model::{field, from_message, from_session_with, AfMsg, EXCLUDED, GROUP};
use super::params::{build, Strategy};
use super::settled::Outside;
use super::{run, AfPreset, Version};
use crate::compaction::plan::Trigger;
use crate::compaction::preset::PlanInput;
use crate::compaction::quiet::Memo;
use crate::compaction::settings::Settings;
use crate::session::Session;

/// The running numbers of one history.
#[derive(Default)]
struct State {
    /// History messages accounted for.
    seen: usize,
    /// Messages in the framework's list.
    len: usize,
    /// `Some(with tokens)` once a base was taken.
    tokens: Option<bool>,
    /// Something appended (or the base) cannot be accounted for exactly.
    dead: bool,
    included: i64,
    included_tokens: i64,
    /// Every message id in the list (assigned ones included).
    ids: HashSet<String>,
    /// Every `call_id` of the base's contents.
    calls: HashSet<String>,
    /// The settled messages the list stands after.
    outside: Outside,
}

pub fn trigger(
    preset: &AfPreset,
    input: &PlanInput,
    settings: &Settings,
    memo: &mut Memo,
) -> Option<Trigger> {
    let strategy = build(preset.kind, settings, input.window).ok()?;
    let tokens = match &strategy {
        Strategy::Truncation(t) => t.tokens,
        Strategy::TokenBudget { .. } | Strategy::ContextWindow(_) => true,
        _ => return None,
    };
    let v = preset.kind.version();
    let session = input.session;
    let state = memo.state::<State>("agent-framework included")?;
    if state.tokens != Some(tokens) || state.seen > session.messages.len() {
        *state = base(input, v, tokens);
    }
    extend(state, session, v);
    if state.dead {
        return None;
    }
    let measure = if tokens {
        run::token_measure(&strategy, state.included_tokens)
    } else {
        run::truncation_messages(state.included, strategy_max_n(&strategy)?)
    };
    let (name, value, threshold, rule) = measure;
    if !quiet(&strategy, value) {
        return None;
    }
    Some(run::trigger(false, (name, value, threshold, &rule), value))
}

fn strategy_max_n(s: &Strategy) -> Option<i64> {
    match s {
        Strategy::Truncation(t) => Some(t.max_n),
        _ => None,
    }
}

/// Whether the strategy leaves a list whose metric is `value` unchanged (it returns before
/// excluding anything).
fn quiet(s: &Strategy, value: i64) -> bool {
    match s {
        Strategy::Truncation(t) => value <= t.max_n,
        Strategy::TokenBudget { budget, .. } => value <= *budget,
        Strategy::ContextWindow(c) => value <= c.eviction_tokens && value <= c.truncation_tokens,
        _ => false,
    }
}

/// The list of `session` annotated as a run annotates it, and what later messages need of it.
fn base(input: &PlanInput, v: Version, tokens: bool) -> State {
    let session = input.session;
    let mut msgs =
        super::held::list(input).unwrap_or_else(|| from_session_with(session, input.parsed));
    let outside = Outside::of(input);
    let idless: Vec<usize> = (0..msgs.len())
        .filter(|&i| msgs[i].id().is_none())
        .collect();
    let started = annotate_groups(&mut msgs, None, false, v, &outside);
    if tokens {
        annotate_tokens(&mut msgs, v, &outside);
    }
    let collided = idless.iter().any(|&i| {
        msgs[i]
            .id()
            .is_some_and(|id| id != format!("msg_{}", outside.global(i)))
    });
    let no_gap = started.is_none() && !msgs.is_empty();
    let tail_excluded = tail(&msgs).iter().any(AfMsg::excluded);
    let mut state = State {
        seen: session.messages.len(),
        len: outside.global(msgs.len()),
        tokens: Some(tokens),
        dead: collided || no_gap || tail_excluded || outside.meets(&msgs),
        included: msgs.iter().filter(|m| !m.excluded()).count() as i64,
        included_tokens: if tokens { included_tokens(&msgs, v) } else { 0 },
        ids: HashSet::new(),
        calls: HashSet::new(),
        outside,
    };
    for m in &msgs {
        if let Some(id) = m.id() {
            state.ids.insert(id.to_string());
        }
        state.calls.extend(call_ids(m).map(str::to_string));
    }
    state
}

/// The messages a span begun by an appended message could join: the last group's run and
/// the reasoning-only messages before it (they join a tool call that follows them).
fn tail(msgs: &[AfMsg]) -> &[AfMsg] {
    let Some(last) = msgs.last() else {
        return msgs;
    };
    let gid = group_id(last);
    let mut q = msgs.len() - 1;
    while q > 0 && gid.is_some() && group_id(&msgs[q - 1]) == gid {
        q -= 1;
    }
    while q > 0 && is_reasoning_only(&msgs[q - 1]) {
        q -= 1;
    }
    &msgs[q..]
}

fn call_ids(m: &AfMsg) -> impl Iterator<Item = &str> {
    m.contents
        .iter()
        .filter_map(|c| field(c, "call_id"))
        .filter(|id| !id.is_empty())
}

/// Folds the messages appended since the state was taken.
fn extend(state: &mut State, session: &Session, v: Version) {
    let len = session.messages.len();
    for m in session.messages.get(state.seen..len).unwrap_or_default() {
        if state.dead {
            break;
        }
        let Some(mut af) = from_message(session, m) else {
            continue;
        };
        // `_ensure_message_ids` names an id-less message after its place, if that is free.
        if af.id().is_none() {
            af.id = Some(format!("msg_{}", state.len));
        }
        state.len += 1;
        let own_id = af.id().is_some_and(|id| state.ids.insert(id.to_string()));
        let flagged = af.props.contains_key(GROUP) || af.props.contains_key(EXCLUDED);
        let linked = call_ids(&af).any(|id| state.calls.contains(id)) || state.outside.touches(&af);
        if !own_id || flagged || linked {
            state.dead = true;
            break;
        }
        state.included += 1;
        if state.tokens == Some(true) {
            state.included_tokens += count_message(&af, v);
        }
    }
    state.seen = len;
}
