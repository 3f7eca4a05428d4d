//! Keys → messages. One table drives both the mapping and what `?` shows, so help is never
//! out of date. While a prompt line is open, keys edit it instead.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::msg::{Edit, Msg, PromptKind};

/// A key as the table names it: a code and whether Ctrl is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key(pub KeyCode, pub bool);

const fn plain(c: char) -> Key {
    Key(KeyCode::Char(c), false)
}

const fn ctrl(c: char) -> Key {
    Key(KeyCode::Char(c), true)
}

/// One binding: the keys it listens to, how help shows them, what it does, what it sends.
pub struct Binding {
    pub keys: &'static str,
    pub help: &'static str,
    pub listens: &'static [Key],
    pub msg: fn() -> Msg,
}

const BINDINGS: &[Binding] = &[
    Binding {
        keys: "j ↓",
        help: "next message (detail focused: scroll)",
        listens: &[plain('j'), Key(KeyCode::Down, false)],
        msg: || Msg::Down,
    },
    Binding {
        keys: "k ↑",
        help: "previous message",
        listens: &[plain('k'), Key(KeyCode::Up, false)],
        msg: || Msg::Up,
    },
    Binding {
        keys: "PgDn ^d",
        help: "page down",
        listens: &[Key(KeyCode::PageDown, false), ctrl('d'), ctrl('f')],
        msg: || Msg::PageDown,
    },
    Binding {
        keys: "PgUp ^u",
        help: "page up",
        listens: &[Key(KeyCode::PageUp, false), ctrl('u'), ctrl('b')],
        msg: || Msg::PageUp,
    },
    Binding {
        keys: "g Home",
        help: "first message",
        listens: &[plain('g'), Key(KeyCode::Home, false)],
        msg: || Msg::Top,
    },
    Binding {
        keys: "G End",
        help: "last message (and resume following)",
        listens: &[plain('G'), Key(KeyCode::End, false)],
        msg: || Msg::Bottom,
    },
    Binding {
        keys: "Tab",
        help: "list ↔ detail",
        listens: &[Key(KeyCode::Tab, false), Key(KeyCode::BackTab, false)],
        msg: || Msg::FocusNext,
    },
    Binding {
        keys: "Enter",
        help: "show the message / open a subagent",
        listens: &[Key(KeyCode::Enter, false)],
        msg: || Msg::ShowMessage,
    },
    Binding {
        keys: "s",
        help: "summarizer input of the preset",
        listens: &[plain('s')],
        msg: || Msg::ShowSummarizer,
    },
    Binding {
        keys: "d",
        help: "diff: history vs summarizer input",
        listens: &[plain('d')],
        msg: || Msg::ShowDiff,
    },
    Binding {
        keys: "t",
        help: "timeline: context per request, trigger, compactions",
        listens: &[plain('t')],
        msg: || Msg::ShowTimeline,
    },
    Binding {
        keys: "c",
        help: "compact now (with --summarizer); again on the result",
        listens: &[plain('c')],
        msg: || Msg::Compact,
    },
    Binding {
        keys: "r",
        help: "replay (space pause · [ ] step · < > speed · Esc)",
        listens: &[plain('r')],
        msg: || Msg::Replay,
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain(' ')],
        msg: || Msg::PlayPause,
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain('[')],
        msg: || Msg::Step(-1),
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain(']')],
        msg: || Msg::Step(1),
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain('<')],
        msg: || Msg::Speed(-1),
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain('>')],
        msg: || Msg::Speed(1),
    },
    Binding {
        keys: "p P",
        help: "next / previous compaction preset",
        listens: &[plain('p')],
        msg: || Msg::NextPreset,
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain('P')],
        msg: || Msg::PrevPreset,
    },
    Binding {
        keys: "w",
        help: "demo: scale the window so the preset fires (again: undo)",
        listens: &[plain('w')],
        msg: || Msg::Demo,
    },
    Binding {
        keys: "L",
        help: "legend: bars, edge marks, brackets, rules",
        listens: &[plain('L')],
        msg: || Msg::ToggleLegend,
    },
    Binding {
        keys: "+ -",
        help: "turn the preset's main setting up / down",
        listens: &[plain('+'), plain('=')],
        msg: || Msg::Knob(1),
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain('-'), plain('_')],
        msg: || Msg::Knob(-1),
    },
    Binding {
        keys: ":",
        help: ":set K=V :unset K :preset P :q · Tab completes · ↑↓",
        listens: &[plain(':')],
        msg: || Msg::Prompt(PromptKind::Command),
    },
    Binding {
        keys: "/",
        help: "search messages (smart case)",
        listens: &[plain('/')],
        msg: || Msg::Prompt(PromptKind::Search),
    },
    Binding {
        keys: "n N",
        help: "next / previous match",
        listens: &[plain('n')],
        msg: || Msg::SearchNext,
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain('N')],
        msg: || Msg::SearchPrev,
    },
    Binding {
        keys: "f F",
        help: "jump to the next / previous finding's message",
        listens: &[plain('f')],
        msg: || Msg::NextFinding,
    },
    Binding {
        keys: "",
        help: "",
        listens: &[plain('F')],
        msg: || Msg::PrevFinding,
    },
    Binding {
        keys: "a",
        help: "subagents of this session; the sessions of a file of many",
        listens: &[plain('a')],
        msg: || Msg::Subagents,
    },
    Binding {
        keys: "?",
        help: "help",
        listens: &[plain('?')],
        msg: || Msg::ToggleHelp,
    },
    Binding {
        keys: "Esc",
        help: "close / back / leave a subagent; never quits (q does)",
        listens: &[Key(KeyCode::Esc, false)],
        msg: || Msg::Back,
    },
    Binding {
        keys: "q ^c",
        help: "quit",
        listens: &[plain('q'), ctrl('c')],
        msg: || Msg::Quit,
    },
];

