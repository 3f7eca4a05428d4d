//! Session discovery for the session picker: which agent sessions exist on this machine.
//!
//! Owns: where each tool keeps its sessions ([`Locations`], from the environment or given),
//! walking those roots (bounded depth, symlink loops walked once, unreadable directories skipped
//! and counted), a cheap look inside each session (title, message-record count) and the
//! newest-first list ([`discover`]), plus type-to-filter matching ([`filter`]).
//!
//! Must not: parse a whole session (that is `formats`), touch a terminal, spawn threads, or fail
//! because of one bad file or directory. Everything is synchronous; the caller decides when to
//! (re)discover.

mod bytes;
mod gemini;
mod openhands;
mod scan;
mod walk;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::session::Format;
use scan::Scan;
use walk::{Entry, Walker};

/// Why the default locations could not be worked out.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("cannot find the home directory (needed for ~/.claude, ~/.codex, …)")]
    NoHome,
}

/// The roots each tool keeps its sessions under. Every field can be replaced on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// Claude Code: `$CLAUDE_CONFIG_DIR`, else `~/.claude` (sessions in `projects/*/*.jsonl`).
    pub claude: PathBuf,
    /// Codex: `$CODEX_HOME`, else `~/.codex` (`sessions/**/rollout-*.jsonl`, `archived_sessions/`).
    pub codex: PathBuf,
    /// OpenHands: `$OPENHANDS_PERSISTENCE_DIR`, else `~/.openhands` (`conversations/*/`,
    /// `agent-canvas/conversations/*/`).
    pub openhands: PathBuf,
    /// Gemini CLI: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini` (`tmp/*/chats/*.json[l]`,
    /// `tmp/*/checkpoint-*.json`).
    pub gemini: PathBuf,
}

impl Locations {
    /// The roots for this user: home from the `directories` crate, overrides from the
    /// environment.
    pub fn from_env() -> Result<Locations, DiscoverError> {
        let base = directories::BaseDirs::new().ok_or(DiscoverError::NoHome)?;
        Ok(Locations::from_vars(base.home_dir(), |name| {
            std::env::var_os(name)
        }))
    }

    /// The roots under `home`, with each tool's own override looked up through `var`
    /// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `OPENHANDS_PERSISTENCE_DIR`, and `GEMINI_CLI_HOME`,
    /// which Gemini CLI takes as the home its `.gemini` lives in); an empty value is unset.
    pub fn from_vars(home: &Path, var: impl Fn(&str) -> Option<OsString>) -> Locations {
        let mut loc = Locations::under_home(home);
        if let Some(dir) = var("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
            loc.claude = PathBuf::from(dir);
        }
        if let Some(dir) = var("CODEX_HOME").filter(|v| !v.is_empty()) {
            loc.codex = PathBuf::from(dir);
        }
        if let Some(dir) = var("OPENHANDS_PERSISTENCE_DIR").filter(|v| !v.is_empty()) {
            loc.openhands = PathBuf::from(dir);
        }
        if let Some(dir) = var("GEMINI_CLI_HOME").filter(|v| !v.is_empty()) {
            loc.gemini = PathBuf::from(dir).join(".gemini");
        }
        loc
    }

    /// The default roots under `home`, ignoring the environment.
    pub fn under_home(home: &Path) -> Locations {
        Locations {
            claude: home.join(".claude"),
            codex: home.join(".codex"),
            openhands: home.join(".openhands"),
            gemini: home.join(".gemini"),
        }
    }
}

/// How far discovery looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Directory levels walked below a recursive root (Codex `sessions/YYYY/MM/DD` needs 4).
    pub max_depth: usize,
    /// Files up to this size are read whole (title and message count); larger ones only their
    /// head (title, no count).
    pub count_bytes: u64,
    /// How much of a larger file is read for its title.
    pub head_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 8,
            count_bytes: 64 << 20,
            head_bytes: 1 << 20,
        }
    }
}

/// One session found on disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The file, or the directory for an OpenHands conversation; what `load_path` takes.
    pub path: PathBuf,
    /// The format it is in (`tool.name()` is the format name).
    pub tool: Format,
    /// File size, or the sum of a conversation directory's files.
    pub size_bytes: u64,
    /// Last activity: the file's modification time, or the newest in a conversation directory.
    pub modified: SystemTime,
    pub title: Option<String>,
    /// Message records (JSONL lines of message types: Claude `user`/`assistant`, Codex
    /// `response_item` messages, Gemini `user`/`gemini` records); `None` when not counted
    /// (a file over `Limits::count_bytes`, an OpenHands directory).
    pub messages: Option<usize>,
}

/// The sessions found, newest first, and how many unreadable directories/files were passed over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Discovery {
    pub found: Vec<Found>,
    pub skipped: usize,
}

/// Finds every session under `loc` with the default [`Limits`].
pub fn discover(loc: &Locations) -> Discovery {
    discover_with(loc, &Limits::default())
}

/// Finds every session under `loc`, newest first (ties by path).
pub fn discover_with(loc: &Locations, limits: &Limits) -> Discovery {
    let mut walker = Walker::new(limits.max_depth);
    let mut found = Vec::new();
    claude(&mut walker, limits, &loc.claude, &mut found);
    codex(&mut walker, limits, &loc.codex, &mut found);
    openhands(&mut walker, &loc.openhands, &mut found);
    gemini(&mut walker, limits, &loc.gemini, &mut found);
    found.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    Discovery {
        found,
        skipped: walker.skipped,
    }
}

