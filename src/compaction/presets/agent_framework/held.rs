//! The list Agent Framework holds between two calls of a replay: after a compaction, the
//! framework keeps its working list as the run left it — every message with the `_group`
//! annotation (and token count) the run wrote — and the next call appends the new messages
//! to it and annotates from the first of them (`annotate_message_groups` starts at the first
//! gap). A replay's history after a compaction is that list read back into the common model,
//! message for message, where a message of another format loses its properties and keeps its
//! contents only as far as the common model holds them (a hosted call reads back as a client
//! one); so the list is carried beside the history, in the history's order, and the next plan
//! starts from it instead of rebuilding every message unannotated. Between compactions the
//! replay keeps no run (a check that does not compact leaves the history as it was): the
//! messages appended since are annotated together at the next plan, from the first of them.
//!
//! Owns: what a history carries for the preset (the settled runs and that list), checking that
//! the list stands for the history's first messages, and the working list of a history that
//! carries one. Must not: change a message the framework would hold differently (the list is
//! the run's own; the appended messages are read as any plan reads them).

use std::sync::Arc;

use super::model::{from_messages_with, AfMsg};
use super::settled::Settled;
use crate::compaction::after::Carried;
use crate::compaction::preset::PlanInput;
use crate::session::{Role, Session};

/// What an Agent Framework history of a replay carries.
pub struct Held {
    /// The runs of excluded messages no later run reads (see `settled`).
    pub settled: Option<Settled>,
    /// The framework's list for the history's first `list.len()` messages, one for each, in
    /// order (`None`: the history's messages are read afresh).
    list: Option<Arc<Vec<AfMsg>>>,
}

/// What `input`'s history carries, if it is an Agent Framework history of a replay.
pub fn of<'a>(input: &PlanInput<'a>) -> Option<&'a Held> {
    input.carried?.state.downcast_ref::<Held>()
}

/// What a history compacted to `session` carries: the settled runs, and `list` when it is the
/// framework's list for `session`'s messages, one for one (the list a run left, read back).
pub fn carried(settled: Option<Settled>, list: Vec<AfMsg>, session: &Session) -> Carried {
    let list = stands_for(&list, session).then(|| Arc::new(list));
    Carried {
        messages: settled.as_ref().map_or(0, Settled::messages),
        state: Arc::new(Held { settled, list }),
    }
}

/// Whether `list` holds one message for each of `session`'s messages, in order: as many, and
/// each with the id, and a role of the same kind, as the message read back from it.
fn stands_for(list: &[AfMsg], session: &Session) -> bool {
    list.len() == session.messages.len()
        && list.iter().zip(&session.messages).all(|(af, m)| {
            let same_role = match m.role {
                // An excluded message (or a role no provider takes) is an event holding its
                // record.
                Role::Event => true,
                Role::System | Role::Developer => af.role == "system",
                role => af.role == role.as_str(),
            };
            same_role && (m.role == Role::Event || af.id == m.id)
        })
}

/// The working list of `input`'s history when it carries one: the carried messages (each
/// standing for the history message at its place) and the messages appended since, read as
/// any plan reads them. `None` when the history carries no list, or the history no longer
/// starts with the messages it stands for.
pub fn list(input: &PlanInput) -> Option<Vec<AfMsg>> {
    let held = of(input)?.list.as_ref()?;
    let session = input.session;
    let appended = session.messages.get(held.len()..)?;
    let mut msgs = Vec::with_capacity(session.messages.len());
    msgs.extend(held.iter().enumerate().map(|(at, m)| {
        let mut m = m.clone();
        m.origin = Some(at);
        m
    }));
    msgs.extend(from_messages_with(session, appended, input.parsed));
    Some(msgs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::parsed::Parsed;
    use crate::compaction::preset::Preset;
    use crate::compaction::presets::agent_framework::model::{from_message, from_session_with};
    use crate::compaction::Settings;

    fn contents(m: &AfMsg) -> String {
        serde_json::to_string(&m.contents.dicts()).unwrap_or_default()
    }

    /// After a replay's compaction, the next plan holds each message the framework kept with
    /// the contents it had before (as the framework's list in memory keeps them), where reading
    /// the compacted history back through the common model loses some (a hosted web search
    /// read back as a client call).
    #[test]
    fn the_next_plan_holds_the_messages_as_the_compaction_left_them() {
        let mut kept = 0;
        let mut lost_in_a_read = 0;
        for rel in [
            "fixtures/claude-code/mixed.jsonl",
            "fixtures/samples/claude-code-demo.jsonl",
            // A hosted web search among the calls.
            "../shared/samples/codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl",
        ] {
            let mut a = crate::testing::analysed(rel);
            // The first messages, as a replay holds them early on.
            a.session.messages.truncate(24);
            let preset = &super::super::TRUNCATION;
            let sets = ["max_n=20".to_string(), "compact_to=18".to_string()];
            let settings = Settings::resolve(preset.name(), preset.params(), &sets).unwrap();
            // Truncation inserts nothing: every message after it is one from before.
            let original: std::collections::HashSet<String> = from_session_with(&a.session, None)
                .iter()
                .map(contents)
                .collect();
            let parsed = Parsed::new();
            let nothing = Carried::nothing();
            let input = PlanInput {
                parsed: Some(&parsed),
                carried: Some(&nothing),
                ..PlanInput::new(&a)
            };
            let plan = preset.plan(&input, &settings).unwrap();
            if !plan.trigger.fired {
                continue;
            }
            let after = preset.compacted(&input, &plan, None);
            let carried = after.carried.clone().unwrap();
            let next = PlanInput {
                session: &after.session,
                parsed: Some(&parsed),
                carried: Some(&carried),
                ..PlanInput::new(&a)
            };
            let list = list(&next).expect("the list is carried");
            assert_eq!(list.len(), after.session.messages.len(), "{rel}");
            for (m, read) in list.iter().zip(&after.session.messages) {
                assert!(original.contains(&contents(m)), "{rel}: {:?}", m.id());
                kept += 1;
                let fresh = from_message(&after.session, read);
                lost_in_a_read += usize::from(fresh.is_some_and(|f| !original.contains(&contents(&f))));
            }
        }
        assert!(kept >= 20, "only {kept} messages kept");
        assert!(
            lost_in_a_read > 0,
            "no read back loses anything: the test shows nothing"
        );
    }
}
