//! The subagent chooser: the children of the inspected session (Claude Code subagents, Gemini
//! CLI sub-sessions), or the sessions of a file of many (an evaluation output's instances), each
//! with its title, messages and tokens; Enter opens one.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::thousands;
use crate::tui::state::AppState;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let selected = state.subagents.unwrap_or(0);
    let (one, many) = state.analysis.children_noun();
    let rows = usize::from(area.height.saturating_sub(2)).max(1);
    let first = selected.saturating_sub(rows - 1);
    let lines: Vec<Line> = state
        .analysis
        .children
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, child)| {
            let s = &child.session;
            let title = s
                .title
                .clone()
                .or_else(|| s.id.clone())
                .unwrap_or_else(|| format!("{} {}", one, i + 1));
            let line = Line::from(vec![
                Span::styled(format!(" {:>3} ", i + 1), theme.fg("dim")),
                Span::styled(
                    format!(
                        "{:>5} msgs {:>9} tokens  ",
                        s.messages.len(),
                        thousands(child.total_tokens() as u64)
                    ),
                    theme.fg("dim"),
                ),
                Span::styled(crate::text::inline(&title).into_owned(), theme.fg("title")),
            ]);
            if i == selected {
                line.style(Style::default().bg(theme.color("selected_bg")))
            } else {
                line
            }
        })
        .collect();
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(
            " {many} ({}) · Enter opens · Esc closes ",
            state.analysis.children.len()
        ))
        .border_style(theme.fg("title"));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
