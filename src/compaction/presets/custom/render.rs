//! The `custom` summarizer request: one `[role] text` block per summarized message, the caps
//! (`max_message_chars`, `max_input_chars`, head + tail around a marker), the transcript
//! rendered or left to render a block at a time, and the findings on what the request leaves
//! out.

use std::sync::Arc;

use super::DEFAULT_PROMPT;
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::{PromptMessage, PromptRole};
use crate::compaction::request::{Block, Deferred};
use crate::compaction::settings::Settings;
use crate::session::{Message, Part, Session};

/// The summarizer request and the findings about what it leaves out. With `defer` (and no
/// cap on the whole transcript, which would cut it by its total length) the transcript is left
/// to render a block at a time when read (`Deferred::push_joined`): it is most of the session
/// again, and a command that only scans or previews it need not hold it.
pub fn render_request(
    session: &Session,
    settings: &Settings,
    summarized: &[usize],
    defer: bool,
) -> (Vec<PromptMessage>, Option<Deferred>, Vec<Finding>) {
    let caps = Caps::of(settings);
    let prompt = settings.str("prompt").unwrap_or(DEFAULT_PROMPT).to_string();
    let user_role = settings.str("role") == Some("user");
    if defer && settings.int("max_input_chars").is_none() {
        // Each block capped and measured on every core, then dropped.
        let cut_of = |&i: &usize| {
            let m = session.messages.get(i)?;
            let cut = caps.cap.map_or(0, |c| caps.cut(&block_of(m), c).1);
            Some((m.index, cut))
        };
        let cuts: Vec<(usize, usize)> = match caps.cap {
            Some(_) => crate::par::map(summarized, 64, cut_of, |_| {})
                .into_iter()
                .flatten()
                .filter(|&(_, cut)| cut > 0)
                .collect(),
            None => Vec::new(),
        };
        let mut deferred = Deferred::default();
        let head = match user_role {
            true => vec![prompt, String::new()],
            false => {
                deferred.push_own(PromptMessage {
                    role: PromptRole::System,
                    content: prompt,
                });
                Vec::new()
            }
        };
        let block: Block = Arc::new(move |m: &Message| match caps.cap {
            Some(c) => caps.cut(&block_of(m), c).0,
            None => block_of(m),
        });
        deferred.push_joined(PromptRole::User, head, summarized.to_vec(), block);
        let findings = findings(session, summarized, cuts, 0);
        return (Vec::new(), Some(deferred), findings);
    }
    // The blocks are written into the transcript one by one, and nothing is copied whole
    // where nothing is cut: the transcript can be most of the session.
    let mut transcript = String::new();
    let mut cuts = Vec::new();
    for (k, m) in summarized
        .iter()
        .filter_map(|&i| session.messages.get(i))
        .enumerate()
    {
        let block = block_of(m);
        let (text, cut) = match caps.cap {
            Some(c) => caps.cut(&block, c),
            None => (block, 0),
        };
        if cut > 0 {
            cuts.push((m.index, cut));
        }
        if k > 0 {
            transcript.push_str("\n\n");
        }
        transcript.push_str(&text);
    }
    let (mut transcript, total_cut) = match settings.int("max_input_chars") {
        Some(c) => caps.cut(&transcript, c.max(0) as usize),
        None => (transcript, 0),
    };
    let messages = if user_role {
        transcript.insert_str(0, &format!("{prompt}\n\n"));
        vec![PromptMessage {
            role: PromptRole::User,
            content: transcript,
        }]
    } else {
        vec![
            PromptMessage {
                role: PromptRole::System,
                content: prompt,
            },
            PromptMessage {
                role: PromptRole::User,
                content: transcript,
            },
        ]
    };
    (
        messages,
        None,
        findings(session, summarized, cuts, total_cut),
    )
}

