//! pydantic-ai-harness 0.62's estimator and cut: `estimate_token_count` (text segments summed,
//! then `// 4` once, the latest non-empty instructions counted once), `estimate_context_tokens`
//! (the latest provider usage as an anchor), `find_safe_cutoff` (tool pairs checked only within
//! ±5 messages of the cut) and `find_token_cutoff` (shortest suffix holding `keep_tokens`).

use super::history::{Rec, P};
use crate::tokens::Counter;

const CHARS_PER_TOKEN: usize = 4;
const TOOL_PAIR_SEARCH_RANGE: usize = 5;

/// The estimator: chars/4, or a tokenizer counting each segment.
#[derive(Clone, Copy)]
pub struct Estimator<'a> {
    pub tokenizer: Option<&'a Counter>,
}

impl Estimator<'_> {
    pub fn count(&self, segments: &[&str]) -> usize {
        match self.tokenizer {
            Some(c) => segments.iter().map(|s| c.count(s)).sum(),
            None => segments.iter().map(|s| s.chars().count()).sum::<usize>() / CHARS_PER_TOKEN,
        }
    }

    /// What `count` adds up before it divides: tokens with a tokenizer, else characters.
    pub fn raw(&self, segments: &[&str]) -> usize {
        match self.tokenizer {
            Some(c) => segments.iter().map(|s| c.count(s)).sum(),
            None => segments.iter().map(|s| s.chars().count()).sum::<usize>(),
        }
    }

    /// `count` of segments whose `raw` measures add up to `raw`.
    pub fn of_raw(&self, raw: usize) -> usize {
        match self.tokenizer {
            Some(_) => raw,
            None => raw / CHARS_PER_TOKEN,
        }
    }

    /// `estimate_token_count`: every message's text plus the latest instructions once.
    pub fn token_count(&self, recs: &[&Rec]) -> usize {
        let mut segs: Vec<&str> = recs.iter().flat_map(|r| segments(r)).collect();
        segs.extend(instructions(recs));
        self.count(&segs)
    }

    /// `estimate_context_tokens`: the latest usage anchor plus what came after it.
    pub fn context_tokens(&self, recs: &[&Rec]) -> usize {
        let anchor = recs.iter().rposition(|r| !r.request && r.input_tokens > 0);
        let Some(index) = anchor else {
            return self.token_count(recs);
        };
        let anchor_rec = recs[index];
        let mut anchored = (anchor_rec.input_tokens + anchor_rec.output_tokens) as i64;
        let later: Vec<&str> = recs[index + 1..].iter().flat_map(|r| segments(r)).collect();
        let current: Vec<&str> = instructions(recs).into_iter().collect();
        let before: Vec<&str> = instructions(&recs[..=index]).into_iter().collect();
        if current != before {
            anchored += self.count(&current) as i64;
            anchored -= self.count(&before) as i64;
        }
        (anchored + self.count(&later) as i64).max(0) as usize
    }

    /// `estimate_message_tokens`: per-message counts, usage apportioned between anchors.
    pub fn message_tokens(&self, recs: &[&Rec]) -> Vec<usize> {
        let mut counts: Vec<usize> = recs
            .iter()
            .map(|r| {
                let own = self.count(&segments(r));
                if r.request {
                    own
                } else {
                    own.max(r.output_tokens as usize)
                }
            })
            .collect();
        let anchors: Vec<usize> = (0..recs.len())
            .filter(|&i| !recs[i].request && recs[i].input_tokens > 0)
            .collect();
        for pair in anchors.windows(2) {
            let (start, end) = (pair[0], pair[1]);
            let span = recs[end].input_tokens as i64 - recs[start].input_tokens as i64;
            if span <= 0 {
                continue;
            }
            let span = span as usize;
            let estimated = counts[start..end].iter().sum::<usize>().max(1);
            let mut shares: Vec<usize> = counts[start..end]
                .iter()
                .map(|c| c * span / estimated)
                .collect();
            let given: usize = shares.iter().sum();
            shares[0] += span - given.min(span);
            counts.splice(start..end, shares);
        }
        counts
    }
}

/// The text segments one message contributes (`_message_segments`).
pub fn segments<'r>(r: &'r Rec) -> Vec<&'r str> {
    let mut out = Vec::new();
    for p in &r.parts {
        part_segments(p, &mut out);
    }
    out
}

/// The text segments one part contributes, appended to `out`.
pub fn part_segments<'r>(p: &'r P, out: &mut Vec<&'r str>) {
    match p {
        P::User(u) => {
            // `''.join(texts)`: one segment; lengths add up the same.
            out.extend(u.texts.iter().map(|t| &**t));
        }
        P::System { content: text, .. }
        | P::ToolReturn { text, .. }
        | P::RetryFeedback { text, .. }
        | P::Text(text)
        | P::Thinking(text) => out.push(text),
        P::Compaction { content, .. } => out.push(content.as_deref().unwrap_or("")),
        P::ToolCall { name, args, .. } | P::NativeCall { name, args } => {
            out.push(name);
            out.push(args);
        }
        P::NativeReturn { name, text } => {
            out.push(name);
            out.push(text);
        }
        P::Image | P::Other => {}
    }
}

