//! The only place the inspector's state changes: `update(state, msg) -> effects`. Pure and
//! cheap — no IO, no terminal, no plan: work (a plan, a what-if search, a replay, carrying out
//! a compaction) leaves as `Effect::Run` and comes back as a `Msg`.

use super::msg::{Edit, Effect, Msg, PromptKind};
use super::state::{AppState, DetailMode, Focus, Search, Summarizing};
use crate::compaction::presets;
use crate::compaction::Plan;

pub fn update(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let compacting = state.compacting.is_some();
    let landed = matches!(msg, Msg::Compacted(_));
    let replaying = super::replay::computing(state);
    let replayed = matches!(msg, Msg::Replayed(..));
    let mut effects = apply(state, msg);
    // A compaction no longer awaited (Esc, or a new plan asked meanwhile) stops running.
    if compacting && state.compacting.is_none() && !landed {
        effects.push(Effect::Cancel(super::jobs::Kind::Compact));
    }
    // So does a replay left (Esc) before it came back: it could run for minutes.
    if let Some(key) = replaying.filter(|_| !replayed) {
        if super::replay::computing(state).as_ref() != Some(&key) {
            effects.push(Effect::Cancel(super::jobs::Kind::Replay));
        }
    }
    effects.extend(state.take_jobs().into_iter().map(Effect::Run));
    effects
}

