//! What the format readers' tests share: loading a fixture or a text as a given format, and the
//! tool calls and results of what they read, with whether every result answers a call made
//! before it.

use std::collections::HashSet;
use std::path::Path;

use super::{load_bytes, load_path};
use crate::session::{Format, Part, Session};

/// `fixtures/<dir>/<name>`, which must be detected as `format`.
pub fn fixture(dir: &str, name: &str, format: Format) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(dir)
        .join(name);
    let session = load_path(&path, None).unwrap();
    assert_eq!(session.format, format, "{dir}/{name} detected");
    session
}

/// `text` read as a file named `name`, which must be detected as `format`.
pub fn read_as(text: &str, name: &str, format: Format) -> Session {
    let s = load_bytes(text.as_bytes().to_vec(), None, name, None).unwrap();
    assert_eq!(s.format, format);
    s
}

/// The ids of the tool calls, in order.
pub fn calls(s: &Session) -> Vec<&str> {
    let parts = s.messages.iter().flat_map(|m| &m.parts);
    parts
        .filter_map(|p| match p {
            Part::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect()
}

/// Each result's call id and whether it is an error, in order.
pub fn results(s: &Session) -> Vec<(&str, Option<bool>)> {
    let parts = s.messages.iter().flat_map(|m| &m.parts);
    parts
        .filter_map(|p| match p {
            Part::ToolResult {
                call_id, is_error, ..
            } => Some((call_id.as_str(), *is_error)),
            _ => None,
        })
        .collect()
}

/// Every result answers a call made before it.
pub fn all_paired(s: &Session) -> bool {
    let mut made = HashSet::new();
    for m in &s.messages {
        for p in &m.parts {
            match p {
                Part::ToolCall { id, .. } => {
                    made.insert(id.as_str());
                }
                Part::ToolResult { call_id, .. } if !made.contains(call_id.as_str()) => {
                    return false
                }
                _ => {}
            }
        }
    }
    true
}
