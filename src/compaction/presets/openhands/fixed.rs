//! `openhands-fixed`: the summarizer input OpenHands should send — whole events instead of
//! display previews. The previous summary is shown whole; an action shows its tool, its
//! `summary`, its thought and its arguments; results, messages and errors keep head and tail
//! at 10,000 characters (V0's `truncate_content`). When the request overflows the summarizer's
//! window (the agent's, as the SDK copies the agent LLM), the head+tail cap shrinks by 20% and
//! the input is rebuilt, up to 10 times.
//!
//! Owns: that rendering and its findings. No framework runs it: it is tested by construction.

use serde_json::Value;

use super::events::Record;
use super::findings::reasoning_and_images;
use super::render::{items, llm_message, s, to_llm_content, Item};
use super::view::{rec, Ev, Kind};
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::PromptMessage;
use crate::compaction::preset::PlanInput;
use crate::tokens::bound::at_least;

/// Head+tail cap of one event's text.
pub const CAP: usize = 10_000;
const RETRIES: usize = 10;
const MARKER: &str = "\n[... Observation truncated due to length ...]\n";

/// The request, and what it still loses.
pub fn summarizer(
    records: &[Record],
    forgotten: &[Ev],
    input: &PlanInput,
) -> (Vec<PromptMessage>, Vec<Finding>) {
    let window = usize::try_from(input.window).unwrap_or(usize::MAX);
    let caps = caps();
    // Each event's piece and its bounds, on every core when the plan may use them
    // (`PlanInput::every_core`); an event's piece needs no other event.
    let each = |e: &Ev| {
        let p = piece(records, e);
        let b = p.bounds(&caps);
        (p, b)
    };
    let (pieces, each_bounds): (Vec<Piece>, Vec<[usize; RETRIES + 1]>) = if input.every_core() {
        crate::par::map(forgotten, 256, each, |_| {})
            .into_iter()
            .unzip()
    } else {
        forgotten.iter().map(each).unzip()
    };
    // A lower bound on the request's tokens at each cap, read once from the pieces: each
    // event's text is a part of the user message, and the bound of a text is at least the sum
    // of its parts' (`bound`).
    let mut bounds = [at_least(super::consts::SUMMARIZING_SYSTEM) + 2 * 4 + 3; RETRIES + 1];
    for b in &each_bounds {
        for (total, b) in bounds.iter_mut().zip(b) {
            *total += b;
        }
    }
    let at = |cap: usize| -> (String, Vec<usize>) { user_at(&pieces, cap) };
    // Over the window when the bound says so already; built and counted only near it. The
    // bound never exceeds the count, so the answer is the count's.
    let mut built = None;
    let mut over = |retries: usize| -> bool {
        if bounds[retries] > window {
            return true;
        }
        let (user, cut) = at(caps[retries]);
        let request = super::prompt(user);
        let over = tokens(&request, input) > window;
        built = Some((retries, request, cut));
        over
    };
    let mut retries = 0;
    while retries < RETRIES && caps[retries] > 0 && over(retries) {
        retries += 1;
    }
    let cap = caps[retries];
    let (messages, cut) = match built {
        Some((r, request, cut)) if r == retries => (request, cut),
        _ => {
            let (user, cut) = at(cap);
            (super::prompt(user), cut)
        }
    };
    let findings = findings(records, forgotten, &cut, cap, retries, window, || {
        tokens(&messages, input)
    });
    (messages, findings)
}

/// The request's tokens as the summarizer window is checked against: each message's content
/// and framing, and the reply's.
fn tokens(messages: &[PromptMessage], input: &PlanInput) -> usize {
    messages
        .iter()
        .map(|p| input.counter.count(&p.content) + 4)
        .sum::<usize>()
        + 3
}

