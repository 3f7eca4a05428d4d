//! A session with everything `report` and the inspector show about it: the model it ran on,
//! the encoding and window that apply, per-message counts, tool-call groups and findings.
//!
//! Owns: resolving model → window/encoding (flags over the source over the registry) and
//! running the pure passes once. Children (subagents) are analysed the same way. Counts kept
//! by an earlier run come from the count cache the options name (`count_cache`).

use crate::count_cache::CountCache;
use crate::session::Session;
use crate::structure::{findings, group_messages, Finding, Grouping};
use crate::tokens::{
    count_session_after, count_session_memo, count_session_with, CountMemo, Counter, Counts,
    Encoding, ImageCosting, MessageCount, ModelInfo, Registry,
};

/// What the user asked for on the command line (each overrides what the source says).
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub model: Option<String>,
    pub window: Option<u64>,
    pub tokenizer: Option<Encoding>,
    /// Where counts of earlier runs are kept (`None`: count everything, keep nothing).
    pub cache: Option<CountCache>,
}

/// Where the context window figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSource {
    Flag,
    Session,
    Registry,
    Default,
}

impl WindowSource {
    pub fn as_str(self) -> &'static str {
        match self {
            WindowSource::Flag => "flag",
            WindowSource::Session => "session",
            WindowSource::Registry => "registry",
            WindowSource::Default => "default",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Analysis {
    pub session: Session,
    pub model: Option<String>,
    pub info: ModelInfo,
    pub counter: Counter,
    pub window: u64,
    pub window_source: WindowSource,
    pub counts: Counts,
    pub grouping: Grouping,
    pub findings: Vec<Finding>,
    pub children: Vec<Analysis>,
    /// [`Analysis::reported`], found once: every frame shows it, and a session without usage
    /// would otherwise be scanned whole on each.
    reported_context: Option<Reported>,
}

/// The context the provider last reported, against what the file holds of that request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reported {
    /// Prompt (cache included) plus completion, as reported.
    pub tokens: u64,
    /// The message whose request reported it.
    pub at: usize,
    /// What the file holds of that context: the exact counts of the messages from the last
    /// compaction before `at` through `at`.
    pub in_file: u64,
    /// That compaction: the context then also held what it left (a summary, kept turns) that
    /// the file does not hold as messages.
    pub since_compaction: bool,
}

impl Reported {
    /// What the provider counted that the file does not hold (the system prompt, tool
    /// definitions, framing): zero when the file holds as much or more.
    pub fn not_in_file(&self) -> u64 {
        self.tokens.saturating_sub(self.in_file)
    }
}

/// Counts kept from an earlier analysis of a session that has since grown, with what they were
/// counted with: they are reused only under the same encoding and image costing.
#[derive(Debug, Clone, Default)]
pub struct KnownCounts {
    pub encoding: Option<Encoding>,
    pub images: ImageCosting,
    pub messages: Vec<MessageCount>,
}

impl KnownCounts {
    /// The counts of `analysis`'s first `unchanged` messages.
    pub fn of(analysis: &Analysis, unchanged: usize) -> KnownCounts {
        let messages = &analysis.counts.messages;
        KnownCounts {
            encoding: Some(analysis.counter.encoding()),
            images: analysis.info.images,
            messages: messages[..unchanged.min(messages.len())].to_vec(),
        }
    }
}

/// What the registry knows of `model` (its default entry when there is none).
fn model_info(model: Option<&str>, registry: &Registry) -> ModelInfo {
    model
        .map(|m| registry.lookup(m))
        .unwrap_or_else(|| registry.default_info().clone())
}

/// The encoding a session whose own model is `session_model` is counted with.
pub fn encoding_for(
    session_model: Option<&str>,
    registry: &Registry,
    options: &Options,
) -> Encoding {
    let model = options.model.as_deref().or(session_model);
    options
        .tokenizer
        .unwrap_or_else(|| model_info(model, registry).encoding)
}

impl Analysis {
    /// A file of many sessions (an evaluation output, a multi-sample log, an aider history of
    /// several runs): no messages of its own, its children are the sessions. Else its children
    /// are subagents of the session it is.
    pub fn holds_sessions(&self) -> bool {
        self.session.messages.is_empty() && !self.children.is_empty()
    }

    /// What its children are called: `("session", "sessions")` or `("subagent", "subagents")`.
    pub fn children_noun(&self) -> (&'static str, &'static str) {
        if self.holds_sessions() {
            ("session", "sessions")
        } else {
            ("subagent", "subagents")
        }
    }

    /// The children's noun for `n` of them.
    pub fn children_word(&self, n: usize) -> &'static str {
        let (one, many) = self.children_noun();
        if n == 1 {
            one
        } else {
            many
        }
    }

    pub fn new(session: Session, registry: &Registry, options: &Options) -> Analysis {
        Analysis::with_progress(session, registry, options, None)
    }

    /// [`Analysis::new`], reporting the token count's progress (the slow pass) in `progress`.
    pub fn with_progress(
        session: Session,
        registry: &Registry,
        options: &Options,
        progress: Option<&crate::progress::Progress>,
    ) -> Analysis {
        Analysis::grown(
            session,
            registry,
            options,
            progress,
            &KnownCounts::default(),
        )
    }

