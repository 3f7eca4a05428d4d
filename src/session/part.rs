//! The pieces a message is made of. Owns `Part` and `ImageRef`; knows nothing of any format.

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
