//! Rendering: one file per pane, each a function of `&AppState` and the theme. No state is
//! changed here; the only thing a frame reports back is where the list rows and panes went
//! (`FrameLayout`, for the mouse and paging).

mod detail;
mod diff;
mod footer;
mod header;
mod help;
mod legend;
mod list;
mod loading;
pub mod picker;
mod replay;
mod result;
mod subagents;
mod summarizer;
mod summarizing;
mod timeline;

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::Frame;

use super::app::{App, Screen};
use super::msg::FrameLayout;
use super::state::AppState;
use super::theme::Theme;

/// Draws the screen in front; returns the inspector's layout when it is the one shown.
pub fn render_app(frame: &mut Frame, app: &App, theme: &Theme) -> Option<FrameLayout> {
    match &app.screen {
        Screen::Loading(loading) => {
            loading::render(frame, frame.area(), loading, theme);
            None
        }
        Screen::Inspect(state) => Some(render(frame, state, theme)),
        Screen::Picker(p) => {
            let rows = picker::render(frame, frame.area(), p, theme);
            Some(FrameLayout {
                rows: vec![None; usize::from(rows)],
                ..FrameLayout::default()
            })
        }
    }
}

/// Draws a whole inspector frame; returns where the list rows and the panes went.
pub fn render(frame: &mut Frame, state: &AppState, theme: &Theme) -> FrameLayout {
    let area = frame.area();
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(header::height(state)),
            Constraint::Min(3),
            Constraint::Length(legend_rows(state, theme, area)),
            Constraint::Length(footer::height(state, area.width)),
        ])
        .split(area);
    if let Some(player) = &state.replay {
        let screen = Rect {
            height: rows[0].height + rows[1].height,
            ..rows[0]
        };
        replay::render(frame, screen, state, player, theme);
        footer::render(frame, rows[3], state, theme);
        let mut layout = state.layout.clone();
        if state.show_help {
            layout.help = help::render(frame, help_area(area), state, theme);
        }
        // The list is not drawn: its layout stays as the last frame left it.
        return layout;
    }
    header::render(frame, rows[0], state, theme);
    let wide = rows[1].width >= 100;
    let body = Layout::default()
        .direction(if wide {
            Direction::Horizontal
        } else {
            Direction::Vertical
        })
        .constraints([
            Constraint::Percentage(if wide { 58 } else { 60 }),
            Constraint::Min(if wide { 10 } else { DETAIL_UNDER }),
        ])
        .split(rows[1]);
    let (list, list_rows) = list::render(frame, body[0], state, theme);
    if rows[2].height > 0 {
        legend::render(frame, rows[2], theme);
    }
    let detail_rows = detail::render(frame, body[1], state, theme);
    footer::render(frame, rows[3], state, theme);
    if state.subagents.is_some() {
        subagents::render(frame, centered(area, 70, 60), state, theme);
    }
    let help = match state.show_help {
        true => help::render(frame, help_area(area), state, theme),
        false => (0, 0),
    };
    FrameLayout {
        list,
        rows: list_rows,
        detail: body[1],
        detail_rows,
        detail_of: Some((state.selected, state.detail_mode)),
        help,
    }
}

/// The rows the detail pane keeps at least when it sits under the list (a narrow screen).
const DETAIL_UNDER: u16 = 6;

/// The legend's rows: none when it is off, or when the screen is too short to give it rows
/// without squeezing the list under eight (and, on a narrow screen, the detail pane under it
/// under [`DETAIL_UNDER`]).
fn legend_rows(state: &AppState, theme: &Theme, area: Rect) -> u16 {
    if !state.legend || state.replay.is_some() {
        return 0;
    }
    let rows = legend::height(theme, area.width);
    let rest = header::height(state) + footer::height(state, area.width);
    let body = if area.width >= 100 {
        8
    } else {
        8 + DETAIL_UNDER
    };
    if area.height < rest + rows + body {
        0
    } else {
        rows
    }
}

/// Where the help popup goes: 70% of a wide screen, nearly all of a narrow one, so that its lines
/// wrap as little as they can.
fn help_area(area: Rect) -> Rect {
    let w = (area.width * 70 / 100).max(area.width.saturating_sub(4).min(76));
    let h = area.height * 90 / 100;
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn centered(area: Rect, pct_x: u16, pct_y: u16) -> Rect {
    let w = area.width * pct_x / 100;
    let h = area.height * pct_y / 100;
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

pub use crate::text::thousands;

/// The first of `candidates` that fits in `width` columns (the last when none does): a line
/// with shorter words for a narrow terminal, rather than the long one cut.
fn first_fitting<'a, const N: usize>(
    width: u16,
    candidates: [ratatui::text::Line<'a>; N],
) -> ratatui::text::Line<'a> {
    let mut last = None;
    for line in candidates {
        if line.width() <= usize::from(width) {
            return line;
        }
        last = Some(line);
    }
    last.unwrap_or_default()
}
