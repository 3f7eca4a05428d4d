//! What the picker shows instead of its table: discovery still running, discovery failed,
//! nothing found (each root looked in and the environment variable that moves it), or nothing
//! matching the filter.
//!
//! Owns: the wording of those states. Must not read the environment: the roots come from the
//! state's `Locations`, the variable names from each format's `Home` (the ones
//! `Locations::from_vars` reads).

use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::live::discover::{homes, Locations};
use crate::tui::picker::{PickerState, PickerStatus};
use crate::tui::theme::Theme;

/// The paragraph shown where the table would be.
pub fn paragraph(state: &PickerState, theme: &Theme) -> Paragraph<'static> {
    let mut lines = vec![Line::raw("")];
    match state.status() {
        PickerStatus::Discovering => {
            lines.push(Line::styled(
                "  Looking for sessions in:",
                theme.fg("title"),
            ));
            lines.extend(roots(state.locations(), theme));
        }
        PickerStatus::Failed(message) => {
            lines.push(Line::styled(format!("  {message}"), theme.fg("error")));
            lines.push(Line::raw(""));
            lines.extend(open_directly(theme));
        }
        PickerStatus::Ready if state.found().is_empty() => {
            lines.push(Line::styled(
                "  No sessions found. Looked in:",
                theme.fg("title"),
            ));
            lines.extend(roots(state.locations(), theme));
            lines.push(Line::raw(""));
            lines.extend(open_directly(theme));
        }
        PickerStatus::Ready => {
            lines.push(Line::from(vec![
                Span::styled("  No session matches ", theme.fg("title")),
                Span::styled(format!("“{}”", state.query()), theme.bold("match")),
                Span::styled(
                    " (by tool, title or path). Backspace or Esc widens the search.",
                    theme.fg("dim"),
                ),
            ]));
        }
    }
    Paragraph::new(lines).wrap(Wrap { trim: false })
}

/// Each root on one line, the variable that moves it on the next.
fn roots(locations: Option<&Locations>, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for (format, home) in homes() {
        let dir = match locations.and_then(|l| l.root(format)) {
            Some(root) => root.display().to_string(),
            None => format!("~/{}", home.dir),
        };
        let role = crate::formats::registry::of(format).picker_role();
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<12}", home.tool), theme.fg(role)),
            Span::styled(dir, theme.fg("title")),
            Span::styled(format!("  {}", home.layout), theme.fg("dim")),
        ]));
        let how = match (home.var, home.var_below) {
            (Some(var), "") => format!("{:14}set {var} to look elsewhere", ""),
            (Some(var), _) => format!("{:14}set {var} (its parent) to look elsewhere", ""),
            (None, _) => format!("{:14}fixed location (no environment override)", ""),
        };
        lines.push(Line::styled(how, theme.fg("dim")));
    }
    lines
}

fn open_directly(theme: &Theme) -> Vec<Line<'static>> {
    vec![
        Line::styled(
            "  Or open one directly: ctxray path/to/session.jsonl (a session file or directory)",
            theme.fg("dim"),
        ),
        Line::styled("  Esc quits.", theme.fg("dim")),
    ]
}