/// The latest non-empty instructions of a request, counted once.
fn instructions<'a>(recs: &[&'a Rec]) -> Option<&'a str> {
    recs.iter()
        .rev()
        .filter(|r| r.request)
        .find_map(|r| r.instructions.as_deref().filter(|s| !s.is_empty()))
}

fn call_ids<'r>(r: &'r Rec) -> Vec<&'r str> {
    r.parts
        .iter()
        .filter_map(|p| match p {
            P::ToolCall { call_id, .. } if !call_id.is_empty() => Some(&**call_id),
            _ => None,
        })
        .collect()
}

/// Ids a request answers (`_is_tool_reply`: tool returns, retried ones included).
fn reply_ids<'r>(r: &'r Rec) -> Vec<&'r str> {
    r.parts
        .iter()
        .filter_map(|p| match p {
            P::ToolReturn { call_id, .. } => Some(&**call_id),
            _ => None,
        })
        .collect()
}

/// `_is_safe_cutoff`: no call/return pair of a response within ±5 of the cut straddles it.
pub fn is_safe_cutoff(recs: &[&Rec], cutoff: usize) -> bool {
    if cutoff >= recs.len() {
        return true;
    }
    let start = cutoff.saturating_sub(TOOL_PAIR_SEARCH_RANGE);
    let end = recs.len().min(cutoff + TOOL_PAIR_SEARCH_RANGE);
    for i in start..end {
        if recs[i].request {
            continue;
        }
        let calls = call_ids(recs[i]);
        if calls.is_empty() {
            continue;
        }
        for (j, later) in recs.iter().enumerate().skip(i + 1) {
            if !later.request {
                continue;
            }
            let straddles = reply_ids(later)
                .iter()
                .any(|id| calls.contains(id) && (i < cutoff) != (j < cutoff));
            if straddles {
                return false;
            }
        }
    }
    true
}

/// `find_safe_cutoff`: keep at least `keep` (≥ 1) tail messages without splitting a pair.
pub fn find_safe_cutoff(recs: &[&Rec], keep: usize) -> usize {
    let keep = keep.max(1);
    if recs.len() <= keep {
        return 0;
    }
    let target = recs.len() - keep;
    (0..=target)
        .rev()
        .find(|&idx| is_safe_cutoff(recs, idx))
        .unwrap_or(0)
}

/// `_include_tool_dependencies`: move the cut back to the call of every kept return.
fn include_tool_dependencies(recs: &[&Rec], mut cutoff: usize) -> usize {
    let mut calls: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut deps = Vec::with_capacity(recs.len());
    for (index, r) in recs.iter().enumerate() {
        let mut earliest = index;
        if r.request {
            for id in reply_ids(r) {
                earliest = earliest.min(calls.get(id).copied().unwrap_or(index));
            }
        } else {
            for id in call_ids(r) {
                calls.insert(id, index);
            }
        }
        deps.push(earliest);
    }
    for index in (0..recs.len()).rev() {
        if index < cutoff {
            break;
        }
        cutoff = cutoff.min(deps[index]);
    }
    cutoff
}

/// `find_token_cutoff`: the shortest suffix holding `target` tokens, with its tool calls.
pub fn find_token_cutoff(est: &Estimator, recs: &[&Rec], target: usize) -> usize {
    let usage = recs
        .iter()
        .any(|r| !r.request && (r.input_tokens > 0 || r.output_tokens > 0));
    let counts = if usage {
        Some(est.message_tokens(recs))
    } else {
        None
    };
    let tail = |start: usize| -> usize {
        match &counts {
            Some(c) => c[start..].iter().sum(),
            None if target > 0 => {
                let segs: Vec<&str> = recs[start..].iter().flat_map(|r| segments(r)).collect();
                est.count(&segs)
            }
            None => est.token_count(&recs[start..]),
        }
    };
    if target > 0 {
        let (mut lo, mut hi) = (0, recs.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if tail(mid) >= target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return include_tool_dependencies(recs, lo.saturating_sub(1));
    }
    if recs.is_empty() || tail(0) <= target {
        return 0;
    }
    let (mut lo, mut hi, mut candidate) = (0, recs.len(), recs.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if tail(mid) <= target {
            candidate = mid;
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if candidate >= recs.len() {
        candidate = recs.len().saturating_sub(1);
    }
    (0..=candidate)
        .rev()
        .find(|&idx| is_safe_cutoff(recs, idx))
        .unwrap_or(0)
}
