//! What Hermes loses or rewrites in one compaction, as findings: capped bodies and arguments,
//! one-line pruned outputs the summarizer sees, kept messages that are not verbatim, a head
//! dropped without being summarized, reasoning and images not shown, the auxiliary window's
//! effect on the threshold, no-op compactions and a tail that re-triggers at once.

use serde_json::Value;

use super::assemble::Outcome;
use super::msgs::{content_text, estimate_messages, is_image_part, HMsg};
use super::text::COMPRESSION_NOTE;
use super::{py, Config};
use crate::compaction::findings::{Finding, Severity};
use crate::session::Session;

fn at(history: &[HMsg], positions: &[usize]) -> Vec<usize> {
    positions
        .iter()
        .filter_map(|&p| history.get(p).map(|m| m.index))
        .collect()
}

fn finding(
    code: &'static str,
    severity: Severity,
    messages: Vec<usize>,
    detail: String,
) -> Finding {
    Finding {
        code,
        severity,
        messages,
        detail,
    }
}

pub fn hermes_findings(
    _session: &Session,
    history: &[HMsg],
    cfg: &Config,
    out: &Outcome,
    fired: bool,
) -> Vec<Finding> {
    let mut f = Vec::new();
    aux_findings(cfg, out, fired, &mut f);
    if !fired {
        return f;
    }
    if out.prompt.is_none() {
        if out.aux_error.is_none() {
            f.push(finding("compaction-noop", Severity::Warn, Vec::new(), format!(
                "the trigger fires but compress() returns the history unchanged ({}); Hermes counts an ineffective compression and fires again next turn",
                out.note)));
        }
        return f;
    }
    loss_findings(history, out, &mut f);
    rewrite_findings(history, out, &mut f);
    let survivors: Vec<HMsg> = out
        .head
        .iter()
        .chain(&out.tail)
        .filter_map(|&p| history.get(p).cloned())
        .collect();
    let after = estimate_messages(&survivors);
    if after >= cfg.budgets.threshold_tokens {
        f.push(finding("compacts-every-turn", Severity::Warn, at(history, &out.tail), format!(
            "the kept head and tail alone estimate {after} tokens, at or over the threshold of {}: the next turn compacts again",
            cfg.budgets.threshold_tokens)));
    }
    f
}

fn aux_findings(cfg: &Config, out: &Outcome, fired: bool, f: &mut Vec<Finding>) {
    let Some(aux) = cfg.aux else { return };
    if let Some(err) = &out.aux_error {
        f.push(finding("summarizer-window-overflow", Severity::Error, Vec::new(), format!(
            "{err} The lazy feasibility check raises ValueError at the first compaction: nothing is compacted")));
        return;
    }
    if cfg.aux_fit {
        if out.bounded > 0 {
            f.push(finding("summarizer-window-overflow", Severity::Warn, Vec::new(), format!(
                "the summarizer input does not fit the {aux}-token auxiliary window: {} characters cut from its middle to fit",
                py::thousands(out.bounded))));
        }
        return;
    }
    if aux < cfg.original_threshold {
        let when = if cfg.compression_count >= 1 {
            "already lowered by the first compaction"
        } else if fired {
            "lowered by this compaction for the rest of the session"
        } else {
            "lowered at the first compaction"
        };
        f.push(finding("threshold-lowered", Severity::Warn, Vec::new(), format!(
            "the auxiliary summarizer window ({aux}) is below the threshold ({}): threshold_tokens becomes {aux} ({when}); tail_token_budget stays {}",
            cfg.original_threshold, cfg.budgets.tail_token_budget)));
    }
}

fn loss_findings(history: &[HMsg], out: &Outcome, f: &mut Vec<Finding>) {
    if !out.cuts.bodies.is_empty() {
        let chars: usize = out.cuts.bodies.iter().map(|(_, c)| c).sum();
        let pos: Vec<usize> = out.cuts.bodies.iter().map(|(p, _)| *p).collect();
        f.push(finding("message-truncated", Severity::Warn, at(history, &pos), format!(
            "{} message(s) over 6,000 characters are shown as their first 4,000 and last 1,500: {} characters never reach the summarizer",
            pos.len(), py::thousands(chars))));
    }
    if !out.cuts.args.is_empty() {
        f.push(finding(
            "tool-arguments-truncated",
            Severity::Info,
            at(history, &out.cuts.args),
            "tool-call arguments over 1,500 characters are shown as their first 1,200 and `...`"
                .into(),
        ));
    }
    let summarized: std::collections::HashSet<usize> = out.summarized.iter().copied().collect();
    let pruned: Vec<usize> = out
        .pruned
        .outputs
        .iter()
        .copied()
        .filter(|p| summarized.contains(p))
        .collect();
    if !pruned.is_empty() {
        f.push(finding("tool-output-pruned", Severity::Warn, at(history, &pruned),
            "the summarizer sees one-line summaries or `[Duplicate tool output …]` markers, not these tool outputs".into()));
    }
    let dropped: Vec<usize> = out
        .dropped
        .iter()
        .copied()
        .filter(|p| !out.removed_results.contains(p))
        .collect();
    if !dropped.is_empty() {
        f.push(finding("messages-dropped-unsummarized", Severity::Warn, at(history, &dropped),
            "these messages sit before an earlier summary inside the window: compress() summarizes only turns after it, so they are dropped without being summarized".into()));
    }
    if !out.removed_results.is_empty() {
        f.push(finding(
            "orphan-result-removed",
            Severity::Warn,
            at(history, &out.removed_results),
            "_sanitize_tool_pairs removes these kept tool results: their calls were summarized"
                .into(),
        ));
    }
    content_findings(history, out, f);
}

