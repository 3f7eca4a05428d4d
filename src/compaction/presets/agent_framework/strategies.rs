//! The LLM-free strategies, ported call for call: `TruncationStrategy`,
//! `SlidingWindowStrategy`, `SelectiveToolCallCompactionStrategy`,
//! `ToolResultCompactionStrategy` (in `tool_result`, which owns its order of steps),
//! `TokenBudgetComposedStrategy` (strategies in
//! order, then the oldest-group fallback, then the strict one) and
//! `ContextWindowCompactionStrategy` (tool-result eviction above 50 %, truncation above 80 %).

use foldhash::{HashSet, HashSetExt};

use super::annotate::{
    annotate_groups, annotate_tokens, group_maps, included_group_ids, included_tokens,
    minimum_retained, ordered_group_ids, set_excluded, token_count,
};
use super::groups::GroupKind;
use super::params::Strategy;
use super::run::Run;
use super::summarize::summarize;
use super::tool_result::tool_result;

/// Runs one strategy's `__call__`; returns `changed`.
pub fn call(run: &mut Run, s: &Strategy) -> bool {
    match s {
        Strategy::Summarization(p) => summarize(run, p),
        Strategy::Sliding {
            keep,
            preserve_system,
        } => sliding(run, *keep, *preserve_system),
        Strategy::Truncation(t) => truncation(run, t),
        Strategy::Selective { keep } => selective(run, *keep),
        Strategy::ToolResult { keep } => tool_result(run, *keep),
        Strategy::TokenBudget {
            budget,
            strategies,
            early_stop,
        } => token_budget(run, *budget, strategies, *early_stop),
        Strategy::ContextWindow(c) => context_window(run, c),
    }
}

/// `TruncationStrategy` settings.
#[derive(Debug, Clone)]
pub struct Truncation {
    pub max_n: i64,
    pub compact_to: i64,
    pub tokens: bool,
    pub preserve_system: bool,
    pub preserve_first_user_group: bool,
}

fn metric(run: &Run, tokens: bool) -> i64 {
    if tokens {
        included_tokens(&run.msgs, run.v)
    } else {
        run.msgs.iter().filter(|m| !m.excluded()).count() as i64
    }
}

fn truncation(run: &mut Run, t: &Truncation) -> bool {
    let ordered = ordered_group_ids(&run.msgs);
    if metric(run, t.tokens) <= t.max_n {
        return false;
    }
    let g = group_maps(&run.msgs);
    let mut protected: HashSet<String> = HashSet::new();
    if t.preserve_system {
        protected.extend(
            ordered
                .iter()
                .filter(|id| g.kind(id) == Some(GroupKind::System))
                .cloned(),
        );
    }
    if t.preserve_first_user_group {
        protected.extend(
            ordered
                .iter()
                .find(|id| g.kind(id) == Some(GroupKind::User))
                .cloned(),
        );
    }
    protected.extend(minimum_retained(&run.msgs, &ordered, &g));
    let v = run.v;
    // The metric is a sum over included messages: kept current as messages are excluded.
    let mut current = metric(run, t.tokens);
    let mut changed = false;
    for id in &ordered {
        if current <= t.compact_to {
            break;
        }
        if protected.contains(id) {
            continue;
        }
        for &i in g.of(id) {
            let m = &mut run.msgs[i];
            let was_included = !m.excluded();
            changed |= set_excluded(m, true, Some("truncation"));
            if was_included {
                current -= if t.tokens {
                    token_count(m, v).unwrap_or(0)
                } else {
                    1
                };
            }
        }
    }
    changed
}

fn exclude_groups(run: &mut Run, ids: &[String], keep: &HashSet<String>, reason: &str) -> bool {
    let g = group_maps(&run.msgs);
    let mut changed = false;
    for id in ids.iter().filter(|id| !keep.contains(*id)) {
        for &i in g.of(id) {
            changed |= set_excluded(&mut run.msgs[i], true, Some(reason));
        }
    }
    changed
}

fn sliding(run: &mut Run, keep: i64, preserve_system: bool) -> bool {
    let ordered = ordered_group_ids(&run.msgs);
    let g = group_maps(&run.msgs);
    let included = included_group_ids(&run.msgs, &ordered, &g);
    let non_system: Vec<&String> = included
        .iter()
        .filter(|id| g.kind(id) != Some(GroupKind::System))
        .collect();
    let from = non_system.len().saturating_sub(keep.max(0) as usize);
    let mut keep_ids: HashSet<String> = non_system[from..].iter().map(|s| (*s).clone()).collect();
    if preserve_system {
        keep_ids.extend(
            ordered
                .iter()
                .filter(|id| g.kind(id) == Some(GroupKind::System))
                .cloned(),
        );
    }
    exclude_groups(run, &included, &keep_ids, "sliding_window")
}

