//! `SlidingWindowCompaction.compact` 0.62: the same cut as summarizing (a receipt takes one of
//! `keep_messages`), the prefix dropped, the first user request re-prepended (without harness
//! data merged into it), pins re-injected, older receipts replaced by a new one first.

use super::compacted::{is_receipt_only, tail_pieces, Piece};
use super::estimate::{find_safe_cutoff, find_token_cutoff, Estimator};
use super::history::Rec;
use super::summarizing::{first_user_message, survivors, Fate, Outcome};

/// The settings sliding `compact` reads.
#[derive(Debug, Clone)]
pub struct Config {
    pub keep_messages: usize,
    pub keep_tokens: Option<usize>,
    pub preserve_first_user_message: bool,
    pub receipts: bool,
}

/// `compact`, or None when the history is returned unchanged.
pub fn compact(recs: &[&Rec], cfg: &Config, est: &Estimator) -> Option<Outcome> {
    let cutoff = match cfg.keep_tokens {
        Some(t) => find_token_cutoff(est, recs, t),
        None => {
            let keep = if cfg.receipts && cfg.keep_messages > 1 {
                cfg.keep_messages - 1
            } else {
                cfg.keep_messages
            };
            find_safe_cutoff(recs, keep)
        }
    };
    if cutoff == 0 {
        return None;
    }
    let n = recs.len();
    let mut keep: Vec<Vec<bool>> = recs
        .iter()
        .enumerate()
        .map(|(i, r)| vec![i >= cutoff; r.parts.len()])
        .collect();
    let mut first = None;
    if cfg.preserve_first_user_message {
        if let Some(f) = first_user_message(recs).filter(|&f| f < cutoff) {
            for (j, p) in recs[f].parts.iter().enumerate() {
                keep[f][j] = p.user().is_none_or(|u| u.origin.is_none());
            }
            let parts = (0..recs[f].parts.len()).filter(|&j| keep[f][j]).collect();
            first = Some(Piece::Record { rec: f, parts });
        }
    }
    for (i, r) in recs.iter().enumerate() {
        for (j, p) in r.parts.iter().enumerate() {
            if p.user().is_some_and(|u| u.pinned) {
                keep[i][j] = true;
            }
        }
    }
    let receipt_only = |r: &Rec| is_receipt_only(r);
    let protected = cfg.keep_tokens.is_some_and(|t| t > 0);
    if cfg.receipts && !protected {
        for (i, r) in recs.iter().enumerate() {
            if receipt_only(r) {
                keep[i].iter_mut().for_each(|k| *k = false);
            }
        }
    }
    let fates: Vec<Option<Fate>> = (0..n)
        .map(|i| {
            let all = keep[i].iter().all(|k| *k) && (i >= cutoff || !keep[i].is_empty());
            Some(if all {
                Fate::Kept { rendered: false }
            } else {
                Fate::Dropped
            })
        })
        .collect();
    let receipt = cfg.receipts.then(|| {
        let dropped: Vec<&Rec> = (0..n)
            .filter(|&i| !keep[i].iter().any(|k| *k) && !receipt_only(recs[i]))
            .map(|i| recs[i])
            .collect();
        format!(
            "[History before this point ({} messages, ~{} tokens) was dropped by the harness. That context is no longer in the window; re-verify critical facts against primary sources.]",
            dropped.len(),
            est.token_count(&dropped)
        )
    });
    let mut layout = Vec::new();
    if cfg.receipts {
        layout.push(Piece::Receipt);
    }
    layout.extend(first);
    layout.extend(tail_pieces(recs, cutoff, &keep, false));
    Some(Outcome {
        to_summarize: Vec::new(),
        fates,
        previous_summary: None,
        position: 0,
        survivors: survivors(&keep),
        other_messages: layout.len(),
        user_copies: Vec::new(),
        receipt,
        layout,
    })
}
