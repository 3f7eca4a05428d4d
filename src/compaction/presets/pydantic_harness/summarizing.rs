//! `SummarizingCompaction.compact` 0.62: the cut, what survives by identity (leading system
//! prompts in a standing request, the first user turn, the tail), what the summarizer is handed,
//! the `keep_user_messages` re-cut that loses the turns between the old and new tail start, the
//! incremental anchor, and the receipt.

use super::compacted::{tail_pieces, Piece};
use super::estimate::{find_safe_cutoff, find_token_cutoff, Estimator};
use super::history::{Rec, UserPart, LEGACY_SUMMARY_PREFIX, P};
use super::transcript;

const BRIDGE_PREFIX: &str =
    "This summary was produced by a different model than the one continuing the task.\n\n";

/// What one record became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Every part survives; `rendered` when it is also in the summarizer transcript.
    Kept {
        rendered: bool,
    },
    Summarized,
    Dropped,
    /// Neither handed to the summarizer nor kept, by no rule of the framework.
    Lost,
}

/// The settings `compact` reads.
#[derive(Debug, Clone)]
pub struct Config {
    pub keep_messages: usize,
    pub keep_tokens: Option<usize>,
    pub preserve_first_user_message: bool,
    pub incremental: bool,
    pub keep_user_messages: bool,
    pub receipts: bool,
    /// Model family the receipt names (`by`).
    pub by: String,
}

/// The result of `compact`, in record terms.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Records handed to the summarizer (`to_summarize`), as indices into the record list.
    pub to_summarize: Vec<usize>,
    pub fates: Vec<Option<Fate>>,
    pub previous_summary: Option<String>,
    /// Index of the summary in the compacted history.
    pub position: usize,
    /// Records and parts of the compacted history, the summary excluded: (record, part) pairs.
    pub survivors: Vec<(usize, usize)>,
    /// Messages of the compacted history besides the summary.
    pub other_messages: usize,
    /// Records whose user turns were re-inserted as copies after the summary.
    pub user_copies: Vec<usize>,
    pub receipt: Option<String>,
    /// The compacted history, in order (`layout` turns it into the framework's records).
    pub layout: Vec<Piece>,
}

/// Per record, per part: whether the part object survives into the compacted history.
pub type Keep = Vec<Vec<bool>>;

/// `compact`, or None when the framework returns the history unchanged.
pub fn compact(recs: &[&Rec], cfg: &Config, est: &Estimator) -> Option<Outcome> {
    let cutoff = match cfg.keep_tokens {
        Some(t) => find_token_cutoff(est, recs, t),
        None => find_safe_cutoff(recs, cfg.keep_messages),
    };
    if cutoff == 0 {
        return None;
    }
    let mut keep: Keep = recs.iter().map(|r| vec![false; r.parts.len()]).collect();
    let system = leading_system_prompts(recs);
    for &(i, j) in &system {
        keep[i][j] = true;
    }
    let (mut tail_start, mut copies, mut first) = (cutoff, Vec::new(), None);
    if cfg.keep_user_messages {
        (copies, tail_start) = retain_user_turns(recs, cutoff, cfg, est, &mut keep);
    } else if cfg.preserve_first_user_message {
        first = carry_first_user(recs, cutoff, &system, &mut keep);
    }
    let extra_whole = first
        .as_ref()
        .filter(|(f, parts)| parts.len() == recs[*f].parts.len())
        .map(|(f, _)| *f);
    if cfg.keep_tokens.is_some_and(|t| t > 0)
        && (0..cutoff).all(|i| adds_nothing(recs[i], extra_whole == Some(i)))
    {
        return None;
    }
    let (previous_summary, anchor) = match cfg.incremental {
        true => previous_summary(recs),
        false => (None, None),
    };
    keep_tail(recs, tail_start, previous_summary.is_some(), &mut keep);
    let skip_prev = previous_summary.is_some();
    let fates = (0..recs.len())
        .map(|i| {
            let all = keep[i].iter().all(|k| *k) && (!keep[i].is_empty() || i >= tail_start);
            let rendered =
                i < cutoff && (transcript::renders(recs[i], skip_prev) || anchor == Some(i));
            Some(match (all, rendered) {
                (true, rendered) => Fate::Kept { rendered },
                (false, true) => Fate::Summarized,
                (false, false) if i >= cutoff && i < tail_start => Fate::Lost,
                (false, false) => Fate::Dropped,
            })
        })
        .collect();
    let standing = usize::from(!system.is_empty());
    let before = usize::from(!cfg.keep_user_messages && keep_first(recs, cutoff, cfg));
    let receipt = cfg.receipts.then(|| {
        format!(
            "[History before this point ({} messages, ~{} tokens) was summarized by {}. The summary above is secondhand; re-verify critical facts against primary sources.]",
            cutoff,
            est.token_count(&recs[..cutoff]),
            cfg.by
        )
    });
    let tail = tail_pieces(
        recs,
        tail_start,
        &keep,
        cfg.receipts && cfg.keep_tokens.is_none_or(|t| t == 0),
    );
    let mut layout: Vec<Piece> = Vec::new();
    if !system.is_empty() {
        layout.push(Piece::Standing(system.clone()));
    }
    if let Some((rec, parts)) = first.filter(|_| before == 1) {
        layout.push(Piece::Record { rec, parts });
    }
    layout.push(Piece::Summary);
    if cfg.receipts {
        layout.push(Piece::Receipt);
    }
    layout.extend(copies.iter().cloned());
    let other_messages = layout.len() - 1 + tail.len();
    layout.extend(tail);
    Some(Outcome {
        to_summarize: (0..cutoff).collect(),
        fates,
        previous_summary,
        position: standing + before,
        survivors: survivors(&keep),
        other_messages,
        user_copies: copies
            .iter()
            .filter_map(|c| match c {
                Piece::Copy { rec, .. } | Piece::Record { rec, .. } => Some(*rec),
                _ => None,
            })
            .collect(),
        receipt,
        layout,
    })
}

