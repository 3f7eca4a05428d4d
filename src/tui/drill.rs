//! A replay's step, counted for drilling into it (`s`, `d`, Enter in a replay): what the job
//! computes apart and the message that brings it back. Data and the pure computation only;
//! opening it is `replay_drill`.

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
    /// Preset, settings and session length (a `state::RunKey`).
    pub key: (String, Vec<String>, usize),
    pub step: usize,
    pub open: Open,
    pub result: Result<Option<Drill>, String>,
}

/// The replay of `key` on `analysis` run up to `step`, and the histories there counted as
/// `analysis` is (what the job runs apart).
pub fn at(
    analysis: &Analysis,
    key: &(String, Vec<String>, usize),
    step: usize,
    watch: Option<std::sync::Arc<crate::replay::Watch>>,
) -> Result<Option<Drill>, String> {
    let p = crate::compaction::presets::find(&key.0).map_err(|e| e.to_string())?;
    let options = crate::replay::Options {
        watch,
        ..crate::replay::Options::default()
    };
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
