//! The pieces a message is made of. Owns `Part` and `ImageRef`; knows nothing of any format.

use std::borrow::Cow;

/// An image as the model receives it. The pixels are never copied: only what costing needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageRef {
    pub media_type: Option<String>,
    /// Decoded size of inline data, in bytes.
    pub bytes: Option<usize>,
    /// Remote URL (not a data URI).
    pub url: Option<String>,
    /// Pixel size, read from the image header when the data is inline.
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// OpenAI `detail` (`low`, `high`, `auto`).
    pub detail: Option<String>,
}

/// One piece of a message. The kind names (`kind()`) are part of the CLI contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text {
        text: String,
    },
    /// A tool call. `arguments` is the JSON string as sent to the model (or the raw input of a
    /// freeform tool). `server` marks tools the provider runs itself (web search …): they are
    /// calls, but no tool-call group waits for their result.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
        server: bool,
    },
    /// A tool result; `content` holds text and image parts.
    ToolResult {
        call_id: String,
        content: Vec<Part>,
        is_error: Option<bool>,
    },
    Image(ImageRef),
    /// Reasoning: visible text, or an encrypted/redacted blob (`text` empty, `opaque_len` set).
    Reasoning {
        text: String,
        opaque_len: usize,
    },
    /// A summary a compaction inserted.
    Summary {
        text: String,
    },
    /// A record or block the model does not know; `raw` is its JSON.
    Opaque {
        kind: String,
        raw: String,
    },
}

impl Part {
    /// The contract name of this part's kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Part::Text { .. } => "text",
            Part::ToolCall { .. } => "tool_call",
            Part::ToolResult { .. } => "tool_result",
            Part::Image(_) => "image",
            Part::Reasoning { .. } => "reasoning",
            Part::Summary { .. } => "summary",
            Part::Opaque { .. } => "opaque",
        }
    }

    pub fn text(text: impl Into<String>) -> Part {
        Part::Text { text: text.into() }
    }

    /// The pieces, borrowed, whose concatenation is [`Part::plain_text`] (a tool result's text
    /// parts with a line break between each two), for reading a text without copying it.
    pub fn plain_pieces(&self) -> impl Iterator<Item = &str> {
        let (one, results): (Option<&str>, &[Part]) = match self {
            Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => {
                (Some(text), &[])
            }
            Part::ToolCall { arguments, .. } => (Some(arguments), &[]),
            Part::ToolResult { content, .. } => (None, content),
            Part::Image(_) => (None, &[]),
            Part::Opaque { raw, .. } => (Some(raw), &[]),
        };
        let texts = results.iter().filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        });
        one.into_iter().chain(
            texts
                .enumerate()
                .flat_map(|(i, t)| [if i == 0 { "" } else { "\n" }, t]),
        )
    }

    /// [`Part::plain_text`], borrowed when it is one piece (any part but a tool result of
    /// several texts): what a preset that holds the history in a framework's shape keeps
    /// instead of a copy of every text.
    pub fn plain_cow(&self) -> Cow<'_, str> {
        let mut pieces = self.plain_pieces().filter(|p| !p.is_empty());
        match (pieces.next(), pieces.next()) {
            (None, _) => Cow::Borrowed(""),
            (Some(one), None) => Cow::Borrowed(one),
            _ => Cow::Owned(self.plain_text()),
        }
    }

    /// The readable text of this part (the result's text parts joined for a tool result).
    pub fn plain_text(&self) -> String {
        match self {
            Part::Text { text } | Part::Summary { text } | Part::Reasoning { text, .. } => {
                text.clone()
            }
            Part::ToolCall { arguments, .. } => arguments.clone(),
            Part::ToolResult { content, .. } => content
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
            Part::Image(_) => String::new(),
            Part::Opaque { raw, .. } => raw.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The borrowed pieces add up to the copied text for every kind of part, a tool result's
    /// non-text parts skipped and its texts joined by line breaks.
    #[test]
    fn plain_pieces_join_to_plain_text() {
        let parts = [
            Part::text("a\nb"),
            Part::ToolCall {
                id: "c".into(),
                name: "n".into(),
                arguments: "{\"x\":1}".into(),
                server: false,
            },
            Part::ToolResult {
                call_id: "c".into(),
                content: vec![
                    Part::Image(ImageRef::default()),
                    Part::text("one"),
                    Part::Image(ImageRef::default()),
                    Part::text(""),
                    Part::text("three"),
                ],
                is_error: None,
            },
            Part::ToolResult {
                call_id: "d".into(),
                content: vec![],
                is_error: Some(true),
            },
            Part::Image(ImageRef::default()),
            Part::Reasoning {
                text: "why".into(),
                opaque_len: 3,
            },
            Part::Summary { text: "s".into() },
            Part::Opaque {
                kind: "k".into(),
                raw: "{}".into(),
            },
        ];
        for p in &parts {
            assert_eq!(
                p.plain_pieces().collect::<String>(),
                p.plain_text(),
                "{p:?}"
            );
            assert_eq!(p.plain_cow(), p.plain_text(), "{p:?}");
        }
        assert_eq!(parts[2].plain_text(), "one\n\nthree");
    }

    /// A tool result of one text, and every part holding one text, lends it; a result of
    /// several texts is joined into a copy.
    #[test]
    fn a_part_of_one_text_lends_it() {
        let one = Part::ToolResult {
            call_id: "c".into(),
            content: vec![Part::Image(ImageRef::default()), Part::text("out")],
            is_error: None,
        };
        assert!(matches!(one.plain_cow(), Cow::Borrowed("out")));
        assert!(matches!(Part::text("t").plain_cow(), Cow::Borrowed("t")));
        let two = Part::ToolResult {
            call_id: "c".into(),
            content: vec![Part::text("a"), Part::text("b")],
            is_error: None,
        };
        assert!(matches!(two.plain_cow(), Cow::Owned(ref s) if s == "a\nb"));
    }
}
