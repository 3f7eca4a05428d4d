//! ctxray: an X-ray for an LLM agent's context window.
//!
//! The library is the pure core — session model, format parsers (listed once in
//! `formats::registry`), token counting, tool-call groups, compaction presets (listed once in
//! `compaction::presets`), the diff and the replay — the presentation model in `report`, and
//! the front ends: `cli` (its output formats listed once in `cli::output`) and the inspector
//! in `tui`. Nothing in the core touches a terminal.
//!
//! Outside tests nothing unwraps: a failure is an error its caller reports. The exceptions are
//! named where they stand (constant patterns compiled once, which a test compiles).

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod analysis;
pub mod cli;
pub mod compaction;
pub mod config;
pub mod count_cache;
pub mod diff;
pub mod export;
pub mod facts;
pub mod formats;
pub mod limits;
pub mod live;
pub mod par;
pub mod procfs;
pub mod progress;
pub mod pyrepr;
pub mod replay;
pub mod report;
pub mod secrets;
pub mod session;
pub mod structure;
pub mod summarize;
#[cfg(test)]
mod testing;
pub mod text;
pub mod timeline;
pub mod tokens;
pub mod tui;
pub mod write;
