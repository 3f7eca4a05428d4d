//! Background work of the inspector: loading a session, following a growing file, reading a
//! pipe, discovering sessions. Each runs on its own thread (blocking IO and CPU-bound parsing
//! never hold up the event loop) and reports back with `Msg`s on the runtime's channel.
//!
//! Owns: what is read when, and turning results and errors into messages. Must not: touch
//! the terminal or the state; parsing and counting stay in the core.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::msg::Msg;
use crate::analysis::{Analysis, KnownCounts, Options};
use crate::live::{LiveFile, LiveSession, LiveUpdate, StdinEvent, StdinReader};
use crate::progress::{Phase, Progress};
use crate::session::{Format, Session};
use crate::tokens::Registry;

/// How often a followed file is polled (well inside the 200 ms append-to-screen budget).
pub const FOLLOW_POLL: Duration = Duration::from_millis(50);

/// Where a session comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A file or directory, read once.
    Path(PathBuf),
    /// A file read and then followed as it grows.
    Follow(PathBuf),
    /// Standard input, read as it arrives.
    Stdin,
}

impl Source {
    pub fn shown(&self) -> String {
        match self {
            Source::Path(p) | Source::Follow(p) => p.display().to_string(),
            Source::Stdin => "<stdin>".into(),
        }
    }

    pub fn is_live(&self) -> bool {
        !matches!(self, Source::Path(_))
    }
}

/// Everything a loader needs to turn bytes into an analysed session.
#[derive(Debug, Clone)]
pub struct Loader {
    pub from: Option<Format>,
    pub registry: Registry,
    pub options: Options,
    /// What a source may hold at most (`--max-input`, `--max-line`).
    pub limits: crate::limits::Limits,
}

impl Loader {
    fn analyse(&self, session: Session, progress: Option<&Progress>) -> Analysis {
        Analysis::with_progress(session, &self.registry, &self.options, progress)
    }

    /// A session that grew, analysed with the counts in `known` reused (and then replaced by
    /// its own): the first one shown (`Loaded`), or an update.
    fn grown(
        &self,
        session: &Session,
        known: &mut KnownCounts,
        progress: Option<&Progress>,
        shown_any: bool,
    ) -> Msg {
        let analysis = Analysis::grown(
            session.clone(),
            &self.registry,
            &self.options,
            progress,
            known,
        );
        *known = KnownCounts::of(&analysis, usize::MAX);
        if shown_any {
            Msg::SessionUpdated(Box::new(analysis))
        } else {
            Msg::Loaded(Box::new(analysis))
        }
    }
}

/// Starts loading `source`; progress is shown from `progress`, the result arrives as
/// `Msg::Loaded` / `Msg::LoadFailed`, and live sources then keep sending `Msg::SessionUpdated`.
pub fn spawn_load(
    source: Source,
    loader: Loader,
    progress: Arc<Progress>,
    tx: UnboundedSender<Msg>,
) {
    std::thread::spawn(move || match source {
        Source::Path(path) => {
            let large = std::fs::metadata(&path)
                .is_ok_and(|m| m.is_file() && m.len() > SHOWN_WHILE_READ_MIN);
            if large && read_shown(&path, &loader, &progress, &tx) {
                return;
            }
            let msg = match load_once(&path, &loader, &progress) {
                Ok(a) => Msg::Loaded(Box::new(a)),
                Err(e) => Msg::LoadFailed(e),
            };
            let _ = tx.send(msg);
        }
        Source::Follow(path) => follow(&path, &loader, &progress, &tx),
        Source::Stdin => read_stdin(std::io::stdin(), &loader, &progress, &tx),
    });
}