/// The keys of a replay, which takes them while it is open (`tui::replay::key`).
pub const REPLAY_KEYS: &[(&str, &str)] = &[
    ("space", "play / pause (at the end: again from the start)"),
    ("[ ]", "one step back / forward"),
    ("< >", "slower / faster"),
    ("Home End", "first step (playing on) / last step"),
    (
        "s",
        "the step's history and its summarizer input (Esc: back here)",
    ),
    ("d", "the step's history and the diff of what it summarizes"),
    (
        "Enter",
        "the history the step's compaction left, its summary, findings",
    ),
    ("?", "help"),
    ("Esc q r", "leave the replay"),
];

/// The bindings help shows (continuation rows of a shared line have empty `keys`).
pub fn bindings() -> impl Iterator<Item = &'static Binding> {
    BINDINGS.iter().filter(|b| !b.keys.is_empty())
}

/// The message a key sends, if any. `prompt_open`: a prompt line takes the keys.
pub fn map_key(key: KeyEvent, prompt_open: bool) -> Option<Msg> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if prompt_open {
        return Some(Msg::PromptEdit(match key.code {
            KeyCode::Char('c') if ctrl => Edit::Cancel,
            KeyCode::Char('u') if ctrl => Edit::Clear,
            KeyCode::Char(c) if !ctrl => Edit::Char(c),
            KeyCode::Backspace => Edit::Backspace,
            KeyCode::Tab => Edit::Complete,
            KeyCode::Up => Edit::Older,
            KeyCode::Down => Edit::Newer,
            KeyCode::Enter => Edit::Submit,
            KeyCode::Esc => Edit::Cancel,
            _ => return None,
        }));
    }
    let pressed = Key(key.code, ctrl);
    BINDINGS
        .iter()
        .find(|b| b.listens.contains(&pressed))
        .map(|b| (b.msg)())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice() {
        let mut seen = Vec::new();
        for b in BINDINGS {
            for k in b.listens {
                assert!(!seen.contains(k), "{k:?} bound twice");
                seen.push(*k);
            }
        }
    }

    #[test]
    fn a_prompt_takes_letters_that_are_otherwise_commands() {
        let q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
        assert!(matches!(map_key(q, false), Some(Msg::Quit)));
        assert!(matches!(
            map_key(q, true),
            Some(Msg::PromptEdit(Edit::Char('q')))
        ));
        let c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert!(matches!(map_key(c, false), Some(Msg::Quit)));
        assert!(matches!(
            map_key(c, true),
            Some(Msg::PromptEdit(Edit::Cancel))
        ));
    }
}
