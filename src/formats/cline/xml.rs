//! Tool calls written in the assistant's text (Cline's and Roo Code's XML tool protocol):
//! `<read_file>\n<path>x</path>\n</read_file>` anywhere in a text block, several per message.
//!
//! Owns: cutting a text part at each tool tag into the text around it (whitespace alone between
//! tags is not kept) and a `ToolCall` whose name is the tag and whose arguments are the tag's
//! inner text as the model wrote it (so its tokens are what was sent). Ids are synthesized from the record and the call's position,
//! `<record>-<n>`, as the file records none.
//!
//! Followed: Cline's `parseAssistantMessageV2` (`src/core/assistant-message/`): a tool use
//! opens at `<name>` for a known tool name, its parameters are `<param>value</param>` inside
//! it, and it closes at `</name>` outside a parameter (or at the end of the message, where the
//! stream ended).

use crate::session::Part;

/// Tool names of Cline (`ClineDefaultTool`) and Roo Code (`toolNames`).
const TOOLS: [&str; 40] = [
    "ask_followup_question",
    "attempt_completion",
    "execute_command",
    "replace_in_file",
    "read_file",
    "write_to_file",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "load_mcp_documentation",
    "new_task",
    "plan_mode_respond",
    "act_mode_respond",
    "focus_chain",
    "web_fetch",
    "web_search",
    "condense",
    "summarize_task",
    "report_bug",
    "new_rule",
    "apply_patch",
    "generate_explanation",
    "use_skill",
    "use_subagents",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "switch_mode",
    "fetch_instructions",
    "codebase_search",
    "update_todo_list",
    "run_slash_command",
    "generate_image",
    "edit_file",
    "search_replace",
    "read_command_output",
    "skill",
];

/// `parts` with every text part cut at its tool tags.
pub(super) fn calls(parts: Vec<Part>, record: usize) -> Vec<Part> {
    let mut out = Vec::with_capacity(parts.len());
    let mut n = 0;
    for part in parts {
        match part {
            Part::Text { text } => split(&text, record, &mut n, &mut out),
            other => out.push(other),
        }
    }
    out
}

/// Pushes the text and calls of one text block.
fn split(text: &str, record: usize, n: &mut usize, out: &mut Vec<Part>) {
    if next_tag(text).is_none() {
        out.push(Part::text(text));
        return;
    }
    let mut rest = text;
    while let Some((start, name)) = next_tag(rest) {
        let before = &rest[..start];
        if !before.trim().is_empty() {
            out.push(Part::text(before));
        }
        let body_at = start + name.len() + 2;
        let body = &rest[body_at..];
        let (inner, after) = match close_of(body, name) {
            Some(end) => (&body[..end], &body[end + name.len() + 3..]),
            None => (body, ""),
        };
        out.push(Part::ToolCall {
            id: format!("{record}-{n}"),
            name: name.to_string(),
            arguments: inner.to_string(),
            server: false,
        });
        *n += 1;
        rest = after;
    }
    if !rest.trim().is_empty() {
        out.push(Part::text(rest));
    }
}

/// The first `<name>` of a known tool in `text`: its byte offset and the name.
fn next_tag(text: &str) -> Option<(usize, &'static str)> {
    let mut from = 0;
    while let Some(at) = text[from..].find('<').map(|i| from + i) {
        let tag = &text[at + 1..];
        if let Some(name) = TOOLS
            .iter()
            .find(|t| tag.starts_with(**t) && tag[t.len()..].starts_with('>'))
        {
            return Some((at, name));
        }
        from = at + 1;
    }
    None
}

/// Where `</name>` closes a tool body, skipping over its parameters' values.
fn close_of(body: &str, name: &str) -> Option<usize> {
    let close = format!("</{name}>");
    let mut at = 0;
    loop {
        let rest = &body[at..];
        let end = rest.find(&close);
        let param = open_param(rest);
        match (end, param) {
            (Some(e), Some((p, _))) if e < p => return Some(at + e),
            (_, Some((p, pname))) => {
                let value_at = p + pname.len() + 2;
                let closing = format!("</{pname}>");
                match rest[value_at..].find(&closing) {
                    Some(c) => at += value_at + c + closing.len(),
                    None => return end.map(|e| at + e),
                }
            }
            (Some(e), None) => return Some(at + e),
            (None, None) => return None,
        }
    }
}

/// The first `<param>` opening tag (a lower-case identifier) in `text`.
fn open_param(text: &str) -> Option<(usize, &str)> {
    let mut from = 0;
    while let Some(at) = text[from..].find('<').map(|i| from + i) {
        let tag = &text[at + 1..];
        let len = tag
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
            .count();
        if len > 0 && tag[len..].starts_with('>') {
            return Some((at, &tag[..len]));
        }
        from = at + 1;
    }
    None
}