/// The (record, part) pairs that survive.
pub fn survivors(keep: &Keep) -> Vec<(usize, usize)> {
    keep.iter()
        .enumerate()
        .flat_map(|(i, ks)| {
            ks.iter()
                .enumerate()
                .filter(|(_, k)| **k)
                .map(move |(j, _)| (i, j))
        })
        .collect()
}

/// The first user request before the cut is carried (`_kept_first_user_message`): the record
/// and the parts carried (all of them: the same object).
fn carry_first_user(
    recs: &[&Rec],
    cutoff: usize,
    system: &[(usize, usize)],
    keep: &mut Keep,
) -> Option<(usize, Vec<usize>)> {
    let first = first_user_message(recs).filter(|&f| f < cutoff)?;
    let carried: Vec<&str> = system
        .iter()
        .filter_map(|&(i, j)| system_text(recs, i, j))
        .collect();
    let kept = kept_first_user_parts(recs[first], &carried);
    for &j in &kept {
        keep[first][j] = true;
    }
    Some((first, kept))
}

/// The tail survives, without earlier summaries when the new one updated them; pins always.
fn keep_tail(recs: &[&Rec], tail_start: usize, anchored: bool, keep: &mut Keep) {
    for (i, r) in recs.iter().enumerate() {
        for (j, p) in r.parts.iter().enumerate() {
            if i >= tail_start {
                let summary = p.is_own_summary() || p.is_legacy_summary();
                keep[i][j] = !anchored || !summary;
            }
            if p.user().is_some_and(|u| u.pinned) {
                keep[i][j] = true;
            }
        }
    }
}

fn system_text<'a>(recs: &[&'a Rec], i: usize, j: usize) -> Option<&'a str> {
    match recs.get(i)?.parts.get(j)? {
        P::System { content, .. } => Some(content),
        _ => None,
    }
}

fn keep_first(recs: &[&Rec], cutoff: usize, cfg: &Config) -> bool {
    cfg.preserve_first_user_message && first_user_message(recs).is_some_and(|f| f < cutoff)
}

/// `_extract_system_prompts`: system prompts of the leading requests.
fn leading_system_prompts(recs: &[&Rec]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        if !r.request {
            break;
        }
        for (j, p) in r.parts.iter().enumerate() {
            match p {
                P::System { .. } if !p.is_legacy_summary() => out.push((i, j)),
                P::User(u) if u.pinned || u.receipt => {}
                _ => return out,
            }
        }
    }
    out
}

/// `_first_user_message`: the first request holding a user turn.
pub fn first_user_message(recs: &[&Rec]) -> Option<usize> {
    recs.iter().position(|r| {
        r.request
            && r.parts
                .iter()
                .any(|p| p.user().is_some_and(UserPart::is_turn))
    })
}

/// `_kept_first_user_message`: the parts of the first user request that are carried.
fn kept_first_user_parts(r: &Rec, carried: &[&str]) -> Vec<usize> {
    let parts = &r.parts;
    let turn = parts
        .iter()
        .position(|p| p.user().is_some_and(UserPart::is_turn))
        .unwrap_or(0);
    let end = (turn..parts.len())
        .find(|&j| parts.get(j).is_some_and(P::is_own_summary))
        .unwrap_or(parts.len());
    (0..end)
        .filter(|&j| {
            let p = &parts[j];
            let marker = p.user().is_some_and(|u| u.receipt || u.origin.is_some());
            let carried_system =
                matches!(p, P::System { content, .. } if carried.contains(&&**content));
            !marker && !p.is_own_summary() && !p.is_legacy_summary() && !carried_system
        })
        .collect()
}

