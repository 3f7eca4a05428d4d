//! The Gemini CLI JSONL recording, replayed into the list of message records it ends with.
//!
//! Owns: the log semantics of `ChatRecordingService`: line 1 (and any line with `sessionId` +
//! `projectHash`) is metadata; a record with an `id` is a message, and a later record with the
//! same `id` replaces the earlier one where it stood; `{"$set": {…}}` updates metadata and
//! `$set.messages` replaces the whole list; `{"$rewindTo": id}` removes that message and every
//! one after it (all of them when the id is unknown). Lines are applied in order, as the
//! recorder applied them to its in-memory conversation. Turning records into messages is
//! `emit`'s job.

use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value;

use super::Meta;
use crate::formats::common::{str_at, Item, Loaded};
use crate::formats::spans;

/// One message record as it stands after the replay.
#[derive(Debug, Clone)]
pub(super) struct Rec<'a> {
    pub value: &'a Value,
    /// Every line that wrote this record (earlier versions included), ascending.
    pub indices: Vec<usize>,
    /// Byte range of the version kept.
    pub range: Option<Range<usize>>,
}

impl<'a> Rec<'a> {
    pub fn from_item(item: &Item<'a>) -> Rec<'a> {
        Rec {
            value: item.value,
            indices: vec![item.index],
            range: item.range(),
        }
    }

    /// The first source record of this message.
    pub fn first(&self) -> usize {
        self.indices.first().copied().unwrap_or(0)
    }

    fn id(&self) -> Option<&'a str> {
        str_at(self.value, "id")
    }
}

/// The message list being rebuilt, with an index by record id.
#[derive(Debug, Default)]
struct Log<'a> {
    list: Vec<Rec<'a>>,
    by_id: HashMap<&'a str, usize>,
}

impl<'a> Log<'a> {
    fn upsert(&mut self, rec: Rec<'a>) {
        let Some(id) = rec.id() else {
            self.list.push(rec);
            return;
        };
        if let Some(old) = self.by_id.get(id).and_then(|&at| self.list.get_mut(at)) {
            old.value = rec.value;
            old.range = rec.range;
            old.indices.extend(rec.indices);
            return;
        }
        self.by_id.insert(id, self.list.len());
        self.list.push(rec);
    }

    fn rewind(&mut self, id: &str) {
        match self.by_id.get(id) {
            Some(&at) => self.list.truncate(at),
            None => self.list.clear(),
        }
        self.reindex();
    }

    /// `messages` (found at `path` inside the line `item`) become the whole list; records that
    /// were already there keep the lines that wrote them.
    fn replace(&mut self, messages: &'a [Value], item: &Item<'a>, buffer: &[u8], path: &[&str]) {
        let ranges = item
            .range()
            .and_then(|line| spans::array_items(buffer, line, path))
            .filter(|r| r.len() == messages.len());
        let mut list = Vec::with_capacity(messages.len());
        for (k, value) in messages.iter().enumerate() {
            let mut indices = str_at(value, "id")
                .and_then(|id| self.by_id.get(id))
                .and_then(|&at| self.list.get(at))
                .map(|old| old.indices.clone())
                .unwrap_or_default();
            indices.push(item.index);
            let range = ranges.as_ref().and_then(|r| r.get(k).cloned());
            list.push(Rec {
                value,
                indices,
                range,
            });
        }
        self.list = list;
        self.reindex();
    }

    fn reindex(&mut self) {
        self.by_id.clear();
        for (at, rec) in self.list.iter().enumerate() {
            if let Some(id) = rec.id() {
                self.by_id.insert(id, at);
            }
        }
    }
}

/// Replays the JSONL lines of `loaded`, filling `meta` and returning the final records.
/// Lines the recorder would not recognise are kept, in place, as records without an id.
pub(super) fn replay<'a>(loaded: &'a Loaded, meta: &mut Meta) -> Vec<Rec<'a>> {
    let mut log = Log::default();
    for item in loaded.lines() {
        let v = item.value;
        if let Some(target) = str_at(v, "$rewindTo") {
            log.rewind(target);
        } else if str_at(v, "id").is_some() {
            log.upsert(Rec::from_item(&item));
        } else if let Some(set) = v.get("$set").filter(|s| s.is_object()) {
            meta.absorb(set);
            if let Some(messages) = set.get("messages").and_then(Value::as_array) {
                log.replace(messages, &item, &loaded.buffer, &["$set", "messages"]);
            }
        } else if is_metadata(v) {
            meta.absorb(v);
            if let Some(messages) = v.get("messages").and_then(Value::as_array) {
                log.replace(messages, &item, &loaded.buffer, &["messages"]);
            }
        } else {
            log.upsert(Rec::from_item(&item));
        }
    }
    log.list
}

/// The session's metadata record (`{sessionId, projectHash, …}`).
fn is_metadata(v: &Value) -> bool {
    str_at(v, "sessionId").is_some() && str_at(v, "projectHash").is_some()
}