    /// [`Analysis::with_progress`] of a session that grew since it was analysed: the counts in
    /// `known` are reused when they were made with the encoding and costing that apply now.
    ///
    /// With a count cache in `options` and nothing `known` (a first analysis), the counts
    /// stored for the source's file are used for every message (and its children's) whose
    /// content is unchanged, and the cache is updated afterwards. A session that grew while
    /// followed reuses `known` instead and leaves the cache alone.
    pub fn grown(
        session: Session,
        registry: &Registry,
        options: &Options,
        progress: Option<&crate::progress::Progress>,
        known: &KnownCounts,
    ) -> Analysis {
        let stored = match &options.cache {
            Some(cache) if known.messages.is_empty() => cache.open(&session.source.path),
            _ => None,
        };
        let Some(mut stored) = stored else {
            return Analysis::build(session, registry, options, progress, known, None);
        };
        let analysis = Analysis::build(
            session,
            registry,
            options,
            progress,
            known,
            Some(&mut stored.memo),
        );
        stored.finish();
        analysis
    }

    fn build(
        mut session: Session,
        registry: &Registry,
        options: &Options,
        progress: Option<&crate::progress::Progress>,
        known: &KnownCounts,
        mut memo: Option<&mut CountMemo>,
    ) -> Analysis {
        let children = std::mem::take(&mut session.children);
        let model = options.model.clone().or_else(|| session.model.clone());
        let info = model_info(model.as_deref(), registry);
        let encoding = options.tokenizer.unwrap_or(info.encoding);
        let counter = Counter::new(encoding);
        let (window, window_source) = if let Some(w) = options.window {
            (w, WindowSource::Flag)
        } else if let Some(w) = session.reported_window {
            (w, WindowSource::Session)
        } else if info.matched.is_some() {
            (info.context_window, WindowSource::Registry)
        } else {
            (info.context_window, WindowSource::Default)
        };
        if let Some(p) = progress {
            p.start(
                crate::progress::Phase::Counting,
                session.messages.len() as u64,
            );
        }
        let reusable = known.encoding == Some(encoding) && known.images == info.images;
        let known = if reusable { &known.messages[..] } else { &[] };
        let counts = match memo.as_deref_mut() {
            Some(memo) if known.is_empty() => {
                count_session_memo(&session, &counter, info.images, progress, memo)
            }
            _ => count_session_after(&session, &counter, info.images, progress, known),
        };
        let grouping = group_messages(&session);
        let findings =
            findings::session_findings(&session, &grouping, counts.total(), Some(window));
        // A subagent without a model of its own ran on the parent's.
        let children = children
            .into_iter()
            .map(|mut child| {
                if child.model.is_none() {
                    child.model = model.clone();
                }
                let none = KnownCounts::default();
                Analysis::build(child, registry, options, None, &none, memo.as_deref_mut())
            })
            .collect();
        Analysis {
            session,
            model,
            info,
            counter,
            window,
            window_source,
            counts,
            grouping,
            findings,
            children,
            reported_context: None,
        }
        .with_reported_context()
    }

    /// Another session analysed like this one: the same model, encoding, window and image
    /// costing (a compacted history of this session, say), counted afresh.
    pub fn derived(&self, mut session: Session) -> Analysis {
        let children = std::mem::take(&mut session.children);
        let counts = count_session_with(&session, &self.counter, self.info.images, None);
        let grouping = group_messages(&session);
        let findings =
            findings::session_findings(&session, &grouping, counts.total(), Some(self.window));
        let children = children.into_iter().map(|c| self.derived(c)).collect();
        Analysis {
            session,
            model: self.model.clone(),
            info: self.info.clone(),
            counter: self.counter,
            window: self.window,
            window_source: self.window_source,
            counts,
            grouping,
            findings,
            children,
            reported_context: None,
        }
        .with_reported_context()
    }

    fn with_reported_context(mut self) -> Analysis {
        let messages = &self.session.messages;
        self.reported_context = messages.iter().rev().find_map(|m| {
            let tokens = m.usage.as_ref()?.context_total()?;
            let from = (self.session.marks.iter())
                .filter(|k| k.before_message <= m.index)
                .map(|k| k.before_message)
                .max()
                .unwrap_or(0);
            let in_file = (self.counts.messages.get(from..=m.index))
                .map_or(0, |c| c.iter().map(|c| c.total() as u64).sum());
            Some(Reported {
                tokens,
                at: m.index,
                in_file,
                since_compaction: from > 0,
            })
        });
        self
    }

    pub fn total_tokens(&self) -> usize {
        self.counts.total()
    }

    /// Context the provider last reported (prompt incl. cache + completion), if any.
    pub fn last_reported_context(&self) -> Option<u64> {
        self.reported_context.map(|r| r.tokens)
    }

    /// The provider's last report, against what the file holds of that request.
    pub fn reported(&self) -> Option<Reported> {
        self.reported_context
    }
}
