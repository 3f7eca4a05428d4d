//! Compaction analysis. For now: tool-call groups and findings, which `report` shows and which
//! every preset's cut must respect.

pub mod findings;
pub mod groups;

pub use findings::{Finding, Severity};
pub use groups::{group_messages, Group, Grouping};