fn apply(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let page = usize::from(state.viewport.max(2)) - 1;
    // A key clears the footer's notice; the results of work do not (a refused setting's
    // notice stays while the plan before it is made again).
    if is_key(&msg) {
        state.notice = None;
    }
    if state.show_help && is_key(&msg) {
        return help_key(state, msg);
    }
    if state.subagents.is_some() && is_key(&msg) {
        return subagent_key(state, msg);
    }
    if let (Some(p), Some(open)) = (&state.replay, drill_of(&msg)) {
        if p.replay.is_some() {
            state.drill(open);
            return Vec::new();
        }
    }
    if state.replay.is_some() && is_key(&msg) {
        return super::replay::key(state, msg);
    }
    match msg {
        Msg::Quit => return vec![Effect::Quit],
        Msg::Back if state.summarizing.is_some() => return cancel_summary(state),
        Msg::Back if state.compacting.is_some() => {
            state.compacting = None;
            state.notice = Some("compaction cancelled: the history is unchanged".into());
        }
        Msg::Back if state.detail_mode != DetailMode::Message => show(state, DetailMode::Message),
        Msg::Back if state.focus == Focus::Detail => state.focus = Focus::List,
        Msg::Back if state.search.is_some() => state.search = None,
        Msg::Back if state.parent.is_some() => leave_child(state),
        Msg::Back if state.previous.is_some() => {
            if let Some(previous) = state.previous.take() {
                let history = std::mem::take(&mut state.history);
                *state = *previous;
                state.history = history;
            }
        }
        Msg::Back => {
            state.notice = Some("at the top: q quits".into());
            return vec![Effect::Leave];
        }
        Msg::ToggleHelp => state.show_help = true,
        Msg::FocusNext => {
            state.focus = match state.focus {
                Focus::List => Focus::Detail,
                Focus::Detail => Focus::List,
            }
        }
        Msg::Viewport(rows) => state.viewport = rows,
        Msg::Frame(layout) => {
            state.viewport = layout.rows.len().min(usize::from(u16::MAX)) as u16;
            if layout.detail_rows > 0 {
                state.detail_scroll = state.detail_scroll.min(layout.detail_scroll_max());
            }
            state.layout = layout;
        }
        Msg::SessionUpdated(analysis) => session_updated(state, *analysis),
        Msg::Loaded(analysis) => session_updated(state, *analysis),
        Msg::LoadFailed(text) | Msg::Notice(text) => state.notice = Some(text),
        Msg::SourceFault(text) => {
            state.notice = Some(text.clone());
            state.fault = Some(text);
        }
        // Once the whole session is in, a plan that waited for it is asked for.
        Msg::Reading { read, total } => {
            let was = state.loading.is_some();
            state.loading = (read < total).then_some((read, total));
            if was && state.loading.is_none() {
                state.loaded_whole();
            }
        }
        Msg::Discovered(_) | Msg::Counted(..) | Msg::Picker(_) => {}
        Msg::Planned(key, result) => state.planned(key, *result),
        Msg::Diffed(key, diff) => state.diffed(key, *diff),
        Msg::WhatIfDone(key, result) => state.what_if_done(key, result),
        Msg::DemoFound(key, fit) => state.demo_found(key, fit),
        Msg::Drilled(d) => state.drilled(*d),
        Msg::Demo => state.toggle_demo(),
        Msg::ToggleLegend => state.legend = !state.legend,
        Msg::ShowSummarizer => show(state, DetailMode::Summarizer),
        Msg::ShowDiff => show(state, DetailMode::Diff),
        Msg::ShowMessage => show_or_open(state),
        Msg::NextPreset => cycle_preset(state, true),
        Msg::PrevPreset => cycle_preset(state, false),
        Msg::Knob(dir) => turn_knob(state, dir),
        Msg::Subagents => open_subagents(state),
        Msg::Compact => return compact(state),
        Msg::Replay => super::replay::enter(state),
        Msg::Replayed(key, result) => super::replay::replayed(state, key, *result),
        Msg::ReplayProgress(key, progress) => super::replay::progressed(state, &key, progress),
        Msg::Tick(elapsed) => super::replay::tick(state, elapsed),
        Msg::PlayPause | Msg::Step(_) | Msg::Speed(_) => {
            state.notice = Some("no replay playing: r starts one".into());
        }
        Msg::SummaryDelta { id, text } => {
            if let Some(s) = state.summarizing.as_mut().filter(|s| s.id == id) {
                s.text.push_str(&text);
            }
        }
        Msg::SummaryDone { id, result } => summary_done(state, id, result),
        Msg::Prompt(kind) => {
            state.prompt = Some((kind, String::new()));
            state.history_at = None;
            state.prompt_hint = None;
        }
        Msg::PromptEdit(edit) => return prompt_edit(state, edit),
        Msg::NextFinding => jump_to_finding(state, false),
        Msg::PrevFinding => jump_to_finding(state, true),
        Msg::SearchNext => jump_to_match(state, false),
        Msg::SearchPrev => jump_to_match(state, true),
        Msg::Click { column, row } => click(state, column, row),
        Msg::Wheel { column, row, down } => {
            let over_detail = contains(state.layout.detail, column, row);
            let step = if down { Msg::Down } else { Msg::Up };
            if over_detail {
                scroll_detail(state, &step, 0);
            } else {
                move_selection(state, &step, page);
            }
        }
        Msg::ShowTimeline => {
            show(state, DetailMode::Timeline);
            state.ask_what_if();
        }
        Msg::Compacted(compacted) => {
            if let Some((_, notice)) = state.compacting.take() {
                show_compacted(state, *compacted);
                state.notice = notice;
            }
        }
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

/// Keys and clicks, as opposed to results of tasks and frames.
/// A key while help is open: it scrolls, Esc or `?` close it, `q` quits; nothing reaches the
/// view under it.
fn help_key(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let max = state.layout.help_scroll_max();
    let page = state.layout.help.1.max(2) - 1;
    let at = state.help_scroll.min(max);
    state.help_scroll = match msg {
        Msg::Quit => return vec![Effect::Quit],
        Msg::Back | Msg::ToggleHelp => {
            state.show_help = false;
            0
        }
        Msg::Down => at.saturating_add(1),
        Msg::Up => at.saturating_sub(1),
        Msg::PageDown => at.saturating_add(page),
        Msg::PageUp => at.saturating_sub(page),
        Msg::Top => 0,
        Msg::Bottom => max,
        _ => {
            state.notice = Some("help: j/k scroll · Esc closes".into());
            at
        }
    }
    .min(max);
    Vec::new()
}

/// What `s`, `d` and Enter open in a replay.
fn drill_of(msg: &Msg) -> Option<super::drill::Open> {
    use super::drill::Open;
    match msg {
        Msg::ShowSummarizer => Some(Open::Summarizer),
        Msg::ShowDiff => Some(Open::Diff),
        Msg::ShowMessage => Some(Open::Left),
        _ => None,
    }
}

fn is_key(msg: &Msg) -> bool {
    !matches!(
        msg,
        Msg::SessionUpdated(_)
            | Msg::Reading { .. }
            | Msg::Loaded(_)
            | Msg::LoadFailed(_)
            | Msg::Notice(_)
            | Msg::SourceFault(_)
            | Msg::Discovered(_)
            | Msg::Counted(..)
            | Msg::WhatIfDone(..)
            | Msg::DemoFound(..)
            | Msg::Drilled(_)
            | Msg::Planned(..)
            | Msg::Replayed(..)
            | Msg::ReplayProgress(..)
            | Msg::Compacted(_)
            | Msg::Tick(_)
            | Msg::Diffed(..)
            | Msg::SummaryDelta { .. }
            | Msg::SummaryDone { .. }
            | Msg::Frame(_)
            | Msg::Viewport(_)
    )
}

/// A followed file grew (or was replaced): keep the selection, scroll along when it was on the
/// last message, count the new ones otherwise.
fn session_updated(state: &mut AppState, analysis: crate::analysis::Analysis) {
    // The source reads well again: its fault leaves the footer (another notice stays).
    if let Some(fault) = state.fault.take() {
        if state.notice.as_ref() == Some(&fault) {
            state.notice = None;
        }
    }
    let before = state.len();
    let at_bottom = before == 0 || state.selected + 1 >= before;
    let held_sessions = state.analysis.holds_sessions();
    state.analysis = std::sync::Arc::new(analysis);
    if state.analysis.holds_sessions() && !held_sessions && state.subagents.is_none() {
        state.subagents = Some(0);
    }
    let after = state.len();
    state.replan();
    if let Some(search) = &mut state.search {
        search.matches = super::search::matches(&state.analysis.session.messages, &search.query);
    }
    if after < before {
        state.unseen = 0;
        state.selected = state.selected.min(after.saturating_sub(1));
    } else if state.loading.is_some() {
        // The rest of a file being read, not messages that arrived since: not counted as new.
    } else if at_bottom {
        state.selected = after.saturating_sub(1);
        state.unseen = 0;
    } else {
        state.unseen += after - before;
    }
}

/// Enter: the message in the detail pane; on a message already shown whose call started a
/// subagent (`Task`, `Agent`), that subagent.
fn show_or_open(state: &mut AppState) {
    if state.detail_mode == DetailMode::Message {
        let a = &state.analysis;
        let spawned = (a.session.messages.get(state.selected)).and_then(|m| {
            crate::structure::spawned::child_of(m, a.children.iter().map(|c| &c.session))
        });
        if let Some(slot) = spawned {
            enter_child(state, slot);
            return;
        }
    }
    show(state, DetailMode::Message);
}

fn show(state: &mut AppState, mode: DetailMode) {
    state.detail_mode = mode;
    state.detail_scroll = 0;
}

fn move_selection(state: &mut AppState, msg: &Msg, page: usize) {
    let last = state.len().saturating_sub(1);
    let target = match msg {
        Msg::Down => (state.selected + 1).min(last),
        Msg::Up => state.selected.saturating_sub(1),
        Msg::PageDown => (state.selected + page).min(last),
        Msg::PageUp => state.selected.saturating_sub(page),
        Msg::Top => 0,
        _ => last,
    };
    select(state, target);
}

fn select(state: &mut AppState, index: usize) {
    let last = state.len().saturating_sub(1);
    let before = state.selected;
    state.selected = index.min(last);
    if state.selected == last {
        state.unseen = 0;
    }
    if state.selected != before && state.detail_mode == DetailMode::Message {
        state.detail_scroll = 0;
    }
}

fn scroll_detail(state: &mut AppState, msg: &Msg, page: u16) {
    // The last frame says how far the pane's content goes, when it showed this content (else
    // no limit but the next frame's, which clamps when it is drawn).
    let shown = state.layout.detail_of == Some((state.selected, state.detail_mode));
    let max = match state.layout.detail_rows {
        rows if rows > 0 && shown => state.layout.detail_scroll_max(),
        _ => usize::MAX / 2,
    };
    let page = usize::from(page);
    let scroll = state.detail_scroll.min(max);
    state.detail_scroll = match msg {
        Msg::Down => scroll.saturating_add(1),
        Msg::Up => scroll.saturating_sub(1),
        Msg::PageDown => scroll.saturating_add(page),
        Msg::PageUp => scroll.saturating_sub(page),
        Msg::Top => 0,
        _ => max,
    }
    .min(max);
}

/// Scrolls the list so the selection is on screen, counting the rows that rules (compaction
/// marks, the cut) take between the first shown message and the selection.
fn keep_selection_visible(state: &mut AppState) {
    let rows = usize::from(state.viewport.max(1));
    if state.selected < state.offset {
        state.offset = state.selected;
    } else if state.selected >= state.offset + rows {
        state.offset = state.selected + 1 - rows;
    }
    let cut = state.cut_before();
    let rules = |from: usize, to: usize| {
        let marks = state
            .analysis
            .session
            .marks
            .iter()
            .filter(|k| (from..=to).contains(&k.before_message))
            .count();
        marks + usize::from(cut.is_some_and(|c| (from..=to).contains(&c)))
    };
    while state.offset < state.selected
        && state.selected - state.offset + 1 + rules(state.offset, state.selected) > rows
    {
        state.offset += 1;
    }
}

fn contains(area: ratatui::layout::Rect, column: u16, row: u16) -> bool {
    column >= area.x
        && column < area.x.saturating_add(area.width)
        && row >= area.y
        && row < area.y.saturating_add(area.height)
}

/// A click on a list row selects its message; a click in the detail pane focuses it.
fn click(state: &mut AppState, column: u16, row: u16) {
    if contains(state.layout.list, column, row) {
        state.focus = Focus::List;
        let at = usize::from(row - state.layout.list.y);
        if let Some(Some(index)) = state.layout.rows.get(at).copied() {
            select(state, index);
        }
    } else if contains(state.layout.detail, column, row) {
        state.focus = Focus::Detail;
    }
}

/// Cycles through every preset, then none (forward), or the other way.
fn cycle_preset(state: &mut AppState, forward: bool) {
    let mut names: Vec<Option<&'static str>> = vec![None];
    names.extend(presets::all().iter().map(|p| Some(p.name())));
    let current = names
        .iter()
        .position(|n| *n == state.preset.as_deref())
        .unwrap_or(0);
    let next = if forward {
        (current + 1) % names.len()
    } else {
        (current + names.len() - 1) % names.len()
    };
    state.choose_preset(names[next].map(str::to_string));
}

/// Replaces (or adds) `name=value` in the settings and plans again; a refused value is put
/// back and said in the footer.
fn set(state: &mut AppState, assignment: &str) {
    let Some((name, _)) = assignment.split_once('=') else {
        state.notice = Some(format!("`{assignment}` is not NAME=VALUE"));
        return;
    };
    let name = name.trim();
    let before = state.sets.clone();
    state
        .sets
        .retain(|s| s.split_once('=').map(|(n, _)| n.trim()) != Some(name));
    state.sets.push(assignment.trim().to_string());
    // A value the settings refuse is put back at once; one the preset's plan refuses, when
    // that plan comes back (`AppState::planned`).
    if let Some(Ok(p)) = state
        .preset
        .as_deref()
        .map(crate::compaction::presets::find)
    {
        if let Err(e) = crate::compaction::Settings::resolve(p.name(), p.params(), &state.sets) {
            state.sets = before;
            state.notice = Some(e.to_string());
            return;
        }
    }
    state.replan();
    if before != state.sets {
        state.unset_on_failure = state.planning.clone().map(|key| (key, before));
    }
}

fn unset(state: &mut AppState, name: &str) {
    state
        .sets
        .retain(|s| s.split_once('=').map(|(n, _)| n.trim()) != Some(name));
    state.replan();
}

fn turn_knob(state: &mut AppState, dir: i8) {
    let Some(name) = state.preset.clone() else {
        state.notice = Some("no preset: p chooses one".into());
        return;
    };
    let (Some(knob), Ok(found)) = (super::knob::knob(&name), presets::find(&name)) else {
        return;
    };
    let Some(spec) = found.params().iter().find(|s| s.name == knob) else {
        return;
    };
    let current = match &state.plan {
        Some(plan) => plan.settings.get(knob).clone(),
        None => crate::compaction::Settings::resolve(&name, found.params(), &state.sets)
            .map(|s| s.get(knob).clone())
            .unwrap_or(crate::compaction::settings::Value::Null),
    };
    let fallback = state
        .plan
        .as_ref()
        .filter(|p| p.trigger.measure == "tokens")
        .map(|p| p.trigger.threshold);
    match super::knob::turn(spec.kind, &current, fallback, dir) {
        Some(value) => {
            set(state, &format!("{knob}={value}"));
            if state.notice.is_none() {
                state.notice = Some(format!("{knob}={value}"));
            }
        }
        None => state.notice = Some(format!("{knob} is at {current}: it does not turn further")),
    }
}

fn prompt_edit(state: &mut AppState, edit: Edit) -> Vec<Effect> {
    let Some((kind, line)) = state.prompt.as_mut() else {
        return Vec::new();
    };
    let kind = *kind;
    if !matches!(edit, Edit::Complete) {
        state.prompt_hint = None;
    }
    match edit {
        Edit::Complete => {
            let done = (kind == PromptKind::Command)
                .then(|| super::complete::complete(line, state.preset.as_deref()))
                .flatten();
            match done {
                Some(c) => {
                    *line = c.line;
                    state.prompt_hint = (!c.candidates.is_empty()).then(|| c.candidates.join("  "));
                }
                None => state.prompt_hint = Some("no completion".into()),
            }
        }
        Edit::Older | Edit::Newer => {
            let past: Vec<&String> = (state.history.iter())
                .filter(|(k, _)| *k == kind)
                .map(|(_, l)| l)
                .collect();
            let at = match (edit, state.history_at) {
                (Edit::Older, None) => past.len().checked_sub(1),
                (Edit::Older, Some(i)) => Some(i.saturating_sub(1)),
                (_, Some(i)) if i + 1 < past.len() => Some(i + 1),
                _ => None,
            };
            *line = at.map_or_else(String::new, |i| past[i].clone());
            state.history_at = at;
        }
        Edit::Char(c) => line.push(c),
        Edit::Backspace if line.is_empty() => state.prompt = None,
        Edit::Backspace => {
            line.pop();
        }
        Edit::Clear => line.clear(),
        Edit::Cancel => state.prompt = None,
        Edit::Submit => {
            let text = line.clone();
            state.prompt = None;
            state.history_at = None;
            if !text.trim().is_empty() && state.history.last() != Some(&(kind, text.clone())) {
                state.history.push((kind, text.clone()));
            }
            return match kind {
                PromptKind::Search => {
                    search(state, &text);
                    keep_selection_visible(state);
                    Vec::new()
                }
                PromptKind::Command => command(state, &text),
            };
        }
    }
    Vec::new()
}

fn search(state: &mut AppState, query: &str) {
    if query.is_empty() {
        state.search = None;
        return;
    }
    let matches = super::search::matches(&state.analysis.session.messages, query);
    // Subagents are searched too: where else it is, said beside the result.
    let elsewhere: Vec<(usize, usize)> = (state.analysis.children.iter().enumerate())
        .map(|(slot, c)| {
            (
                slot,
                super::search::matches(&c.session.messages, query).len(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    let in_children = match elsewhere.len() {
        0 => String::new(),
        n => format!(
            " · {} in {n} {} (a: {})",
            elsewhere.iter().map(|(_, k)| k).sum::<usize>(),
            state.analysis.children_word(n),
            elsewhere
                .iter()
                .map(|(slot, k)| format!("#{} ×{k}", slot + 1))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    if matches.is_empty() {
        state.notice = Some(format!("/{query}: no message holds it{in_children}"));
    }
    state.search = Some(Search {
        query: query.to_string(),
        matches,
        in_children: elsewhere.iter().map(|(_, k)| k).sum(),
    });
    // The first match at or after the selection.
    let from = state.selected;
    if let Some(s) = &state.search {
        if let Some(&first) = s.matches.iter().find(|&&i| i >= from).or(s.matches.first()) {
            select(state, first);
        }
    }
}

fn jump_to_match(state: &mut AppState, back: bool) {
    let Some(s) = &state.search else {
        state.notice = Some("no search: / starts one".into());
        return;
    };
    match super::search::next(&s.matches, state.selected, back) {
        Some(i) => select(state, i),
        None => state.notice = Some(format!("/{}: no message holds it", s.query)),
    }
}

/// Selects the first message the next (or previous) finding names and says which it is.
fn jump_to_finding(state: &mut AppState, back: bool) {
    let count = state.findings().len();
    if count == 0 {
        state.notice = Some("no finding names a message".into());
        return;
    }
    let at = match (state.finding, back) {
        (None, false) => 0,
        (None, true) => count - 1,
        (Some(i), false) => (i + 1) % count,
        (Some(i), true) => (i + count - 1) % count,
    };
    let (target, notice) = {
        let f = state.findings()[at];
        (
            f.messages[0],
            format!(
                "finding {}/{count}: {} {} — {}",
                at + 1,
                f.severity.as_str(),
                f.code,
                f.detail
            ),
        )
    };
    state.finding = Some(at);
    select(state, target);
    state.notice = Some(notice);
}

/// `:set NAME=VALUE`, `:unset NAME`, `:preset NAME`, `:q`, or a bare `NAME=VALUE`.
fn command(state: &mut AppState, line: &str) -> Vec<Effect> {
    let line = line.trim();
    let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    match verb {
        "" => {}
        "q" | "quit" => return vec![Effect::Quit],
        "set" if rest.is_empty() => state.notice = Some(current_settings(state)),
        "set" => {
            if state.preset.is_none() {
                state.notice = Some("no preset: :preset NAME chooses one".into());
            } else {
                for assignment in rest.split_whitespace() {
                    set(state, assignment);
                }
            }
        }
        "unset" => unset(state, rest),
        "preset" | "p" => match presets::find(rest) {
            Ok(p) => state.choose_preset(Some(p.name().to_string())),
            Err(e) => state.notice = Some(e.to_string()),
        },
        _ if line.contains('=') && state.preset.is_some() => set(state, line),
        _ => {
            state.notice = Some(format!(
                "unknown command `{verb}`: set NAME=VALUE, unset NAME, preset NAME, q"
            ))
        }
    }
    Vec::new()
}

fn current_settings(state: &AppState) -> String {
    match &state.plan {
        Some(plan) => plan
            .settings
            .pairs()
            .into_iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        None => "no plan".into(),
    }
}

/// Carries out the active plan: with the offline summary at once, or — when a network
/// summarizer was chosen and the framework calls one — by asking the runtime for the call and
/// showing the summary as it streams in (Esc cancels).
fn compact(state: &mut AppState) -> Vec<Effect> {
    if let Some((read, total)) = state.loading {
        state.notice = Some(format!(
            "still reading the session ({}%): compaction waits for all of it",
            read * 100 / total.max(1)
        ));
        return Vec::new();
    }
    if let Some(s) = &state.summarizing {
        state.notice = Some(format!("{} is still writing (Esc cancels)", s.label));
        return Vec::new();
    }
    if let Some((preset, ..)) = &state.planning {
        state.notice = Some(format!("{preset} is still planning"));
        return Vec::new();
    }
    if state.compacting.is_some() {
        state.notice = Some("still compacting (Esc cancels)".into());
        return Vec::new();
    }
    let Some(plan) = state.plan.as_ref() else {
        state.notice = Some(match &state.preset {
            None => "no preset: p chooses one".into(),
            Some(p) => format!(
                "{p} cannot plan: {}",
                state.plan_error.clone().unwrap_or_default()
            ),
        });
        return Vec::new();
    };
    if !plan.trigger.fired {
        state.notice = Some(format!(
            "{} does not fire: {}",
            plan.preset, plan.trigger.reason
        ));
        return Vec::new();
    }
    let calls_model = plan.insertion.is_some() && !plan.summarizer.is_empty();
    if let (Some(choice), true) = (state.summarizer.clone(), calls_model) {
        let id = state.next_call;
        state.next_call += 1;
        let messages = plan.summarizer.clone();
        let counter = &state.analysis.counter;
        state.summarizing = Some(Summarizing {
            id,
            label: choice.label(),
            provider: choice.provider.name(),
            plan: plan.clone(),
            messages: messages.len(),
            tokens: messages.iter().map(|m| counter.count(&m.content)).sum(),
            masked: crate::summarize::prepare(&messages).masked,
            text: String::new(),
        });
        state.detail_scroll = 0;
        return vec![Effect::Summarize {
            id,
            choice,
            messages,
        }];
    }
    let plan = Box::new(plan.clone());
    carry_out(state, plan, None, "offline".into(), None);
    Vec::new()
}

/// Asks for `plan` to be carried out with `summary` (`None`: the offline one, when the plan
/// inserts a summary); the result arrives as `Msg::Compacted`.
/// `notice` is said once the compacted history is shown.
fn carry_out(
    state: &mut AppState,
    plan: Box<Plan>,
    summary: Option<String>,
    summarizer: String,
    notice: Option<String>,
) {
    state.compacting = Some((summarizer.clone(), notice));
    state.ask(super::jobs::Work::Compact {
        plan,
        summary,
        summarizer,
    });
}

/// Esc while a summary is being written: the call is stopped and nothing changes.
fn cancel_summary(state: &mut AppState) -> Vec<Effect> {
    match state.summarizing.take() {
        Some(s) => {
            state.notice = Some(format!("{}: cancelled, the history is unchanged", s.label));
            vec![Effect::CancelSummary(s.id)]
        }
        None => Vec::new(),
    }
}

/// The network summary is in: the compacted history, or the error in the footer.
fn summary_done(state: &mut AppState, id: u64, result: Result<crate::summarize::Summary, String>) {
    if state.summarizing.as_ref().is_none_or(|s| s.id != id) {
        return;
    }
    let Some(running) = state.summarizing.take() else {
        return;
    };
    match result {
        Ok(summary) => {
            let name = format!("{}:{}", running.provider, summary.model);
            let masked = summary.masked_secrets;
            let notice = (masked > 0).then(|| format!("masked {masked} secret(s) before sending"));
            carry_out(
                state,
                Box::new(running.plan),
                Some(summary.text),
                name,
                notice,
            );
        }
        Err(e) => {
            state.notice = Some(format!("{}: {e} (the history is unchanged)", running.label));
        }
    }
}

/// Shows the history a compaction left; the history before waits in `previous`.
fn show_compacted(state: &mut AppState, compacted: super::jobs::Compacted) {
    let super::jobs::Compacted { plan, done } = compacted;
    let plan = &plan;
    let after = done.after;
    let info = super::state::Compaction {
        preset: plan.preset.to_string(),
        summarizer: done.summarizer,
        summary_at: (!done.rejected)
            .then_some(())
            .and(done.summary.as_ref())
            .and(plan.insertion.as_ref())
            .map(|i| {
                i.position
                    .min(after.session.messages.len().saturating_sub(1))
            }),
        summary: done.summary,
        tokens_before: state.analysis.total_tokens(),
        tokens_after: after.total_tokens(),
        messages_before: state.len(),
        findings: done.findings,
        generation: state.compaction.as_ref().map_or(1, |c| c.generation + 1),
    };
    let mut next = state.opened(after, state.preset.clone(), state.sets.clone());
    next.kept_sets = state.kept_sets.clone();
    next.demo = state.demo.clone();
    next.selected = info.summary_at.unwrap_or(0);
    next.detail_mode = DetailMode::Result;
    next.compaction = Some(info);
    let previous = std::mem::replace(state, next);
    state.previous = Some(Box::new(previous));
}

fn open_subagents(state: &mut AppState) {
    if let Some(s) = &state.summarizing {
        state.notice = Some(format!("{} is still writing (Esc cancels)", s.label));
    } else if state.analysis.children.is_empty() {
        state.notice = Some("this session has no subagents".into());
    } else {
        state.subagents = Some(0);
    }
}

/// Keys while the subagent chooser is open: move, open, close.
fn subagent_key(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let count = state.analysis.children.len();
    let at = state.subagents.unwrap_or(0);
    match msg {
        Msg::Quit => return vec![Effect::Quit],
        Msg::Down => state.subagents = Some((at + 1).min(count.saturating_sub(1))),
        Msg::Up => state.subagents = Some(at.saturating_sub(1)),
        Msg::ShowMessage | Msg::Subagents => enter_child(state, at),
        Msg::Back => state.subagents = None,
        _ => {}
    }
    Vec::new()
}

/// Opens child `slot` as the inspected session; the parent waits in `parent` until Esc. A
/// file of many sessions waits with its list open on the one left, to be back at it on Esc.
fn enter_child(state: &mut AppState, slot: usize) {
    state.subagents = None;
    if slot >= state.analysis.children.len() {
        return;
    }
    let child = state.analysis.children[slot].clone();
    let child_state = state.opened(child, state.preset.clone(), state.sets.clone());
    let mut parent = std::mem::replace(state, child_state);
    if parent.analysis.holds_sessions() {
        parent.subagents = Some(slot);
    }
    state.parent = Some(Box::new(parent));
}

fn leave_child(state: &mut AppState) {
    if let Some(parent) = state.parent.take() {
        let history = std::mem::take(&mut state.history);
        *state = *parent;
        state.history = history;
    }
}
