//! Claude Code session JSONL (`~/.claude/projects/<enc-cwd>/<sessionId>.jsonl`).
//!
//! Owns: turning the lines of one session file into a `Session`: streamed assistant lines merged
//! per `message.id` within one response's run (never across a human turn), result-only user
//! lines as tool messages, compaction boundaries and summaries as marks, titles from
//! `summary`/`ai-title`/`custom-title`, subagents (inline sidechains and
//! `subagents/agent-*.jsonl` files) as children. Messages are the records of the active chain,
//! in file order: a branch a rewind abandoned is left out and reported (`chain` decides which).
//! It must not count tokens or decide anything about compaction.
//!
//! Read whole, a file is read once, and again without its abandoned branches when its tree has
//! any. Read a line at a time (a followed file, a large one read a chunk at a time), a record
//! that hangs from a left-out one is left out too; one that may fork the tree anew has the
//! plan made again, and when that changes what is left out the reader says it is no longer
//! consistent, so the source is read again whole: a finished file reads the same either way.

mod blocks;
mod chain;
#[cfg(test)]
mod chain_tests;
#[cfg(test)]
mod fixture_tests;
mod home;
mod subagents;
#[cfg(test)]
mod tests;

use std::cell::Cell;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;

use super::common::{carries_nothing, str_at, to_json, u64_at, Doc, Item, Loaded};
use super::stream::LineReader;
use super::LoadError;
use crate::session::{CompactionMark, Format, Message, Part, Role, Session};

/// How a compaction summary starts in files that lack `isCompactSummary`.
const CONTINUED_PREFIX: &str =
    "This session is being continued from a previous conversation that ran out of context.";

/// Line types that are metadata: read (or ignored) but never shown as messages.
const METADATA: &[&str] = &[
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "progress",
    "last-prompt",
    "permission-mode",
    "mode",
    "agent-name",
    "pr-link",
    "tag",
];

/// The model name Claude Code gives messages it made up itself (API errors, interruptions).
const SYNTHETIC_MODEL: &str = "<synthetic>";

/// Claude Code in the format registry.
pub struct ClaudeCode;

impl super::session_format::SessionFormat for ClaudeCode {
    fn format(&self) -> Format {
        Format::CLAUDE_CODE
    }

    fn description(&self) -> &'static str {
        "Claude Code session JSONL (~/.claude/projects), subagents as children"
    }

    fn sniff_record(&self, v: &Value) -> bool {
        let Some(obj) = v.as_object() else {
            return false;
        };
        let keyed = ["sessionId", "uuid", "leafUuid", "messageId"]
            .iter()
            .any(|k| obj.contains_key(*k));
        let kind = str_at(v, "type");
        let known = matches!(
            kind,
            Some(
                "user"
                    | "assistant"
                    | "system"
                    | "summary"
                    | "file-history-snapshot"
                    | "queue-operation"
                    | "attachment"
                    | "progress"
                    | "ai-title"
                    | "last-prompt",
            )
        );
        let needs_role = matches!(kind, Some("user" | "assistant"));
        keyed && known && (!needs_role || v.pointer("/message/role").is_some())
    }

    fn parse(&self, loaded: &Loaded) -> Result<Session, LoadError> {
        parse(loaded)
    }

    fn lines(&self, loaded: &Loaded) -> Option<Result<Box<dyn LineReader>, LoadError>> {
        Some(Ok(Box::new(open(loaded))))
    }

    fn writes_lines(&self) -> bool {
        true
    }

    fn home(&self) -> Option<super::home::Home> {
        Some(super::home::Home {
            tool: "Claude Code",
            dir: ".claude",
            var: Some("CLAUDE_CONFIG_DIR"),
            var_below: "",
            layout: "projects/*/*.jsonl",
        })
    }

    fn find(&self, root: &Path, finder: &mut super::home::Finder) {
        home::find(root, finder)
    }

    fn picker_role(&self) -> &'static str {
        "agent_claude"
    }
}

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    Ok(Box::new(open(loaded)).finish(loaded.path.as_deref()))
}