/// Included tool-call groups, and the last `keep` of them.
pub(super) fn tool_groups(run: &Run, keep: i64) -> (Vec<String>, HashSet<String>) {
    let ordered = ordered_group_ids(&run.msgs);
    let g = group_maps(&run.msgs);
    let tools: Vec<String> = included_group_ids(&run.msgs, &ordered, &g)
        .into_iter()
        .filter(|id| g.kind(id) == Some(GroupKind::ToolCall))
        .collect();
    let from = tools.len().saturating_sub(keep.max(0) as usize);
    let keep_ids = if keep > 0 {
        tools[from..].iter().cloned().collect()
    } else {
        HashSet::new()
    };
    (tools, keep_ids)
}

fn selective(run: &mut Run, keep: i64) -> bool {
    let (tools, keep_ids) = tool_groups(run, keep);
    if tools.len() as i64 <= keep {
        return false;
    }
    exclude_groups(run, &tools, &keep_ids, "tool_call_compaction")
}

fn token_budget(run: &mut Run, budget: i64, strategies: &[Strategy], early_stop: bool) -> bool {
    let v = run.v;
    annotate_groups(&mut run.msgs, None, false, v, &run.outside);
    annotate_tokens(&mut run.msgs, v, &run.outside);
    if included_tokens(&run.msgs, v) <= budget {
        return false;
    }
    let mut changed = false;
    for s in strategies {
        changed = call(run, s) || changed;
        annotate_groups(&mut run.msgs, None, false, v, &run.outside);
        annotate_tokens(&mut run.msgs, v, &run.outside);
        if early_stop && included_tokens(&run.msgs, v) <= budget {
            return changed;
        }
    }
    if included_tokens(&run.msgs, v) <= budget {
        return changed;
    }
    annotate_groups(&mut run.msgs, None, false, v, &run.outside);
    let ordered = ordered_group_ids(&run.msgs);
    let g = group_maps(&run.msgs);
    let minimum = minimum_retained(&run.msgs, &ordered, &g);
    let mut current = included_tokens(&run.msgs, v);
    for strict in [false, true] {
        let reason = if strict {
            "token_budget_fallback_strict"
        } else {
            "token_budget_fallback"
        };
        for id in &ordered {
            let system = g.kind(id) == Some(GroupKind::System);
            if system != strict || minimum.contains(id) {
                continue;
            }
            for &i in g.of(id) {
                let m = &mut run.msgs[i];
                let was_included = !m.excluded();
                changed |= set_excluded(m, true, Some(reason));
                if was_included {
                    current -= token_count(m, v).unwrap_or(0);
                }
            }
            if current <= budget {
                break;
            }
        }
        if current <= budget {
            return changed;
        }
    }
    changed
}

/// `ContextWindowCompactionStrategy` settings, derived as its constructor does.
#[derive(Debug, Clone)]
pub struct ContextWindow {
    pub input_budget: i64,
    pub eviction_tokens: i64,
    pub truncation_tokens: i64,
    pub keep_last_tool_call_groups: i64,
    pub preserve_first_user_group: bool,
}

fn context_window(run: &mut Run, c: &ContextWindow) -> bool {
    let v = run.v;
    annotate_groups(&mut run.msgs, None, false, v, &run.outside);
    annotate_tokens(&mut run.msgs, v, &run.outside);
    let mut changed = false;
    if included_tokens(&run.msgs, v) > c.eviction_tokens {
        changed = tool_result(run, c.keep_last_tool_call_groups);
        annotate_groups(&mut run.msgs, None, false, v, &run.outside);
        annotate_tokens(&mut run.msgs, v, &run.outside);
    }
    if included_tokens(&run.msgs, v) > c.truncation_tokens {
        let t = Truncation {
            max_n: c.truncation_tokens,
            compact_to: c.eviction_tokens,
            tokens: true,
            preserve_system: true,
            preserve_first_user_group: c.preserve_first_user_group,
        };
        changed = truncation(run, &t) || changed;
    }
    let remaining = included_tokens(&run.msgs, v);
    if remaining > c.input_budget {
        run.log.push(format!(
            "Compaction could not fit protected messages within the input budget ({remaining} > {})",
            c.input_budget
        ));
    }
    changed
}
