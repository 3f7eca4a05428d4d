//! The count cache gives exactly the counts the counter gives: on every real sample, cold and
//! warm, message for message (children too); a stored count is really used on a hit; and the
//! binary keeps working, with the same output, whatever state the cache directory is in.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ctxray::analysis::{Analysis, Options};
use ctxray::count_cache::{decode, encode, CountCache, FORMAT_VERSION};
use ctxray::formats::load_path;
use ctxray::tokens::Registry;

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "jsonl" | "eval")
        ) {
            out.push(path);
        }
    }
}

/// Every sample that loads as a session.
fn sessions() -> Vec<PathBuf> {
    let mut all = Vec::new();
    files(&samples(), &mut all);
    let loadable: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| load_path(p, None).is_ok())
        .collect();
    assert!(loadable.len() >= 15, "samples: {}", loadable.len());
    loadable
}

fn analyse(path: &Path, cache: Option<&CountCache>) -> Analysis {
    let options = Options {
        cache: cache.cloned(),
        ..Options::default()
    };
    Analysis::new(
        load_path(path, None).unwrap(),
        &Registry::bundled(),
        &options,
    )
}

/// `(tokens, overhead)` of every message, children after their parent, with their depth.
fn counts(a: &Analysis, depth: usize, out: &mut Vec<(usize, usize, usize)>) {
    for m in &a.counts.messages {
        out.push((depth, m.tokens, m.overhead));
    }
    for c in &a.children {
        counts(c, depth + 1, out);
    }
}

fn all_counts(a: &Analysis) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    counts(a, 0, &mut out);
    out
}

#[test]
fn cached_counts_equal_the_counters_on_every_sample_cold_and_warm() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CountCache::at(dir.path());
    let mut messages = 0;
    let mut with_children = 0;
    for path in sessions() {
        let name = path.display().to_string();
        let plain = analyse(&path, None);
        let expected = all_counts(&plain);
        let cold = analyse(&path, Some(&cache));
        assert_eq!(all_counts(&cold), expected, "{name}: cold");
        let file = cache.file_for(&name).unwrap();
        let stored = decode(&std::fs::read(&file).unwrap()).unwrap();
        let warm = analyse(&path, Some(&cache));
        assert_eq!(all_counts(&warm), expected, "{name}: warm");
        assert_eq!(warm.total_tokens(), plain.total_tokens(), "{name}");
        // The warm run found everything, so it left the file as it was.
        assert_eq!(decode(&std::fs::read(&file).unwrap()).unwrap(), stored);
        messages += expected.len();
        with_children += usize::from(!plain.children.is_empty());
    }
    assert!(messages > 500, "{messages} messages");
    assert!(with_children > 0);
}

#[test]
fn a_hit_takes_the_stored_count_instead_of_counting() {
    // Proof the cache is read at all: counts forged into the file come back out.
    let dir = tempfile::tempdir().unwrap();
    let cache = CountCache::at(dir.path());
    let path = samples().join("codex/timvw-sample_session.jsonl");
    let name = path.display().to_string();
    let plain = all_counts(&analyse(&path, Some(&cache)));
    let file = cache.file_for(&name).unwrap();
    let entries = decode(&std::fs::read(&file).unwrap()).unwrap();
    assert!(!entries.is_empty());
    let forged: Vec<_> = entries.iter().map(|&(k, n)| (k, n + 1000)).collect();
    std::fs::write(&file, encode(&forged)).unwrap();
    let warm = all_counts(&analyse(&path, Some(&cache)));
    let bumped = plain
        .iter()
        .zip(&warm)
        .filter(|(p, w)| w.1 == p.1 + 1000)
        .count();
    assert!(bumped > 0);
    // Only text counts come from the cache; every message with text was found there.
    assert!(plain.iter().zip(&warm).all(|(p, w)| p.2 == w.2));
    assert!(plain
        .iter()
        .zip(&warm)
        .all(|(p, w)| w.1 == p.1 || w.1 == p.1 + 1000));
}

// ---- the binary ----

