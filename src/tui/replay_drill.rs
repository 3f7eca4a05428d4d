//! Drilling into a replay (`s`, `d`, Enter at a step): the history as the preset checked it
//! at that step, opened as an inspector view of its own — its plan's summarizer input (`s`),
//! the diff of what it summarizes (`d`), or, at a compaction, the history the compaction left
//! with its summary and findings (Enter). Esc comes back to the replay at the same step.
//!
//! Owns: asking for the step (`Work::ReplayAt`: the replay run again up to it, apart, and the
//! histories counted there) and opening the view it gives. Must not: compute a replay itself
//! (`crate::replay::at` does).

use super::jobs::Work;
use super::state::{AppState, Compaction, DetailMode, RunKey};
use crate::analysis::Analysis;

/// What a drill opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    Summarizer,
    Diff,
    /// The history the compaction at the step left (the history checked, where none was made).
    Left,
}

/// A step of a replay, counted: the history checked there and the settings in force, and the
/// compaction made there with the history it left.
#[derive(Debug)]
pub struct Drill {
    pub before: Analysis,
    pub sets: Vec<String>,
    pub left: Option<Left>,
}

/// The history a replay's compaction left.
#[derive(Debug)]
pub struct Left {
    pub after: Analysis,
    pub record: crate::replay::Compaction,
    pub summary: Option<String>,
    /// How many compactions the replay made up to this one (1 for the first).
    pub generation: usize,
}

/// A drill computed apart, for the replay and step it was asked at.
#[derive(Debug)]
pub struct Drilled {
    pub key: RunKey,
    pub step: usize,
    pub open: Open,
    pub result: Result<Option<Drill>, String>,
}

/// The replay of `key` on `analysis` run up to `step`, and the histories there counted as
/// `analysis` is (what the job runs apart).
pub fn at(analysis: &Analysis, key: &RunKey, step: usize) -> Result<Option<Drill>, String> {
    let p = crate::compaction::presets::find(&key.0).map_err(|e| e.to_string())?;
    let options = crate::replay::Options::default();
    let Some(at) =
        crate::replay::at(analysis, p, &key.1, &options, step).map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    let left = at.compaction.map(|(record, after, summary)| Left {
        after: analysis.derived(after),
        generation: 0,
        record,
        summary,
    });
    Ok(Some(Drill {
        before: analysis.derived(at.before),
        sets: at.sets,
        left,
    }))
}

/// `s`, `d` or Enter in a computed replay: the step shown asked for, the replay paused.
pub fn ask(state: &mut AppState, open: Open) {
    let Some(p) = state.replay.as_mut() else {
        return;
    };
    p.playing = false;
    let step = p.step();
    let key = p.key.clone();
    state.notice = Some(format!("opening step {} of the replay…", step + 1));
    state.ask(Work::ReplayAt { key, step, open });
}

/// The step has come back: opened as a view of its own when the replay is still at it.
pub fn drilled(state: &mut AppState, d: Drilled) {
    let Some(p) = state.replay.as_ref() else {
        return;
    };
    if p.key != d.key || p.step() != d.step {
        return;
    }
    let generation = p.replay.as_ref().map_or(0, |r| {
        r.compactions.iter().filter(|c| c.step <= d.step).count()
    });
    let drill = match d.result {
        Ok(Some(drill)) => drill,
        Ok(None) => {
            state.notice = Some(format!("the replay has no step {}", d.step + 1));
            return;
        }
        Err(e) => {
            state.notice = Some(format!("{}: {e}", d.key.0));
            return;
        }
    };
    let crumb = format!("replay step {} (Esc: replay)", d.step + 1);
    let next = match (d.open, drill.left) {
        (Open::Left, Some(mut left)) => {
            left.generation = generation;
            left_view(state, &d.key, drill.sets, left)
        }
        (open, left) => {
            let mut next = view_of(state, drill.before, &d.key.0, drill.sets);
            next.detail_mode = match open {
                Open::Summarizer => DetailMode::Summarizer,
                Open::Diff => DetailMode::Diff,
                Open::Left => DetailMode::Message,
            };
            if open == Open::Left && left.is_none() {
                next.notice =
                    Some("no compaction at this step: the history as it was checked".into());
            }
            next.selected = next.len().saturating_sub(1);
            next
        }
    };
    let mut next = next;
    next.crumb = Some(crumb);
    state.notice = None;
    let previous = std::mem::replace(state, next);
    state.previous = Some(Box::new(previous));
}

/// An inspector view of `analysis` under `preset` with `sets`, as the one it opens from.
fn view_of(from: &AppState, analysis: Analysis, preset: &str, sets: Vec<String>) -> AppState {
    let mut next = AppState::new(analysis, Some(preset.to_string()), sets);
    next.legend = from.legend;
    next.viewport = from.viewport;
    next.layout = from.layout.clone();
    next.summarizer = from.summarizer.clone();
    next.next_call = from.next_call;
    next
}

/// The history a replay's compaction left, with its summary and findings in the detail pane.
fn left_view(from: &AppState, key: &RunKey, sets: Vec<String>, left: Left) -> AppState {
    let summary_at = left.summary.as_deref().and_then(|summary| {
        let head: String = summary.chars().take(60).collect();
        left.after.session.messages.iter().position(|m| {
            m.parts
                .iter()
                .any(|part| part.plain_text().contains(head.as_str()))
        })
    });
    let info = Compaction {
        preset: key.0.clone(),
        summarizer: "offline (replay)".into(),
        summary: left.summary,
        tokens_before: left.record.tokens_before as usize,
        tokens_after: left.record.tokens_after as usize,
        messages_before: left.record.messages_before,
        summary_at,
        findings: left.record.findings,
        generation: left.generation,
    };
    let mut next = view_of(from, left.after, &key.0, sets);
    next.selected = summary_at.unwrap_or(0);
    next.detail_mode = DetailMode::Result;
    next.compaction = Some(info);
    next
}
