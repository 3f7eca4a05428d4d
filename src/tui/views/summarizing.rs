//! A network summary being written (`c` with `--summarizer openai|anthropic`): who is writing
//! it, what was sent, and the text as it streams in, newest lines kept in view.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

use super::thousands;
use crate::tui::state::Summarizing;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, s: &Summarizing, theme: &Theme) {
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!(" {} ", s.label), theme.bold("title")),
            Span::styled(
                format!("is writing the {} summary · Esc cancels", s.plan.preset),
                theme.fg("dim"),
            ),
        ]),
        Line::styled(
            format!(
                " sent {} message{} · {} tokens{}",
                s.messages,
                if s.messages == 1 { "" } else { "s" },
                thousands(s.tokens as u64),
                match s.masked {
                    0 => String::new(),
                    n => format!(" · {n} secret(s) masked before sending"),
                }
            ),
            theme.fg("dim"),
        ),
        Line::raw(""),
    ];
    let room = usize::from(area.height.saturating_sub(1)).saturating_sub(lines.len() + 1);
    let text: Vec<&str> = s.text.lines().collect();
    if s.text.is_empty() {
        lines.push(Line::styled(
            " waiting for the first words…",
            theme.fg("dim"),
        ));
    }
    let skip = text.len().saturating_sub(room.max(1));
    if skip > 0 {
        lines.push(Line::styled(
            format!(" … {skip} earlier lines"),
            theme.fg("dim"),
        ));
    }
    let shown = text.len() - skip;
    for (i, l) in text.into_iter().skip(skip).enumerate() {
        let l = crate::text::screen_line(l).into_owned();
        let mut spans = vec![Span::styled(l, theme.fg("mark"))];
        if i + 1 == shown && !s.text.ends_with('\n') {
            spans.push(Span::styled("▍", theme.fg("title")));
        }
        lines.push(Line::from(spans));
    }
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.fg("title"));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
