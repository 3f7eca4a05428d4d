//! Everything a frame shows. Views read it by shared reference; only `update` changes it.

use crate::analysis::Analysis;
use crate::compaction::preset::{self, PlanInput};
use crate::compaction::Plan;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Detail,
}

/// Largest session whose what-if search `replan` runs itself: at most this many messages and
/// this many loaded bytes (the slowest presets take about a second per MiB of session).
pub const WHAT_IF_SYNC_MAX_MESSAGES: usize = 5_000;
pub const WHAT_IF_SYNC_MAX_BYTES: usize = 1 << 20;

/// What the detail pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailMode {
    Message,
    Summarizer,
    Diff,
    Timeline,
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
    /// Context per request, file compactions, trigger and what-if (rebuilt by `replan`).
    pub timeline: crate::timeline::Timeline,
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
            timeline: crate::timeline::Timeline::default(),
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
        let Some(name) = &self.preset else {
            return self.rebuild_timeline();
        };
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
        self.rebuild_timeline();
    }

    /// The timeline under the current plan. The what-if search plans many prefixes, so it runs
    /// here only on small sessions (`WHAT_IF_SYNC_MAX_*`); on larger ones it stays
    /// `NotComputed` for the runtime to run `crate::timeline::what_if` apart.
    fn rebuild_timeline(&mut self) {
        use crate::timeline::{what_if, Timeline, WhatIfStatus};
        self.timeline = Timeline::build(&self.analysis, self.plan.as_ref());
        let Some(name) = &self.preset else { return };
        let large = self.len() > WHAT_IF_SYNC_MAX_MESSAGES
            || self.analysis.session.buffer.len() > WHAT_IF_SYNC_MAX_BYTES;
        self.timeline.what_if = if large {
            WhatIfStatus::NotComputed
        } else {
            match preset::find(name).and_then(|p| what_if(&self.analysis, p, &self.sets)) {
                Ok(w) => WhatIfStatus::Done(w),
                Err(e) => WhatIfStatus::Failed(e.to_string()),
            }
        };
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
