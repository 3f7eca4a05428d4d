//! Follow latency: a record appended to a followed session file, to the frame that shows it —
//! the inspector's follow loop (poll, re-analyse, update, draw) run by hand, without its sleep.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ctxray::analysis::{Analysis, KnownCounts, Options};
use ctxray::live::{LiveFile, LiveUpdate};
use ctxray::tokens::Registry;
use ctxray::tui::state::AppState;
use ctxray::tui::{update::update, Msg};

use crate::measure::{mb, render};

/// A line of the file's own format holding `marker` as a user's text.
fn record(name: &str, marker: &str) -> Option<String> {
    let v = if name.starts_with("claude-code") {
        serde_json::json!({"parentUuid": null, "isSidechain": false, "type": "user",
            "message": {"role": "user", "content": marker},
            "uuid": "99999999-0000-4000-8000-000000000000", "timestamp": "2026-11-30T23:00:00.000Z"})
    } else if name.starts_with("codex") {
        serde_json::json!({"timestamp": "2026-11-30T23:00:00.000Z", "type": "response_item",
            "payload": {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": marker}]}})
    } else {
        return None;
    };
    Some(format!("{v}\n"))
}

pub fn follow(path: &Path, dir: &Path) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(line) = record(name, "FOLLOWMARKER appended while following") else {
        println!("  follow: n/a (one JSON document, not a stream of records)");
        return;
    };
    let copy = dir.join(format!("follow-{name}"));
    std::fs::copy(path, &copy).expect("copy");
    let registry = Registry::bundled();
    let options = Options::default();
    let start = Instant::now();
    let mut file = LiveFile::open(&copy, None).expect("open followed file");
    let Some(session) = file.session() else {
        println!("  follow: no session");
        return;
    };
    let analysis = Analysis::new(session.clone(), &registry, &options);
    let mut known = KnownCounts::of(&analysis, usize::MAX);
    let mut state = AppState::new(analysis, None, vec![]);
    state.following = true;
    update(&mut state, Msg::Bottom);
    render(&mut state, 120, 40);
    let opened = start.elapsed().as_secs_f64();

    let mut out = std::fs::OpenOptions::new()
        .append(true)
        .open(&copy)
        .expect("append");
    let appended = Instant::now();
    out.write_all(line.as_bytes()).expect("write");
    out.flush().expect("flush");
    let changed = loop {
        match file.poll().expect("poll") {
            LiveUpdate::Unchanged => continue,
            update => break update,
        }
    };
    let polled = appended.elapsed().as_secs_f64();
    let session = file.session().expect("session").clone();
    let cloned = appended.elapsed().as_secs_f64();
    if let LiveUpdate::Changed { first_changed } = changed {
        known.messages.truncate(first_changed);
    }
    // As the inspector's follow loop does: only the messages after the unchanged ones are counted.
    let analysis = Analysis::grown(session, &registry, &options, None, &known);
    let analysed = appended.elapsed().as_secs_f64();
    update(&mut state, Msg::SessionUpdated(Box::new(analysis)));
    let updated = appended.elapsed().as_secs_f64();
    let screen = render(&mut state, 120, 40);
    let shown = appended.elapsed().as_secs_f64();
    let visible = if screen.contains("FOLLOWMARKER") {
        "visible"
    } else {
        "NOT visible"
    };
    println!(
        "  follow ({} MB, {changed:?}): opened in {opened:.2} s; append → on screen {:.0} ms ({visible}) = poll+parse {:.0} + clone {:.0} + analyse {:.0} + update {:.0} + render {:.0}; plus ≤ 50 ms poll interval",
        mb(std::fs::metadata(&copy).map_or(0, |m| m.len())),
        shown * 1e3,
        polled * 1e3,
        (cloned - polled) * 1e3,
        (analysed - cloned) * 1e3,
        (updated - analysed) * 1e3,
        (shown - updated) * 1e3,
    );
    let _ = std::fs::remove_file(&copy);
}
