//! What the summarizer input loses of one summarized message: the tool names, argument values
//! and call ids it never shows, and the facts (paths, numbers, identifiers …) it drops, masked.
//!
//! Owns: which losses are shown and in what order, how many facts, that facts are masked before
//! anything shows them, and the wording of each piece. A renderer passes how it escapes text and
//! how it shows a fact (clipped, quoted as code); it never re-derives the list.

use serde::Serialize;

use crate::diff::MessageDiff;

/// Lost facts shown per message, at most (the rest are counted in the diff's totals).
pub const FACTS_SHOWN: usize = 6;

/// One lost fact, masked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LostFact {
    /// `path`, `number`, `identifier`, `url` …
    pub kind: &'static str,
    /// The fact's text with every secret in it masked.
    pub text: String,
}

/// What one summarized message loses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Lost {
    /// Tool names of its calls that the input never names.
    pub tools: Vec<String>,
    /// Argument values lost, of those its calls carry.
    pub arguments: usize,
    pub arguments_total: usize,
    /// Call ids the input never shows.
    pub call_ids: usize,
    /// The first [`FACTS_SHOWN`] facts the input drops.
    pub facts: Vec<LostFact>,
}

impl Lost {
    pub fn of(m: &MessageDiff) -> Lost {
        Lost {
            tools: m.tool_names_lost.clone(),
            arguments: m.arguments_lost.len(),
            arguments_total: m.arguments_total,
            call_ids: m.call_ids_lost.len(),
            facts: m
                .evidence
                .iter()
                .filter(|(_, seen)| !seen)
                .take(FACTS_SHOWN)
                .map(|(e, _)| LostFact {
                    kind: e.kind.as_str(),
                    text: crate::secrets::mask(&e.text).0,
                })
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.arguments == 0 && self.call_ids == 0 && self.facts.is_empty()
    }

    /// The pieces of the one-line account, in order: `tools a, b`, `2/5 argument values`,
    /// `1 call id(s)`, `evidence …`. `text` escapes a tool name for the medium, `fact` shows one
    /// fact (already masked), `facts` joins the shown facts.
    pub fn pieces(
        &self,
        text: impl Fn(&str) -> String,
        fact: impl Fn(&LostFact) -> String,
        facts: &str,
    ) -> Vec<String> {
        let mut out = Vec::new();
        if !self.tools.is_empty() {
            out.push(format!("tools {}", text(&self.tools.join(", "))));
        }
        if self.arguments > 0 {
            out.push(format!(
                "{}/{} argument values",
                self.arguments, self.arguments_total
            ));
        }
        if self.call_ids > 0 {
            out.push(format!("{} call id(s)", self.call_ids));
        }
        if !self.facts.is_empty() {
            let shown: Vec<String> = self.facts.iter().map(fact).collect();
            out.push(format!("evidence {}", shown.join(facts)));
        }
        out
    }

    /// The one-line account in plain text (each piece sanitised for a terminal), pieces joined
    /// by ` · `; empty when nothing is lost.
    pub fn line(&self) -> String {
        self.pieces(
            |s| crate::text::inline(s).into_owned(),
            |f| crate::text::inline(&f.text).into_owned(),
            " ",
        )
        .join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::evidence::{Evidence, EvidenceKind};

    fn empty() -> MessageDiff {
        MessageDiff {
            index: 0,
            role: crate::session::Role::Assistant,
            raw_chars: 0,
            line_chars: 0,
            seen_chars: 0,
            tool_names_lost: Vec::new(),
            call_ids_lost: Vec::new(),
            arguments_total: 0,
            arguments_lost: Vec::new(),
            evidence: Vec::new(),
            lines_seen: Vec::new(),
        }
    }

    fn message() -> MessageDiff {
        let mut m = empty();
        m.tool_names_lost = vec!["Glob".into(), "Read".into()];
        m.call_ids_lost = vec!["toolu_1".into()];
        m.arguments_total = 5;
        m.arguments_lost = vec!["a".into(), "b".into()];
        let key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
        m.evidence = (0..9)
            .map(|i| {
                let text = if i == 0 {
                    format!("OPENAI_API_KEY={key}")
                } else {
                    format!("/src/file{i}.rs")
                };
                let e = Evidence {
                    kind: EvidenceKind::Path,
                    text,
                };
                (e, i == 1)
            })
            .collect();
        m
    }

    #[test]
    fn every_loss_in_order_facts_masked_and_capped() {
        let lost = Lost::of(&message());
        assert_eq!(lost.tools, ["Glob", "Read"]);
        assert_eq!(
            (lost.arguments, lost.arguments_total, lost.call_ids),
            (2, 5, 1)
        );
        // Eight facts are lost (one is seen): the first six are shown, the key masked.
        assert_eq!(lost.facts.len(), FACTS_SHOWN);
        assert!(
            !lost.facts[0].text.contains("sk-proj"),
            "{:?}",
            lost.facts[0]
        );
        assert!(lost.facts[0].text.contains("REDACTED"));
        assert_eq!(lost.facts[1].text, "/src/file2.rs");
        let line = lost.line();
        assert!(
            line.starts_with("tools Glob, Read · 2/5 argument values · 1 call id(s) · evidence "),
            "{line}"
        );
        assert!(Lost::of(&empty()).is_empty());
        assert_eq!(Lost::default().line(), "");
    }

    #[test]
    fn each_medium_escapes_and_shows_facts_its_own_way() {
        let lost = Lost::of(&message());
        let pieces = lost.pieces(|s| s.to_uppercase(), |f| format!("<{}>", f.kind), ", ");
        assert_eq!(pieces[0], "tools GLOB, READ");
        assert!(
            pieces[3].starts_with("evidence <path>, <path>"),
            "{}",
            pieces[3]
        );
    }
}
