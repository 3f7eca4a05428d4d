//! One summarized message read for the diff: its numbers, what the index could tell at
//! once, and the strings still to look for in the pass over the whole input that `diff_range`
//! makes for all messages together.
//!
//! Owns: `Pending` (a message waiting for those answers) and `Ask` (one string asked). Must
//! not: search the input itself (the index does) or sum a range (the diff does).

use std::collections::HashSet;

use super::evidence::{self, Evidence, EvidenceKind};
use super::index::{self, TextIndex};
use super::{argument_values, command_of, content_texts, line_chars, seen_chars, MessageDiff};
use crate::session::{Message, Part, Role};

/// A string looked for, and the bytes of its longest prefix found (as `TextIndex` reports
/// it) once known, else how much of it remains to look for.
struct Ask {
    text: String,
    /// Bytes of the string (its text is dropped once it is known to be found whole).
    len: usize,
    found: Result<usize, usize>,
}

impl Ask {
    fn new(text: String, input: &TextIndex) -> Ask {
        let found = input.quick_prefix(&text);
        let len = text.len();
        // A string found whole is never shown again: only the lost ones are named.
        let text = if found == Ok(len) {
            String::new()
        } else {
            text
        };
        Ask { text, len, found }
    }

    /// The bytes still to look for, if the index could not tell at once.
    fn waiting(&self) -> Option<&[u8]> {
        self.found.err().map(|cut| &self.text.as_bytes()[..cut])
    }

    /// Takes the pass's answer for what `waiting` gave.
    fn answer(&mut self, longest: usize) {
        if self.found.is_err() {
            self.found = Ok(index::clamped(longest, self.len));
        }
    }

    fn found_whole(&self) -> bool {
        self.found == Ok(self.len)
    }

    /// Characters of the line seen in the input (see `seen_chars`).
    fn seen_chars(&self) -> usize {
        seen_chars(&self.text, self.found.unwrap_or(0))
    }
}

/// One message read, with the strings the index could not tell at once still to answer.
pub struct Pending {
    index: usize,
    role: Role,
    raw_chars: usize,
    line_chars: usize,
    /// Characters seen of the lines found at once.
    seen: usize,
    /// The lines still to answer.
    lines: Vec<Ask>,
    names: Vec<Ask>,
    ids: Vec<Ask>,
    arguments_total: usize,
    arguments: Vec<Ask>,
    evidence: Vec<(Evidence, Ask)>,
}

impl Pending {
    fn asks_mut(&mut self) -> impl Iterator<Item = &mut Ask> {
        let evidence = self.evidence.iter_mut().map(|(_, a)| a);
        self.lines
            .iter_mut()
            .chain(&mut self.names)
            .chain(&mut self.ids)
            .chain(&mut self.arguments)
            .chain(evidence)
    }

    /// The strings still to answer, in the order `answer_waiting` takes their answers.
    pub fn waiting(&self) -> impl Iterator<Item = &[u8]> {
        let evidence = self.evidence.iter().map(|(_, a)| a);
        self.lines
            .iter()
            .chain(&self.names)
            .chain(&self.ids)
            .chain(&self.arguments)
            .chain(evidence)
            .filter_map(Ask::waiting)
    }

    pub fn answer_waiting(&mut self, answers: &mut impl Iterator<Item = usize>) {
        for ask in self.asks_mut().filter(|a| a.found.is_err()) {
            ask.answer(answers.next().unwrap_or(0));
        }
    }

    pub fn done(self) -> MessageDiff {
        let seen = self.seen + self.lines.iter().map(Ask::seen_chars).sum::<usize>();
        let lost = |asks: Vec<Ask>| -> Vec<String> {
            asks.into_iter()
                .filter(|a| !a.found_whole())
                .map(|a| a.text)
                .collect()
        };
        let mut tool_names_lost: Vec<String> = Vec::new();
        for name in lost(self.names) {
            if !tool_names_lost.contains(&name) {
                tool_names_lost.push(name);
            }
        }
        let evidence = self
            .evidence
            .into_iter()
            .map(|(e, a)| {
                let s = a.found_whole();
                (e, s)
            })
            .collect();
        MessageDiff {
            index: self.index,
            role: self.role,
            raw_chars: self.raw_chars,
            line_chars: self.line_chars,
            seen_chars: seen,
            tool_names_lost,
            call_ids_lost: lost(self.ids),
            arguments_total: self.arguments_total,
            arguments_lost: lost(self.arguments),
            evidence,
        }
    }
}

/// Reads `m`: its numbers, what the index tells at once, the rest kept to ask.
pub fn pending_of(m: &Message, input: &TextIndex) -> Pending {
    let texts = content_texts(m);
    let mut p = Pending {
        index: m.index,
        role: m.role,
        raw_chars: texts.iter().map(|t| t.chars().count()).sum(),
        line_chars: texts.iter().map(|t| line_chars(t)).sum(),
        seen: 0,
        lines: Vec::new(),
        names: Vec::new(),
        ids: Vec::new(),
        arguments_total: 0,
        arguments: Vec::new(),
        evidence: Vec::new(),
    };
    for line in texts
        .iter()
        .flat_map(|t| t.lines().map(str::trim).filter(|l| !l.is_empty()))
    {
        match input.quick_prefix(line) {
            Ok(bytes) => p.seen += seen_chars(line, bytes),
            Err(cut) => p.lines.push(Ask {
                text: line.to_string(),
                len: line.len(),
                found: Err(cut),
            }),
        }
    }
    for part in &m.parts {
        match part {
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            } => {
                p.names.push(Ask::new(name.clone(), input));
                p.ids.push(Ask::new(id.clone(), input));
                let values = argument_values(arguments);
                p.arguments_total += values.len();
                p.arguments
                    .extend(values.into_iter().map(|v| Ask::new(v, input)));
            }
            Part::ToolResult { call_id, .. } => {
                p.ids.push(Ask::new(call_id.clone(), input));
            }
            _ => {}
        }
    }
    p.evidence = facts_of(m, &texts)
        .into_iter()
        .map(|e| {
            let ask = Ask::new(e.text.clone(), input);
            (e, ask)
        })
        .collect();
    p
}

/// The facts of `m` whose content texts are `texts`, each once, in order: the commands its
/// tool calls run, then what `evidence::extract` finds in each text (3 bytes or more).
pub fn facts_of(m: &Message, texts: &[String]) -> Vec<Evidence> {
    let mut items: Vec<Evidence> = m
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::ToolCall { arguments, .. } => command_of(arguments),
            _ => None,
        })
        .map(|text| Evidence {
            kind: EvidenceKind::Command,
            text,
        })
        .collect();
    for t in texts {
        items.extend(evidence::extract(t));
    }
    let mut seen: HashSet<Evidence> = HashSet::new();
    items
        .into_iter()
        .filter(|e| e.text.len() >= 3)
        .filter(|e| seen.insert(e.clone()))
        .collect()
}