/// The findings on what the request leaves out: the messages cut to `max_message_chars`
/// (each with the characters cut), the characters the whole-transcript cap cut, the parts
/// never shown.
fn findings(
    session: &Session,
    summarized: &[usize],
    cuts: Vec<(usize, usize)>,
    total_cut: usize,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !cuts.is_empty() {
        let cut_chars: usize = cuts.iter().map(|&(_, c)| c).sum();
        findings.push(Finding {
            code: "message-truncated",
            severity: Severity::Warn,
            detail: format!("{} summarized message(s) are over max_message_chars: {cut_chars} characters in all are cut from their middle", cuts.len()),
            messages: cuts.into_iter().map(|(i, _)| i).collect(),
        });
    }
    if total_cut > 0 {
        findings.push(Finding {
            code: "input-truncated",
            severity: Severity::Warn,
            messages: summarized.to_vec(),
            detail: format!("the transcript is over max_input_chars: {total_cut} characters are cut from its middle"),
        });
    }
    findings.extend(lost_parts(session, summarized));
    findings
}

/// The caps of `max_message_chars` and of where a capped text is cut (`head_chars`,
/// `tail_chars`).
#[derive(Debug, Clone, Copy)]
struct Caps {
    cap: Option<usize>,
    head: Option<i64>,
    tail: Option<i64>,
}

impl Caps {
    fn of(settings: &Settings) -> Caps {
        Caps {
            cap: settings.int("max_message_chars").map(|c| c.max(0) as usize),
            head: settings.int("head_chars"),
            tail: settings.int("tail_chars"),
        }
    }

    /// `text` cut to `cap` characters (see `cap_with`).
    fn cut(&self, text: &str, cap: usize) -> (String, usize) {
        cap_with(text, cap, self.head, self.tail)
    }
}

/// One summarized message as the summarizer sees it.
pub fn block_of(m: &Message) -> String {
    let pieces: Vec<String> = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } | Part::Summary { text } => Some(text.clone()),
            Part::ToolCall {
                name, arguments, ..
            } => Some(format!("{name}({arguments})")),
            Part::ToolResult { call_id, .. } => {
                Some(format!("result {call_id}: {}", p.plain_text()))
            }
            Part::Image(_) => Some("[image]".to_string()),
            Part::Reasoning { .. } | Part::Opaque { .. } => None,
        })
        .collect();
    format!("[{}] {}", m.role.as_str(), pieces.join("\n"))
}

/// `text` cut to `cap` characters: head (`head_chars`, else half), a marker, tail
/// (`tail_chars`, else the rest). Returns the characters removed.
fn cap_with(
    text: &str,
    cap: usize,
    head_chars: Option<i64>,
    tail_chars: Option<i64>,
) -> (String, usize) {
    let len = text.chars().count();
    if len <= cap {
        return (text.to_string(), 0);
    }
    let head = head_chars.map_or(cap / 2, |h| h.max(0) as usize).min(cap);
    let tail = tail_chars
        .map_or(cap - head, |t| t.max(0) as usize)
        .min(len - head.min(len));
    let removed = len - head - tail;
    let head_text: String = text.chars().take(head).collect();
    let tail_text: String = text.chars().skip(len - tail).collect();
    (
        format!("{head_text}\n[… {removed} chars omitted …]\n{tail_text}"),
        removed,
    )
}

fn lost_parts(session: &Session, summarized: &[usize]) -> Vec<Finding> {
    let with = |f: fn(&Part) -> bool| -> Vec<usize> {
        summarized
            .iter()
            .copied()
            .filter(|&i| {
                session
                    .messages
                    .get(i)
                    .is_some_and(|m| m.parts.iter().any(f))
            })
            .collect()
    };
    let mut out = Vec::new();
    let reasoning = with(|p| matches!(p, Part::Reasoning { .. }));
    if !reasoning.is_empty() {
        out.push(Finding {
            code: "reasoning-dropped",
            severity: Severity::Info,
            detail: "reasoning of summarized messages is not shown to the summarizer".into(),
            messages: reasoning,
        });
    }
    let images = with(|p| matches!(p, Part::Image(_)));
    if !images.is_empty() {
        out.push(Finding {
            code: "image-dropped",
            severity: Severity::Warn,
            detail: "images of summarized messages reach the summarizer only as `[image]`".into(),
            messages: images,
        });
    }
    out
}
