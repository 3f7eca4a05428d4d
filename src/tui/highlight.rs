//! Syntax highlighting for the detail pane: JSON (pretty-printed first) and fenced code blocks
//! inside text, as ratatui lines, without making a frame wait for syntect.
//!
//! Owns: the `Highlighter` a theme carries — a small cache of highlighted windows keyed by
//! content hash, kind, style and syntect theme, and (for the running inspector) one background
//! thread that highlights while the frame shows the plain window. Only the shown lines are ever
//! highlighted (`window.rs` cuts them; `syntax.rs` colours them). Must not do IO, pick role
//! colours (the theme does) or decide how many lines a pane shows (views do).

mod syntax;
mod window;

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use ratatui::style::Style;
use ratatui::text::Line;

pub use syntax::{syntax_theme_background, syntax_theme_exists, syntax_theme_names};
pub use window::MAX_LINE_BYTES;
use window::{Window, PRETTY_LIMIT};

use super::color_depth::ColorDepth;

/// Highlighted windows kept; a message has a few parts, so this covers the last dozens seen.
const CACHE_ENTRIES: usize = 64;
/// Windows waiting for the background thread; older requests (scrolled past) are dropped.
const QUEUE_LIMIT: usize = 16;

/// What a text is, which decides how it is highlighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Prose that may hold fenced code blocks (```` ```rust ```` … ```` ``` ````).
    Text,
    /// JSON (tool-call arguments): pretty-printed when it parses, highlighted as JSON either way.
    Json,
    /// A tool result: JSON when it is an object or array, otherwise `Text`.
    MaybeJson,
}

/// The first lines of a text as shown, and how many lines the whole (pretty-printed) text has.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    pub lines: Vec<Line<'static>>,
    pub total: usize,
}

/// Highlights with one syntect theme at one colour depth, or draws plain text when off.
pub struct Highlighter {
    syntax_theme: Option<String>,
    depth: ColorDepth,
    background: bool,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    cache: Mutex<Cache>,
    queue: Mutex<Queue>,
    wake: Condvar,
    ready: AtomicBool,
}

#[derive(Default)]
struct Cache {
    /// Each window and whether it is final (highlighted, or nothing to highlight).
    entries: HashMap<u64, (Arc<Shown>, bool)>,
    order: VecDeque<u64>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    pending: HashSet<u64>,
    worker_started: bool,
    closed: bool,
}

struct Job {
    key: u64,
    window: Window,
    style: Style,
}

impl Highlighter {
    /// Highlights on the calling thread (tests, and anything that needs the final lines now).
    pub fn new(syntax_theme: &str, depth: ColorDepth) -> Highlighter {
        let on = depth != ColorDepth::None && syntax::syntect_theme(syntax_theme).is_some();
        Highlighter {
            syntax_theme: on.then(|| syntax_theme.to_string()),
            depth,
            background: false,
            shared: Arc::default(),
        }
    }

    /// Plain text only.
    pub fn off() -> Highlighter {
        Highlighter::new("", ColorDepth::None)
    }

    /// From now on a window not yet highlighted is shown plain while a background thread
    /// highlights it; `take_ready` then says a frame should be drawn again.
    pub fn in_background(mut self) -> Highlighter {
        self.background = true;
        self
    }

    pub fn is_on(&self) -> bool {
        self.syntax_theme.is_some()
    }

    /// Whether background highlighting has work queued, or finished work not yet drawn (the
    /// runtime keeps ticking while it is).
    pub fn busy(&self) -> bool {
        self.shared.ready.load(Ordering::Acquire)
            || self
                .shared
                .queue
                .lock()
                .is_ok_and(|q| !q.pending.is_empty())
    }

    /// True once after background highlighting finished something since the last call.
    pub fn take_ready(&self) -> bool {
        self.shared.ready.swap(false, Ordering::AcqRel)
    }

