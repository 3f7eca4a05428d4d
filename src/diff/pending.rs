//! One summarized message read for the diff: its numbers, what the index could tell at
//! once, and the strings still to look for in the pass over the whole input that `diff_range`
//! makes for all messages together.
//!
//! Owns: `Pending` (a message waiting for those answers), `Ask` (one string asked), the order
//! lines are asked in (`Cursor`: the next line first just after the last one found) and
//! what a line found whole answers for the strings inside it. Must not: search the input
//! itself (the index does) or sum a range (the diff does).

use std::borrow::Cow;
use std::collections::HashSet;

use super::evidence::{self, Evidence, EvidenceKind};
use super::index::{self, TextIndex};
use super::{argument_values, command_of, content_texts, line_chars, seen_chars, MessageDiff};
use crate::session::{Message, Part, Role};

/// A string looked for, and the bytes of its longest prefix found (as `TextIndex` reports
/// it) once known, else how much of it remains to look for. The string is borrowed from the
/// message where the message holds it as it is (a line, a name, an id, a fact of a text part),
/// so a range whose lines the input lacks is not copied while it waits for the pass.
struct Ask<'a> {
    text: Cow<'a, str>,
    /// Bytes of the string (its text is dropped once it is known to be found whole).
    len: usize,
    found: Result<usize, usize>,
}

impl<'a> Ask<'a> {
    /// A string of which only whether it is found whole matters (a name, an id, an argument,
    /// a fact): one the index has cut short cannot be, so it is not asked of the pass.
    fn new(text: Cow<'a, str>, input: &TextIndex) -> Ask<'a> {
        let len = text.len();
        let found = match input.quick_prefix(&text) {
            Err(cut) if cut < len => Ok(0),
            other => other,
        };
        // A string found whole is never shown again: only the lost ones are named.
        let text = if found == Ok(len) {
            Cow::Borrowed("")
        } else {
            text
        };
        Ask { text, len, found }
    }

    /// A string known to be found whole.
    fn whole(len: usize) -> Ask<'a> {
        Ask {
            text: Cow::Borrowed(""),
            len,
            found: Ok(len),
        }
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
pub struct Pending<'a> {
    index: usize,
    role: Role,
    raw_chars: usize,
    line_chars: usize,
    /// Characters seen of the lines found at once.
    seen: usize,
    /// The lines still to answer.
    lines: Vec<Ask<'a>>,
    /// Characters seen of each line, in order (those of `lines` once answered), and where
    /// each of `lines` stands among them.
    lines_seen: Vec<u32>,
    line_at: Vec<usize>,
    names: Vec<Ask<'a>>,
    ids: Vec<Ask<'a>>,
    arguments_total: usize,
    arguments: Vec<Ask<'a>>,
    /// Each fact, and the bytes of its longest prefix found once known, else how much of it
    /// remains to look for (an `Ask` whose text is the fact's own).
    evidence: Vec<(Evidence, Result<usize, usize>)>,
}

impl<'a> Pending<'a> {
    fn asks_mut(&mut self) -> impl Iterator<Item = &mut Ask<'a>> {
        self.lines
            .iter_mut()
            .chain(&mut self.names)
            .chain(&mut self.ids)
            .chain(&mut self.arguments)
    }

    /// The strings still to answer, in the order `answer_waiting` takes their answers.
    pub fn waiting(&self) -> impl Iterator<Item = &[u8]> {
        let evidence = self
            .evidence
            .iter()
            .filter_map(|(e, found)| found.err().map(|cut| &e.text.as_bytes()[..cut]));
        self.lines
            .iter()
            .chain(&self.names)
            .chain(&self.ids)
            .chain(&self.arguments)
            .filter_map(Ask::waiting)
            .chain(evidence)
    }

    pub fn answer_waiting(&mut self, answers: &mut impl Iterator<Item = usize>) {
        for ask in self.asks_mut().filter(|a| a.found.is_err()) {
            ask.answer(answers.next().unwrap_or(0));
        }
        for (e, found) in self.evidence.iter_mut().filter(|(_, f)| f.is_err()) {
            *found = Ok(index::clamped(answers.next().unwrap_or(0), e.text.len()));
        }
    }

