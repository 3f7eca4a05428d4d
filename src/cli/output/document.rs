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
    // A diff made here keeps its index of the summarizer input for the page's line-by-line
    // view (a diff given was made by `diff`, whose index is gone).
    let computed = match (plan, given) {
        (Some(p), None) => Some(share_cmd::indexed_diff(a, p)),
        _ => None,
    };
    let (diff, input) = match &computed {
        Some((d, input)) => (Some(d), Some(input)),
        None => (given, None),
    };
    Some(render(&share_cmd::report(kind, a, plan, diff, input, done)))
}
