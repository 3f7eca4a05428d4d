//! Everything a frame shows. Views read it by shared reference; only `update` changes it.

use crate::compaction::presets;
use std::sync::Arc;

use crate::analysis::Analysis;
use crate::compaction::preset::{self, PlanInput};
use crate::compaction::Plan;
use crate::tui::msg::{FrameLayout, PromptKind};

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
    /// The compaction just carried out: before/after, the summary, its findings.
    Result,
    Timeline,
}

pub use crate::compaction::plan::Fate;

pub struct AppState {
    /// Shared with the tasks that plan and search apart (a session can be hundreds of MB).
    pub analysis: Arc<Analysis>,
    /// The active preset's name and the settings given for it.
    pub preset: Option<String>,
    pub sets: Vec<String>,
    /// The settings given for each other preset, put back when it is chosen again.
    pub kept_sets: std::collections::BTreeMap<String, Vec<String>>,
    /// How far the help overlay is scrolled.
    pub help_scroll: u16,
    pub plan: Option<Plan>,
    /// Each message's fate under `plan`, derived once per plan (the list asks per row).
    fates: Vec<Fate>,
    /// `fates` counted (pinned, kept, summarized, dropped), for the footer of every frame.
    fate_counts: [usize; 4],
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
    pub detail_scroll: usize,
    /// Following a growing file: new messages scroll into view while the selection is on the
    /// last one; otherwise they are counted in `unseen` until `G`.
    pub following: bool,
    pub unseen: usize,
    /// A large file shown while the rest of it is read: (bytes in the session, file size).
    /// Nothing that needs the whole session (plans run apart, compaction) starts meanwhile.
    pub loading: Option<(u64, u64)>,
    /// One line for the footer: a setting refused, a live source ended, a search with no match.
    pub notice: Option<String>,
    /// The live source's last read failure, cleared (with the notice showing it) when it reads
    /// well again.
    pub fault: Option<String>,
    /// The prompt line being typed (`/` search, `:` command).
    pub prompt: Option<(PromptKind, String)>,
    /// Lines submitted at each prompt, oldest first, and how far back Up has gone in the
    /// open prompt's (`None`: at the line being typed).
    pub history: Vec<(PromptKind, String)>,
    pub history_at: Option<usize>,
    /// What Tab offered beside the open prompt (candidates when more than one fits).
    pub prompt_hint: Option<String>,
    /// The last search and the messages it matched.
    pub search: Option<Search>,
    /// Where the last frame put the list rows and panes (for the mouse).
    pub layout: FrameLayout,
    /// The finding last jumped to (`f`), an index into [`AppState::findings`].
    pub finding: Option<usize>,
    /// The subagent chooser, open with this child selected.
    pub subagents: Option<usize>,
    /// When this is a subagent's view: the parent's state, which Esc returns to.
    pub parent: Option<Box<AppState>>,
    /// When this is a compacted history (`c`): what was compacted and how; `previous` is the
    /// history before it, which Esc returns to.
    pub compaction: Option<Compaction>,
    pub previous: Option<Box<AppState>>,
    /// Context per request, file compactions, trigger and what-if (rebuilt by `replan`).
    pub timeline: crate::timeline::Timeline,
    /// The plan this state waits for (`plan` still shows the last one).
    pub planning: Option<RunKey>,
    /// The settings before the last `:set`, put back when the plan under the new ones fails.
    pub unset_on_failure: Option<(RunKey, Vec<String>)>,
    /// What the timeline's what-if search was made for.
    what_if_for: Option<RunKey>,
    /// A compaction being carried out apart: its summarizer's name, and the notice to give
    /// once it is shown.
    pub compacting: Option<(String, Option<String>)>,
    /// Work asked for since `update` last handed it to the runtime (`Effect::Run`).
    jobs: Vec<crate::tui::jobs::Work>,
    /// The network summarizer `c` calls (`None`: the offline summary).
    pub summarizer: Option<crate::summarize::Choice>,
    /// A network summary being written.
    pub summarizing: Option<Summarizing>,
    /// The id the next summarizer call gets (late results of a cancelled call are dropped).
    pub next_call: u64,
    /// The replay being played (`r`): while it is open, it takes the keys and the screen.
    pub replay: Option<crate::tui::replay::Player>,
    /// Where this view was opened from, for the footer (`replay step 4 (Esc: replay)`).
    pub crumb: Option<String>,
    /// The legend under the list (`L`).
    pub legend: bool,
    /// Demo mode (`w`): presets scaled until they fire, and what that added.
    pub demo: crate::tui::demo::DemoState,
}

