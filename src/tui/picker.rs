//! The session picker (`ctxray` with no SOURCE): its state and its pure update.
//!
//! Owns: the discovered sessions (with the exact message counts that arrive after them), the
//! filter query and the indices it keeps, the selection, the
//! scroll offset and viewport, the status line's facts (discovering, found, skipped, failed),
//! and the mapping of keys and mouse events to [`PickerInput`]s. `update` turns one input into
//! a state change and, at most, one [`PickerOutcome`] (open a session, or quit).
//!
//! Must not: walk the disk or read the clock in `update` (the runtime runs discovery in the
//! background and hands the result to [`PickerState::set_discovery`]), draw anything (that is
//! `views::picker`), or load the chosen session (the runtime does, from the outcome).

use std::path::PathBuf;
use std::time::SystemTime;

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::live::discover::{filter, Discovery, Found, Locations};
use crate::session::Format;

/// Where discovery stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerStatus {
    /// Discovery is running; nothing to show yet.
    Discovering,
    /// Discovery finished (possibly with nothing found).
    Ready,
    /// Discovery could not start, e.g. no home directory.
    Failed(String),
}

/// One thing the user did, already decoded from the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerInput {
    /// A character typed into the filter (`j` and `k` included: the picker is a search box).
    Type(char),
    Backspace,
    /// Deletes the last word of the filter.
    DeleteWord,
    /// Empties the filter.
    ClearFilter,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Enter,
    /// Clears a non-empty filter, quits otherwise.
    Esc,
    /// Quits whatever the filter holds.
    Quit,
    /// Rows the list had in the last frame.
    Viewport(u16),
    /// A click on the list's `n`th visible row (0 = top): selects it, or opens it when it was
    /// already selected.
    Click(u16),
}

/// What the picker asks the runtime to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerOutcome {
    /// Load this session; the format is the tool discovery found it under.
    Open(PathBuf, Option<Format>),
    Quit,
}

/// Everything the picker screen shows.
#[derive(Debug, Clone)]
pub struct PickerState {
    discovery: Discovery,
    locations: Option<Locations>,
    status: PickerStatus,
    query: String,
    matches: Vec<usize>,
    /// Position in `matches` of the selected session.
    selected: usize,
    /// First position in `matches` shown.
    offset: usize,
    viewport: u16,
    /// The moment last-activity times are shown relative to.
    now: SystemTime,
    /// Why the last session chosen could not be opened, shown in place of its path.
    pub notice: Option<String>,
}

impl Default for PickerState {
    fn default() -> PickerState {
        PickerState::new()
    }
}

impl PickerState {
    /// An empty picker waiting for discovery; relative times are measured from now.
    pub fn new() -> PickerState {
        PickerState {
            discovery: Discovery::default(),
            locations: None,
            status: PickerStatus::Discovering,
            query: String::new(),
            matches: Vec::new(),
            selected: 0,
            offset: 0,
            viewport: 20,
            now: SystemTime::now(),
            notice: None,
        }
    }

    /// Remembers where discovery looks, so an empty result can say so.
    pub fn with_locations(mut self, locations: Locations) -> PickerState {
        self.locations = Some(locations);
        self
    }

    /// Measures last activity from `now` instead of the construction time.
    pub fn with_now(mut self, now: SystemTime) -> PickerState {
        self.now = now;
        self
    }

    /// Moves the reference time (the runtime may refresh it, e.g. on a tick).
    pub fn set_now(&mut self, now: SystemTime) {
        self.now = now;
    }

    /// Fills the picker with a finished discovery; the filter is kept and, when the selected
    /// session is still there, so is the selection.
    pub fn set_discovery(&mut self, discovery: Discovery) {
        let keep = self.selected_found().map(|f| f.path.clone());
        self.discovery = discovery;
        self.status = PickerStatus::Ready;
        self.refilter();
        if let Some(path) = keep {
            if let Some(pos) = self
                .matches
                .iter()
                .position(|&i| self.discovery.found[i].path == path)
            {
                self.selected = pos;
                self.keep_selection_visible();
            }
        }
    }

    /// Records the exact message count of the session at `path` (arriving after discovery).
    pub fn set_count(&mut self, path: &std::path::Path, messages: usize) {
        let found = self.discovery.found.iter_mut().find(|f| f.path == path);
        if let Some(f) = found {
            f.exact = Some(messages);
        }
    }

    /// Discovery could not run (e.g. no home directory); `message` is shown as the status.
    pub fn set_error(&mut self, message: impl Into<String>) {
        self.status = PickerStatus::Failed(message.into());
    }

    pub fn status(&self) -> &PickerStatus {
        &self.status
    }

    pub fn locations(&self) -> Option<&Locations> {
        self.locations.as_ref()
    }

    /// Every session found, newest first.
    pub fn found(&self) -> &[Found] {
        &self.discovery.found
    }

    /// Unreadable directories and files discovery passed over.
    pub fn skipped(&self) -> usize {
        self.discovery.skipped
    }

    pub fn query(&self) -> &str {
        &self.query
    }

    /// Indices into [`found`](Self::found) of the sessions the filter keeps, best first.
    pub fn matches(&self) -> &[usize] {
        &self.matches
    }

