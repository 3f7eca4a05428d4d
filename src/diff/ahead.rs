//! The facts of a session's messages read ahead, on a core of their own, while the plan that
//! names the summarized range is still being made.
//!
//! A message's facts (`pending::facts_at`: the commands its calls run and what
//! `evidence::extract_at` finds in its texts) do not depend on the summarizer input, and most
//! presets make their plan on one core. So the messages are read in order, from the first,
//! until the plan is done and reading stops; the diff then takes the facts read and reads the
//! others itself, as it would have.
//!
//! Owns: that reading and its stop. Must not: change what a diff finds (a fact read ahead is
//! the fact the diff would read).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::content_texts;
use super::pending::{facts_at, FactsAt};
use crate::session::Session;

/// Facts read ahead, by position in the session, until the diff takes them.
pub struct Ahead {
    facts: Vec<Mutex<Option<FactsAt>>>,
    stop: AtomicBool,
}

impl Ahead {
    pub fn new(session: &Session) -> Ahead {
        Ahead {
            facts: (0..session.messages.len())
                .map(|_| Mutex::new(None))
                .collect(),
            stop: AtomicBool::new(false),
        }
    }

    /// Reads the messages' facts in order until every one is read or [`Ahead::stop`] is called.
    pub fn read(&self, session: &Session) {
        for (m, slot) in session.messages.iter().zip(&self.facts) {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let facts = facts_at(m, &content_texts(m));
            if let Ok(mut slot) = slot.lock() {
                *slot = Some(facts);
            }
        }
    }

    /// Ends the reading after the message being read.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The facts of the message at `position` in the session, if read (and not taken before).
    pub fn take(&self, position: usize) -> Option<FactsAt> {
        self.facts.get(position)?.lock().ok()?.take()
    }
}

/// Runs `plan` while the facts of `session` are read ahead on another thread, and returns its
/// result with what was read by the time it finished.
pub fn while_planning<R>(session: &Session, plan: impl FnOnce() -> R) -> (R, Ahead) {
    let ahead = Ahead::new(session);
    let result = std::thread::scope(|s| {
        let reader = s.spawn(|| ahead.read(session));
        let result = plan();
        ahead.stop();
        let _ = reader.join();
        result
    });
    (result, ahead)
}
