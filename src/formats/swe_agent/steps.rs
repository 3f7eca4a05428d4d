//! SWE-agent `trajectory` steps → messages, for a trajectory saved without `history`: each
//! step is the model's `response` (an assistant message) followed by the environment's
//! `observation` (a user message, as SWE-agent sends observations to models without function
//! calling). The steps name no tool-call ids, so no calls are made up.

use crate::formats::common::{str_at, Item};
use crate::session::{Message, Part, Role, Session};

/// Pushes the messages of each step; a step with neither a response nor an observation is
/// reported.
pub(super) fn read(session: &mut Session, items: &[Item<'_>]) {
    for item in items {
        let v = item.value;
        let response = str_at(v, "response").or_else(|| str_at(v, "thought"));
        let observation = str_at(v, "observation");
        if response.is_none() && observation.is_none() {
            session.skip(
                item.index + 1,
                "a trajectory step without `response` or `observation`",
            );
            continue;
        }
        for (role, text) in [(Role::Assistant, response), (Role::User, observation)] {
            let Some(text) = text else { continue };
            let mut msg = Message::new(role, item.index);
            msg.raw = item.range();
            if !text.is_empty() {
                msg.parts.push(Part::text(text));
            }
            session.push(msg);
        }
    }
}
