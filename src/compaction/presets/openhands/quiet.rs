//! The condenser's trigger without the condenser, for a history that only grows: the view's
//! event count and litellm's count of it, folded one message at a time.
//!
//! Owns: the per-message events (the ones `events::synthesized` makes of a message) with
//! their costs, counted once, and the bookkeeping that proves the view is every event (each
//! tool call answered exactly once, each answer called, no tool name changed after an answer
//! was counted). Must not: answer for OpenHands' own records (a `CondensationRequest`, a
//! `Condensation`, a batch's later actions live between messages), or when the view would
//! drop or rename an event; then it says `None` and the full plan decides.

use std::collections::{HashMap, HashSet};

use super::count::{Costs, Running};
use super::events::{synth_message, Record};
use super::view::{Ev, Kind};
use crate::session::{Format, Message, Part};
use crate::tokens::Counter;

/// What the messages seen so far add up to.
#[derive(Default)]
pub struct State {
    seen: usize,
    /// Tool names by call id, the last call winning (as `events::synthesized`).
    names: HashMap<String, String>,
    calls: HashSet<String>,
    answers: HashSet<String>,
    /// Calls with no answer yet, answers with no call yet.
    unanswered: usize,
    uncalled: usize,
    /// An answer twice, or a call arriving after an answer to its id was counted.
    broken: bool,
    events: usize,
    running: Running,
}

/// The view's length and litellm's count of it, when the view is every event so far.
pub fn view_numbers(
    session: &crate::session::Session,
    counter: &Counter,
    state: &mut State,
) -> Option<(usize, usize)> {
    if session.format == Format::OPENHANDS {
        return None;
    }
    if session.messages.len() < state.seen {
        *state = State::default();
    }
    for m in session.messages.get(state.seen..).unwrap_or_default() {
        state.feed(m, counter);
    }
    state.seen = session.messages.len();
    let clean = !state.broken && state.unanswered == 0 && state.uncalled == 0;
    clean.then(|| (state.events, state.running.total()))
}

impl State {
    fn feed(&mut self, m: &Message, counter: &Counter) {
        for (id, name) in m.client_calls() {
            if self.answers.contains(id) {
                self.broken = true;
            }
            self.names.insert(id.to_string(), name.to_string());
        }
        let names: HashMap<&str, &str> = m
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::ToolResult { call_id, .. } => self
                    .names
                    .get(call_id)
                    .map(|n| (call_id.as_str(), n.as_str())),
                _ => None,
            })
            .collect();
        let records: Vec<Record> = synth_message(m, &names)
            .into_iter()
            .map(|value| Record {
                value,
                msg: Some(m.index),
            })
            .collect();
        let mut events = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            let Some(kind) = Kind::of(r.kind()) else {
                continue;
            };
            let call = r.value.get("tool_call_id").and_then(|v| v.as_str());
            match (kind, call) {
                (Kind::Action, Some(c)) => self.call(c),
                (k, Some(c)) if k.answers() => self.answer(c),
                (Kind::Action, None) => self.broken = true,
                (k, None) if k.answers() => self.broken = true,
                _ => {}
            }
            events.push(Ev {
                kind,
                rec: i,
                id: String::new(),
                msg: r.msg,
            });
        }
        let costs = Costs::new(&records, &events, counter);
        for (c, t) in costs.events.iter().zip(&costs.tools) {
            self.running.add(c, *t);
        }
        self.events += events.len();
    }

    fn call(&mut self, id: &str) {
        if self.calls.insert(id.to_string()) {
            if self.answers.contains(id) {
                self.uncalled = self.uncalled.saturating_sub(1);
            } else {
                self.unanswered += 1;
            }
        }
    }

    fn answer(&mut self, id: &str) {
        if !self.answers.insert(id.to_string()) {
            self.broken = true;
        } else if self.calls.contains(id) {
            self.unanswered = self.unanswered.saturating_sub(1);
        } else {
            self.uncalled += 1;
        }
    }
}
