//! What the picker shows instead of its table: discovery still running, discovery failed,
//! nothing found (each root looked in and the environment variable that moves it), or nothing
//! matching the filter.
//!
//! Owns: the wording of those states. Must not read the environment: the roots come from the
//! state's `Locations`, the variable names from the table below (the ones
//! `Locations::from_vars` reads).

use std::path::Path;

use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::live::discover::Locations;
use crate::tui::picker::{PickerState, PickerStatus};
use crate::tui::theme::Theme;

/// One place discovery looks: the tool, its root, the layout below the root, and the
/// variable that overrides the root, if there is one.
struct Root {
    tool: &'static str,
    role: &'static str,
    default: &'static str,
    layout: &'static str,
    env: Option<&'static str>,
    of: fn(&Locations) -> &Path,
}

const ROOTS: [Root; 4] = [
    Root {
        tool: "Claude Code",
        role: "agent_claude",
        default: "~/.claude",
        layout: "projects/*/*.jsonl",
        env: Some("CLAUDE_CONFIG_DIR"),
        of: |l| &l.claude,
    },
    Root {
        tool: "Codex",
        role: "agent_codex",
        default: "~/.codex",
        layout: "sessions/**/rollout-*.jsonl, archived_sessions/",
        env: Some("CODEX_HOME"),
        of: |l| &l.codex,
    },
    Root {
        tool: "OpenHands",
        role: "agent_openhands",
        default: "~/.openhands",
        layout: "conversations/*/, agent-canvas/conversations/*/",
        env: Some("OPENHANDS_PERSISTENCE_DIR"),
        of: |l| &l.openhands,
    },
    Root {
        tool: "Gemini CLI",
        role: "agent_gemini",
        default: "~/.gemini",
        layout: "tmp/*/chats/, tmp/*/checkpoint-*.json",
        env: Some("GEMINI_CLI_HOME (its parent)"),
        of: |l| &l.gemini,
    },
];

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
    for root in &ROOTS {
        let dir = match locations {
            Some(l) => (root.of)(l).display().to_string(),
            None => root.default.to_string(),
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<12}", root.tool), theme.fg(root.role)),
            Span::styled(dir, theme.fg("title")),
            Span::styled(format!("  {}", root.layout), theme.fg("dim")),
        ]));
        let how = match root.env {
            Some(var) => format!("{:14}set {var} to look elsewhere", ""),
            None => format!("{:14}fixed location (no environment override)", ""),
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
