//! The Markdown and HTML documents (`md`, `html`): what a command computed, handed to the pure
//! renderers of `crate::export`.

use super::Shown;
use crate::cli::share_cmd::{self, Kind};
use crate::export::{self, Report};

/// The Markdown or HTML document of what a command computed: `render` writes a command's
/// report, `replay` a replay's. The diff of a plan-based document is computed here when the
/// command did not compute it. `None` for `check`, which has no document.
pub fn document(
    shown: &Shown,
    render: fn(&Report) -> String,
    replay: fn(&export::replay::Doc) -> String,
) -> Option<String> {
    let (kind, a, plan, given, done) = match *shown {
        Shown::Report(a) => (Kind::Report, a, None, None, None),
        Shown::Plan(a, p) => (Kind::Plan, a, Some(p), None, None),
        Shown::Diff(a, p, d) => (Kind::Diff, a, Some(p), Some(d), None),
        Shown::Compact(a, p, c) => (Kind::Compact, a, Some(p), None, Some(c)),
        Shown::Replay(a, runs) => {
            let named: Vec<export::replay::Run> = runs
                .iter()
                .map(|(side, r)| export::replay::Run {
                    label: &side.label,
                    replay: r,
                })
                .collect();
            return Some(replay(&export::replay::Doc {
                analysis: a,
                runs: &named,
            }));
        }
        Shown::Check { .. } => return None,
    };
    // Every plan-based document shows the diff of the summarized range.
    let computed = match (plan, given) {
        (Some(p), None) => Some(crate::diff::diff(&a.session, p)),
        _ => None,
    };
    let diff = computed.as_ref().or(given);
    Some(render(&share_cmd::report(kind, a, plan, diff, done)))
}
