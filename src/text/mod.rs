//! Text hygiene for everything ctxray prints: session text, tool names, call ids and file names
//! are made visible and inert before they reach a terminal, a CI log or a Markdown file.
//!
//! Owns: the one convention for showing control characters (see [`sanitize`]), cutting to a
//! width after sanitising, and neutralising GitHub workflow commands at the start of a line.
//! Must not: do any IO, know about output formats or colours (the CLI decides where it applies).

pub mod sanitize;

pub use sanitize::{block, clip, inline, neutralize_line, Mode};