    pub fn done(self) -> MessageDiff {
        let seen = self.seen + self.lines.iter().map(Ask::seen_chars).sum::<usize>();
        let mut lines_seen = self.lines_seen;
        for (&at, line) in self.line_at.iter().zip(&self.lines) {
            lines_seen[at] = chars_u32(line.seen_chars());
        }
        let lost = |asks: Vec<Ask>| -> Vec<String> {
            asks.into_iter()
                .filter(|a| !a.found_whole())
                .map(|a| a.text.into_owned())
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
            .map(|(e, found)| {
                let whole = found == Ok(e.text.len());
                (e, whole)
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
            lines_seen,
        }
    }
}

/// A count of characters as a line's entry in `lines_seen` (a line is under 4 GiB).
fn chars_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Reads `m`: its numbers, what the index tells at once, the rest kept to ask. A tool name,
/// argument, command or fact that lies inside a line found whole is found whole too, without
/// asking: most short strings, which only the pass over the whole input could answer.
pub fn pending_of<'a>(m: &'a Message, input: &TextIndex, read: Option<FactsAt>) -> Pending<'a> {
    let texts = content_texts(m);
    let mut p = Pending {
        index: m.index,
        role: m.role,
        raw_chars: texts.iter().map(|t| t.chars().count()).sum(),
        line_chars: texts.iter().map(|t| line_chars(t)).sum(),
        seen: 0,
        lines: Vec::new(),
        lines_seen: Vec::new(),
        line_at: Vec::new(),
        names: Vec::new(),
        ids: Vec::new(),
        arguments_total: 0,
        arguments: Vec::new(),
        evidence: Vec::new(),
    };
    // The lines found whole: as they are, and by text, where they stand in it.
    let mut whole: HashSet<&str, foldhash::fast::RandomState> = HashSet::default();
    let mut spans: Vec<Vec<(usize, usize)>> = vec![Vec::new(); texts.len()];
    let mut cursor = Cursor::default();
    for (t, text) in texts.iter().enumerate() {
        cursor.lines(text, input, |offset, line, answer| match answer {
            Ok(bytes) => {
                let seen = seen_chars(line, bytes);
                p.seen += seen;
                p.lines_seen.push(chars_u32(seen));
                if bytes == line.len() {
                    whole.insert(line);
                    spans[t].push((offset, offset + line.len()));
                }
            }
            Err(cut) => {
                p.line_at.push(p.lines_seen.len());
                p.lines_seen.push(0);
                p.lines.push(Ask {
                    text: slice(&texts[t], offset, line),
                    len: line.len(),
                    found: Err(cut),
                });
            }
        });
    }
    let ask = |text: Cow<'a, str>| asked(text, &whole, input);
    for part in &m.parts {
        match part {
            Part::ToolCall {
                id,
                name,
                arguments,
                ..
            } => {
                p.names.push(ask(Cow::Borrowed(name)));
                p.ids.push(ask(Cow::Borrowed(id)));
                let values = argument_values(arguments);
                p.arguments_total += values.len();
                p.arguments
                    .extend(values.into_iter().map(|v| ask(Cow::Owned(v))));
            }
            Part::ToolResult { call_id, .. } => {
                p.ids.push(ask(Cow::Borrowed(call_id)));
            }
            _ => {}
        }
    }
    let facts = read.unwrap_or_else(|| facts_at(m, &texts));
    p.evidence = facts
        .into_iter()
        .map(|(e, at)| {
            let inside = at.is_some_and(|(t, offset)| within(&spans[t], offset, e.text.len()));
            let found = if inside {
                Ok(e.text.len())
            } else {
                asked(Cow::Borrowed(e.text.as_str()), &whole, input).found
            };
            (e, found)
        })
        .collect();
    p
}

/// `text` asked: found whole at once when it is one of the lines found `whole`.
fn asked<'t>(
    text: Cow<'t, str>,
    whole: &HashSet<&str, foldhash::fast::RandomState>,
    input: &TextIndex,
) -> Ask<'t> {
    if whole.contains(&*text) {
        Ask::whole(text.len())
    } else {
        Ask::new(text, input)
    }
}

/// `piece`, which stands at byte `offset` of `text`, borrowed from the message when `text` is
/// (else copied).
fn slice<'a>(text: &Cow<'a, str>, offset: usize, piece: &str) -> Cow<'a, str> {
    match text {
        Cow::Borrowed(whole) => match whole.get(offset..offset + piece.len()) {
            Some(s) if s == piece => Cow::Borrowed(s),
            _ => Cow::Owned(piece.to_string()),
        },
        Cow::Owned(_) => Cow::Owned(piece.to_string()),
    }
}

