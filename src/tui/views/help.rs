//! The help overlay: the keys of the view in front (the inspector's, generated from the live
//! keymap, or the replay's), scrolled when they do not fit, with where it is and how to leave.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::keymap::{bindings, REPLAY_KEYS};
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

/// Columns of the keys column, before the help text.
const KEYS: usize = 10;

/// Draws the overlay; returns its lines and how many it shows at once.
pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) -> (u16, u16) {
    let (title, keys): (&str, Vec<(&str, &str)>) = match state.replay {
        Some(_) => (" replay keys ", REPLAY_KEYS.to_vec()),
        None => (" keys ", bindings().map(|b| (b.keys, b.help)).collect()),
    };
    // A help text wider than the popup goes on under itself, indented past the keys.
    let room = usize::from(area.width.saturating_sub(2)).saturating_sub(KEYS + 1);
    let mut lines: Vec<Line> = Vec::new();
    for (keys, help) in keys {
        for (i, part) in crate::text::wrap::words(help, room).into_iter().enumerate() {
            let keys = if i == 0 { keys } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!(" {keys:<KEYS$}"), theme.bold("title")),
                Span::styled(part, theme.fg("dim")),
            ]));
        }
    }
    let total = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let shown = area.height.saturating_sub(2);
    let scroll = state.help_scroll.min(total.saturating_sub(shown));
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(theme.fg("title"))
        .title_bottom(Line::styled(" Esc closes ", theme.fg("dim")).right_aligned());
    if total > shown && shown > 0 {
        let last = (scroll + shown).min(total);
        let at = format!(" j/k scroll · {}–{last} of {total} ", scroll + 1);
        block = block.title_bottom(Line::styled(at, theme.fg("dim")));
    }
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
    (total, shown)
}
