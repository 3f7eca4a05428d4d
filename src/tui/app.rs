//! The inspector's screens and how it moves between them: the session picker (no SOURCE
//! given), loading (a progress gauge while a session is read, parsed and counted) and
//! inspecting it; Esc in the inspector goes back to the picker it came from.
//!
//! Owns: `App` (the screen in front and what the next screen needs) and its pure `update`,
//! which hands inspector messages to `update::update`. Must not: do IO (loading happens in
//! `tasks`, which report back with `Msg::Loaded`).

use std::sync::Arc;

use super::msg::{Effect, Msg};
use super::picker::{self, PickerOutcome, PickerState};
use super::state::AppState;
use crate::progress::Progress;

/// A session being loaded.
pub struct Loading {
    /// The source as the user named it.
    pub source: String,
    pub progress: Arc<Progress>,
}

pub enum Screen {
    Picker(Box<PickerState>),
    Loading(Loading),
    Inspect(Box<AppState>),
}

pub struct App {
    pub screen: Screen,
    /// The preset and settings the inspector opens with.
    pub preset: Option<String>,
    pub sets: Vec<String>,
    /// The source keeps growing (a followed file, a pipe).
    pub live: bool,
    /// The picker a session was opened from: Esc returns to it.
    pub picker: Option<PickerState>,
    /// The network summarizer `c` calls (`None`: offline).
    pub summarizer: Option<crate::summarize::Choice>,
    /// Demo mode (`--demo`): the preset scaled until it fires.
    pub demo: bool,
    /// The legend shows under the list (a first run).
    pub legend: bool,
}

impl App {
    /// An app waiting for `source` to load.
    pub fn loading(
        source: String,
        progress: Arc<Progress>,
        preset: Option<String>,
        sets: Vec<String>,
        live: bool,
    ) -> App {
        App {
            screen: Screen::Loading(Loading { source, progress }),
            preset,
            sets,
            live,
            picker: None,
            summarizer: None,
            demo: false,
            legend: false,
        }
    }

    /// The session picker, waiting for discovery.
    pub fn picking(picker: PickerState, preset: Option<String>, sets: Vec<String>) -> App {
        App {
            screen: Screen::Picker(Box::new(picker)),
            preset,
            sets,
            live: false,
            picker: None,
            summarizer: None,
            demo: false,
            legend: false,
        }
    }

    /// An app showing an analysed session at once (tests, small inputs).
    pub fn inspecting(state: AppState) -> App {
        App {
            live: state.following,
            preset: state.preset.clone(),
            sets: state.sets.clone(),
            summarizer: state.summarizer.clone(),
            demo: state.demo.on,
            legend: state.legend,
            screen: Screen::Inspect(Box::new(state)),
            picker: None,
        }
    }

    pub fn inspector(&self) -> Option<&AppState> {
        match &self.screen {
            Screen::Inspect(s) => Some(s),
            Screen::Loading(_) | Screen::Picker(_) => None,
        }
    }

    /// Whether the screen changes without input (a progress gauge moving).
    pub fn animates(&self) -> bool {
        matches!(self.screen, Screen::Loading(_))
    }

    /// Whether a replay plays: the runtime then sends `Msg::Tick`.
    pub fn ticks(&self) -> bool {
        self.inspector()
            .and_then(|s| s.replay.as_ref())
            .is_some_and(|p| p.ticks())
    }

    /// The progress of the load in front, for the task that does it.
    pub fn progress(&self) -> Option<Arc<Progress>> {
        match &self.screen {
            Screen::Loading(l) => Some(Arc::clone(&l.progress)),
            _ => None,
        }
    }
}

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    match (&mut app.screen, msg) {
        // `q` leaves a replay before it quits.
        (Screen::Inspect(state), Msg::Quit) if state.replay.is_some() => {
            super::update::update(state, Msg::Quit)
        }
        (_, Msg::Quit) => vec![Effect::Quit],
        (screen, Msg::Counted(path, n)) => {
            match screen {
                Screen::Picker(p) => p.set_count(&path, n),
                _ => app.picker.iter_mut().for_each(|p| p.set_count(&path, n)),
            }
            Vec::new()
        }
        (Screen::Picker(p), Msg::Discovered(found)) => {
            p.set_discovery(found);
            Vec::new()
        }
        (Screen::Picker(p), Msg::Picker(input)) => {
            p.notice = None;
            match picker::update(p, input) {
                None => Vec::new(),
                Some(PickerOutcome::Quit) => vec![Effect::Quit],
                Some(PickerOutcome::Open(path, format)) => {
                    let source = path.display().to_string();
                    let from = std::mem::replace(
                        &mut app.screen,
                        Screen::Loading(Loading {
                            source,
                            progress: Arc::new(Progress::new()),
                        }),
                    );
                    if let Screen::Picker(p) = from {
                        app.picker = Some(*p);
                    }
                    vec![Effect::Load(path, format)]
                }
            }
        }
        (Screen::Picker(_), _) => Vec::new(),
        // A load abandoned with Esc may still finish: only the one on screen is shown.
        (Screen::Loading(l), Msg::Loaded(analysis)) if analysis.session.source.path != l.source => {
            Vec::new()
        }
        (Screen::Loading(_), Msg::Loaded(analysis)) => {
            let mut state = AppState::new(*analysis, app.preset.clone(), app.sets.clone());
            state.summarizer = app.summarizer.clone();
            state.following = app.live;
            state.legend = app.legend;
            if app.demo {
                state.toggle_demo();
            }
            if app.live {
                state.selected = state.len().saturating_sub(1);
            }
            let mut effects = vec![Effect::Redraw];
            effects.extend(state.take_jobs().into_iter().map(Effect::Run));
            app.screen = Screen::Inspect(Box::new(state));
            effects
        }
        (Screen::Loading(_), Msg::LoadFailed(error)) => match app.picker.take() {
            Some(mut p) => {
                p.notice = Some(error);
                app.screen = Screen::Picker(Box::new(p));
                Vec::new()
            }
            None => vec![Effect::Fail(error)],
        },
        (Screen::Loading(_), Msg::Back) => back_to_picker(app),
        (Screen::Loading(_), _) => Vec::new(),
        (Screen::Inspect(state), Msg::LoadFailed(error)) => {
            state.notice = Some(error);
            Vec::new()
        }
        (Screen::Inspect(state), msg) => {
            let mut effects = super::update::update(state, msg);
            let leave = effects.contains(&Effect::Leave);
            if (leave || effects.contains(&Effect::Quit)) && app.picker.is_some() {
                return back_to_picker(app);
            }
            effects.retain(|e| *e != Effect::Leave);
            effects
        }
    }
}

/// Leaves the session for the picker it was chosen in, or quits when there is none.
fn back_to_picker(app: &mut App) -> Vec<Effect> {
    match app.picker.take() {
        Some(p) => {
            app.screen = Screen::Picker(Box::new(p));
            Vec::new()
        }
        None => vec![Effect::Quit],
    }
}