/// What the request still loses: the forgotten events' reasoning and images, the events cut
/// to head and tail at the final `cap` (`cut`: characters cut per event), and, when the cap
/// shrank `retries` times, the overflow (`still`: the final request's tokens).
fn findings(
    records: &[Record],
    forgotten: &[Ev],
    cut: &[usize],
    cap: usize,
    retries: usize,
    window: usize,
    still: impl FnOnce() -> usize,
) -> Vec<Finding> {
    let mut findings = reasoning_and_images(records, forgotten);
    let cut_events: Vec<usize> = forgotten
        .iter()
        .zip(cut)
        .filter(|(_, c)| **c > 0)
        .filter_map(|(e, _)| e.msg)
        .collect();
    if !cut_events.is_empty() {
        let total: usize = cut.iter().sum();
        findings.push(Finding {
            code: "message-truncated",
            severity: Severity::Info,
            detail: format!(
                "{} event(s) over {cap} characters keep head and tail: {total} characters cut from their middles",
                cut_events.len()
            ),
            messages: cut_events,
        });
    }
    if retries > 0 {
        let still = still();
        findings.push(Finding {
            code: "summarizer-window-overflow",
            severity: if still > window { Severity::Error } else { Severity::Warn },
            messages: Vec::new(),
            detail: format!(
                "the whole-event input overflows the {window}-token summarizer window: the head+tail cap shrank {retries} time(s) by 20% to {cap} characters ({still} tokens{})",
                if still > window { ", still over" } else { "" }
            ),
        });
    }
    findings
}

/// The caps the request is built at, one per try: [`CAP`], then 20% less on each retry.
fn caps() -> [usize; RETRIES + 1] {
    let mut caps = [CAP; RETRIES + 1];
    for r in 1..=RETRIES {
        caps[r] = caps[r - 1] * 4 / 5;
    }
    caps
}

/// The events prompt of `pieces` at `cap`, written in one string, and the characters cut
/// from each piece.
fn user_at(pieces: &[Piece], cap: usize) -> (String, Vec<usize>) {
    let len = pieces.iter().map(|p| p.len_at(cap)).sum();
    let mut prompt = super::EventsPrompt::with_capacity(len);
    let cut = pieces
        .iter()
        .map(|p| prompt.event(|out| p.write_at(cap, out)))
        .collect();
    (prompt.finish(), cut)
}

/// One event as the summarizer is shown it at any cap up to [`CAP`]: the text before its
/// capped part (every capped part ends the event's text), and enough of that part to cut it
/// at any such cap, so that a smaller cap costs what the cut parts hold, not the whole text.
struct Piece {
    before: String,
    capped: Capped,
}

enum Capped {
    /// No part is capped (an action, a summary).
    Nothing,
    /// A part of at most `CAP` characters, whole.
    Whole { text: String, len: usize },
    /// A longer part: its first `CAP / 2` and last `CAP - CAP / 2` characters.
    Ends {
        head: String,
        tail: String,
        len: usize,
    },
}

impl Piece {
    fn new(before: String, text: &str) -> Piece {
        let len = text.chars().count();
        let capped = if len <= CAP {
            Capped::Whole {
                text: text.to_string(),
                len,
            }
        } else {
            Capped::Ends {
                head: text.chars().take(CAP / 2).collect(),
                tail: last_chars(text, len, CAP - CAP / 2).to_string(),
                len,
            }
        };
        Piece { before, capped }
    }

    /// The event's text with its part cut to head and tail within `cap` characters (at
    /// most [`CAP`]), and how many characters were cut.
    #[cfg(test)]
    fn at(&self, cap: usize) -> (String, usize) {
        let mut out = String::new();
        let cut = self.write_at(cap, &mut out);
        (out, cut)
    }

    /// [`Piece::at`] written at the end of `out`; the characters cut.
    fn write_at(&self, cap: usize, out: &mut String) -> usize {
        out.push_str(&self.before);
        let (head, tail, len) = match &self.capped {
            Capped::Nothing => return 0,
            Capped::Whole { text, len } if *len <= cap => {
                out.push_str(text);
                return 0;
            }
            Capped::Whole { text, len } => (text, text, *len),
            Capped::Ends { head, tail, len } => (head, tail, *len),
        };
        let keep_head = cap / 2;
        let keep_tail = cap - keep_head;
        out.extend(head.chars().take(keep_head));
        out.push_str(MARKER);
        out.push_str(last_chars(tail, tail.chars().count(), keep_tail));
        len - cap
    }

