//! The list Agent Framework holds after a compaction: the strategy run again with the
//! summarizer's real text, every message as `Message.to_dict()` gives it — excluded ones kept
//! with their `_excluded` / `_exclude_reason` flags, `_group` annotations as the run leaves them,
//! inserted summaries and `[Tool results: …]` messages in place — and that list read back with
//! ctxray's `agent-framework` parser. A replay's history leaves out the excluded messages no
//! later run reads (`settled`), and reads each message once while the framework keeps it
//! (`readback`).
//!
//! Owns: turning a run into an `After`. Must not: decide anything the run did not.

use serde_json::Value;

use super::held;
use super::model::AfMsg;
use super::readback;
use super::run::{execute, Kept};
use super::settled;
use super::summarize::answered;
use super::AfPreset;
use super::PresetKind;
use crate::compaction::after::{self, After};
use crate::compaction::plan::Plan;
use crate::compaction::preset::PlanInput;
use crate::session::Format;

/// The history after `plan` is carried out with `summary` (`None`: the planning placeholder).
/// In a replay (`input.carried`) the list itself is carried beside the history (`held`); in
/// one that reads through earlier plans (`input.parsed`), the runs of excluded messages
/// `settled` finds are left out of the history and carried too.
pub fn compacted(
    preset: &AfPreset,
    input: &PlanInput,
    plan: &Plan,
    summary: Option<&str>,
) -> After {
    // The run is the plan's own, kept when the plan was made: as it is with no summarizer
    // text; with one, when the strategy is summarization alone, with the summary's text
    // replaced (nothing it decided depends on that text).
    let kept = plan.made.get::<Kept>();
    let left = kept.and_then(|kept| {
        let mut left = kept.take(input)?;
        match (summary, kept.summary.as_deref(), preset.kind) {
            (None, ..) => Some(left),
            (Some(text), Some(id), PresetKind::Summarization(_)) => {
                answered(&mut left.msgs, id, text, kept.v).then_some(left)
            }
            _ => None,
        }
    });
    let (mut msgs, outside) = match left {
        Some(left) => (left.msgs, left.outside),
        None => match execute(preset, input, &plan.settings, summary) {
            Ok(done) => (done.run.msgs, done.run.outside),
            Err(_) => return after::generic(input.session, plan, summary),
        },
    };
    let settled = match (input.carried, input.parsed) {
        (Some(_), Some(_)) => settled::settle(&mut msgs, &outside),
        _ => None,
    };
    // A replay whose history keeps another format reads the list's messages alone (no raw
    // records, no document): each message's read is kept across its compactions.
    let reads = input
        .parsed
        .filter(|_| input.session.format != Format::AGENT_FRAMEWORK);
    let after = match reads.and_then(|p| readback::list(input.session, p, &msgs)) {
        Some(after) => after,
        None => {
            let history = Value::Array(msgs.iter().map(AfMsg::to_dict).collect());
            match input.read_back(history, Format::AGENT_FRAMEWORK) {
                Ok(after) => after,
                Err(_) => return after::generic(input.session, plan, summary),
            }
        }
    };
    // A replay carries the settled runs and the list itself to the history's next plans.
    let carried = input
        .carried
        .map(|_| held::carried(settled, msgs, &after.session));
    After { carried, ..after }
}

#[cfg(test)]
mod tests {
    use crate::compaction::parsed::Parsed;
    use crate::compaction::preset::{PlanInput, Preset};
    use crate::compaction::Settings;

    /// Each message as read back, but where its record lies.
    fn messages(s: &crate::session::Session) -> Vec<String> {
        (s.messages.iter())
            .map(|m| format!("{:?} {:?} {:?} {:?}", m.role, m.id, m.parts, m.usage))
            .collect()
    }

    /// The list a plan kept, carried out with the summarizer's text, is the list the strategy
    /// leaves when run again with that text: the summary's text and its token count included.
    #[test]
    fn a_kept_run_answered_is_the_run_made_again_with_the_text() {
        let a = crate::testing::demo();
        for (preset, sets) in [
            (&super::super::SUMMARIZATION, &["target_count=2"][..]),
            (&super::super::SUMMARIZATION_117, &["target_count=2"][..]),
        ] {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let settings = Settings::resolve(preset.name(), preset.params(), &sets).unwrap();
            let parsed = Parsed::new();
            let kept = PlanInput {
                parsed: Some(&parsed),
                ..PlanInput::new(&a)
            };
            let plain = PlanInput::new(&a);
            let again = preset.plan(&plain, &settings).unwrap();
            for text in ["  The user asked for a fix; it was made.\n", "x", " \n "] {
                let plan = preset.plan(&kept, &settings).unwrap();
                assert!(
                    plan.trigger.fired && plan.insertion.is_some(),
                    "{}",
                    preset.name()
                );
                // A replay's list is read back without raw records or a document of it: its
                // messages are compared (an excluded one holds its whole record).
                let quick = preset.compacted(&kept, &plan, Some(text));
                let made = preset.compacted(&plain, &again, Some(text));
                assert!(quick.history.is_null());
                assert_eq!(
                    messages(&quick.session),
                    messages(&made.session),
                    "{} {text:?}",
                    preset.name()
                );
                assert!(format!("{:?}", quick.session.messages).contains(text.trim()));
                // The kept run is taken once; a plan carried out again runs again.
                let twice = preset.compacted(&kept, &plan, Some(text));
                assert_eq!(messages(&twice.session), messages(&made.session));
            }
        }
    }
}