/// Calls a network summarizer on the runtime (it is IO-bound and async): each streamed delta
/// arrives as `Msg::SummaryDelta`, the end as `Msg::SummaryDone`. Aborting the returned task
/// drops the call, which closes the connection.
pub fn spawn_summary(
    id: u64,
    choice: crate::summarize::Choice,
    messages: Vec<crate::compaction::PromptMessage>,
    tx: UnboundedSender<Msg>,
) -> tokio::task::AbortHandle {
    tokio::spawn(async move {
        let client = match choice.build() {
            Ok(c) => c,
            Err(e) => {
                let _ = tx.send(Msg::SummaryDone {
                    id,
                    result: Err(e.to_string()),
                });
                return;
            }
        };
        let (dtx, mut drx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let call = client.summarize(&messages, dtx.into());
        tokio::pin!(call);
        let result = loop {
            tokio::select! {
                Some(text) = drx.recv() => {
                    let _ = tx.send(Msg::SummaryDelta { id, text });
                }
                done = &mut call => break done,
            }
        };
        // Deltas still queued belong before the end.
        while let Ok(text) = drx.try_recv() {
            let _ = tx.send(Msg::SummaryDelta { id, text });
        }
        let _ = tx.send(Msg::SummaryDone {
            id,
            result: result.map_err(|e| e.to_string()),
        });
    })
    .abort_handle()
}

/// The summarizer calls in flight, so Esc can stop one (and quitting stops them all).
#[derive(Default)]
pub struct Calls(Vec<(u64, tokio::task::AbortHandle)>);

impl Calls {
    pub fn start(&mut self, id: u64, handle: tokio::task::AbortHandle) {
        self.0.retain(|(_, h)| !h.is_finished());
        self.0.push((id, handle));
    }

    pub fn cancel(&mut self, id: u64) {
        self.0.retain(|(i, h)| {
            if *i == id {
                h.abort();
            }
            *i != id
        });
    }
}

impl Drop for Calls {
    fn drop(&mut self) {
        for (_, h) in &self.0 {
            h.abort();
        }
    }
}

/// Finds the sessions on this machine for the picker, then parses them one at a time, newest
/// (the top of the list) first, sending each exact message count; stops when the runtime is gone.
pub fn spawn_discover(locations: crate::live::discover::Locations, tx: UnboundedSender<Msg>) {
    use crate::live::discover::{count, discover};
    std::thread::spawn(move || {
        let found = discover(&locations);
        let paths: Vec<_> = found.found.clone();
        if tx.send(Msg::Discovered(found)).is_err() {
            return;
        }
        for f in paths {
            if let Some(n) = count(&f) {
                if tx.send(Msg::Counted(f.path, n)).is_err() {
                    return;
                }
            }
        }
    });
}

/// Files larger than this are shown while they are read, when their format reads a line at a
/// time.
pub const SHOWN_WHILE_READ_MIN: u64 = 16 << 20;

/// The first piece of a large file read before it is shown; each next piece is twice the last
/// (so the buffer a session points into is copied a few times, not once per piece).
const FIRST_PIECE: usize = 4 << 20;

/// Shows a large file as it is read: the session of its first lines goes on screen at once,
/// and grows piece by piece, each new piece parsed and counted alone. Returns `false`, having
/// sent nothing, when the file's format must be parsed whole (the caller then loads it so).
fn read_shown(
    path: &std::path::Path,
    loader: &Loader,
    progress: &Progress,
    tx: &UnboundedSender<Msg>,
) -> bool {
    let shown = path.display().to_string();
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let total = file.metadata().map_or(0, |m| m.len());
    progress.start(Phase::Reading, total);
    let mut splitter = crate::live::LineSplitter::new();
    let mut live = LiveSession::new(loader.from, Some(path.to_path_buf()), &shown)
        .with_max_line(loader.limits.line);
    let mut known = KnownCounts::default();
    let mut read = 0u64;
    let mut piece = FIRST_PIECE;
    let mut shown_any = false;
    loop {
        let mut bytes = Vec::with_capacity(piece);
        let n = match (&mut file).take(piece as u64).read_to_end(&mut bytes) {
            Ok(n) => n,
            Err(e) if shown_any => {
                let _ = tx.send(Msg::SourceFault(format!("{shown}: cannot read: {e}")));
                return true;
            }
            Err(_) => return false,
        };
        read += n as u64;
        progress.advance(n as u64);
        let done = n < piece;
        let mut batch = splitter.feed(bytes);
        if done {
            batch.extend(splitter.finish());
        }
        let changed = live.apply_batch(batch, splitter.pending());
        if !shown_any && (!live.is_streaming() || changed.is_err()) {
            // Parsed whole (or not parsable from its start): read the usual way.
            return false;
        }
        match changed {
            Ok(LiveUpdate::Changed { first_changed }) => known.messages.truncate(first_changed),
            Ok(LiveUpdate::Reloaded) => known = KnownCounts::default(),
            Ok(LiveUpdate::Unchanged) | Err(_) => {}
        }
        if let Some(session) = live.session() {
            let msg = loader.grown(session, &mut known, None, shown_any);
            shown_any = true;
            let read = if done { total.max(read) } else { read };
            if tx.send(msg).is_err() || tx.send(Msg::Reading { read, total }).is_err() {
                return true;
            }
        }
        if done {
            return true;
        }
        piece = piece.saturating_mul(2);
    }
}

/// Reads a file in chunks (so the reading shows progress), then parses and counts.
fn load_once(
    path: &std::path::Path,
    loader: &Loader,
    progress: &Progress,
) -> Result<Analysis, String> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    // A directory, or a source that is not a regular file (read within --max-input).
    let session = if !meta.is_file() {
        progress.start(Phase::Parsing, 0);
        crate::formats::load_path_within(path, loader.from, &loader.limits)
            .map_err(|e| e.to_string())?
    } else {
        progress.start(Phase::Reading, meta.len());
        let mut file =
            std::fs::File::open(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        let mut chunk = vec![0u8; 1 << 20];
        loop {
            let n = file
                .read(&mut chunk)
                .map_err(|e| format!("{shown}: cannot read: {e}"))?;
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n]);
            progress.advance(n as u64);
        }
        progress.start(Phase::Parsing, 0);
        let (from, limits) = (loader.from, &loader.limits);
        crate::formats::load_bytes_within(bytes, Some(path.to_path_buf()), &shown, from, limits)
            .map_err(|e| e.to_string())?
    };
    Ok(loader.analyse(session, Some(progress)))
}

