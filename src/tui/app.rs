//! The inspector's screens and how it moves between them: loading (a progress gauge while a
//! session is read, parsed and counted) and inspecting it.
//!
//! Owns: `App` (the screen in front and what the next screen needs) and its pure `update`,
//! which hands inspector messages to `update::update`. Must not: do IO (loading happens in
//! `tasks`, which report back with `Msg::Loaded`).

use std::sync::Arc;

use super::msg::{Effect, Msg};
use super::state::AppState;
use crate::progress::Progress;

/// A session being loaded.
pub struct Loading {
    /// The source as the user named it.
    pub source: String,
    pub progress: Arc<Progress>,
}

pub enum Screen {
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
        }
    }

    /// An app showing an analysed session at once (tests, small inputs).
    pub fn inspecting(state: AppState) -> App {
        App {
            live: state.following,
            preset: state.preset.clone(),
            sets: state.sets.clone(),
            screen: Screen::Inspect(Box::new(state)),
        }
    }

    pub fn inspector(&self) -> Option<&AppState> {
        match &self.screen {
            Screen::Inspect(s) => Some(s),
            Screen::Loading(_) => None,
        }
    }

    /// Whether the screen changes without input (a progress gauge moving).
    pub fn animates(&self) -> bool {
        matches!(self.screen, Screen::Loading(_))
    }
}

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    match (&mut app.screen, msg) {
        (_, Msg::Quit) => vec![Effect::Quit],
        (Screen::Loading(_), Msg::Loaded(analysis)) => {
            let mut state =
                AppState::new(*analysis, app.preset.take(), std::mem::take(&mut app.sets));
            state.following = app.live;
            if app.live {
                state.selected = state.len().saturating_sub(1);
            }
            app.screen = Screen::Inspect(Box::new(state));
            vec![Effect::Redraw]
        }
        (Screen::Loading(_), Msg::LoadFailed(error)) => vec![Effect::Fail(error)],
        (Screen::Loading(_), Msg::Back) => vec![Effect::Quit],
        (Screen::Loading(_), _) => Vec::new(),
        (Screen::Inspect(state), Msg::LoadFailed(error)) => {
            state.notice = Some(error);
            Vec::new()
        }
        (Screen::Inspect(state), msg) => super::update::update(state, msg),
    }
}