/// Reads `loaded` into a [`Reader`] that can take more lines.
pub(super) fn open(loaded: &Loaded) -> Reader {
    let Doc::Lines(_) = &loaded.doc else {
        // A JSON array given with `--from` (or one record): the items are all in memory.
        let items = records(loaded);
        let agent_file = items
            .iter()
            .filter(|i| is_turn(i.value))
            .all(|i| is_sidechain(i.value));
        let each = |reader: &mut Reader| items.iter().for_each(|item| reader.feed(item));
        let reader = read(loaded, agent_file, chain::Plan::default(), each);
        return without_abandoned(loaded, reader, each);
    };
    // Lines are read one at a time. Whether this is a subagent's own file (every turn a
    // sidechain) is known only at the end: read as a session with sidechains first, and again
    // as an agent file in the rare case that it was one and a line went to a sidechain.
    let each = |reader: &mut Reader| loaded.each_line(|item| reader.feed(&item));
    let reader = read(loaded, false, chain::Plan::default(), each);
    if !reader.kind_holds() {
        return read(loaded, true, chain::Plan::default(), each);
    }
    without_abandoned(loaded, reader, each)
}

/// A reader of `loaded` (as an agent file or not, leaving out what `plan` does) fed by `each`.
fn read(
    loaded: &Loaded,
    agent_file: bool,
    plan: chain::Plan,
    each: impl Fn(&mut Reader),
) -> Reader {
    let mut reader = Reader::new(loaded, agent_file, plan);
    each(&mut reader);
    // The plan was made from these very records: nothing read since can unsettle it.
    reader.unsettled.set(false);
    reader
}

/// `reader`, which read every record, or, when its tree shows branches a rewind abandoned, a
/// reader of the same records that leaves them out.
fn without_abandoned(loaded: &Loaded, mut reader: Reader, each: impl Fn(&mut Reader)) -> Reader {
    let plan = reader.tree.plan();
    if plan.is_empty() {
        // Nothing to leave out, but the plan may be holding branches back.
        reader.plan = plan;
        return reader;
    }
    read(loaded, reader.agent_file, plan, each)
}

fn is_turn(v: &Value) -> bool {
    matches!(str_at(v, "type"), Some("user" | "assistant"))
}

/// A session being read line by line: the main chain and the sidechains beside it.
pub(super) struct Reader {
    session: Session,
    main: Builder,
    sidechains: subagents::Sidechains,
    /// Read as a subagent's own file: sidechain turns belong to the main chain.
    agent_file: bool,
    /// A turn outside any sidechain was read.
    main_turn: bool,
    /// A sidechain line was read.
    sidechain_line: bool,
    /// The main chain's records as a tree (not kept for an agent file).
    tree: chain::Tree,
    /// What is left out: the branches a rewind abandoned, as planned when the reader opened,
    /// with the records read since that hang from them.
    plan: chain::Plan,
    /// A record read since the plan was made may change it.
    unsettled: Cell<bool>,
}

impl Reader {
    fn new(loaded: &Loaded, agent_file: bool, plan: chain::Plan) -> Reader {
        Reader {
            session: super::start(Format::CLAUDE_CODE, loaded),
            main: Builder::default(),
            sidechains: subagents::Sidechains::new(loaded),
            agent_file,
            main_turn: false,
            sidechain_line: false,
            tree: chain::Tree::default(),
            plan,
            unsettled: Cell::new(false),
        }
    }

    /// Whether the lines read so far read as the file they are: an agent file is one whose
    /// every turn is a sidechain (a file without sidechain lines reads the same either way).
    fn kind_holds(&self) -> bool {
        if self.agent_file {
            !self.main_turn
        } else {
            self.main_turn || !self.sidechain_line
        }
    }

    /// Whether what the reader leaves out is still what the whole tree read so far abandons.
    fn plan_holds(&self) -> bool {
        if !self.unsettled.get() {
            return true;
        }
        let holds = self.tree.plan() == self.plan;
        self.unsettled.set(!holds);
        holds
    }

    /// Whether a main-chain record is left out, on a branch a rewind abandoned; the record
    /// joins the tree either way.
    fn leaves_out(&mut self, item: &Item) -> bool {
        let Some(added) = self.tree.add(item) else {
            return false;
        };
        if added.unsettled || (added.turn && self.plan.held_back()) {
            self.unsettled.set(true);
        }
        self.plan.leaves_out(item.index, added.parent)
    }
}