    /// At most the bytes [`Piece::write_at`] writes at `cap`.
    fn len_at(&self, cap: usize) -> usize {
        self.before.len()
            + match &self.capped {
                Capped::Nothing => 0,
                Capped::Whole { text, len } if *len <= cap => text.len(),
                Capped::Whole { text, .. } => text.len() + MARKER.len(),
                Capped::Ends { head, tail, .. } => head.len() + MARKER.len() + tail.len(),
            }
    }

    /// For each of `caps`, at most [`at_least`] of the text [`Piece::at`] that cap gives,
    /// without building it: the sum of the bounds of its parts (before, the head kept, the
    /// marker, the tail kept), in one pass over each part.
    fn bounds(&self, caps: &[usize; RETRIES + 1]) -> [usize; RETRIES + 1] {
        let before = at_least(&self.before);
        let (head, tail, len) = match &self.capped {
            Capped::Nothing => return [before; RETRIES + 1],
            Capped::Whole { text, len } => (text, text, *len),
            Capped::Ends { head, tail, len } => (head, tail, *len),
        };
        let keep_heads = caps.map(|cap| cap / 2);
        let head_places = places_before(head, &keep_heads);
        let tail_len = tail.chars().count();
        // The tail kept starts at character `j`; its places are the tail's after `j`.
        let tail_starts = caps.map(|cap| tail_len.saturating_sub(cap - cap / 2) + 1);
        let tail_before = places_before(tail, &tail_starts);
        let tail_all = at_least(tail);
        // A whole part is both head and tail.
        let whole = matches!(self.capped, Capped::Whole { .. }).then_some(tail_all);
        let marker = at_least(MARKER);
        let mut out = [0; RETRIES + 1];
        for (r, &cap) in caps.iter().enumerate() {
            out[r] = match whole {
                Some(all) if len <= cap => before + all,
                _ => before + head_places[r] + marker + (tail_all - tail_before[r]),
            };
        }
        out
    }
}

/// For each of `ends` (character counts), the places [`at_least`] counts in the first that
/// many characters of `text`, in one pass. A place is a character, so the places of the text
/// from character `j` on are all of them less those before `j + 1`.
fn places_before(text: &str, ends: &[usize; RETRIES + 1]) -> [usize; RETRIES + 1] {
    let mut order: [usize; RETRIES + 1] = std::array::from_fn(|k| k);
    order.sort_unstable_by_key(|&k| ends[k]);
    let mut next = order.iter().peekable();
    let mut out = [0; RETRIES + 1];
    let mut places = 0;
    for (i, place) in crate::tokens::bound::places(text).enumerate() {
        while let Some(&k) = next.next_if(|&&k| ends[k] == i) {
            out[k] = places;
        }
        if next.peek().is_none() {
            return out;
        }
        places += usize::from(place);
    }
    for &k in next {
        out[k] = places;
    }
    out
}

/// The last `n` of the `len` characters of `text`.
fn last_chars(text: &str, len: usize, n: usize) -> &str {
    match text.char_indices().nth(len.saturating_sub(n)) {
        Some((at, _)) => &text[at..],
        None => "",
    }
}

/// One event, whole but for the head+tail cap of its result, message or error text.
fn piece(records: &[Record], ev: &Ev) -> Piece {
    let v = rec(records, ev);
    let source = v
        .get("source")
        .and_then(Value::as_str)
        .unwrap_or("environment");
    let tool = || s(v, "tool_name");
    match ev.kind {
        Kind::Action => Piece {
            before: action(v, source),
            capped: Capped::Nothing,
        },
        Kind::Summary => Piece {
            before: format!(
                "CondensationSummaryEvent ({source})\n  user: {}",
                s(v, "summary")
            ),
            capped: Capped::Nothing,
        },
        Kind::Observation => {
            let content: String = to_llm_content(&v["observation"])
                .iter()
                .map(Item::display)
                .collect();
            let before = format!(
                "ObservationEvent ({source})\n  Tool: {}\n  Result: ",
                tool()
            );
            Piece::new(before, &content)
        }
        Kind::Reject => {
            let reason = v
                .get("rejection_reason")
                .and_then(Value::as_str)
                .unwrap_or("User rejected the action");
            let before = format!(
                "UserRejectObservation ({source})\n  Tool: {}\n  Reason: ",
                tool()
            );
            Piece::new(before, reason)
        }
        Kind::AgentError => {
            let before = format!("AgentErrorEvent ({source})\n  Tool: {}\n  Error: ", tool());
            Piece::new(before, s(v, "error"))
        }
        Kind::Message | Kind::System => {
            let m = llm_message(records, ev);
            let joined = m
                .content
                .iter()
                .map(Item::display)
                .collect::<Vec<_>>()
                .join("\n");
            let class = if ev.kind == Kind::System {
                "SystemPromptEvent"
            } else {
                "MessageEvent"
            };
            Piece::new(format!("{class} ({source})\n  {}: ", m.role), &joined)
        }
    }
}

