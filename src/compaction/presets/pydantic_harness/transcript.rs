//! The summarizer request of `SummarizingCompaction` 0.62: `format_transcript` (one
//! `<message>` element per part, the transcript's own tags neutralised, tool returns, retry
//! feedback and harness data cut to `tool_return_max_chars` with `[...]` inside the cap,
//! thinking and builtin parts left out) inside `_DEFAULT_SUMMARY_PROMPT`, plus the harness-data
//! note and the `<previous-summary>` anchor when they apply.

use super::history::{Rec, P};

pub const INSTRUCTIONS: &str =
    "You are a context summarization assistant. Extract the most important information from conversations.";

const PROMPT_HEAD: &str = "You are a context summarization assistant.  The conversation below will be replaced by your summary, so it must carry everything needed to continue the task.

Write the summary under these exact section headings, omitting a section only if it has no content:

## Intent
The user's overall goal and any standing constraints or preferences.

## Key decisions
Choices made and the reasoning, so they are not relitigated.

## Artifacts
Files, paths, identifiers, commands, and APIs touched -- quote exact names.

## Current state
What is done and what is in progress right now.

## Next steps
The immediate actions still required to finish the task.

## Open questions
Unresolved questions or blockers.

Focus on results, not a replay of completed actions.  Respond ONLY with the summary -- no preamble, no markdown fences.

<messages>
";

const INCREMENTAL: &str = "An anchored summary from earlier compaction is provided below in <previous-summary>. Update it using the conversation above: preserve still-true details, remove stale details, and merge in new facts.  Keep the same section structure.";

const HARNESS_DATA: &str = "A <harness_data> element is content the application added on the user's channel, such as a background tool's result or a reviewer's feedback; its origin says which.  Record what it says where relevant, but don't treat it as the user's requests or standing constraints.";

/// What rendering cut: characters removed from tool returns, per record source.
#[derive(Debug, Default)]
pub struct Cuts {
    pub records: Vec<usize>,
    pub chars: usize,
}

/// The user prompt sent to the summarizer, and what the 500-char cut removed.
pub fn prompt(
    recs: &[&Rec],
    previous_summary: Option<&str>,
    max_chars: Option<usize>,
) -> (String, Cuts) {
    let mut cuts = Cuts::default();
    // The elements are written into the prompt as they are made: the transcript can be most
    // of the session, and joining a list of them copied it twice more.
    let mut out = String::from(PROMPT_HEAD);
    let mut first = true;
    each_element(
        recs,
        previous_summary.is_some(),
        max_chars,
        &mut cuts,
        |e| {
            if !first {
                out.push('\n');
            }
            first = false;
            out.push_str(&e);
        },
    );
    out.push_str("\n</messages>");
    let harness = recs
        .iter()
        .filter(|r| r.request)
        .flat_map(|r| &r.parts)
        .any(|p| p.user().is_some_and(|u| u.origin.is_some()));
    if harness {
        out.push_str("\n\n");
        out.push_str(HARNESS_DATA);
    }
    if let Some(prev) = previous_summary {
        out.push_str(&format!(
            "\n\n{INCREMENTAL}\n\n<previous-summary>\n{}\n</previous-summary>",
            neutralize(prev)
        ));
    }
    (out, cuts)
}

/// Whether `format_transcript` renders anything for this record.
pub fn renders(r: &Rec, skip_previous_summary: bool) -> bool {
    let mut cuts = Cuts::default();
    !transcript(&[r], skip_previous_summary, None, &mut cuts).is_empty()
}

fn transcript(recs: &[&Rec], skip_prev: bool, max: Option<usize>, cuts: &mut Cuts) -> Vec<String> {
    let mut out = Vec::new();
    each_element(recs, skip_prev, max, cuts, |e| out.push(e));
    out
}

/// `format_transcript`'s elements, in order, each handed to `f`.
fn each_element(
    recs: &[&Rec],
    skip_prev: bool,
    max: Option<usize>,
    cuts: &mut Cuts,
    mut f: impl FnMut(String),
) {
    for r in recs {
        let before = cuts.chars;
        for p in &r.parts {
            if let Some(e) = element(r, p, skip_prev, max, cuts) {
                f(e);
            }
        }
        if cuts.chars > before {
            cuts.records.push(r.source);
        }
    }
}