impl LineReader for Reader {
    fn feed(&mut self, item: &Item) {
        let v = item.value;
        if self.session.id.is_none() {
            self.session.id = str_at(v, "sessionId").map(str::to_string);
        }
        let sidechain = is_sidechain(v);
        self.sidechain_line |= sidechain;
        self.main_turn |= !sidechain && is_turn(v);
        if self.agent_file {
            self.main.feed(&mut self.session, item);
        } else if sidechain {
            self.sidechains.feed(item);
        } else if !self.leaves_out(item) {
            self.main.feed(&mut self.session, item);
        }
    }

    /// Whether the lines read so far read as they were read: as the kind of file they are,
    /// and leaving out the branches their tree abandons.
    fn consistent(&self) -> bool {
        self.kind_holds() && self.plan_holds()
    }

    fn session(&self) -> &Session {
        &self.session
    }

    fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The lowest main-chain message changed in place since the last call.
    fn take_touched(&mut self) -> Option<usize> {
        self.main.touched.take()
    }

    /// Brings the children up to date with the lines read, all pointing into `buffer`.
    fn settle(&mut self, path: Option<&std::path::Path>, buffer: &Arc<Vec<u8>>) {
        self.session.buffer = Arc::clone(buffer);
        self.session.source.abandoned = self.plan.branches().to_vec();
        let mut children = self.sidechains.snapshot(buffer);
        children.extend(subagents::from_files(path));
        subagents::name_children(&self.session, &mut children);
        self.session.children = children;
    }

    fn finish(self: Box<Self>, path: Option<&std::path::Path>) -> Session {
        let this = *self;
        let mut session = this.session;
        session.source.abandoned = this.plan.branches().to_vec();
        let mut children = this.sidechains.finish();
        children.extend(subagents::from_files(path));
        subagents::name_children(&session, &mut children);
        session.children = children;
        session
    }
}

fn is_sidechain(v: &Value) -> bool {
    v.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

/// The records to read: the JSONL lines, or the items of a JSON array given with `--from`.
fn records(loaded: &Loaded) -> Vec<Item<'_>> {
    match &loaded.doc {
        Doc::Lines(_) => loaded.lines(),
        Doc::Json(Value::Array(_)) => loaded.items(&[]),
        Doc::Json(value) => vec![Item {
            index: 0,
            range: None,
            value,
        }],
        Doc::Zip | Doc::Text(_) => Vec::new(),
    }
}

/// Builds one session (the main chain, or one subagent) from its lines, in file order.
#[derive(Debug, Default)]
pub(super) struct Builder {
    /// The assistant message later lines of the same `message.id` merge into: its id and
    /// index. A response streams as a run of lines with its tool results between them; a
    /// human turn, another response or a boundary ends the run, and a line of that id after
    /// it starts a message of its own (merging it would move its text across the turn).
    open_response: Option<(String, usize)>,
    /// The last record that mattered was a compaction boundary.
    after_boundary: bool,
    /// Rank of the title source seen so far (summary < ai-title < custom-title).
    title_rank: u8,
    /// Lines fed to this builder.
    pub(super) records: usize,
    /// The lowest index of a message that later lines merged into, since last taken.
    touched: Option<usize>,
}

impl Builder {
    pub(super) fn feed(&mut self, session: &mut Session, item: &Item) {
        self.records += 1;
        let v = item.value;
        let has_message = v.get("message").is_some_and(Value::is_object);
        match str_at(v, "type") {
            Some("user") if has_message => self.user(session, item),
            Some("assistant") if has_message => self.assistant(session, item),
            Some("system") => self.system(session, item),
            Some("summary") => self.title(session, 1, str_at(v, "summary")),
            Some("ai-title") => self.title(session, 2, str_at(v, "aiTitle")),
            Some("custom-title") => {
                let title = str_at(v, "customTitle").or_else(|| str_at(v, "title"));
                self.title(session, 3, title);
            }
            Some(kind) if METADATA.contains(&kind) => {}
            None if carries_nothing(v) => {}
            kind => {
                self.after_boundary = false;
                self.open_response = None;
                session.push(event(item, kind.unwrap_or("record")));
            }
        }
    }

    fn title(&mut self, session: &mut Session, rank: u8, title: Option<&str>) {
        if let Some(title) = title.filter(|t| !t.is_empty()) {
            if rank >= self.title_rank {
                self.title_rank = rank;
                session.title = Some(title.to_string());
            }
        }
    }

