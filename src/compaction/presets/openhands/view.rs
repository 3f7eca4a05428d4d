//! The SDK's `View`: `View.from_events` (earlier `Condensation`s applied, a pending
//! `CondensationRequest` noted, then the four properties enforced until stable) and
//! `View.manipulation_indices` (where a cut may fall).
//!
//! Owns: which events the condenser sees and the allowed cut points. It must not decide the
//! cut or render anything.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::events::Record;

/// The LLM-convertible event classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    System,
    Message,
    Action,
    Observation,
    Reject,
    AgentError,
    Summary,
}

impl Kind {
    pub(super) fn of(kind: &str) -> Option<Kind> {
        Some(match kind {
            "SystemPromptEvent" => Kind::System,
            "MessageEvent" => Kind::Message,
            "ActionEvent" => Kind::Action,
            "ObservationEvent" => Kind::Observation,
            "UserRejectObservation" => Kind::Reject,
            "AgentErrorEvent" => Kind::AgentError,
            "CondensationSummaryEvent" => Kind::Summary,
            _ => return None,
        })
    }

    /// `ObservationBaseEvent`: answers a tool call.
    pub fn answers(self) -> bool {
        matches!(self, Kind::Observation | Kind::Reject | Kind::AgentError)
    }
}

/// One event of the view.
#[derive(Debug, Clone)]
pub struct Ev {
    pub kind: Kind,
    /// Index into the records; for a summary, the `Condensation` that carries it.
    pub rec: usize,
    pub id: String,
    pub msg: Option<usize>,
}

/// The view the condenser is given.
#[derive(Debug, Clone, Default)]
pub struct View {
    pub events: Vec<Ev>,
    pub unhandled_request: bool,
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The record an event reads from.
pub fn rec<'a>(records: &'a [Record], ev: &Ev) -> &'a Value {
    records.get(ev.rec).map_or(&Value::Null, |r| &r.value)
}

pub fn call_id<'a>(records: &'a [Record], ev: &Ev) -> &'a str {
    str_of(rec(records, ev), "tool_call_id")
}

pub fn response_id<'a>(records: &'a [Record], ev: &Ev) -> &'a str {
    str_of(rec(records, ev), "llm_response_id")
}

/// An `ActionEvent` with thinking blocks opens a tool loop.
pub fn opens_loop(v: &Value) -> bool {
    v.get("thinking_blocks")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
}

impl View {
    /// `View.from_events`.
    pub fn from_records(records: &[Record]) -> View {
        let mut view = View::default();
        for (i, r) in records.iter().enumerate() {
            let v = &r.value;
            match r.kind() {
                "Condensation" => view.apply(i, r),
                "CondensationRequest" => view.unhandled_request = true,
                k => {
                    if let Some(kind) = Kind::of(k) {
                        view.events.push(Ev {
                            kind,
                            rec: i,
                            id: str_of(v, "id").to_string(),
                            msg: r.msg,
                        });
                    }
                }
            }
        }
        view.enforce(records);
        view
    }

    /// `Condensation.apply`: forget, then insert the summary at the offset.
    fn apply(&mut self, i: usize, r: &Record) {
        let v = &r.value;
        let forgotten: HashSet<&str> = v
            .get("forgotten_event_ids")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        self.events.retain(|e| !forgotten.contains(e.id.as_str()));
        let summary = v.get("summary").and_then(Value::as_str);
        let offset = v.get("summary_offset").and_then(Value::as_u64);
        if let (Some(_), Some(offset)) = (summary, offset) {
            let at = usize::try_from(offset)
                .unwrap_or(usize::MAX)
                .min(self.events.len());
            self.events.insert(
                at,
                Ev {
                    kind: Kind::Summary,
                    rec: i,
                    id: format!("{}-summary", str_of(v, "id")),
                    msg: r.msg,
                },
            );
        }
        self.unhandled_request = false;
    }

    /// `enforce_properties`: the first property that drops something restarts the round.
    fn enforce(&mut self, records: &[Record]) {
        let batches = all_batches(records);
        let loops = tool_loops(records);
        for _ in 0..=self.events.len() {
            let drop = [
                self.duplicate_observations(records),
                self.partial_batches(records, &batches),
                self.unmatched(records),
                self.partial_loops(&loops),
            ]
            .into_iter()
            .find(|d| !d.is_empty());
            match drop {
                Some(d) => self.events.retain(|e| !d.contains(&e.id)),
                None => break,
            }
        }
    }

    fn duplicate_observations(&self, records: &[Record]) -> HashSet<String> {
        let mut seen = HashSet::new();
        self.events
            .iter()
            .filter(|e| e.kind.answers() && !seen.insert(call_id(records, e)))
            .map(|e| e.id.clone())
            .collect()
    }