/// Claude Code `projects/*/*.jsonl`; legacy `agent-*.jsonl` subagent files are left to their
/// session (subagents in `<sid>/subagents/` are below the glob).
fn claude(walker: &mut Walker, limits: &Limits, root: &Path, out: &mut Vec<Found>) {
    for project in walker.dirs(&root.join("projects")) {
        for file in walker.list(&project.path) {
            let name = file.name();
            if file.is_file() && name.ends_with(".jsonl") && !name.starts_with("agent-") {
                push_file(walker, limits, file, Format::CLAUDE_CODE, out);
            }
        }
    }
}

/// Codex `sessions/**/rollout-*.jsonl` and `archived_sessions/*.jsonl`.
fn codex(walker: &mut Walker, limits: &Limits, root: &Path, out: &mut Vec<Found>) {
    let rollout = |n: &str| n.starts_with("rollout-") && n.ends_with(".jsonl");
    for file in walker.files_under(&root.join("sessions"), &rollout) {
        push_file(walker, limits, file, Format::CODEX, out);
    }
    for file in walker.list(&root.join("archived_sessions")) {
        if file.is_file() && file.name().ends_with(".jsonl") {
            push_file(walker, limits, file, Format::CODEX, out);
        }
    }
}

/// OpenHands V1 `conversations/*/` and `agent-canvas/conversations/*/`.
fn openhands(walker: &mut Walker, root: &Path, out: &mut Vec<Found>) {
    for parent in [
        root.join("conversations"),
        root.join("agent-canvas/conversations"),
    ] {
        for dir in walker.dirs(&parent) {
            if let Some(c) = openhands::conversation(walker, &dir) {
                out.push(Found {
                    path: dir.path,
                    tool: Format::OPENHANDS,
                    size_bytes: c.size,
                    modified: c.modified,
                    title: c.title,
                    messages: None,
                });
            }
        }
    }
}

/// Gemini CLI `tmp/*/chats/*.json[l]` and `tmp/*/checkpoint-*.json`.
fn gemini(walker: &mut Walker, limits: &Limits, root: &Path, out: &mut Vec<Found>) {
    for project in walker.dirs(&root.join("tmp")) {
        for file in walker.list(&project.path) {
            let name = file.name();
            if file.is_file() && name.starts_with("checkpoint-") && name.ends_with(".json") {
                push_file(walker, limits, file, Format::GEMINI_CLI, out);
            }
        }
        for file in walker.list(&project.path.join("chats")) {
            let name = file.name();
            if file.is_file() && (name.ends_with(".jsonl") || name.ends_with(".json")) {
                push_file(walker, limits, file, Format::GEMINI_CLI, out);
            }
        }
    }
}

/// Scans one session file and adds it; an unreadable file is counted as skipped.
fn push_file(
    walker: &mut Walker,
    limits: &Limits,
    file: Entry,
    tool: Format,
    out: &mut Vec<Found>,
) {
    let size = file.meta.len();
    let (bytes, whole) =
        match scan::read_capped(&file.path, size, limits.count_bytes, limits.head_bytes) {
            Ok(read) => read,
            Err(e) => {
                walker.note(e.kind());
                return;
            }
        };
    let scan = scan_bytes(tool, file.name(), &bytes, whole);
    out.push(Found {
        tool,
        size_bytes: size,
        modified: file.meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        title: scan.title,
        messages: scan.messages,
        path: file.path,
    });
}

fn scan_bytes(tool: Format, name: &str, bytes: &[u8], whole: bool) -> Scan {
    match tool {
        Format::CLAUDE_CODE => scan::claude(bytes, whole),
        Format::CODEX => scan::codex(bytes, whole),
        Format::GEMINI_CLI => match name.strip_prefix("checkpoint-") {
            Some(tag) => gemini::checkpoint(bytes, whole, tag.trim_end_matches(".json")),
            None if name.ends_with(".jsonl") => gemini::recording(bytes, whole),
            None => gemini::legacy(bytes, whole),
        },
        _ => Scan::default(),
    }
}

/// Indices into `found` of the sessions matching `query`, for type-to-filter. Each
/// whitespace-separated word must occur, case-insensitively, as a substring of the tool name,
/// title or path, or failing that as a subsequence (`cdx` matches `codex`) of the tool name,
/// title and the path's last two components (the home directory prefix, shared by all, would
/// match almost anything). Sessions where every word is a substring come first; each group keeps
/// `found`'s order. An empty query keeps all.
pub fn filter(found: &[Found], query: &str) -> Vec<usize> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut exact = Vec::new();
    let mut loose = Vec::new();
    for (i, f) in found.iter().enumerate() {
        let head = format!(
            "{}\n{}",
            f.tool.name(),
            f.title.as_deref().unwrap_or_default()
        )
        .to_lowercase();
        let path = f.path.display().to_string().to_lowercase();
        if words
            .iter()
            .all(|w| head.contains(w.as_str()) || path.contains(w.as_str()))
        {
            exact.push(i);
            continue;
        }
        let tail = format!("{head}\n{}", last_components(&f.path, 2)).to_lowercase();
        if words.iter().all(|w| is_subsequence(w, &tail)) {
            loose.push(i);
        }
    }
    exact.extend(loose);
    exact
}

/// The last `n` components of `path`, joined by `/`.
fn last_components(path: &Path, n: usize) -> String {
    let parts: Vec<String> = path
        .components()
        .rev()
        .take(n)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// Whether the characters of `needle` appear in `hay` in order.
fn is_subsequence(needle: &str, hay: &str) -> bool {
    let mut hay = hay.chars();
    needle.chars().all(|c| hay.any(|h| h == c))
}