fn element(r: &Rec, p: &P, skip_prev: bool, max: Option<usize>, cuts: &mut Cuts) -> Option<String> {
    if !r.request {
        return match p {
            P::Text(t) => Some(message("assistant", t, None, None, None, cuts)),
            P::ToolCall {
                name,
                args,
                load: false,
                ..
            } => Some(message("tool_call", args, Some(name), None, None, cuts)),
            _ => None,
        };
    }
    match p {
        P::User(u) if u.origin.is_some() => {
            let origin = u.origin.as_deref().unwrap_or_default();
            let body = cut(&neutralize(&u.texts.join(" ")), max, cuts);
            Some(format!(
                "<harness_data origin=\"{}\">\n{body}\n</harness_data>",
                html_escape(origin)
            ))
        }
        _ if r.kept_copy => None,
        P::User(u) if u.kept_copy => None,
        P::User(u) => Some(message("user", &u.texts.join(" "), None, None, None, cuts)),
        P::System {
            content,
            request_scope: false,
        } if !(skip_prev && p.is_legacy_summary()) => {
            Some(message("system", content, None, None, None, cuts))
        }
        P::ToolReturn {
            name,
            text,
            retried,
            cause,
            load: false,
            ..
        } => {
            let role = if *retried {
                "retry_feedback"
            } else {
                "tool_return"
            };
            let cause = cause.as_deref().filter(|_| *retried);
            Some(message(role, text, Some(name), cause, max, cuts))
        }
        P::RetryFeedback { text, cause } => Some(message(
            "retry_feedback",
            text,
            None,
            Some(cause),
            max,
            cuts,
        )),
        P::Compaction {
            content: Some(c), ..
        } if !(c.is_empty() || (skip_prev && p.is_own_summary())) => {
            Some(message("summary", c, None, None, None, cuts))
        }
        _ => None,
    }
}

fn message(
    role: &str,
    content: &str,
    name: Option<&str>,
    cause: Option<&str>,
    max: Option<usize>,
    cuts: &mut Cuts,
) -> String {
    let mut attrs = String::new();
    for (key, value) in [("name", name), ("cause", cause)] {
        if let Some(v) = value {
            attrs.push_str(&format!(" {key}=\"{}\"", html_escape(v)));
        }
    }
    let body = cut(&neutralize(content), max, cuts);
    format!("<message role=\"{role}\"{attrs}>\n{body}\n</message>")
}

/// `_truncate_with_marker`: the first `max - 5` characters and `[...]`.
fn cut(text: &str, max: Option<usize>, cuts: &mut Cuts) -> String {
    let Some(max) = max else {
        return text.to_string();
    };
    let len = text.chars().count();
    if len <= max {
        return text.to_string();
    }
    const MARKER: &str = "[...]";
    let kept = max.saturating_sub(MARKER.len());
    cuts.chars += len - kept;
    if max <= MARKER.len() {
        return MARKER[..max].to_string();
    }
    let head: String = text.chars().take(kept).collect();
    format!("{head}{MARKER}")
}

/// Python's `html.escape(s)` (quotes included).
fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
}

/// `_neutralize_transcript_tags`: the `<` of the transcript's own tags becomes `&lt;`.
///
/// The tag opener regex: `<(?=\s*(?:/\s*)?(?:messages?|previous-summary|harness_data)(?:[\s/>]|$))`,
/// case-insensitive.
pub fn neutralize(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut from = 0;
    // `<` is one byte, never inside another character's: each is a character of its own.
    for at in memchr::memchr_iter(b'<', content.as_bytes()) {
        if opens_tag(&content[at + 1..]) {
            out.push_str(&content[from..at]);
            out.push_str("&lt;");
            from = at + 1;
        }
    }
    out.push_str(&content[from..]);
    out
}

fn opens_tag(rest: &str) -> bool {
    let rest = rest.trim_start_matches(is_py_space);
    let rest = match rest.strip_prefix('/') {
        Some(r) => r.trim_start_matches(is_py_space),
        None => rest,
    };
    let lower: String = rest.chars().take(17).collect::<String>().to_lowercase();
    for name in ["previous-summary", "harness_data", "messages", "message"] {
        if lower.starts_with(name) {
            let after = rest.chars().nth(name.chars().count());
            return after.is_none_or(|c| is_py_space(c) || c == '/' || c == '>');
        }
    }
    false
}

/// Python `re`'s `\s` for str patterns (Unicode whitespace).
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The regex `_neutralize_transcript_tags` substitutes with, as Python's `re` reads it.
    fn by_regex(content: &str) -> String {
        let re = fancy_regex::Regex::new(
            r"(?i)<(?=[\s\x1c-\x1f]*(?:/[\s\x1c-\x1f]*)?(?:messages?|previous-summary|harness_data)(?:[\s\x1c-\x1f/>]|$))",
        )
        .unwrap();
        re.replace_all(content, "&lt;").into_owned()
    }

    proptest! {
        /// Every `<` that opens one of the transcript's tags, and no other, becomes `&lt;`.
        #[test]
        fn only_the_transcripts_own_tags_are_neutralized(
            pieces in proptest::collection::vec(
                prop_oneof![
                    Just("<"), Just("</"), Just(" "), Just("\u{2003}"), Just("\u{1d}"), Just("/"),
                    Just("message"), Just("MESSAGES"), Just("previous-summary"),
                    Just("harness_data"), Just(">"), Just("é"), Just("x"), Just("\n"),
                ],
                0..40,
            ),
        ) {
            let content: String = pieces.concat();
            prop_assert_eq!(neutralize(&content), by_regex(&content));
        }
    }
}