    fn partial_batches(
        &self,
        records: &[Record],
        all: &HashMap<String, HashSet<String>>,
    ) -> HashSet<String> {
        let mut mine: HashMap<&str, HashSet<String>> = HashMap::new();
        for e in self.events.iter().filter(|e| e.kind == Kind::Action) {
            mine.entry(response_id(records, e))
                .or_default()
                .insert(e.id.clone());
        }
        mine.into_iter()
            .filter(|(resp, ids)| all.get(*resp) != Some(ids))
            .flat_map(|(_, ids)| ids)
            .collect()
    }

    fn unmatched(&self, records: &[Record]) -> HashSet<String> {
        let calls: HashSet<&str> = self
            .events
            .iter()
            .filter(|e| e.kind == Kind::Action)
            .map(|e| call_id(records, e))
            .collect();
        let answers: HashSet<&str> = self
            .events
            .iter()
            .filter(|e| e.kind.answers())
            .map(|e| call_id(records, e))
            .collect();
        self.events
            .iter()
            .filter(|e| match e.kind {
                Kind::Action => !answers.contains(call_id(records, e)),
                k if k.answers() => !calls.contains(call_id(records, e)),
                _ => false,
            })
            .map(|e| e.id.clone())
            .collect()
    }

    fn partial_loops(&self, loops: &[HashSet<String>]) -> HashSet<String> {
        let ids: HashSet<&str> = self.events.iter().map(|e| e.id.as_str()).collect();
        let mut out = HashSet::new();
        for l in loops {
            if l.iter().any(|id| ids.contains(id.as_str()))
                && !l.iter().all(|id| ids.contains(id.as_str()))
            {
                out.extend(l.iter().filter(|id| ids.contains(id.as_str())).cloned());
            }
        }
        out
    }

    /// Index of the first `SystemPromptEvent`.
    pub fn system_index(&self) -> Option<usize> {
        self.events.iter().position(|e| e.kind == Kind::System)
    }

    /// `manipulation_indices` as a mask over `0..=len`.
    pub fn manipulation_indices(&self, records: &[Record]) -> Vec<bool> {
        let n = self.events.len();
        let mut ok = vec![true; n + 1];
        let mut forbid = |i: usize| {
            if let Some(slot) = ok.get_mut(i) {
                *slot = false;
            }
        };
        for (i, pair) in self.events.windows(2).enumerate() {
            if let [a, b] = pair {
                if a.kind == Kind::Action
                    && b.kind == Kind::Action
                    && response_id(records, a) == response_id(records, b)
                {
                    forbid(i + 1);
                }
            }
        }
        let mut pending: HashSet<&str> = HashSet::new();
        let mut in_loop = false;
        for (i, e) in self.events.iter().enumerate() {
            match e.kind {
                Kind::Action => {
                    pending.insert(call_id(records, e));
                }
                k if k.answers() => {
                    pending.remove(call_id(records, e));
                }
                _ => {}
            }
            if !pending.is_empty() {
                forbid(i + 1);
            }
            match e.kind {
                Kind::Action if opens_loop(rec(records, e)) => in_loop = true,
                k if k == Kind::Action || k.answers() => {
                    if in_loop {
                        forbid(i);
                    }
                }
                _ => in_loop = false,
            }
        }
        ok
    }
}

/// `find_next`: the smallest allowed index ≥ `threshold`.
pub fn find_next(mask: &[bool], threshold: i64) -> Option<usize> {
    let from = usize::try_from(threshold.max(0)).ok()?;
    (from..mask.len()).find(|&i| mask.get(i).copied().unwrap_or(false))
}

fn all_batches(records: &[Record]) -> HashMap<String, HashSet<String>> {
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    for r in records.iter().filter(|r| r.kind() == "ActionEvent") {
        out.entry(str_of(&r.value, "llm_response_id").to_string())
            .or_default()
            .insert(str_of(&r.value, "id").to_string());
    }
    out
}

/// `ToolLoopAtomicityProperty._tool_loops` over every record.
fn tool_loops(records: &[Record]) -> Vec<HashSet<String>> {
    let mut loops = Vec::new();
    let mut current: Option<HashSet<String>> = None;
    for r in records {
        let id = str_of(&r.value, "id").to_string();
        let kind = Kind::of(r.kind());
        match kind {
            Some(Kind::Action) if opens_loop(&r.value) => {
                if let Some(l) = current.take() {
                    loops.push(l);
                }
                current = Some(HashSet::from([id]));
            }
            Some(k) if k == Kind::Action || k.answers() => {
                if let Some(l) = current.as_mut() {
                    l.insert(id);
                }
            }
            _ => {
                if let Some(l) = current.take() {
                    loops.push(l);
                }
            }
        }
    }
    loops.extend(current);
    loops
}
