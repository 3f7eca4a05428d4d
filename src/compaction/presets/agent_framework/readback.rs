//! A replay's compacted list read back message by message. What ctxray's `agent-framework`
//! parser makes of a message's `Message.to_dict()` record is kept in the replay's `Parsed`
//! table under what the parser reads of the message, so a message the framework keeps through
//! many compactions is written out and read once, not once per compaction.
//!
//! The parser reads a message's role, id, other fields and contents, and of its properties
//! only whether it is excluded and whether its group names the messages it summarizes — unless
//! it keeps the whole record (an excluded message, a role no provider takes), which then reads
//! them all. Contents and properties are shared, never changed in place (`model`), so the
//! same shared value is the same value: a kept read holds them and is reused only for them.
//! A read that depends on the message's place in the list (a call with no call id is given
//! one made of it) is made afresh.
//!
//! Owns: when a read is reused, and the list of reads. Must not: read a record differently
//! from the parser (a reused read is the parser's read of the same record).

use std::sync::Arc;

use serde_json::{Map, Value};
use xxhash_rust::xxh3::Xxh3;

use super::model::{ctype, field, get, AfMsg, Contents, GROUP};
use crate::compaction::after::{self, After};
use crate::compaction::parsed::Parsed;
use crate::formats::agent_framework::message_of;
use crate::session::{Format, Message, Role, Session};

/// One message's read, and the shared values it was made of.
struct Read {
    contents: Arc<Contents>,
    /// The properties, when the read holds the whole record.
    props: Option<Arc<Map<String, Value>>>,
    message: Message,
}

/// `msgs` read back as the framework's list with no raw records (what `after::read` gives
/// for their `to_dict()` records when it writes no bytes), each read taken from `parsed`
/// when it was made before. `None` for an empty list (the parser finds no message in it) and
/// where `after::of_messages` declines.
pub fn list(base: &Session, parsed: &Parsed, msgs: &[AfMsg]) -> Option<After> {
    if msgs.is_empty() {
        return None;
    }
    let messages = msgs
        .iter()
        .enumerate()
        .map(|(at, m)| read(parsed, m, at))
        .collect();
    after::of_messages(base, Format::AGENT_FRAMEWORK, messages)
}

/// The parser's message for `m` at place `at` of the list.
fn read(parsed: &Parsed, m: &AfMsg, at: usize) -> Message {
    let fresh = || message_of(&m.to_dict(), at, None);
    if !free_of_place(m) {
        return fresh();
    }
    let (key, props) = key(m);
    let kept = parsed.get_or_make(key, || Read {
        contents: Arc::clone(&m.contents),
        props: props.clone(),
        message: message_of(&m.to_dict(), at, None),
    });
    let same_props = match (&kept.props, &props) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    };
    if !Arc::ptr_eq(&kept.contents, &m.contents) || !same_props {
        // Another message under the same key: a collision of 128-bit hashes.
        return fresh();
    }
    let mut message = kept.message.clone();
    message.source_index = at;
    message.source_indices = vec![at];
    message
}

/// Whether the parser's read of `m` is the same at every place: every content is one whose
/// read does not use the place (a call or result only with its own call id).
fn free_of_place(m: &AfMsg) -> bool {
    m.contents.iter().all(|c| match ctype(c) {
        "text" | "text_reasoning" | "usage" | "data" | "uri" => true,
        "function_call" | "function_result" => field(c, "call_id").is_some_and(|s| !s.is_empty()),
        _ => false,
    })
}

