//! What can happen to the inspector (`Msg`) and what it asks the runtime to do (`Effect`).

use ratatui::layout::Rect;

/// An input to `update`: a key mapped through the keymap, a mouse event, a frame's layout, a
/// task's result.
#[derive(Debug)]
pub enum Msg {
    /// A session finished loading.
    Loaded(Box<crate::analysis::Analysis>),
    /// Loading failed (before anything was shown) or a live source broke (after).
    LoadFailed(String),
    /// The followed file changed: the session analysed again.
    SessionUpdated(Box<crate::analysis::Analysis>),
    /// A large file shown while it is still being read: `read` of its `total` bytes are in
    /// the session shown (all of them: the load is done).
    Reading {
        read: u64,
        total: u64,
    },
    /// Session discovery for the picker finished.
    Discovered(crate::live::discover::Discovery),
    /// The messages the inspector shows for a session the picker lists, once parsed.
    Counted(std::path::PathBuf, usize),
    /// A key or click on the session picker.
    Picker(crate::tui::picker::PickerInput),
    /// A what-if search run apart finished (`Err`: why it could not plan).
    WhatIfDone(
        crate::tui::state::RunKey,
        Result<crate::timeline::WhatIf, String>,
    ),
    /// A plan run apart (a large session) finished.
    Planned(
        crate::tui::state::RunKey,
        Box<Result<crate::tui::state::Planned, String>>,
    ),
    /// The settings that make a preset fire, found apart (`w`, `--demo`).
    DemoFound(
        crate::tui::state::RunKey,
        Result<crate::compaction::demo::Fit, String>,
    ),
    /// A replay's step computed apart (`s`, `d`, Enter in a replay).
    Drilled(Box<crate::tui::drill::Drilled>),
    /// Demo mode on or off (`w`).
    Demo,
    /// The legend under the list on or off (`L`).
    ToggleLegend,
    /// The diff of a plan run apart.
    Diffed(crate::tui::state::RunKey, Box<crate::diff::Diff>),
    /// A replay run apart (a large session) finished (`Err`: why the preset could not replay).
    Replayed(
        crate::tui::state::RunKey,
        Box<Result<crate::replay::Replay, String>>,
    ),
    /// Where a replay run apart stands (sent a few times a second while it runs).
    ReplayProgress(crate::tui::state::RunKey, crate::replay::Progress),
    /// A compaction carried out apart (`Effect::Run` of `Work::Compact`).
    Compacted(Box<crate::tui::jobs::Compacted>),
    /// The replay's animation clock: this much time passed since the last tick (the runtime
    /// sends it only while a replay plays).
    Tick(std::time::Duration),
    /// Something worth a line in the footer (a live source ended).
    Notice(String),
    /// A live source could not be read this time (the last good session stays on screen): shown
    /// in the footer until the source reads well again.
    SourceFault(String),
    /// Text a network summarizer streamed for the call `id`.
    SummaryDelta {
        id: u64,
        text: String,
    },
    /// The network summarizer call `id` finished (`Err`: why it failed, key never included).
    SummaryDone {
        id: u64,
        result: Result<crate::summarize::Summary, String>,
    },
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Move focus between the message list and the detail pane.
    FocusNext,
    /// Cycle the active compaction preset (forward, or backward with `P`).
    NextPreset,
    PrevPreset,
    /// Turn the active preset's main setting up (`+`) or down (`-`).
    Knob(i8),
    ToggleHelp,
    /// Show the exact summarizer request of the active preset in the detail pane.
    ShowSummarizer,
    /// Show the diff of the summarized range against the summarizer input.
    ShowDiff,
    /// Show the context timeline (tokens per request, compactions, trigger, what-if).
    ShowTimeline,
    /// Show the selected message in the detail pane.
    ShowMessage,
    /// Run the active preset's compaction (offline summary, or the network summarizer chosen
    /// on the command line) and inspect the result.
    Compact,
    /// Play the replay of the session under the active preset (or leave it).
    Replay,
    /// In the replay: pause or resume.
    PlayPause,
    /// In the replay: one step back (-1) or forward (+1), pausing.
    Step(i8),
    /// In the replay: slower (-1) or faster (+1).
    Speed(i8),
    /// Open the subagents of this session (or the selected one, when the list is open).
    Subagents,
    /// Open a prompt line: `/` search or `:` command.
    Prompt(PromptKind),
    /// A key typed into the open prompt.
    PromptEdit(Edit),
    /// Jump to the message the next (previous) finding names.
    NextFinding,
    PrevFinding,
    /// Next / previous match of the last search.
    SearchNext,
    SearchPrev,
    /// Close the help or, with nothing open, quit.
    Back,
    Quit,
    /// The mouse: a click or a wheel turn at a screen cell.
    Click {
        column: u16,
        row: u16,
    },
    Wheel {
        column: u16,
        row: u16,
        down: bool,
    },
    /// Where the last frame put things (the list's rows, the panes), for the mouse and paging.
    Frame(FrameLayout),
    /// Rows available to the message list, as laid out by the last frame.
    Viewport(u16),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Search,
    Command,
}

/// An edit of the prompt line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Char(char),
    Backspace,
    /// Ctrl-U: clear the line.
    Clear,
    /// Tab: complete the word under the cursor (`:` prompt).
    Complete,
    /// Up / Down: an older or newer line from this prompt's history.
    Older,
    Newer,
    Submit,
    Cancel,
}

/// What one frame laid out where.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameLayout {
    pub list: Rect,
    /// The message each row of the list shows (`None` for rules: marks, the cut).
    pub rows: Vec<Option<usize>>,
    pub detail: Rect,
    /// The rows the detail pane's content takes, wrapped to its width, its border included
    /// (0 when the pane shows something that does not scroll).
    pub detail_rows: usize,
    /// What the detail pane showed: the selected message and the view.
    pub detail_of: Option<(usize, crate::tui::state::DetailMode)>,
    /// The help overlay's lines, and how many of them it showed at once.
    pub help: (u16, u16),
}

impl FrameLayout {
    /// The furthest the detail pane scrolls: its last row at the bottom of the pane.
    pub fn detail_scroll_max(&self) -> usize {
        self.detail_rows
            .saturating_sub(usize::from(self.detail.height))
    }

    /// The furthest the help overlay scrolls (its last line at its bottom).
    pub fn help_scroll_max(&self) -> u16 {
        self.help.0.saturating_sub(self.help.1)
    }
}

/// Work `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// Esc at the top of the inspector: back to the picker the session was opened from, where
    /// there is one; nothing else (Esc never quits, `q` does).
    Leave,
    /// Start loading this session (the app shows the loading screen).
    Load(std::path::PathBuf, Option<crate::session::Format>),
    /// Leave the terminal and report this error (exit status 2).
    Fail(String),
    /// The screen changed without an input of its own.
    Redraw,
    /// Call the network summarizer on these messages; report as call `id`.
    Summarize {
        id: u64,
        choice: crate::summarize::Choice,
        messages: Vec<crate::compaction::PromptMessage>,
    },
    /// Stop the network summarizer call `id` (the connection is closed).
    CancelSummary(u64),
    /// Do this work apart; its results come back as messages.
    Run(crate::tui::jobs::Job),
    /// Stop the work of this kind that runs or waits (its result is dropped).
    Cancel(crate::tui::jobs::Kind),
}