/// Opens a file, waits for its first session, then polls it until the inspector goes away.
fn follow(path: &std::path::Path, loader: &Loader, progress: &Progress, tx: &UnboundedSender<Msg>) {
    let shown = path.display().to_string();
    progress.start(
        Phase::Reading,
        std::fs::metadata(path).map_or(0, |m| m.len()),
    );
    let mut file = match LiveFile::open_within(path, loader.from, loader.limits.line) {
        Ok(f) => f,
        Err(e) => {
            let _ = tx.send(Msg::LoadFailed(e.to_string()));
            return;
        }
    };
    let mut shown_any = false;
    // Counts of the messages a poll left untouched are reused: only what grew is recounted.
    let mut known = KnownCounts::default();
    loop {
        if let Some(session) = file.session() {
            let progress = (!shown_any).then_some(progress);
            let msg = loader.grown(session, &mut known, progress, shown_any);
            shown_any = true;
            if tx.send(msg).is_err() {
                return;
            }
        } else if !shown_any {
            progress.start(Phase::Waiting, 0);
        }
        // Wait for the next change; a failed poll (file briefly unreadable while it is being
        // replaced) is retried, the last good session stays on screen.
        loop {
            std::thread::sleep(FOLLOW_POLL);
            if tx.is_closed() {
                return;
            }
            match file.poll() {
                Ok(LiveUpdate::Unchanged) => {}
                Ok(LiveUpdate::Changed { first_changed }) => {
                    known.messages.truncate(first_changed);
                    break;
                }
                Ok(LiveUpdate::Reloaded) => {
                    known = KnownCounts::default();
                    break;
                }
                Err(e) => {
                    if tx.send(Msg::SourceFault(named(&shown, &e))).is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// An error line that names the file once.
fn named(shown: &str, e: &impl std::fmt::Display) -> String {
    let e = e.to_string();
    if e.starts_with(shown) {
        e
    } else {
        format!("{shown}: {e}")
    }
}

/// Reads a pipe as it arrives; each batch of complete lines updates the session.
fn read_stdin(input: impl Read, loader: &Loader, progress: &Progress, tx: &UnboundedSender<Msg>) {
    progress.start(Phase::Waiting, 0);
    let mut reader = StdinReader::new(input, "<stdin>").with_limit(loader.limits.input);
    let mut live = LiveSession::new(loader.from, None, "<stdin>").with_max_line(loader.limits.line);
    let mut shown_any = false;
    loop {
        let (batch, done) = match reader.poll() {
            Ok(StdinEvent::Idle) => continue,
            Ok(StdinEvent::Lines(b)) => (b, false),
            Ok(StdinEvent::End(b)) => (b, true),
            Err(e) => {
                let _ = tx.send(Msg::LoadFailed(e.to_string()));
                return;
            }
        };
        let changed = match live.apply(&batch, reader.pending()) {
            Ok(LiveUpdate::Unchanged) => false,
            Ok(_) => true,
            Err(e) if done && !shown_any => {
                let _ = tx.send(Msg::LoadFailed(e.to_string()));
                return;
            }
            Err(_) => false,
        };
        if changed {
            if let Some(session) = live.session() {
                let analysis = loader.analyse(session.clone(), None);
                let msg = if shown_any {
                    Msg::SessionUpdated(Box::new(analysis))
                } else {
                    Msg::Loaded(Box::new(analysis))
                };
                shown_any = true;
                if tx.send(msg).is_err() {
                    return;
                }
            }
        }
        if done {
            if !shown_any {
                let _ = tx.send(Msg::LoadFailed(
                    "<stdin>: the input ended without a session record".into(),
                ));
            } else {
                let _ = tx.send(Msg::Notice("<stdin>: end of input".into()));
            }
            return;
        }
    }
}
