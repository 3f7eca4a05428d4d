//! The inspector's real event loop (`runtime::event_loop`), headless: a `TestBackend` for the
//! screen and an injected event stream for the keys. The loop runs on its own runtime and
//! thread, as in the binary (jobs on the executor's threads, results on its channel); a test
//! types keys and waits until the screen shows what they answer, never a fixed time.

#![allow(dead_code)]

use std::convert::Infallible;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ctxray::analysis::{Analysis, Options};
use ctxray::tokens::Registry;
use ctxray::tui::busy::Signals;
use ctxray::tui::runtime::{event_loop, Exit, Start};
use ctxray::tui::tasks::{Loader, Source};
use ctxray::tui::theme::Theme;
use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use ratatui::Terminal;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// A test backend the loop draws on while the test reads it.
struct Shared(Arc<Mutex<TestBackend>>);

impl Backend for Shared {
    type Error = Infallible;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Infallible>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.0.lock().unwrap().draw(content)
    }
    fn hide_cursor(&mut self) -> Result<(), Infallible> {
        self.0.lock().unwrap().hide_cursor()
    }
    fn show_cursor(&mut self) -> Result<(), Infallible> {
        self.0.lock().unwrap().show_cursor()
    }
    fn get_cursor_position(&mut self) -> Result<Position, Infallible> {
        self.0.lock().unwrap().get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Infallible> {
        self.0.lock().unwrap().set_cursor_position(position)
    }
    fn clear(&mut self) -> Result<(), Infallible> {
        self.0.lock().unwrap().clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Infallible> {
        self.0.lock().unwrap().clear_region(clear_type)
    }
    fn size(&self) -> Result<Size, Infallible> {
        self.0.lock().unwrap().size()
    }
    fn window_size(&mut self) -> Result<WindowSize, Infallible> {
        self.0.lock().unwrap().window_size()
    }
    fn flush(&mut self) -> Result<(), Infallible> {
        self.0.lock().unwrap().flush()
    }
}

/// The inspector running headless on a session.
pub struct Headless {
    screen: Arc<Mutex<TestBackend>>,
    keys: UnboundedSender<io::Result<Event>>,
    done: Option<std::thread::JoinHandle<io::Result<Exit>>>,
}

impl Headless {
    /// The inspector on the session at `path` (loaded before the loop starts, as the binary
    /// does for a small file), with `preset` and `sets`, in a `cols`×`rows` screen.
    pub fn open(
        path: &Path,
        preset: Option<&str>,
        sets: &[&str],
        cols: u16,
        rows: u16,
    ) -> Headless {
        let session = ctxray::formats::load_path(path, None).unwrap();
        let loader = Loader {
            from: None,
            registry: Registry::bundled(),
            options: Options::default(),
            limits: Default::default(),
        };
        let analysis = Analysis::new(session, &loader.registry, &loader.options);
        let start = Start {
            source: Some(Source::Path(path.to_path_buf())),
            loader,
            loaded: Some(analysis),
            preset: preset.map(str::to_string),
            sets: sets.iter().map(|s| s.to_string()).collect(),
            demo: false,
            legend: false,
            summarizer: None,
        };
        let screen = Arc::new(Mutex::new(TestBackend::new(cols, rows)));
        let (keys, rx) = unbounded_channel::<io::Result<Event>>();
        let backend = Shared(Arc::clone(&screen));
        let done = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            runtime.block_on(async move {
                let mut terminal = Terminal::new(backend).map_err(io::Error::other)?;
                let events = Box::pin(futures_util::stream::unfold(rx, |mut rx| async move {
                    rx.recv().await.map(|e| (e, rx))
                }));
                event_loop(
                    &mut terminal,
                    start,
                    &Theme::dark(),
                    Signals::none(),
                    events,
                )
                .await
            })
        });
        Headless {
            screen,
            keys,
            done: Some(done),
        }
    }

    /// Types `text`, a key per character.
    pub fn type_keys(&self, text: &str) {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    pub fn key(&self, code: KeyCode) {
        let _ = self
            .keys
            .send(Ok(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    }

    /// The screen as last drawn, a line per row.
    pub fn screen(&self) -> String {
        let backend = self.screen.lock().unwrap();
        let buffer = backend.buffer();
        let width = usize::from(buffer.area.width.max(1));
        buffer
            .content()
            .chunks(width)
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Waits until the screen holds `needle`; panics with the screen after `limit`.
    pub fn wait_for(&self, needle: &str, limit: Duration) {
        self.wait_until(needle, |screen| screen.contains(needle), limit);
    }

    /// Waits until `ready` holds of the screen; panics with the screen after `limit`, saying it
    /// waited for `what`.
    pub fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool, limit: Duration) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if ready(&self.screen()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("{what:?} never shown; the screen:\n{}", self.screen());
    }

    /// Waits for the loop to end; panics when it has not within `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Exit {
        let start = Instant::now();
        let done = self.done.take().unwrap();
        while !done.is_finished() {
            assert!(
                start.elapsed() < limit,
                "the inspector did not end:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        done.join().unwrap().unwrap()
    }
}