fn action(v: &Value, source: &str) -> String {
    let thought: Vec<String> = items(v.get("thought"))
        .into_iter()
        .map(|i| i.display())
        .collect();
    let call = &v["tool_call"];
    let tool = if s(v, "tool_name").is_empty() {
        s(call, "name")
    } else {
        s(v, "tool_name")
    };
    let arguments = match call.get("arguments") {
        Some(Value::String(a)) => a.clone(),
        Some(other) => other.to_string(),
        None => v.get("action").map(Value::to_string).unwrap_or_default(),
    };
    let mut out = format!("ActionEvent ({source})\n  Tool: {tool}");
    let summary = s(v, "summary");
    if !summary.is_empty() {
        out.push_str(&format!("\n  Summary: {summary}"));
    }
    out.push_str(&format!("\n  Thought: {}", thought.join(" ")));
    out.push_str(&format!("\n  Arguments: {arguments}"));
    out
}

#[cfg(test)]
#[path = "fixed_oracle.rs"]
mod oracle;

#[cfg(test)]
mod bound_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bound read from a piece's parts is never above the bound of the text built at
        /// that cap, and at most the three places where the parts meet below it.
        #[test]
        fn a_piece_bounds_the_text_at_every_cap(
            before in "[ a/\\n]{0,6}",
            unit in "[ a/\\né\\t]{1,7}",
            len in 0usize..24_000,
        ) {
            let text: String = unit.chars().cycle().take(len).collect();
            let piece = Piece::new(before, &text);
            let caps = caps();
            for (bound, cap) in piece.bounds(&caps).into_iter().zip(caps) {
                let built = at_least(&piece.at(cap).0);
                prop_assert!(bound <= built && built <= bound + 3, "cap {cap}: {bound} vs {built}");
            }
        }
    }
}

#[cfg(test)]
mod prompt_tests {
    use super::*;
    use proptest::prelude::*;

    /// The template as written before: each event wrapped, the closing line, the whole copied
    /// stripped.
    fn events_prompt_oracle(strings: &[String]) -> String {
        let mut out = String::new();
        for s in strings {
            out.push_str("\n<EVENT>\n");
            out.push_str(s);
            out.push_str("\n</EVENT>\n");
        }
        out.push_str("\n\nNow summarize the events using the rules above.");
        out.trim().to_string()
    }

    proptest! {
        /// The prompt written in place, from strings or from pieces at a cap, is the template's.
        #[test]
        fn the_prompt_written_in_place_is_the_template_s(
            strings in proptest::collection::vec("[ \\t\\na-z\u{3000}é]{0,12}", 0..5),
            long in proptest::collection::vec(0usize..12_000, 0..3),
            cap_at in 0usize..=RETRIES,
        ) {
            prop_assert_eq!(super::super::events_prompt(&strings), events_prompt_oracle(&strings));
            let mut pieces: Vec<Piece> = strings
                .iter()
                .map(|s| Piece::new(s.clone(), s))
                .collect();
            pieces.extend(long.iter().map(|&n| Piece::new(" ".into(), &"é ".repeat(n))));
            let cap = caps()[cap_at];
            let (user, cut) = user_at(&pieces, cap);
            let (texts, cut_each): (Vec<String>, Vec<usize>) =
                pieces.iter().map(|p| p.at(cap)).unzip();
            prop_assert_eq!(user, events_prompt_oracle(&texts));
            prop_assert_eq!(cut, cut_each);
        }
    }
}
