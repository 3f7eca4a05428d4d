//! Terminal events to `Msg`s: which keys and clicks mean what on the screen in front.
//!
//! Owns: the mapping from a crossterm event to a message, given only what the screen in front
//! needs to know (`InputMode`), so the runtime can map input while the app itself is busy in an
//! update. Must not: change any state.

use crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};
use ratatui::layout::Rect;

use super::app::{App, Screen};
use super::keymap::map_key;
use super::msg::{Edit, Msg};
use super::picker;
use super::views;

/// What input mapping depends on: the screen in front and whether a prompt line is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    Picker,
    Inspect { prompt_open: bool },
}

impl InputMode {
    pub fn of(app: &App) -> InputMode {
        match &app.screen {
            Screen::Picker(_) => InputMode::Picker,
            _ => InputMode::Inspect {
                prompt_open: app.inspector().is_some_and(|s| s.prompt.is_some()),
            },
        }
    }

    /// The mode once `msg` is applied, as far as opening and closing the prompt line goes:
    /// what keys typed while it is applied will mean.
    pub fn after(self, msg: &Msg) -> InputMode {
        match (self, msg) {
            (InputMode::Inspect { .. }, Msg::Prompt(_)) => InputMode::Inspect { prompt_open: true },
            (InputMode::Inspect { .. }, Msg::PromptEdit(Edit::Submit | Edit::Cancel)) => {
                InputMode::Inspect { prompt_open: false }
            }
            (mode, _) => mode,
        }
    }
}

/// Input waiting to be applied: a message (a session loaded before the loop ran), or a terminal
/// event that came while an update ran, to be mapped once that update is done.
#[derive(Debug)]
pub enum Input {
    Msg(Msg),
    Event(Event),
}

/// The message a terminal event means in `mode` (`None`: nothing). `area` is the terminal's.
pub fn to_msg(mode: InputMode, event: Event, area: Rect) -> Option<Msg> {
    let prompt_open = match mode {
        InputMode::Picker => {
            return match event {
                Event::Key(key) if key.kind != KeyEventKind::Release => {
                    picker::picker_input(key).map(Msg::Picker)
                }
                Event::Mouse(m) => {
                    picker::picker_mouse(m, views::picker::list_area(area)).map(Msg::Picker)
                }
                _ => None,
            };
        }
        InputMode::Inspect { prompt_open } => prompt_open,
    };
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => map_key(key, prompt_open),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => Some(Msg::Wheel {
                column: m.column,
                row: m.row,
                down: m.kind == MouseEventKind::ScrollDown,
            }),
            MouseEventKind::Down(MouseButton::Left) => Some(Msg::Click {
                column: m.column,
                row: m.row,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `msg` asks to leave the program (`q`, Ctrl-C): the one key a busy inspector obeys
/// at once.
pub fn is_quit(msg: &Msg) -> bool {
    matches!(msg, Msg::Quit | Msg::Picker(picker::PickerInput::Quit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn key(c: char) -> Event {
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    }

    #[test]
    fn q_typed_after_a_slash_is_text_and_after_enter_quits() {
        let closed = InputMode::Inspect { prompt_open: false };
        let area = Rect::new(0, 0, 80, 24);
        let open = closed.after(&Msg::Prompt(crate::tui::msg::PromptKind::Search));
        assert!(!to_msg(open, key('q'), area).is_some_and(|m| is_quit(&m)));
        let submitted = open.after(&Msg::PromptEdit(Edit::Submit));
        assert!(to_msg(submitted, key('q'), area).is_some_and(|m| is_quit(&m)));
        assert_eq!(closed.after(&Msg::Down), closed);
    }
}
