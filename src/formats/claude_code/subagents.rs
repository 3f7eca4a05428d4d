//! Claude Code subagents: inline sidechains (`isSidechain: true` lines, CLI ≤ 1.0.x and
//! ≥ 2.1 subagent files alike) and the files beside a session (`<sid>/subagents/agent-*.jsonl`
//! with their `.meta.json`, and the older `agent-*.jsonl` next to the session file).
//!
//! Owns: deciding which subagent a sidechain line belongs to, finding subagent files and naming
//! each child. Parsing the lines themselves is the `Builder`'s job.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::Builder;
use crate::formats::common::{str_at, Item, Loaded};
use crate::session::{Format, Part, Role, Session};

/// How deep under `subagents/` agent files are looked for (workflow runs nest one level).
const MAX_DEPTH: usize = 2;

/// Sidechain lines of one file, grouped into one child session per subagent.
#[derive(Debug)]
pub(super) struct Sidechains {
    chains: Vec<(Session, Builder)>,
    by_agent: HashMap<String, usize>,
    by_uuid: HashMap<String, usize>,
    shown: String,
    buffer: Arc<Vec<u8>>,
}

impl Sidechains {
    pub(super) fn new(loaded: &Loaded) -> Sidechains {
        Sidechains {
            chains: Vec::new(),
            by_agent: HashMap::new(),
            by_uuid: HashMap::new(),
            shown: loaded.shown.clone(),
            buffer: Arc::clone(&loaded.buffer),
        }
    }

    pub(super) fn feed(&mut self, item: &Item) {
        let at = self.route(item.value);
        if let Some(uuid) = str_at(item.value, "uuid") {
            self.by_uuid.insert(uuid.to_string(), at);
        }
        if let Some((session, builder)) = self.chains.get_mut(at) {
            builder.feed(session, item);
        }
    }

    /// The chain a line belongs to: by `agentId` where present, else by its parent's chain; a
    /// line without a parent starts a new subagent. A line whose `agentId` is new and whose
    /// parent is in a chain that has no agent yet names that chain: a subagent whose first lines
    /// lack `agentId` stays one child.
    fn route(&mut self, v: &Value) -> usize {
        let parent = str_at(v, "parentUuid").or_else(|| str_at(v, "logicalParentUuid"));
        let parent_chain = parent.and_then(|p| self.by_uuid.get(p).copied());
        if let Some(agent) = str_at(v, "agentId") {
            if let Some(&at) = self.by_agent.get(agent) {
                return at;
            }
            let at = match parent_chain.filter(|&at| !self.has_agent(at)) {
                Some(at) => {
                    self.name(at, agent);
                    at
                }
                None => self.open(Some(agent)),
            };
            self.by_agent.insert(agent.to_string(), at);
            return at;
        }
        match (parent, parent_chain) {
            (_, Some(at)) => at,
            (Some(_), None) if !self.chains.is_empty() => self.chains.len() - 1,
            _ => self.open(None),
        }
    }

    fn has_agent(&self, at: usize) -> bool {
        self.by_agent.values().any(|&a| a == at)
    }

    /// Names the chain at `at`, opened by lines without `agentId`, as the subagent `agent`.
    fn name(&mut self, at: usize, agent: &str) {
        if let Some((session, _)) = self.chains.get_mut(at) {
            session.source.path = format!("{}#agent-{agent}", self.shown);
            session.id = Some(agent.to_string());
        }
    }

    fn open(&mut self, agent: Option<&str>) -> usize {
        let n = self.chains.len();
        let path = match agent {
            Some(a) => format!("{}#agent-{a}", self.shown),
            None => format!("{}#sidechain-{}", self.shown, n + 1),
        };
        let mut session = Session::new(Format::CLAUDE_CODE, path, Arc::clone(&self.buffer));
        session.id = agent.map(str::to_string);
        self.chains.push((session, Builder::default()));
        n
    }

    /// The child sessions, one per subagent, in order of first appearance.
    pub(super) fn finish(self) -> Vec<Session> {
        self.chains
            .into_iter()
            .map(|(mut session, builder)| {
                session.source.records = builder.records;
                session
            })
            .collect()
    }

    /// [`Sidechains::finish`] of the lines so far, keeping the chains open for more lines,
    /// which now point into `buffer`.
    pub(super) fn snapshot(&mut self, buffer: &Arc<Vec<u8>>) -> Vec<Session> {
        self.buffer = Arc::clone(buffer);
        self.chains
            .iter_mut()
            .map(|(session, builder)| {
                session.buffer = Arc::clone(buffer);
                let mut child = session.clone();
                child.source.records = builder.records;
                child
            })
            .collect()
    }
}

