//! Demo mode (`w`, `--demo`): the active preset's window (or count) scaled down until it fires
//! on the session shown, said on screen and undone by the same key.
//!
//! Owns: what demo mode holds — whether it is on, which settings it added to each preset (so
//! that `w` takes exactly those away again), the search awaited. Its keys and answers are
//! `demo_update`; the search itself is `compaction::demo`. The settings added are ordinary
//! settings: `:set` shows them, `p` keeps them with their preset.

/// What demo mode added to one preset's settings, and the line that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    pub sets: Vec<String>,
    /// `demo: context_window 200,000 → 7,300`.
    pub short: String,
}

/// The demo's state in one inspector view.
#[derive(Debug, Clone, Default)]
pub struct DemoState {
    /// Demo mode is on: each preset chosen is scaled until it fires.
    pub on: bool,
    /// What it added, by preset.
    pub added: std::collections::BTreeMap<String, Added>,
    /// The search awaited: preset, settings and session length (a `state::RunKey`).
    pub asked: Option<(String, Vec<String>, usize)>,
}

/// Removes the last occurrence of each of `added` from `sets` (a setting given again after
/// the demo's stays).
pub fn remove_last(sets: &mut Vec<String>, added: &[String]) {
    for a in added {
        if let Some(at) = sets.iter().rposition(|s| s == a) {
            sets.remove(at);
        }
    }
}
