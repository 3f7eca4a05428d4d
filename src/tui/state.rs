//! Everything a frame shows. Views read it by shared reference; only `update` changes it.

use crate::analysis::Analysis;
use crate::compaction::preset::{self, PlanInput};
use crate::compaction::Plan;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Detail,
}

/// What the detail pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailMode {
    Message,
    Summarizer,
    Diff,
}

/// The fate of a message under the active preset, for shading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Pinned,
    Summarized,
    Kept,
    Dropped,
    Untouched,
}

pub struct AppState {
    pub analysis: Analysis,
    /// The active preset's name and the settings given for it.
    pub preset: Option<String>,
    pub sets: Vec<String>,
    pub plan: Option<Plan>,
    /// Each message's fate under `plan`, derived once per plan (the list asks per row).
    fates: Vec<Fate>,
    /// The diff of the plan's summarized range against its summarizer input.
    pub diff: Option<crate::diff::Diff>,
    pub detail_mode: DetailMode,
    /// Why the active preset could not plan (shown instead of a split).
    pub plan_error: Option<String>,
    pub selected: usize,
    /// First message shown in the list.
    pub offset: usize,
    /// Rows the list had in the last frame.
    pub viewport: u16,
    pub focus: Focus,
    pub show_help: bool,
    pub detail_scroll: u16,
    /// Following a growing file: new messages scroll into view while the selection is on the
    /// last one; otherwise they are counted in `unseen` until `G`.
    pub following: bool,
    pub unseen: usize,
}

impl AppState {
    pub fn new(analysis: Analysis, preset: Option<String>, sets: Vec<String>) -> AppState {
        let mut state = AppState {
            analysis,
            preset,
            sets,
            plan: None,
            fates: Vec::new(),
            diff: None,
            detail_mode: DetailMode::Message,
            plan_error: None,
            selected: 0,
            offset: 0,
            viewport: 20,
            focus: Focus::List,
            show_help: false,
            detail_scroll: 0,
            following: false,
            unseen: 0,
        };
        state.replan();
        state
    }

    pub fn len(&self) -> usize {
        self.analysis.session.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Recomputes the plan of the active preset (pure: no IO).
    pub fn replan(&mut self) {
        self.plan = None;
        self.fates.clear();
        self.diff = None;
        self.plan_error = None;
        let Some(name) = &self.preset else { return };
        let result = preset::find(name)
            .and_then(|p| preset::run(p, &PlanInput::new(&self.analysis), &self.sets));
        match result {
            Ok(plan) => {
                self.diff = Some(crate::diff::diff(&self.analysis.session, &plan));
                self.fates = fates_of(&plan, self.len());
                self.plan = Some(plan);
            }
            Err(e) => self.plan_error = Some(e.to_string()),
        }
    }

    pub fn fate(&self, index: usize) -> Fate {
        self.fates.get(index).copied().unwrap_or(Fate::Untouched)
    }

    /// The first kept (not pinned) message after the summarized range: where the cut falls.
    pub fn cut_before(&self) -> Option<usize> {
        let plan = self.plan.as_ref().filter(|p| p.trigger.fired)?;
        let last_summarized = plan.split.summarized.iter().max()?;
        plan.split
            .kept
            .iter()
            .copied()
            .filter(|k| k > last_summarized)
            .min()
    }
}

/// Fates by message index; where a message is in several lists (a framework that renders a
/// message it also keeps), pinned wins over kept over summarized over dropped.
fn fates_of(plan: &Plan, len: usize) -> Vec<Fate> {
    let mut fates = vec![Fate::Untouched; len];
    let s = &plan.split;
    for (list, fate) in [
        (&s.dropped, Fate::Dropped),
        (&s.summarized, Fate::Summarized),
        (&s.kept, Fate::Kept),
        (&s.pinned, Fate::Pinned),
    ] {
        for &i in list {
            if let Some(slot) = fates.get_mut(i) {
                *slot = fate;
            }
        }
    }
    fates
}
