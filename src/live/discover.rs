//! Session discovery for the session picker: which agent sessions exist on this machine.
//!
//! Owns: where each tool's root is ([`Locations`], from the environment or given), walking
//! every format's root through its `find` (`formats::home`: the layouts are the formats'),
//! the newest-first list ([`discover`]), the exact message count of one session found
//! ([`count`], through its format's parser, as the inspector loads it), plus type-to-filter
//! matching ([`filter`]).
//!
//! Must not: touch a terminal, spawn threads, or fail because of one bad file or directory.
//! Everything is synchronous; the caller decides when to (re)discover and what to count.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::formats::home::walk::Walker;
use crate::formats::home::Finder;
pub use crate::formats::home::{Found, Home, Limits};
use crate::formats::registry::{self, FORMATS};
use crate::session::Format;

/// Why the default locations could not be worked out.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("cannot find the home directory (needed for ~/.claude, ~/.codex, …)")]
    NoHome,
}

/// The root each tool keeps its sessions under, one per format that has a [`Home`]. Each can
/// be replaced on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    home: PathBuf,
    roots: Vec<(Format, PathBuf)>,
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
    /// which Gemini CLI takes as the home its `.gemini` lives in; see each format's `Home`);
    /// an empty value is unset.
    pub fn from_vars(home: &Path, var: impl Fn(&str) -> Option<OsString>) -> Locations {
        let roots = homes()
            .map(|(format, h)| (format, h.root(home, &var)))
            .collect();
        Locations {
            home: home.to_path_buf(),
            roots,
        }
    }

    /// The user's home the roots were worked out from.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The default roots under `home`, ignoring the environment.
    pub fn under_home(home: &Path) -> Locations {
        Locations::from_vars(home, |_| None)
    }

    /// `format`'s root (`None` for a format whose tool keeps no sessions of its own).
    pub fn root(&self, format: Format) -> Option<&Path> {
        let found = self.roots.iter().find(|(f, _)| *f == format);
        found.map(|(_, root)| root.as_path())
    }

    /// These locations with `format`'s root at `root`.
    pub fn with(mut self, format: Format, root: impl Into<PathBuf>) -> Locations {
        let root = root.into();
        match self.roots.iter_mut().find(|(f, _)| *f == format) {
            Some((_, r)) => *r = root,
            None => self.roots.push((format, root)),
        }
        self
    }

    /// Every root, in the registry's order.
    pub fn roots(&self) -> impl Iterator<Item = (Format, &Path)> {
        self.roots.iter().map(|(f, r)| (*f, r.as_path()))
    }
}

/// Every format whose tool keeps sessions of its own, with where.
pub fn homes() -> impl Iterator<Item = (Format, Home)> {
    FORMATS.iter().filter_map(|f| Some((f.format(), f.home()?)))
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
    for (format, root) in loc.roots() {
        let mut finder = Finder::new(&mut walker, limits, format, &mut found);
        registry::of(format).find(root, &mut finder);
    }
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

/// Sessions larger than this keep discovery's estimate: parsing them to count would take long.
pub const COUNT_MAX_BYTES: u64 = 20 << 20;

/// The messages the inspector shows for `found`: the session loaded as the inspector loads it
/// (its format's parser) and its messages counted. `None` for a session over
/// [`COUNT_MAX_BYTES`] or one that does not load.
pub fn count(found: &Found) -> Option<usize> {
    if found.size_bytes > COUNT_MAX_BYTES {
        return None;
    }
    let session = crate::formats::load_path(&found.path, Some(found.tool)).ok()?;
    Some(session.messages.len())
}

/// Indices into `found` of the sessions matching `query`, for type-to-filter. Each
/// whitespace-separated word must occur, case-insensitively, as a substring of the tool name,
/// title, working directory or path, or failing that as a subsequence (`cdx` matches `codex`) of
/// the tool name, title and the path's last two components (the home directory prefix, shared by all, would
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
        let cwd = f.cwd.as_deref().unwrap_or_default().to_lowercase();
        let path = format!("{cwd}\n{}", f.path.display()).to_lowercase();
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