fn ctxray(args: &[&str], cache: Option<&Path>, extra_env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctxray"));
    cmd.args(args).env_remove("CTXRAY_NO_CACHE");
    match cache {
        Some(dir) => cmd.env("CTXRAY_CACHE_DIR", dir),
        None => cmd.env_remove("CTXRAY_CACHE_DIR"),
    };
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn sample_copy(dir: &Path) -> PathBuf {
    let src = samples().join("claude_code/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl");
    let dst = dir.join("session.jsonl");
    std::fs::copy(src, &dst).unwrap();
    dst
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn report_is_the_same_with_and_without_the_cache_and_the_switches_work() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let session = sample_copy(work.path());
    let s = session.to_str().unwrap();
    let uncached = ctxray(&["report", "--json", "--no-cache", s], Some(&cache), &[]);
    assert!(uncached.status.success());
    assert!(cache_files(&cache).is_empty(), "--no-cache wrote a file");
    let off = ctxray(
        &["report", "--json", s],
        Some(&cache),
        &[("CTXRAY_NO_CACHE", "1")],
    );
    assert_eq!(off.stdout, uncached.stdout);
    assert!(
        cache_files(&cache).is_empty(),
        "CTXRAY_NO_CACHE=1 wrote a file"
    );
    for run in ["cold", "warm"] {
        let out = ctxray(&["report", "--json", s], Some(&cache), &[]);
        assert!(out.status.success(), "{run}");
        assert_eq!(out.stdout, uncached.stdout, "{run}");
        assert!(out.stderr.is_empty(), "{run}");
        let files = cache_files(&cache);
        assert_eq!(files.len(), 1, "{run}: {files:?}");
        assert!(decode(&std::fs::read(&files[0]).unwrap()).is_some());
    }
    // Text output and another tokenizer: still the uncached numbers.
    for args in [
        vec!["report", s],
        vec!["report", "--json", "--tokenizer", "cl100k_base", s],
    ] {
        let mut no = args.clone();
        no.insert(1, "--no-cache");
        let expected = ctxray(&no, Some(&cache), &[]).stdout;
        for _ in 0..2 {
            assert_eq!(
                ctxray(&args, Some(&cache), &[]).stdout,
                expected,
                "{args:?}"
            );
        }
    }
}

#[test]
fn a_damaged_or_foreign_cache_file_is_ignored_and_rewritten() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let session = sample_copy(work.path());
    let s = session.to_str().unwrap();
    let expected = ctxray(&["report", "--json", "--no-cache", s], Some(&cache), &[]).stdout;
    ctxray(&["report", "--json", s], Some(&cache), &[]);
    let file = CountCache::at(&cache).file_for(s).unwrap();
    let good = std::fs::read(&file).unwrap();
    let mut foreign = good.clone();
    foreign[8..12].copy_from_slice(&(FORMAT_VERSION + 7).to_le_bytes());
    let mut flipped = good.clone();
    let mid = good.len() / 2;
    flipped[mid] ^= 0xff;
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() - 5].to_vec()),
        ("half", good[..good.len() / 2].to_vec()),
        ("garbage", b"not a cache file at all".repeat(40)),
        ("foreign version", foreign),
        ("one byte flipped", flipped),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&file, &bytes).unwrap();
        let out = ctxray(&["report", "--json", s], Some(&cache), &[]);
        assert!(out.status.success(), "{what}");
        assert_eq!(out.stdout, expected, "{what}");
        assert!(out.stderr.is_empty(), "{what}");
        assert_eq!(std::fs::read(&file).unwrap(), good, "{what}: not rewritten");
    }
}

#[test]
fn an_unusable_cache_directory_only_costs_the_cache() {
    let work = tempfile::tempdir().unwrap();
    let session = sample_copy(work.path());
    let s = session.to_str().unwrap();
    let expected = ctxray(&["report", "--json", "--no-cache", s], None, &[]).stdout;
    // A file where the directory should be: nothing can be read or written there.
    let blocker = work.path().join("blocker");
    std::fs::write(&blocker, "x").unwrap();
    let out = ctxray(&["report", "--json", s], Some(&blocker.join("counts")), &[]);
    assert!(out.status.success());
    assert_eq!(out.stdout, expected);
    assert!(out.stderr.is_empty());
}

#[test]
fn stdin_is_never_cached() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let session = sample_copy(work.path());
    let child = Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(["report", "--json", "-"])
        .env("CTXRAY_CACHE_DIR", &cache)
        .env_remove("CTXRAY_NO_CACHE")
        .stdin(std::fs::File::open(&session).unwrap())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(!out.stdout.is_empty());
    assert!(cache_files(&cache).is_empty());
}

#[test]
fn concurrent_runs_leave_one_whole_file() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let session = sample_copy(work.path());
    let s = session.to_str().unwrap();
    let expected = ctxray(&["report", "--json", "--no-cache", s], Some(&cache), &[]).stdout;
    for round in 0..3 {
        let children: Vec<_> = (0..6)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_ctxray"))
                    .args(["report", "--json", s])
                    .env("CTXRAY_CACHE_DIR", &cache)
                    .env_remove("CTXRAY_NO_CACHE")
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success());
            assert_eq!(out.stdout, expected, "round {round}");
        }
        let files = cache_files(&cache);
        assert_eq!(files.len(), 1, "round {round}: {files:?}");
        assert!(decode(&std::fs::read(&files[0]).unwrap()).is_some());
        // The next round starts cold again.
        std::fs::remove_file(&files[0]).unwrap();
    }
}
