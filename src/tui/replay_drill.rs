//! Drilling into a replay (`s`, `d`, Enter at a step): the history as the preset checked it
//! at that step, opened as an inspector view of its own — its plan's summarizer input (`s`),
//! the diff of what it summarizes (`d`), or, at a compaction, the history the compaction left
//! with its summary and findings (Enter). Esc comes back to the replay at the same step.
//!
//! Owns: asking for the step (`Work::ReplayAt`: the replay run again up to it, apart, and the
//! histories counted there, see `drill`) and opening the view it gives. Must not: compute a
//! replay itself (`crate::replay::at` does).

use super::drill::{Drilled, Left, Open};
use super::jobs::Work;
use super::state::{AppState, Compaction, DetailMode, RunKey};

impl AppState {
    /// `s`, `d` or Enter in a computed replay: the step shown asked for, the replay paused.
    pub fn drill(&mut self, open: Open) {
        let Some(p) = self.replay.as_mut() else {
            return;
        };
        p.playing = false;
        let step = p.step();
        let key = p.key.clone();
        self.notice = Some(format!("opening step {} of the replay…", step + 1));
        self.ask(Work::ReplayAt { key, step, open });
    }

    /// The step has come back: opened as a view of its own when the replay is still at it.
    pub fn drilled(&mut self, d: Drilled) {
        let Some(p) = self.replay.as_ref() else {
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
                self.notice = Some(format!("the replay has no step {}", d.step + 1));
                return;
            }
            Err(e) => {
                self.notice = Some(format!("{}: {e}", d.key.0));
                return;
            }
        };
        let crumb = format!("replay step {} (Esc: replay)", d.step + 1);
        let next = match (d.open, drill.left) {
            (Open::Left, Some(mut left)) => {
                left.generation = generation;
                left_view(self, &d.key, drill.sets, left)
            }
            (open, left) => {
                let mut next = self.opened(drill.before, Some(d.key.0.clone()), drill.sets);
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
        self.notice = None;
        let previous = std::mem::replace(self, next);
        self.previous = Some(Box::new(previous));
    }
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
    let mut next = from.opened(left.after, Some(key.0.clone()), sets);
    next.selected = summary_at.unwrap_or(0);
    next.detail_mode = DetailMode::Result;
    next.compaction = Some(info);
    next
}