/// A network summarizer call in flight: the plan it carries out and the text so far.
#[derive(Debug, Clone)]
pub struct Summarizing {
    pub id: u64,
    /// `openai:model` as chosen.
    pub label: String,
    /// `openai`, `anthropic`.
    pub provider: &'static str,
    pub plan: Plan,
    /// Messages and tokens (of this session's encoding) sent.
    pub messages: usize,
    pub tokens: usize,
    /// Secrets masked before sending.
    pub masked: usize,
    /// What has streamed in so far.
    pub text: String,
}

/// What a result computed apart (a plan, a what-if search, a replay) was computed for:
/// preset, settings and session length. A result for another key arrives late and is dropped.
pub type RunKey = (String, Vec<String>, usize);

/// A compaction carried out in the inspector.
#[derive(Debug, Clone)]
pub struct Compaction {
    pub preset: String,
    pub summarizer: String,
    /// The summarizer's text as returned (`None` for a strategy that only drops).
    pub summary: Option<String>,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub messages_before: usize,
    /// Index of the inserted summary in this (compacted) history.
    pub summary_at: Option<usize>,
    pub findings: Vec<crate::compaction::Finding>,
    /// How many compactions led here (1 for the first, 2 when `c` compacted a compacted one).
    pub generation: usize,
}

/// A search and its matches (message indices, ascending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub query: String,
    pub matches: Vec<usize>,
    /// Messages of the subagents that also hold it.
    pub in_children: usize,
}

impl AppState {
    pub fn new(analysis: Analysis, preset: Option<String>, sets: Vec<String>) -> AppState {
        let mut state = AppState {
            analysis: Arc::new(analysis),
            preset,
            sets,
            kept_sets: std::collections::BTreeMap::new(),
            help_scroll: 0,
            plan: None,
            fates: Vec::new(),
            fate_counts: [0; 4],
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
            loading: None,
            unseen: 0,
            notice: None,
            fault: None,
            prompt: None,
            history: Vec::new(),
            history_at: None,
            prompt_hint: None,
            search: None,
            layout: FrameLayout::default(),
            subagents: None,
            parent: None,
            finding: None,
            compaction: None,
            previous: None,
            planning: None,
            unset_on_failure: None,
            compacting: None,
            what_if_for: None,
            jobs: Vec::new(),
            timeline: crate::timeline::Timeline::default(),
            summarizer: None,
            summarizing: None,
            next_call: 0,
            replay: None,
            demo: crate::tui::demo::DemoState::default(),
            legend: false,
            crumb: None,
        };
        // A file of many sessions has no history of its own to show: its list of sessions is.
        if state.analysis.holds_sessions() {
            state.subagents = Some(0);
        }
        state.replan();
        state
    }

    /// A view of `analysis` opened from this one (a compacted history, a subagent, a replay's
    /// step): it keeps the screen's layout, the legend, the prompt history and the summarizer.
    pub fn opened(
        &self,
        analysis: Analysis,
        preset: Option<String>,
        sets: Vec<String>,
    ) -> AppState {
        let mut next = AppState::new(analysis, preset, sets);
        next.legend = self.legend;
        next.history = self.history.clone();
        next.viewport = self.viewport;
        next.layout = self.layout.clone();
        next.summarizer = self.summarizer.clone();
        next.next_call = self.next_call;
        next
    }

