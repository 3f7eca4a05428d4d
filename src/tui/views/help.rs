//! The help overlay, generated from the live keymap.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::keymap::bindings;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, theme: &Theme) {
    let lines: Vec<Line> = bindings()
        .map(|b| {
            Line::from(vec![
                Span::styled(format!(" {:<10}", b.keys), theme.bold("title")),
                Span::styled(b.help, theme.fg("dim")),
            ])
        })
        .collect();
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" keys ")
        .border_style(theme.fg("title"));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
