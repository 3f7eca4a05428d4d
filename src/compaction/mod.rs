//! Compaction: tool-call groups, findings, and the presets that reproduce each framework's
//! trigger, cut and summarizer input exactly.
//!
//! Pure and headless: reads a parsed session and its counts, returns a `Plan`.

pub mod after;
pub mod apply;
pub mod carry_out;
pub mod digest;
pub mod findings;
pub mod groups;
pub mod outcome;
pub mod parsed;
pub mod plan;
pub mod preset;
pub mod presets;
pub mod quiet;
pub mod seen;
pub mod settings;

pub use findings::{Finding, Severity};
pub use groups::{group_messages, Group, Grouping};
pub use plan::{Plan, PromptMessage, PromptRole, Split, Trigger};
pub use preset::{PlanError, PlanInput, Preset};
pub use settings::{Kind, ParamSpec, Settings};
