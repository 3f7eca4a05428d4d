//! What can happen to the inspector (`Msg`) and what it asks the runtime to do (`Effect`).

/// An input to `update`: a key mapped through the keymap, a resize, a task's result.
#[derive(Debug)]
pub enum Msg {
    /// The followed file changed: the session analysed again.
    SessionUpdated(Box<crate::analysis::Analysis>),
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Move focus between the message list and the detail pane.
    FocusNext,
    /// Cycle the active compaction preset.
    NextPreset,
    ToggleHelp,
    /// Show the exact summarizer request of the active preset in the detail pane.
    ShowSummarizer,
    /// Show the diff of the summarized range against the summarizer input.
    ShowDiff,
    /// Show the context timeline (tokens per request, compactions, trigger, what-if).
    ShowTimeline,
    /// Show the selected message in the detail pane.
    ShowMessage,
    /// Close the help or, with nothing open, quit.
    Back,
    Quit,
    /// Rows available to the message list, as laid out by the last frame.
    Viewport(u16),
}

/// Work `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
}
