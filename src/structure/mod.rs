//! The structure of a session that every later step reads: its tool-call groups and the
//! findings that need only the session and its counts.
//!
//! Owns: `groups` (calls paired with their results, groups kept whole), `findings` (the
//! `Finding` type and the session's own findings) and `empty` (records that became empty
//! messages). Must not: know of plans, presets or
//! compaction — those read this, never the other way round.

pub mod empty;
pub mod findings;
pub mod groups;
pub mod spawned;

pub use findings::{Finding, Severity};
pub use groups::{group_messages, Group, Grouping};