/// Titles children that have none with the description of the parent's `Task`/`Agent` call
/// whose prompt started them.
pub(super) fn name_children(parent: &Session, children: &mut [Session]) {
    let titles = task_titles(parent);
    for child in children.iter_mut().filter(|c| c.title.is_none()) {
        child.title = first_prompt(child).and_then(|p| titles.get(p).cloned());
    }
}

/// Prompt → description of every `Task`/`Agent` tool call in the parent.
fn task_titles(parent: &Session) -> HashMap<String, String> {
    let mut titles = HashMap::new();
    for part in parent.messages.iter().flat_map(|m| &m.parts) {
        let Part::ToolCall {
            name, arguments, ..
        } = part
        else {
            continue;
        };
        if name != "Task" && name != "Agent" {
            continue;
        }
        let Ok(args) = serde_json::from_str::<Value>(arguments) else {
            continue;
        };
        let title = str_at(&args, "description").or_else(|| str_at(&args, "subagent_type"));
        if let (Some(prompt), Some(title)) = (str_at(&args, "prompt"), title) {
            titles.insert(prompt.trim().to_string(), title.to_string());
        }
    }
    titles
}

fn first_prompt(session: &Session) -> Option<&str> {
    let first = session.messages.iter().find(|m| m.role == Role::User)?;
    first.parts.iter().find_map(|p| match p {
        Part::Text { text } => Some(text.trim()),
        _ => None,
    })
}

/// Subagent files of the session at `path`, each parsed as a child.
pub(super) fn from_files(path: Option<&Path>) -> Vec<Session> {
    let Some(path) = path else {
        return Vec::new();
    };
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem().and_then(|s| s.to_str())) else {
        return Vec::new();
    };
    // An agent file is itself a child: its siblings are not its subagents.
    if stem.starts_with("agent-") {
        return Vec::new();
    }
    let mut files = Vec::new();
    agent_files(&dir.join(stem).join("subagents"), MAX_DEPTH, &mut files);
    files.sort();
    let mut legacy = Vec::new();
    agent_files(dir, 0, &mut legacy);
    legacy.retain(|f| first_session_id(f).as_deref() == Some(stem));
    legacy.sort();
    files.extend(legacy);
    files.iter().filter_map(|f| load_child(f)).collect()
}

/// `agent-*.jsonl` files in `dir`, and in its subdirectories down to `depth` levels.
fn agent_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if depth > 0 {
                agent_files(&path, depth - 1, out);
            }
            continue;
        }
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("agent-") && name.ends_with(".jsonl") {
            out.push(path);
        }
    }
}

/// The most of a file's first line read for its `sessionId`.
const FIRST_LINE_MAX: u64 = 1 << 20;

/// The `sessionId` of the first line of a file (read without loading the whole file).
fn first_session_id(path: &Path) -> Option<String> {
    let file = crate::limits::open_regular(path).ok()?;
    let mut line = String::new();
    BufReader::new(file.take(FIRST_LINE_MAX))
        .read_line(&mut line)
        .ok()?;
    let v: Value = crate::formats::surrogates::parse_value(line.trim().as_bytes()).ok()?;
    str_at(&v, "sessionId").map(str::to_string)
}

/// One subagent file as a child session, titled from its `.meta.json` when there is one.
fn load_child(path: &Path) -> Option<Session> {
    let bytes = crate::limits::read_regular(path).ok()?;
    let shown = path.display().to_string();
    let loaded = Loaded::new(bytes, Some(path.to_path_buf()), &shown).ok()?;
    let mut child = super::parse(&loaded).ok()?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let agent = loaded
        .find_map_line(|i| str_at(i.value, "agentId").map(str::to_string))
        .or_else(|| stem.strip_prefix("agent-").map(str::to_string));
    child.id = agent.or(child.id);
    if let Some(title) = meta_title(&path.with_extension("meta.json")) {
        child.title = Some(title);
    }
    Some(child)
}

/// `{agentType, description}` of a subagent's sidecar: the description, else the type.
fn meta_title(path: &Path) -> Option<String> {
    let bytes = crate::limits::read_regular(path).ok()?;
    let v: Value = crate::formats::surrogates::parse_value(&bytes).ok()?;
    str_at(&v, "description")
        .or_else(|| str_at(&v, "agentType"))
        .map(str::to_string)
}
