//! The `custom` summarizer request: one `[role] text` block per summarized message, the caps
//! (`max_message_chars`, `max_input_chars`, head + tail around a marker), and the findings on
//! what the request leaves out.

use super::DEFAULT_PROMPT;
use crate::compaction::findings::{Finding, Severity};
use crate::compaction::plan::{PromptMessage, PromptRole};
use crate::compaction::settings::Settings;
use crate::session::{Message, Part, Session};

/// The summarizer request and the findings about what it leaves out.
pub fn render_request(
    session: &Session,
    settings: &Settings,
    summarized: &[usize],
) -> (Vec<PromptMessage>, Vec<Finding>) {
    let cap = settings.int("max_message_chars").map(|c| c.max(0) as usize);
    // The blocks are written into the transcript one by one, and nothing is copied whole
    // where nothing is cut: the transcript can be most of the session.
    let mut transcript = String::new();
    let mut cut_messages = Vec::new();
    let mut cut_chars = 0usize;
    for (k, m) in summarized
        .iter()
        .filter_map(|&i| session.messages.get(i))
        .enumerate()
    {
        let block = block_of(m);
        let (text, cut) = match cap {
            Some(c) => cap_text(&block, c, settings),
            None => (block, 0),
        };
        if cut > 0 {
            cut_messages.push(m.index);
            cut_chars += cut;
        }
        if k > 0 {
            transcript.push_str("\n\n");
        }
        transcript.push_str(&text);
    }
    let (mut transcript, total_cut) = match settings.int("max_input_chars") {
        Some(c) => cap_text(&transcript, c.max(0) as usize, settings),
        None => (transcript, 0),
    };
    let prompt = settings.str("prompt").unwrap_or(DEFAULT_PROMPT).to_string();
    let messages = if settings.str("role") == Some("user") {
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
    let mut findings = Vec::new();
    if !cut_messages.is_empty() {
        findings.push(Finding {
            code: "message-truncated",
            severity: Severity::Warn,
            detail: format!("{} summarized message(s) are over max_message_chars: {cut_chars} characters in all are cut from their middle", cut_messages.len()),
            messages: cut_messages,
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
    (messages, findings)
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

/// `text` cut to `cap` characters: head, a marker, tail. Returns the characters removed.
pub fn cap_text(text: &str, cap: usize, settings: &Settings) -> (String, usize) {
    let len = text.chars().count();
    if len <= cap {
        return (text.to_string(), 0);
    }
    let head = settings
        .int("head_chars")
        .map_or(cap / 2, |h| h.max(0) as usize)
        .min(cap);
    let tail = settings
        .int("tail_chars")
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
