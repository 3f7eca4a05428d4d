//! Where opencode keeps its JSON storage, and the cheap look inside one session.
//!
//! Owns: `storage/session/*/*.json` under the root (`${XDG_DATA_HOME:-~/.local/share}/opencode`),
//! listing the sessions that are no subagent's (those are read as their parent's children),
//! with their title, working directory and number of message files. A root holding
//! `opencode.db` is passed over: current opencode keeps its sessions there, and the storage
//! beside it is what it migrated from. Must not build a `Session` or fail.

use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

use crate::formats::common::str_at;
use crate::formats::home::peek::clean;
use crate::formats::home::{Finder, Found};
use crate::session::Format;

/// Every top-level session in the storage under `root`.
pub(super) fn find(root: &Path, finder: &mut Finder) {
    if root.join("opencode.db").is_file() {
        return;
    }
    let storage = root.join("storage");
    for project in finder.dirs(&storage.join("session")) {
        for file in finder.list(&project.path) {
            if !file.is_file() || !file.name().ends_with(".json") || file.meta.len() > 1 << 20 {
                continue;
            }
            let Ok(bytes) = crate::limits::read_regular(&file.path) else {
                continue;
            };
            let Ok(info) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            if !super::is_session_info(&info) || info.get("parentID").is_some_and(|p| !p.is_null())
            {
                continue;
            }
            let id = str_at(&info, "id").unwrap_or_default();
            let messages = finder
                .list(&storage.join("message").join(id))
                .iter()
                .filter(|m| m.name().ends_with(".json"))
                .count();
            finder.push(Found {
                tool: Format::OPENCODE,
                size_bytes: file.meta.len(),
                modified: file.meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                title: str_at(&info, "title").and_then(clean),
                messages: Some(messages),
                exact: None,
                cwd: str_at(&info, "directory").map(str::to_string),
                path: file.path,
            });
        }
    }
}