    /// Position in [`matches`](Self::matches) of the selection.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// First position in [`matches`](Self::matches) on screen.
    pub fn offset(&self) -> usize {
        self.offset
    }

    pub fn now(&self) -> SystemTime {
        self.now
    }

    /// The session the selection is on, if any matches.
    pub fn selected_found(&self) -> Option<&Found> {
        self.matches
            .get(self.selected)
            .and_then(|&i| self.discovery.found.get(i))
    }

    /// How many roots (one per tool) hold at least one session.
    pub fn roots_with_sessions(&self) -> usize {
        let mut tools: Vec<Format> = self.discovery.found.iter().map(|f| f.tool).collect();
        tools.sort_by_key(|t| t.name());
        tools.dedup();
        tools.len()
    }

    fn refilter(&mut self) {
        self.matches = filter(&self.discovery.found, &self.query);
        self.selected = 0;
        self.offset = 0;
    }

    fn keep_selection_visible(&mut self) {
        let rows = usize::from(self.viewport.max(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
        let last_page = self.matches.len().saturating_sub(rows);
        self.offset = self.offset.min(last_page);
    }

    fn open_selected(&self) -> Option<PickerOutcome> {
        self.selected_found()
            .map(|f| PickerOutcome::Open(f.path.clone(), Some(f.tool)))
    }
}

/// Applies one input; returns what the runtime must do next, if anything.
pub fn update(state: &mut PickerState, input: PickerInput) -> Option<PickerOutcome> {
    let page = usize::from(state.viewport.max(2)) - 1;
    let last = state.matches.len().saturating_sub(1);
    match input {
        PickerInput::Type(c) if !c.is_control() => edit(state, |q| q.push(c)),
        PickerInput::Type(_) => {}
        PickerInput::Backspace => edit(state, |q| {
            q.pop();
        }),
        PickerInput::DeleteWord => edit(state, delete_word),
        PickerInput::ClearFilter => edit(state, String::clear),
        PickerInput::Up => state.selected = state.selected.saturating_sub(1),
        PickerInput::Down => state.selected = (state.selected + 1).min(last),
        PickerInput::PageUp => state.selected = state.selected.saturating_sub(page),
        PickerInput::PageDown => state.selected = (state.selected + page).min(last),
        PickerInput::Home => state.selected = 0,
        PickerInput::End => state.selected = last,
        PickerInput::Enter => return state.open_selected(),
        PickerInput::Esc if !state.query.is_empty() => edit(state, String::clear),
        PickerInput::Esc | PickerInput::Quit => return Some(PickerOutcome::Quit),
        PickerInput::Viewport(rows) => state.viewport = rows,
        PickerInput::Click(row) => {
            let at = state.offset + usize::from(row);
            if row < state.viewport && at < state.matches.len() {
                if at == state.selected {
                    return state.open_selected();
                }
                state.selected = at;
            }
        }
    }
    state.keep_selection_visible();
    None
}

/// Changes the query and, when it changed, filters again from the top.
fn edit(state: &mut PickerState, change: impl FnOnce(&mut String)) {
    let before = state.query.clone();
    change(&mut state.query);
    if state.query != before {
        state.refilter();
    }
}

/// Drops trailing spaces, then the word before them.
fn delete_word(query: &mut String) {
    let kept = query
        .trim_end()
        .trim_end_matches(|c: char| !c.is_whitespace());
    query.truncate(kept.len());
}

/// The picker input a key sends, if any. Printable keys go to the filter; arrows, Ctrl-N and
/// Ctrl-P move.
pub fn picker_input(key: KeyEvent) -> Option<PickerInput> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    Some(match key.code {
        KeyCode::Char('c') if ctrl => PickerInput::Quit,
        KeyCode::Char('u') if ctrl => PickerInput::ClearFilter,
        KeyCode::Char('w') if ctrl => PickerInput::DeleteWord,
        KeyCode::Char('n') if ctrl => PickerInput::Down,
        KeyCode::Char('p') if ctrl => PickerInput::Up,
        KeyCode::Char(c) if !ctrl && !alt => PickerInput::Type(c),
        KeyCode::Backspace if ctrl || alt => PickerInput::DeleteWord,
        KeyCode::Backspace => PickerInput::Backspace,
        KeyCode::Up => PickerInput::Up,
        KeyCode::Down => PickerInput::Down,
        KeyCode::PageUp => PickerInput::PageUp,
        KeyCode::PageDown => PickerInput::PageDown,
        KeyCode::Home => PickerInput::Home,
        KeyCode::End => PickerInput::End,
        KeyCode::Enter => PickerInput::Enter,
        KeyCode::Esc => PickerInput::Esc,
        _ => return None,
    })
}

/// The picker input a mouse event sends, given the list's rows as last drawn (see
/// `views::picker::list_area`): the wheel moves, a left click selects or opens.
pub fn picker_mouse(event: MouseEvent, list: Rect) -> Option<PickerInput> {
    match event.kind {
        MouseEventKind::ScrollDown => Some(PickerInput::Down),
        MouseEventKind::ScrollUp => Some(PickerInput::Up),
        MouseEventKind::Down(MouseButton::Left)
            if list.contains((event.column, event.row).into()) =>
        {
            Some(PickerInput::Click(event.row - list.y))
        }
        _ => None,
    }
}
