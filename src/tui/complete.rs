//! Completing the `:` prompt (Tab): command words, preset names after `preset`, and the active
//! preset's setting names after `set` and `unset`.
//!
//! Owns: what a partial line may become. Pure: the caller applies the completion and shows
//! the candidates.

use crate::compaction::presets;

const COMMANDS: &[&str] = &["preset", "q", "quit", "set", "unset"];

/// What Tab does to a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The line completed as far as every candidate agrees.
    pub line: String,
    /// The candidates, when more than one remains (shown beside the prompt).
    pub candidates: Vec<String>,
}

/// Completes the last word of `line` for the active `preset`; `None` when nothing fits.
pub fn complete(line: &str, preset: Option<&str>) -> Option<Completion> {
    let start = line.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let (head, word) = line.split_at(start);
    let verb = head.split_whitespace().next();
    let (words, suffix): (Vec<String>, &str) = match verb {
        None => (COMMANDS.iter().map(|c| c.to_string()).collect(), " "),
        Some("preset" | "p") => (
            presets::all()
                .into_iter()
                .map(|p| p.name().to_string())
                .collect(),
            "",
        ),
        Some("set" | "unset") if !word.contains('=') => {
            let p = presets::find(preset?).ok()?;
            let suffix = if verb == Some("set") { "=" } else { "" };
            (
                p.params().iter().map(|s| s.name.to_string()).collect(),
                suffix,
            )
        }
        _ => return None,
    };
    let fits: Vec<String> = words.into_iter().filter(|w| w.starts_with(word)).collect();
    match fits.as_slice() {
        [] => None,
        [one] => Some(Completion {
            line: format!("{head}{one}{suffix}"),
            candidates: Vec::new(),
        }),
        many => {
            let common = common_prefix(many);
            Some(Completion {
                line: format!("{head}{common}"),
                candidates: fits,
            })
        }
    }
}

fn common_prefix(words: &[String]) -> String {
    let first = &words[0];
    let mut end = first.len();
    for w in &words[1..] {
        end = first
            .char_indices()
            .zip(w.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8())
            .min(end);
    }
    first[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(l: &str, preset: Option<&str>) -> Option<String> {
        complete(l, preset).map(|c| c.line)
    }

    #[test]
    fn commands_presets_and_settings_complete() {
        assert_eq!(line("pre", None).as_deref(), Some("preset "));
        assert_eq!(
            line("preset hermes", None).as_deref(),
            Some("preset hermes")
        );
        assert_eq!(line("preset di", None).as_deref(), Some("preset dimos"));
        let af = complete("preset agent-framework-t", None).unwrap();
        assert_eq!(af.line, "preset agent-framework-t");
        assert_eq!(
            af.candidates,
            vec![
                "agent-framework-truncation",
                "agent-framework-tool-result",
                "agent-framework-token-budget"
            ]
        );
        assert_eq!(
            line("set keep_r", Some("dimos")).as_deref(),
            Some("set keep_ratio=")
        );
        assert_eq!(
            line("set keep_ratio=0.3 trig", Some("dimos")).as_deref(),
            Some("set keep_ratio=0.3 trigger_ratio=")
        );
        assert_eq!(
            line("unset context", Some("dimos")).as_deref(),
            Some("unset context_window")
        );
        assert_eq!(line("set x", None), None);
        assert_eq!(line("set zzz", Some("dimos")), None);
        assert_eq!(line("set keep_ratio=0", Some("dimos")), None);
    }
}