/// Reasoning and images the summarizer never sees; a total input bound.
fn content_findings(history: &[HMsg], out: &Outcome, f: &mut Vec<Finding>) {
    let has = |p: &usize, pred: &dyn Fn(&HMsg) -> bool| history.get(*p).is_some_and(pred);
    let reasoning: Vec<usize> = out
        .summarized
        .iter()
        .copied()
        .filter(|p| {
            has(p, &|m| {
                ["reasoning", "reasoning_content", "reasoning_details"]
                    .iter()
                    .any(|k| m.get(k).is_some_and(py::truthy))
            })
        })
        .collect();
    if !reasoning.is_empty() {
        f.push(finding("reasoning-dropped", Severity::Info, at(history, &reasoning),
            "reasoning fields and inline <think> blocks of summarized messages are not shown to the summarizer".into()));
    }
    let images: Vec<usize> = out
        .summarized
        .iter()
        .copied()
        .filter(|p| {
            has(
                p,
                &|m| matches!(m.content(), Value::Array(parts) if parts.iter().any(is_image_part)),
            )
        })
        .collect();
    if !images.is_empty() {
        f.push(finding("image-dropped", Severity::Warn, at(history, &images),
            "images of summarized messages reach the summarizer only as `[image]` / `[image: URL]` labels".into()));
    }
    if out.bounded > 0 && out.aux_error.is_none() {
        f.push(finding("summarizer-input-bounded", Severity::Warn, Vec::new(), format!(
            "the serialized turns exceed the total input bound: {} characters omitted from the middle",
            py::thousands(out.bounded))));
    }
}

fn rewrite_findings(history: &[HMsg], out: &Outcome, f: &mut Vec<Finding>) {
    let mut notes = Vec::new();
    let mut positions: Vec<usize> = Vec::new();
    let system = history.first().filter(|m| m.role() == "system");
    if system.is_some_and(|m| !content_text(m.content()).contains(COMPRESSION_NOTE))
        && out.compress_start > 0
    {
        positions.push(0);
        notes.push(format!(
            "the system prompt gets the {}-character compaction note appended",
            py::len(COMPRESSION_NOTE)
        ));
    }
    let kept = |p: &usize| out.head.contains(p) || out.tail.contains(p);
    let outputs: Vec<usize> = out.pruned.outputs.iter().copied().filter(kept).collect();
    if !outputs.is_empty() {
        notes.push(format!(
            "{} kept tool output(s) are pruned to one-liners or duplicate markers",
            outputs.len()
        ));
        positions.extend(&outputs);
    }
    let args: Vec<usize> = out.pruned.args.iter().copied().filter(kept).collect();
    if !args.is_empty() {
        notes.push(format!(
            "{} kept assistant message(s) have tool arguments cut to 200 characters per string",
            args.len()
        ));
        positions.extend(&args);
    }
    if !out.stripped_calls.is_empty() {
        notes.push(format!(
            "{} kept assistant message(s) lose tool calls whose results were summarized",
            out.stripped_calls.len()
        ));
        positions.extend(&out.stripped_calls);
    }
    if let Some(m) = out.insertion.as_ref().and_then(|i| i.merged_into) {
        notes.push("the summary is merged into the first kept message (role alternation)".into());
        positions.push(m);
    }
    if !notes.is_empty() {
        positions.sort_unstable();
        positions.dedup();
        f.push(finding(
            "kept-message-rewritten",
            Severity::Info,
            at(history, &positions),
            format!("kept but not verbatim: {}", notes.join("; ")),
        ));
    }
    if let Some(p) = out.previous_summary.filter(|p| out.head.contains(p)) {
        f.push(finding("previous-summary-duplicated", Severity::Warn, at(history, &[p]),
            "an earlier summary in the protected head is kept verbatim and also fed back as PREVIOUS SUMMARY; a second summary is inserted after the head".into()));
    }
}
