//! The only place state changes: `update(state, msg) -> effects`. Pure — no IO, no terminal.

use super::msg::{Effect, Msg};
use super::state::{AppState, DetailMode, Focus};
use crate::compaction::preset;

pub fn update(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let page = usize::from(state.viewport.max(2)) - 1;
    match msg {
        Msg::Quit => return vec![Effect::Quit],
        Msg::Back if state.show_help => state.show_help = false,
        Msg::Back if state.detail_mode != DetailMode::Message => show(state, DetailMode::Message),
        Msg::Back if state.focus == Focus::Detail => state.focus = Focus::List,
        Msg::Back => return vec![Effect::Quit],
        Msg::ToggleHelp => state.show_help = !state.show_help,
        Msg::FocusNext => {
            state.focus = match state.focus {
                Focus::List => Focus::Detail,
                Focus::Detail => Focus::List,
            }
        }
        Msg::Viewport(rows) => state.viewport = rows,
        Msg::SessionUpdated(analysis) => session_updated(state, *analysis),
        Msg::ShowSummarizer => show(state, DetailMode::Summarizer),
        Msg::ShowDiff => show(state, DetailMode::Diff),
        Msg::ShowMessage => show(state, DetailMode::Message),
        Msg::ShowTimeline => show(state, DetailMode::Timeline),
        Msg::NextPreset => next_preset(state),
        Msg::Down | Msg::Up | Msg::PageDown | Msg::PageUp | Msg::Top | Msg::Bottom => {
            if state.focus == Focus::Detail {
                scroll_detail(state, &msg, page as u16);
            } else {
                move_selection(state, &msg, page);
            }
        }
    }
    keep_selection_visible(state);
    Vec::new()
}

/// A followed file grew (or was replaced): keep the selection, scroll along when it was on the
/// last message, count the new ones otherwise.
fn session_updated(state: &mut AppState, analysis: crate::analysis::Analysis) {
    let before = state.len();
    let at_bottom = before == 0 || state.selected + 1 >= before;
    state.analysis = analysis;
    let after = state.len();
    state.replan();
    if after < before {
        state.unseen = 0;
        state.selected = state.selected.min(after.saturating_sub(1));
    } else if at_bottom {
        state.selected = after.saturating_sub(1);
        state.unseen = 0;
    } else {
        state.unseen += after - before;
    }
}

fn show(state: &mut AppState, mode: DetailMode) {
    state.detail_mode = mode;
    state.detail_scroll = 0;
}

fn move_selection(state: &mut AppState, msg: &Msg, page: usize) {
    let last = state.len().saturating_sub(1);
    let before = state.selected;
    state.selected = match msg {
        Msg::Down => (before + 1).min(last),
        Msg::Up => before.saturating_sub(1),
        Msg::PageDown => (before + page).min(last),
        Msg::PageUp => before.saturating_sub(page),
        Msg::Top => 0,
        _ => last,
    };
    if state.selected == last {
        state.unseen = 0;
    }
    if state.selected != before && state.detail_mode == DetailMode::Message {
        state.detail_scroll = 0;
    }
}

fn scroll_detail(state: &mut AppState, msg: &Msg, page: u16) {
    state.detail_scroll = match msg {
        Msg::Down => state.detail_scroll.saturating_add(1),
        Msg::Up => state.detail_scroll.saturating_sub(1),
        Msg::PageDown => state.detail_scroll.saturating_add(page),
        Msg::PageUp => state.detail_scroll.saturating_sub(page),
        Msg::Top => 0,
        _ => u16::MAX / 2,
    };
}

fn keep_selection_visible(state: &mut AppState) {
    let rows = usize::from(state.viewport.max(1));
    if state.selected < state.offset {
        state.offset = state.selected;
    } else if state.selected >= state.offset + rows {
        state.offset = state.selected + 1 - rows;
    }
}

/// Cycles through every preset, then none.
fn next_preset(state: &mut AppState) {
    let names: Vec<&'static str> = preset::all().iter().map(|p| p.name()).collect();
    let current = state
        .preset
        .as_deref()
        .and_then(|n| names.iter().position(|x| *x == n));
    state.preset = match current {
        None => names.first().map(|n| n.to_string()),
        Some(i) if i + 1 < names.len() => Some(names[i + 1].to_string()),
        Some(_) => None,
    };
    state.sets.clear();
    state.replan();
}