    fn user(&mut self, session: &mut Session, item: &Item) {
        let v = item.value;
        let content = v.get("message").and_then(|m| m.get("content"));
        let is_summary = v.get("isCompactSummary").and_then(Value::as_bool) == Some(true)
            || blocks::first_text(content).is_some_and(|t| t.starts_with(CONTINUED_PREFIX));
        let mut msg = new_message(Role::User, item);
        if is_summary {
            let text = blocks::all_text(content);
            self.summary_mark(session, item.index, &text);
            msg.parts.push(Part::Summary { text });
        } else {
            msg.parts = blocks::parts(content, item.index);
            let only_results = msg.holds_only_tool_results();
            if only_results {
                msg.role = Role::Tool;
            }
        }
        if msg.role != Role::Tool {
            self.open_response = None;
        }
        msg.id = str_at(v, "uuid").map(str::to_string);
        self.after_boundary = false;
        session.push(msg);
    }

    /// A compaction summary: names the boundary's summary, or is a mark itself when no
    /// boundary came just before (older files).
    fn summary_mark(&mut self, session: &mut Session, index: usize, text: &str) {
        if self.after_boundary {
            if let Some(mark) = session.marks.last_mut() {
                mark.summary.get_or_insert_with(|| text.to_string());
            }
            return;
        }
        self.open_response = None;
        session.mark(CompactionMark {
            kind: "compact_summary".to_string(),
            source_index: index,
            before_message: 0,
            trigger: None,
            pre_tokens: None,
            post_tokens: None,
            summary: Some(text.to_string()),
        });
    }

    fn assistant(&mut self, session: &mut Session, item: &Item) {
        let Some(message) = item.value.get("message") else {
            return;
        };
        let parts = blocks::parts(message.get("content"), item.index);
        let usage = blocks::usage(message.get("usage"));
        let model = str_at(message, "model").filter(|m| *m != SYNTHETIC_MODEL);
        if let Some(model) = model {
            session.model = Some(model.to_string());
        }
        self.after_boundary = false;
        let id = str_at(message, "id");
        let open = self.open_response.as_ref();
        let same = open.filter(|(open, _)| id.is_some_and(|id| id == open));
        if let Some(&(_, at)) = same {
            if let Some(msg) = session.messages.get_mut(at) {
                self.touched = Some(self.touched.map_or(at, |t| t.min(at)));
                msg.parts.extend(parts);
                msg.source_indices.push(item.index);
                msg.usage = blocks::merge_usage(msg.usage.take(), usage);
                return;
            }
        }
        let mut msg = new_message(Role::Assistant, item);
        msg.parts = parts;
        msg.usage = usage;
        msg.model = model.map(str::to_string);
        msg.id = id.map(str::to_string);
        let at = session.push(msg);
        self.open_response = id.map(|id| (id.to_string(), at));
    }

    fn system(&mut self, session: &mut Session, item: &Item) {
        let v = item.value;
        let (kind, meta) = match str_at(v, "subtype") {
            Some("compact_boundary") => ("compact_boundary", v.get("compactMetadata")),
            Some("microcompact_boundary") => {
                ("microcompact_boundary", v.get("microcompactMetadata"))
            }
            // Every other subtype (local_command, turn_duration, api_error …) is UI-only.
            _ => return,
        };
        let meta = meta.unwrap_or(&Value::Null);
        session.mark(CompactionMark {
            kind: kind.to_string(),
            source_index: item.index,
            before_message: 0,
            trigger: str_at(meta, "trigger").map(str::to_string),
            pre_tokens: u64_at(meta, "preTokens"),
            post_tokens: u64_at(meta, "postTokens"),
            summary: None,
        });
        if kind == "compact_boundary" {
            // Messages after a boundary never merge into ones before it.
            self.open_response = None;
            self.after_boundary = true;
        }
    }
}

fn new_message(role: Role, item: &Item) -> Message {
    let mut msg = Message::new(role, item.index);
    msg.raw = item.range();
    msg.timestamp = str_at(item.value, "timestamp").map(str::to_string);
    msg
}

/// A line of a type this parser does not know, kept as one opaque part.
fn event(item: &Item, kind: &str) -> Message {
    let mut msg = new_message(Role::Event, item);
    msg.id = str_at(item.value, "uuid").map(str::to_string);
    msg.parts.push(Part::Opaque {
        kind: kind.to_string(),
        raw: to_json(item.value),
    });
    msg
}