/// What the parser reads of `m`, as one hash: the shared contents (and properties, when the
/// whole record is read: those properties are given too) by identity, the rest by value.
fn key(m: &AfMsg) -> (u128, Option<Arc<Map<String, Value>>>) {
    let whole = m.excluded() || Role::parse(&m.role).is_none();
    let props = whole.then(|| Arc::clone(&m.props));
    let mut h = Xxh3::new();
    h.update(&(Arc::as_ptr(&m.contents) as usize).to_le_bytes());
    h.update(
        &props
            .as_ref()
            .map_or(0, |p| Arc::as_ptr(p) as usize)
            .to_le_bytes(),
    );
    h.update(&[u8::from(summarizes(m))]);
    h.update(&(m.role.len() as u64).to_le_bytes());
    h.update(m.role.as_bytes());
    match &m.id {
        Some(id) => {
            h.update(&[1]);
            h.update(&(id.len() as u64).to_le_bytes());
            h.update(id.as_bytes());
        }
        None => h.update(&[0]),
    }
    if !m.extra.is_empty() {
        h.update(&serde_json::to_vec(&m.extra).unwrap_or_default());
    }
    (h.digest128(), props)
}

/// Whether `m`'s group names the messages it summarizes (the parser reads its texts as a
/// summary then).
fn summarizes(m: &AfMsg) -> bool {
    get(&m.props, GROUP)
        .and_then(|g| g.get("_summary_of_message_ids"))
        .is_some_and(Value::is_array)
}

#[cfg(test)]
mod tests {
    use super::super::run::execute;
    use super::super::AfPreset;
    use super::*;
    use crate::analysis::Analysis;
    use crate::compaction::preset::{PlanInput, Preset};
    use crate::compaction::Settings;

    fn load(path: &str) -> Analysis {
        crate::testing::analysed(path)
    }

    /// Every list a replay's strategies leave, read back message by message with the reads
    /// kept, is the list written out whole and parsed again: read once (reads made) and again
    /// (reads reused), over the histories of a replay's steps, whose messages earlier
    /// compactions already read back.
    #[test]
    fn kept_reads_are_the_parser_s_reads_of_the_written_list() {
        let a = load("fixtures/samples/claude-code-demo.jsonl");
        use super::super::{SLIDING, SUMMARIZATION, SUMMARIZATION_117, TOKEN_BUDGET, TOOL_RESULT};
        let cases: [(&AfPreset, &[&str]); 5] = [
            (&SUMMARIZATION, &["target_count=2", "threshold=1"]),
            (&SUMMARIZATION_117, &["target_count=2", "threshold=1"]),
            (&SLIDING, &["keep_last_groups=2"]),
            (&TOKEN_BUDGET, &["token_budget=3000"]),
            (&TOOL_RESULT, &["keep_last_tool_call_groups=1"]),
        ];
        let mut reused = 0;
        for (preset, sets) in cases {
            let (p, name): (&dyn Preset, _) = (preset, preset.name());
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let options = crate::replay::Options::default();
            let replay = crate::replay::replay(&a, p, &sets, &options).unwrap();
            assert!(!replay.compactions.is_empty(), "{name} never compacts");
            let parsed = Parsed::new();
            for c in &replay.compactions {
                let at = crate::replay::at(&a, p, &sets, &options, c.step)
                    .unwrap()
                    .unwrap();
                let (_, after, _) = at.compaction.unwrap();
                for history in [&at.before, &after] {
                    let mut input = PlanInput::new(&a);
                    input.session = history;
                    input.parsed = Some(&parsed);
                    let settings = Settings::resolve(p.name(), p.params(), &at.sets).unwrap();
                    let done = execute(preset, &input, &settings, None).unwrap();
                    let msgs = &done.run.msgs;
                    let written = Value::Array(msgs.iter().map(AfMsg::to_dict).collect());
                    let whole = input.read_back(written, Format::AGENT_FRAMEWORK).unwrap();
                    let whole = format!("{:?}", whole.session);
                    for pass in ["made", "reused"] {
                        let read = list(history, &parsed, msgs).unwrap();
                        let step = c.step;
                        assert_eq!(format!("{:?}", read.session), whole, "{name} {step} {pass}");
                    }
                    // Every read that can be kept was: asked again, none is made.
                    for m in msgs.iter().filter(|m| free_of_place(m)) {
                        parsed.get_or_make::<Read>(key(m).0, || {
                            panic!("{name} step {}: a read was not kept", c.step)
                        });
                        reused += 1;
                    }
                }
            }
        }
        assert!(reused > 100, "only {reused} reads could be reused");
    }
}