    /// The first `max_lines` lines of `text` as `kind`; text outside code in `style`.
    pub fn show(&self, text: &str, kind: Kind, style: Style, max_lines: usize) -> Arc<Shown> {
        let key = self.key(text, kind, style, max_lines);
        let cached = self.shared.cache.lock().ok().and_then(|c| c.get(key));
        match cached {
            Some((shown, true)) => return shown,
            Some((shown, false)) => {
                self.schedule(key, || Window::new(text, kind, max_lines), style);
                return shown;
            }
            None => {}
        }
        let window = Window::new(text, kind, max_lines);
        let theme = self.syntax_theme.as_deref().and_then(syntax::syntect_theme);
        let (lines, done) = match theme {
            Some(theme) if window.has_code() && !self.background => {
                (syntax::highlight(&window, theme, self.depth, style), true)
            }
            Some(_) if window.has_code() => (window.plain(style), false),
            _ => (window.plain(style), true),
        };
        let shown = Arc::new(Shown {
            lines,
            total: window.total,
        });
        self.store(key, Arc::clone(&shown), done);
        if !done {
            self.schedule(key, || window, style);
        }
        shown
    }

    /// Everything the result depends on. Small texts are hashed whole (they may be
    /// pretty-printed); a large one by its length, line count and the window that is shown.
    fn key(&self, text: &str, kind: Kind, style: Style, max_lines: usize) -> u64 {
        let mut h = DefaultHasher::new();
        (kind, style, max_lines, &self.syntax_theme, self.depth).hash(&mut h);
        if text.len() <= PRETTY_LIMIT {
            text.hash(&mut h);
        } else {
            (text.len(), text.lines().count()).hash(&mut h);
            for line in text.lines().take(max_lines) {
                (window::cut(line).0, line.len()).hash(&mut h);
            }
        }
        h.finish()
    }

    fn store(&self, key: u64, shown: Arc<Shown>, done: bool) {
        if let Ok(mut cache) = self.shared.cache.lock() {
            cache.insert(key, shown, done);
        }
    }

    /// Queues a window for the background thread unless it is already waiting there.
    fn schedule(&self, key: u64, window: impl FnOnce() -> Window, style: Style) {
        let Some(theme) = self.syntax_theme.clone() else {
            return;
        };
        let Ok(mut queue) = self.shared.queue.lock() else {
            return;
        };
        if !queue.pending.insert(key) {
            return;
        }
        queue.jobs.push_back(Job {
            key,
            window: window(),
            style,
        });
        while queue.jobs.len() > QUEUE_LIMIT {
            if let Some(old) = queue.jobs.pop_front() {
                queue.pending.remove(&old.key);
            }
        }
        if !queue.worker_started {
            queue.worker_started = true;
            let shared = Arc::clone(&self.shared);
            let depth = self.depth;
            std::thread::spawn(move || work(&shared, &theme, depth));
        }
        self.shared.wake.notify_one();
    }
}

