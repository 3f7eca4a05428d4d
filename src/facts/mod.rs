//! The facts of a text and finding them in another: what a compaction must carry forward and
//! whether it did.
//!
//! Owns: `evidence` (file paths, commands, URLs, numbers, identifiers, call ids extracted with
//! fixed patterns, two of them by a byte scan: `scan`) and `index` (a text indexed once,
//! answering exactly whether a string occurs in it, in time linear in the text and the strings
//! asked). Must not: know of messages, plans or presets: the diff, the compaction's outcome
//! and the replay ask the questions.

pub mod evidence;
pub mod index;
mod scan;

pub use evidence::{Evidence, EvidenceKind};
pub use index::TextIndex;