/// Whether `offset..offset + len` lies inside one of `spans` (sorted, disjoint).
fn within(spans: &[(usize, usize)], offset: usize, len: usize) -> bool {
    let i = spans.partition_point(|&(start, _)| start <= offset);
    i > 0 && offset + len <= spans[i - 1].1
}

/// The next line of a text looked for first just after where the last was found whole (a text
/// the input holds in order), then through the index.
#[derive(Default)]
struct Cursor {
    /// Where the input's copy of the last line found whole ends.
    after: Option<usize>,
}

impl Cursor {
    /// Each trimmed, non-empty line of `text`, with its byte offset in `text` and what the
    /// index tells at once (`TextIndex::quick_prefix`).
    fn lines<'t>(
        &mut self,
        text: &'t str,
        input: &TextIndex,
        mut each: impl FnMut(usize, &'t str, Result<usize, usize>),
    ) {
        for raw in text.lines() {
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            let offset = line.as_ptr() as usize - text.as_ptr() as usize;
            let answer = match self.after.and_then(|from| input.found_near(line, from)) {
                Some(at) => {
                    self.after = Some(at + line.len());
                    Ok(line.len())
                }
                None => match input.quick_find(line) {
                    Ok((bytes, at)) => {
                        self.after = at.map(|a| a + bytes);
                        Ok(bytes)
                    }
                    Err(cut) => {
                        self.after = None;
                        Err(cut)
                    }
                },
            };
            each(offset, line, answer);
        }
    }
}

/// The facts of `m` whose content texts are `texts`, each once, in order: the commands its
/// tool calls run, then what `evidence::extract` finds in each text (3 bytes or more).
pub fn facts_of(m: &Message, texts: &[Cow<'_, str>]) -> Vec<Evidence> {
    facts_at(m, texts).into_iter().map(|(e, _)| e).collect()
}

/// A message's facts, each with where it first stands in the message's content texts (the
/// text, the byte offset) when it was found in one (a command is not).
pub type FactsAt = Vec<(Evidence, Option<(usize, usize)>)>;

/// `facts_of`, each fact with where it first stands in `texts`.
pub fn facts_at(m: &Message, texts: &[Cow<'_, str>]) -> FactsAt {
    let mut items: Vec<(Evidence, Option<(usize, usize)>)> = m
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::ToolCall { arguments, .. } => command_of(arguments),
            _ => None,
        })
        .map(|text| {
            let e = Evidence {
                kind: EvidenceKind::Command,
                text,
            };
            (e, None)
        })
        .collect();
    for (t, text) in texts.iter().enumerate() {
        items.extend(
            evidence::extract_at(text)
                .into_iter()
                .map(|(offset, e)| (e, Some((t, offset)))),
        );
    }
    // Each fact once: the first of equal ones kept (compared by index, not cloned).
    let mut seen: HashSet<(EvidenceKind, &str), foldhash::fast::RandomState> =
        HashSet::with_capacity_and_hasher(items.len(), Default::default());
    let keep: Vec<bool> = items
        .iter()
        .map(|(e, _)| e.text.len() >= 3 && seen.insert((e.kind, e.text.as_str())))
        .collect();
    drop(seen);
    items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, kept)| kept.then_some(item))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_cut_short_by_the_index_is_not_found_whole_and_not_asked_again() {
        let text = "the same opening words again and again\n".repeat(100);
        let ix = TextIndex::new(format!("{text}a unique ending"));
        let asked = "the same opening words again and zzzz never written";
        let cut = match ix.quick_prefix(asked) {
            Err(cut) => cut,
            Ok(found) => panic!("the index told at once: {found}"),
        };
        assert!(cut < asked.len(), "cut {cut}");
        let ask = Ask::new(Cow::Borrowed(asked), &ix);
        assert_eq!(ask.waiting(), None);
        assert!(!ask.found_whole());
        // One that may yet occur whole still waits for the pass.
        let short = Ask::new(Cow::Borrowed("zzz"), &ix);
        assert_eq!(short.waiting(), Some(&b"zzz"[..]));
    }
}
