//! Compaction: the presets that reproduce each framework's trigger, cut and summarizer input
//! exactly, and carrying a plan out.
//!
//! Pure and headless: reads an analysed session (its counts, and the tool-call groups and
//! findings of `structure`, re-exported here), returns a `Plan`.

pub mod after;
pub mod apply;
pub mod carry_out;
pub mod demo;
pub mod digest;
pub mod outcome;
pub mod parsed;
pub mod plan;
pub mod preset;
pub mod presets;
pub mod quiet;
pub mod request;
pub mod seen;
pub mod settings;

pub use crate::structure::{findings, groups};
pub use crate::structure::{group_messages, Finding, Group, Grouping, Severity};
pub use plan::{Plan, PromptMessage, PromptRole, Split, Trigger};
pub use preset::{PlanError, PlanInput, Preset};
pub use settings::{Kind, ParamSpec, Settings};
