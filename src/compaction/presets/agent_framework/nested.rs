//! The `strategies=` list of `TokenBudgetComposedStrategy`: `ClassName(name=value, …),ClassName`,
//! each class resolved against its own parameters and built by its constructor's rules.

use super::params::{build, specs, Strategy};
use super::PresetKind;
use crate::compaction::settings::Settings;

/// The strategies of `TokenBudgetComposedStrategy`, from `A(k=v, …),B`.
pub fn strategies(list: &str, window: u64) -> Result<Vec<Strategy>, String> {
    split_top(list, ',')
        .into_iter()
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (class, args) = match item.split_once('(') {
                Some((c, rest)) => (
                    c.trim(),
                    rest.strip_suffix(')')
                        .ok_or_else(|| format!("`{item}`: missing `)`"))?,
                ),
                None => (item, ""),
            };
            let kind = match class {
                "SummarizationStrategy" => PresetKind::Summarization(super::Version::V1_23),
                "SlidingWindowStrategy" => PresetKind::Sliding,
                "TruncationStrategy" => PresetKind::Truncation,
                "SelectiveToolCallCompactionStrategy" => PresetKind::Selective,
                "ToolResultCompactionStrategy" => PresetKind::ToolResult,
                "ContextWindowCompactionStrategy" => PresetKind::ContextWindow,
                other => return Err(format!("unknown strategy `{other}` in `strategies`")),
            };
            let sets: Vec<String> = split_top(args, ',')
                .into_iter()
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(unquote)
                .collect();
            let settings =
                Settings::resolve(class, specs(kind), &sets).map_err(|e| e.to_string())?;
            build(kind, &settings, window).map_err(|e| format!("{class}: {e}"))
        })
        .collect()
}

/// `name='text'` → `name=text`.
fn unquote(assignment: &str) -> String {
    match assignment.split_once('=') {
        Some((k, v)) => {
            let v = v.trim();
            let inner = ['"', '\'']
                .iter()
                .find_map(|q| v.strip_prefix(*q).and_then(|x| x.strip_suffix(*q)))
                .unwrap_or(v);
            format!("{}={inner}", k.trim())
        }
        None => assignment.to_string(),
    }
}

/// Splits on `sep` outside parentheses and quotes.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0usize);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}