/// `_adds_nothing_to_summarize`.
fn adds_nothing(r: &Rec, kept_whole: bool) -> bool {
    if kept_whole {
        return true;
    }
    if !r.request {
        return !r.parts.is_empty()
            && r.parts
                .iter()
                .all(|p| matches!(p, P::ToolCall { load: true, .. }));
    }
    r.parts.iter().all(|p| match p {
        P::System { .. } => true,
        P::User(u) => u.pinned || u.receipt,
        P::ToolReturn { load, .. } => *load,
        _ => p.is_own_summary(),
    })
}

/// `extract_previous_summary`: the newest own summary (bridge notice removed), else the first
/// legacy one; with the record it lies in.
fn previous_summary(recs: &[&Rec]) -> (Option<String>, Option<usize>) {
    for (i, r) in recs.iter().enumerate().rev() {
        for p in r.parts.iter().rev() {
            if let P::Compaction {
                content: Some(c),
                own: true,
            } = p
            {
                let text = c.strip_prefix(BRIDGE_PREFIX).unwrap_or(c);
                return (Some(text.to_string()), Some(i));
            }
        }
    }
    for (i, r) in recs.iter().enumerate() {
        for p in &r.parts {
            if let P::System {
                content,
                request_scope: false,
            } = p
            {
                if let Some(rest) = content.strip_prefix(LEGACY_SUMMARY_PREFIX) {
                    let text = rest.strip_prefix(BRIDGE_PREFIX).unwrap_or(rest);
                    return (Some(text.to_string()), Some(i));
                }
            }
        }
    }
    (None, None)
}

/// `_retain_user_turns`: user-turn copies (new objects, so their records are not kept) and the
/// re-cut tail start. Returns (the copies, tail start).
fn retain_user_turns(
    recs: &[&Rec],
    cutoff: usize,
    cfg: &Config,
    est: &Estimator,
    keep: &mut Keep,
) -> (Vec<Piece>, usize) {
    // (record, parts kept by identity, the copy) per copy.
    let mut copies: Vec<(usize, Vec<usize>, Piece)> = Vec::new();
    for (i, r) in recs.iter().enumerate().take(cutoff) {
        if !r.request {
            continue;
        }
        if r.kept_copy {
            let genuine: Vec<usize> = (0..r.parts.len())
                .filter(|&j| r.parts[j].user().is_none_or(|u| u.origin.is_none()))
                .collect();
            if !genuine.is_empty() {
                let piece = Piece::Record {
                    rec: i,
                    parts: genuine.clone(),
                };
                copies.push((i, genuine, piece));
            }
            continue;
        }
        let users: Vec<(usize, &UserPart)> = r
            .parts
            .iter()
            .enumerate()
            .filter_map(|(j, p)| p.user().filter(|u| u.is_turn()).map(|u| (j, u)))
            .collect();
        if !users.is_empty() {
            let same = users
                .iter()
                .filter(|(_, u)| u.kept_copy)
                .map(|(j, _)| *j)
                .collect();
            let parts = users.iter().map(|(j, _)| *j).collect();
            copies.push((i, same, Piece::Copy { rec: i, parts }));
        }
    }
    let skip = if cfg.keep_messages == 0 {
        copies.len()
    } else {
        copies.len().saturating_sub(cfg.keep_messages)
    };
    let mut copies: Vec<(usize, Vec<usize>, Piece)> = copies.into_iter().skip(skip).collect();
    let preserved: Vec<&Rec> = recs[cutoff..].to_vec();
    let mut start = cutoff;
    match cfg.keep_tokens {
        Some(0) => {
            let zero = copies
                .iter()
                .rev()
                .take_while(|(i, _, _)| est.token_count(&[recs[*i]]) == 0)
                .count();
            copies = copies.split_off(copies.len() - zero);
            start += find_safe_cutoff(&preserved, 1);
        }
        None => {
            let slots = cfg.keep_messages.saturating_sub(copies.len()).max(1);
            if preserved.len() > slots {
                start += find_safe_cutoff(&preserved, slots);
            }
        }
        Some(_) => {}
    }
    for (i, parts, _) in &copies {
        for &j in parts {
            keep[*i][j] = true;
        }
    }
    (
        copies.into_iter().map(|(_, _, piece)| piece).collect(),
        start,
    )
}