/// The background thread: newest request first, until its highlighter is dropped.
fn work(shared: &Shared, theme_name: &str, depth: ColorDepth) {
    let Some(theme) = syntax::syntect_theme(theme_name) else {
        return;
    };
    loop {
        let job = {
            let Ok(mut queue) = shared.queue.lock() else {
                return;
            };
            loop {
                if queue.closed {
                    return;
                }
                if let Some(job) = queue.jobs.pop_back() {
                    break job;
                }
                queue = match shared.wake.wait(queue) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        let lines = syntax::highlight(&job.window, theme, depth, job.style);
        let shown = Arc::new(Shown {
            lines,
            total: job.window.total,
        });
        if let Ok(mut cache) = shared.cache.lock() {
            cache.insert(job.key, shown, true);
        }
        if let Ok(mut queue) = shared.queue.lock() {
            queue.pending.remove(&job.key);
        }
        shared.ready.store(true, Ordering::Release);
    }
}

impl Cache {
    fn get(&self, key: u64) -> Option<(Arc<Shown>, bool)> {
        self.entries
            .get(&key)
            .map(|(s, done)| (Arc::clone(s), *done))
    }

    fn insert(&mut self, key: u64, shown: Arc<Shown>, done: bool) {
        if self.entries.insert(key, (shown, done)).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > CACHE_ENTRIES {
            if let Some(old) = self.order.pop_front() {
                self.entries.remove(&old);
            }
        }
    }
}

impl Drop for Highlighter {
    fn drop(&mut self) {
        if let Ok(mut queue) = self.shared.queue.lock() {
            queue.closed = true;
        }
        self.shared.wake.notify_all();
    }
}

impl Clone for Highlighter {
    /// The same theme, depth and mode, with an empty cache of its own.
    fn clone(&self) -> Highlighter {
        Highlighter {
            syntax_theme: self.syntax_theme.clone(),
            depth: self.depth,
            background: self.background,
            shared: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter")
            .field("syntax_theme", &self.syntax_theme)
            .field("depth", &self.depth)
            .field("background", &self.background)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    const ARGS: &str = r#"{"command":"ls -la","description":"Check current directory structure"}"#;

    fn colours(shown: &Shown) -> HashSet<String> {
        shown
            .lines
            .iter()
            .flat_map(|l| &l.spans)
            .filter_map(|s| s.style.fg.map(|c| c.to_string()))
            .collect()
    }

    #[test]
    fn the_same_text_is_highlighted_once() {
        let h = Highlighter::new("base16-ocean.dark", ColorDepth::TrueColor);
        let first = h.show(ARGS, Kind::Json, Style::default(), 60);
        let copy: String = ARGS.chars().collect();
        let again = h.show(&copy, Kind::Json, Style::default(), 60);
        assert!(Arc::ptr_eq(&first, &again), "served from the cache");
        assert_eq!(first.total, 4);
        assert!(colours(&first).len() >= 2);
        let other_style = h.show(ARGS, Kind::Json, Style::default().bold(), 60);
        assert!(!Arc::ptr_eq(&first, &other_style));
    }

    #[test]
    fn the_cache_is_bounded() {
        let h = Highlighter::new("base16-ocean.dark", ColorDepth::TrueColor);
        let first = h.show("[0]", Kind::Json, Style::default(), 60);
        for i in 1..=CACHE_ENTRIES {
            h.show(&format!("[{i}]"), Kind::Json, Style::default(), 60);
        }
        assert_eq!(h.shared.cache.lock().unwrap().entries.len(), CACHE_ENTRIES);
        let again = h.show("[0]", Kind::Json, Style::default(), 60);
        assert!(!Arc::ptr_eq(&first, &again), "the oldest entry was evicted");
        assert_eq!(first, again);
    }

    #[test]
    fn off_draws_plain_lines_in_the_given_style() {
        let h = Highlighter::off();
        assert!(!h.is_on());
        let style = Style::default().bold();
        let shown = h.show(ARGS, Kind::Json, style, 60);
        assert_eq!(shown.lines.len(), 4, "still pretty-printed");
        for line in &shown.lines {
            assert!(line.spans.iter().all(|s| s.style == style), "{line:?}");
        }
        assert!(!Highlighter::new("no such theme", ColorDepth::TrueColor).is_on());
    }

    #[test]
    fn only_the_window_of_a_huge_text_is_shown() {
        let huge: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
        let h = Highlighter::new("base16-ocean.dark", ColorDepth::TrueColor);
        let shown = h.show(&huge, Kind::MaybeJson, Style::default(), 60);
        assert_eq!((shown.lines.len(), shown.total), (60, 200_000));
        let one_line = format!("[{}]", "\"x\",".repeat(2_000_000));
        let shown = h.show(&one_line, Kind::MaybeJson, Style::default(), 60);
        assert_eq!((shown.lines.len(), shown.total), (1, 1));
        let text: String = shown.lines[0]
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert!(
            text.ends_with(" … +7,999,002 chars"),
            "{}",
            &text[text.len() - 40..]
        );
    }

    #[test]
    fn in_the_background_plain_lines_come_first_then_highlighted_ones() {
        let h = Highlighter::new("base16-ocean.dark", ColorDepth::TrueColor).in_background();
        let style = Style::default().fg(ratatui::style::Color::White);
        let first = h.show(ARGS, Kind::Json, style, 60);
        assert_eq!(colours(&first).len(), 1, "plain, not waiting for syntect");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !h.take_ready() {
            assert!(
                Instant::now() < deadline,
                "background highlighting never finished"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!h.take_ready(), "ready is reported once");
        let later = h.show(ARGS, Kind::Json, style, 60);
        assert!(colours(&later).len() >= 2, "{:?}", colours(&later));
        let prose = h.show("no code, nothing to wait for", Kind::Text, style, 60);
        assert_eq!(h.shared.queue.lock().unwrap().pending.len(), 0);
        assert_eq!(prose.lines.len(), 1);
    }
}