    pub fn len(&self) -> usize {
        self.analysis.session.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Asks for the plan of the active preset under the current settings (a job: it comes
    /// back as `Msg::Planned`); `planning` says which plan is awaited and the last one stays
    /// on screen until it lands.
    pub fn replan(&mut self) {
        self.finding = None;
        self.plan_error = None;
        // A compaction under way carries out the plan before: it is not awaited any more.
        if self.compacting.take().is_some() {
            self.notice = Some("compaction cancelled: the plan changed".into());
        }
        let Some(name) = self.preset.clone() else {
            self.planning = None;
            self.set_plan(Err(None));
            return;
        };
        let key = (name, self.sets.clone(), self.len());
        self.planning = Some(key.clone());
        if self.loading.is_none() {
            self.ask(crate::tui::jobs::Work::Plan(key));
        }
        self.rebuild_timeline();
    }

    /// A plan run apart has come back: taken when it is the one awaited. A plan that failed
    /// under settings just given puts the ones before back, and says why.
    pub fn planned(&mut self, key: RunKey, result: Result<Planned, String>) {
        if self.planning.as_ref() != Some(&key) {
            return;
        }
        self.planning = None;
        let undo = self.unset_on_failure.take().filter(|(k, _)| *k == key);
        if let (Err(e), Some((_, before))) = (&result, undo) {
            self.notice = Some(e.clone());
            self.sets = before;
            self.replan();
            return;
        }
        self.set_plan(result.map_err(Some));
    }

    /// Makes `preset` the active one: the settings given for the one before are kept for it,
    /// and those given for `preset` before are put back. Plans again.
    pub fn choose_preset(&mut self, preset: Option<String>) {
        if let Some(before) = self.preset.take() {
            let sets = std::mem::take(&mut self.sets);
            if sets.is_empty() {
                self.kept_sets.remove(&before);
            } else {
                self.kept_sets.insert(before, sets);
            }
        }
        self.sets = (preset.as_ref())
            .and_then(|p| self.kept_sets.remove(p))
            .unwrap_or_default();
        self.preset = preset;
        self.replan();
        self.ask_demo();
    }

    /// Work for the runtime, handed over by `update` as `Effect::Run` (once each).
    pub fn ask(&mut self, work: crate::tui::jobs::Work) {
        if !self.jobs.contains(&work) {
            self.jobs.push(work);
        }
    }

    /// The work asked for since the last call, as jobs on this state's session.
    pub fn take_jobs(&mut self) -> Vec<crate::tui::jobs::Job> {
        let analysis = &self.analysis;
        self.jobs
            .drain(..)
            .map(|work| crate::tui::jobs::Job {
                analysis: Arc::clone(analysis),
                work,
            })
            .collect()
    }

    /// The whole session is in (a large file read while shown): what waited for it is asked.
    pub fn loaded_whole(&mut self) {
        if let Some(key) = self.planning.clone() {
            self.ask(crate::tui::jobs::Work::Plan(key));
        }
        if let Some(key) = self.demo.asked.clone() {
            self.ask(crate::tui::jobs::Work::Demo(key));
        }
        self.ask_what_if();
    }

    /// The diff of a plan run apart, which follows the plan (it reads the whole summarized
    /// range): taken when that plan is still the one shown.
    pub fn diffed(&mut self, key: RunKey, diff: crate::diff::Diff) {
        let current = self.plan.as_ref().map(|p| p.preset.to_string());
        let same = self.planning.is_none()
            && current.as_deref() == Some(key.0.as_str())
            && key.1 == self.sets
            && key.2 == self.len();
        if same && self.diff.is_none() {
            self.diff = Some(diff);
        }
    }

    fn set_plan(&mut self, result: Result<Planned, Option<String>>) {
        self.plan = None;
        self.fates.clear();
        self.fate_counts = [0; 4];
        self.diff = None;
        match result {
            Ok(p) => {
                self.fates = p.plan.split.fates(self.len());
                self.fate_counts = count_fates(&self.fates);
                self.diff = p.diff;
                self.plan = Some(p.plan);
            }
            Err(e) => self.plan_error = e,
        }
        self.rebuild_timeline();
    }

    /// The timeline under the current plan. Its what-if search plans many prefixes: it is
    /// asked for as a job while the timeline is on screen (`ask_what_if`).
    fn rebuild_timeline(&mut self) {
        use crate::timeline::{Timeline, WhatIfStatus};
        let before = std::mem::take(&mut self.timeline).what_if;
        self.timeline = Timeline::build(&self.analysis, self.plan.as_ref());
        // The window drawn is the one the gauge uses: the preset's own when it has one.
        self.timeline.window = self.gauge_window().0;
        // A search depends on the preset, its settings and the session, not on the plan shown:
        // one already made for them is kept.
        let key = self.what_if_key();
        if key.is_some() {
            self.timeline.what_if = match before {
                WhatIfStatus::Done(_) | WhatIfStatus::Failed(_) if self.what_if_for == key => {
                    before
                }
                _ => WhatIfStatus::NotComputed,
            };
        }
        self.ask_what_if();
    }

    /// A what-if search has come back: taken when it is for the preset, settings and session
    /// shown and none is there yet.
    pub fn what_if_done(&mut self, key: RunKey, result: Result<crate::timeline::WhatIf, String>) {
        use crate::timeline::WhatIfStatus;
        if self.what_if_key().as_ref() != Some(&key)
            || self.timeline.what_if != WhatIfStatus::NotComputed
        {
            return;
        }
        self.timeline.what_if = match result {
            Ok(w) => WhatIfStatus::Done(w),
            Err(e) => WhatIfStatus::Failed(e),
        };
        self.what_if_for = Some(key);
    }

    /// The key of the what-if search the timeline shows: preset, settings, session length.
    pub fn what_if_key(&self) -> Option<RunKey> {
        Some((self.preset.clone()?, self.sets.clone(), self.len()))
    }

    /// Asks for the what-if search when the timeline is on screen without one, a preset is
    /// active and the whole session is in.
    pub fn ask_what_if(&mut self) {
        let needed = self.loading.is_none()
            && self.detail_mode == DetailMode::Timeline
            && self.timeline.what_if == crate::timeline::WhatIfStatus::NotComputed;
        if let Some(key) = self.what_if_key().filter(|_| needed) {
            self.ask(crate::tui::jobs::Work::WhatIf(key));
        }
    }

    pub fn fate(&self, index: usize) -> Fate {
        self.fates.get(index).copied().unwrap_or(Fate::Untouched)
    }

    /// Messages by the fate the list shades them with (each message counted once: pinned,
    /// kept, summarized, dropped), and how many of the kept or pinned ones the framework also
    /// renders to its summarizer.
    pub fn fate_counts(&self) -> ([usize; 4], usize) {
        let counts = self.fate_counts;
        let also = self.plan.as_ref().map_or(0, |p| {
            let shown = counts[2];
            let distinct = p.split.summarized.len();
            distinct.saturating_sub(shown)
        });
        (counts, also)
    }

    /// Every finding that names a message: the session's, then the active plan's.
    pub fn findings(&self) -> Vec<&crate::compaction::Finding> {
        let plan = self.plan.iter().flat_map(|p| &p.findings);
        self.analysis
            .findings
            .iter()
            .chain(plan)
            .filter(|f| !f.messages.is_empty())
            .collect()
    }

    /// The context window the gauge is drawn against: the active preset's own window setting
    /// when it has one (a framework configured for a smaller window than the model's), else the
    /// window ctxray resolved for the model. The second value names where it came from.
    pub fn gauge_window(&self) -> (u64, String) {
        if let Some(plan) = &self.plan {
            if let Some((w, name)) = plan.settings.window() {
                return (w, format!("{} {name}", plan.preset));
            }
        }
        (
            self.analysis.window,
            self.analysis.window_source.as_str().to_string(),
        )
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

fn count_fates(fates: &[Fate]) -> [usize; 4] {
    let mut counts = [0; 4];
    for f in fates {
        match f {
            Fate::Pinned => counts[0] += 1,
            Fate::Kept => counts[1] += 1,
            Fate::Summarized => counts[2] += 1,
            Fate::Dropped => counts[3] += 1,
            Fate::Untouched => {}
        }
    }
    counts
}

/// A plan and the diff of its summarized range, as `replan` makes them; a task run apart
/// sends the plan first and the diff after it (`diff: None` until then).
#[derive(Debug, Clone)]
pub struct Planned {
    pub plan: Plan,
    pub diff: Option<crate::diff::Diff>,
}

/// The plan of preset `name` under `sets` on `analysis`, with its diff when `with_diff`.
pub fn plan_of(
    analysis: &Analysis,
    name: &str,
    sets: &[String],
    with_diff: bool,
) -> Result<Planned, String> {
    let plan = presets::find(name)
        .and_then(|p| preset::run(p, &PlanInput::new(analysis), sets))
        .map_err(|e| e.to_string())?;
    let diff = with_diff.then(|| crate::diff::diff(&analysis.session, &plan));
    Ok(Planned { plan, diff })
}
