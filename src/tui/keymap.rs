//! Keys → messages. The table is also what `?` shows, so help is never out of date.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::msg::Msg;

/// One binding: the keys shown in help, what it does, and the message it sends.
pub struct Binding {
    pub keys: &'static str,
    pub help: &'static str,
    pub msg: Msg,
}

pub fn bindings() -> Vec<Binding> {
    vec![
        Binding {
            keys: "j ↓",
            help: "next message",
            msg: Msg::Down,
        },
        Binding {
            keys: "k ↑",
            help: "previous message",
            msg: Msg::Up,
        },
        Binding {
            keys: "PgDn ^d",
            help: "page down",
            msg: Msg::PageDown,
        },
        Binding {
            keys: "PgUp ^u",
            help: "page up",
            msg: Msg::PageUp,
        },
        Binding {
            keys: "g Home",
            help: "first message",
            msg: Msg::Top,
        },
        Binding {
            keys: "G End",
            help: "last message",
            msg: Msg::Bottom,
        },
        Binding {
            keys: "Tab",
            help: "list ↔ detail",
            msg: Msg::FocusNext,
        },
        Binding {
            keys: "p",
            help: "next compaction preset",
            msg: Msg::NextPreset,
        },
        Binding {
            keys: "t",
            help: "context timeline",
            msg: Msg::ShowTimeline,
        },
        Binding {
            keys: "?",
            help: "help",
            msg: Msg::ToggleHelp,
        },
        Binding {
            keys: "Esc",
            help: "close / back",
            msg: Msg::Back,
        },
        Binding {
            keys: "q ^c",
            help: "quit",
            msg: Msg::Quit,
        },
    ]
}

/// The message a key sends, if any.
pub fn map_key(key: KeyEvent) -> Option<Msg> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('c') if ctrl => Msg::Quit,
        KeyCode::Char('d') if ctrl => Msg::PageDown,
        KeyCode::Char('u') if ctrl => Msg::PageUp,
        KeyCode::Char('j') | KeyCode::Down => Msg::Down,
        KeyCode::Char('k') | KeyCode::Up => Msg::Up,
        KeyCode::PageDown => Msg::PageDown,
        KeyCode::PageUp => Msg::PageUp,
        KeyCode::Char('g') | KeyCode::Home => Msg::Top,
        KeyCode::Char('G') | KeyCode::End => Msg::Bottom,
        KeyCode::Tab | KeyCode::BackTab => Msg::FocusNext,
        KeyCode::Char('p') => Msg::NextPreset,
        KeyCode::Char('s') => Msg::ShowSummarizer,
        KeyCode::Char('d') => Msg::ShowDiff,
        KeyCode::Char('t') => Msg::ShowTimeline,
        KeyCode::Enter => Msg::ShowMessage,
        KeyCode::Char('?') => Msg::ToggleHelp,
        KeyCode::Esc => Msg::Back,
        KeyCode::Char('q') => Msg::Quit,
        _ => return None,
    })
}
