//! The presentation model: what the renderers (text, Markdown, HTML and the inspector) show,
//! derived once from the core's results, so that each renderer formats the same facts and none
//! derives them again. Pure: no terminal, no escaping (each renderer escapes for its medium).
//!
//! Owns: the typed documents of the JSON contract (`view`: a session's report, a plan, a diff,
//! a compaction's result, a replay), which JSON writes with serde, and what a summarizer input
//! loses of one message (`lost`).

pub mod lost;
pub mod view;
