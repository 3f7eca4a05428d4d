//! A large file shown while it is read: the inspector's load task sends the session of the
//! first piece at once and the rest as it is read, ending with exactly the session a whole
//! load gives; meanwhile nothing that needs the whole session starts.

use std::path::Path;

use ctxray::analysis::{Analysis, Options};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;
use ctxray::tui::jobs::{settled, step as update};
use ctxray::tui::state::AppState;
use ctxray::tui::tasks::{self, Loader, Source, SHOWN_WHILE_READ_MIN};
use ctxray::tui::{Effect, Msg};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name),
    )
    .unwrap()
}

/// A session file just over the size the inspector shows while reading, made of a fixture
/// repeated.
fn large_file(dir: &Path, fixture_name: &str) -> std::path::PathBuf {
    let base = fixture(fixture_name);
    let mut content = Vec::new();
    while (content.len() as u64) <= SHOWN_WHILE_READ_MIN + (1 << 20) {
        content.extend_from_slice(&base);
    }
    let path = dir.join("large.jsonl");
    std::fs::write(&path, content).unwrap();
    path
}

fn messages(a: &Analysis) -> Vec<String> {
    a.session
        .messages
        .iter()
        .map(|m| format!("{m:?}"))
        .collect()
}

fn loads_piece_by_piece(fixture_name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = large_file(dir.path(), fixture_name);
    let loader = Loader {
        from: None,
        registry: Registry::bundled(),
        options: Options::default(),
        limits: Default::default(),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let progress = std::sync::Arc::new(ctxray::progress::Progress::new());
    tasks::spawn_load(Source::Path(path.clone()), loader, progress, tx);
    let mut sent = Vec::new();
    while let Some(msg) = rx.blocking_recv() {
        sent.push(msg);
    }
    let Some(Msg::Loaded(first)) = sent.first() else {
        panic!("the first message is not the loaded session");
    };
    let last = sent
        .iter()
        .rev()
        .find_map(|m| match m {
            Msg::SessionUpdated(a) => Some(a),
            _ => None,
        })
        .expect("the session grew after it was first shown");
    let whole = Analysis::new(
        load_path(&path, None).unwrap(),
        &Registry::bundled(),
        &Options::default(),
    );
    assert!(first.session.messages.len() < whole.session.messages.len());
    assert_eq!(messages(last), messages(&whole));
    assert_eq!(last.counts.messages, whole.counts.messages);
    assert_eq!(last.total_tokens(), whole.total_tokens());
    let total = std::fs::metadata(&path).unwrap().len();
    let readings: Vec<(u64, u64)> = sent
        .iter()
        .filter_map(|m| match m {
            Msg::Reading { read, total } => Some((*read, *total)),
            _ => None,
        })
        .collect();
    assert!(readings.len() >= 2, "{readings:?}");
    assert!(readings.windows(2).all(|w| w[0].0 < w[1].0), "{readings:?}");
    assert_eq!(readings.last(), Some(&(total, total)));
    assert!(readings[0].0 < total);
}

#[test]
fn a_large_claude_code_file_is_shown_while_read_and_ends_as_a_whole_load() {
    loads_piece_by_piece("claude-code/mixed.jsonl");
}

#[test]
fn a_large_codex_file_is_shown_while_read_and_ends_as_a_whole_load() {
    loads_piece_by_piece("codex/local-compaction.jsonl");
}

#[test]
fn while_reading_compaction_replay_and_plans_wait_and_new_lines_are_not_unseen() {
    use ctxray::tui::jobs::Work;
    use ctxray::tui::update::update as apply;
    let session = load_path(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/claude-code/mixed.jsonl"),
        None,
    )
    .unwrap();
    let analysis = Analysis::new(session, &Registry::bundled(), &Options::default());
    let mut state = settled(AppState::new(
        analysis.clone(),
        Some("claude-code".into()),
        vec![],
    ));
    update(
        &mut state,
        Msg::Reading {
            read: 10,
            total: 100,
        },
    );
    assert_eq!(state.loading, Some((10, 100)));
    let effects = update(&mut state, Msg::Compact);
    assert!(effects
        .iter()
        .all(|e| !matches!(e, Effect::Summarize { .. })));
    assert!(state.summarizing.is_none());
    assert!(
        state.notice.as_deref().unwrap().contains("10%"),
        "{:?}",
        state.notice
    );
    update(&mut state, Msg::Replay);
    assert!(state.replay.is_none());
    assert!(state.notice.as_deref().unwrap().contains("replay waits"));
    // The next piece: planned only once the whole session is in.
    let plans = |effects: Vec<Effect>| {
        effects
            .into_iter()
            .filter(|e| matches!(e, Effect::Run(job) if matches!(job.work, Work::Plan(_))))
            .count()
    };
    let effects = apply(&mut state, Msg::SessionUpdated(Box::new(analysis)));
    assert_eq!(plans(effects), 0, "no plan of a part of the session");
    assert_eq!(state.unseen, 0);
    let effects = apply(
        &mut state,
        Msg::Reading {
            read: 100,
            total: 100,
        },
    );
    assert_eq!(state.loading, None);
    assert_eq!(plans(effects), 1, "the whole session is planned");
}
