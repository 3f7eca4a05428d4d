//! What the count cache saves and costs on one session: in process, the count with an empty
//! memo (keys hashed, nothing found) and a full one against the plain count, and the file's
//! write and read; then `ctxray report --json` without the cache, cold and warm.

use std::path::Path;
use std::process::{Command, Stdio};

use ctxray::count_cache::CountCache;
use ctxray::formats::load_bytes;
use ctxray::tokens::memo::message_key;
use ctxray::tokens::{
    count_session, count_session_memo, CountMemo, Counter, Encoding, ImageCosting,
};

use crate::measure::{cpu_secs, mb, timed};

pub fn cache(path: &Path, dir: &Path) {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).expect("read");
    let session = load_bytes(bytes, Some(path.to_path_buf()), &shown, None).expect("loads");
    let counter = Counter::new(Encoding::O200kBase);
    let costing = ImageCosting::Openai;
    let cpu = cpu_secs();
    let (plain, plain_s) = timed(|| count_session(&session, &counter, costing));
    let plain_cpu = cpu_secs() - cpu;
    let (keyed, hash_s) = timed(|| {
        session
            .messages
            .iter()
            .filter_map(|m| message_key(m, Encoding::O200kBase))
            .count()
    });
    let mut memo = CountMemo::new();
    let cpu = cpu_secs();
    let (cold, cold_s) = timed(|| count_session_memo(&session, &counter, costing, None, &mut memo));
    let cold_cpu = cpu_secs() - cpu;
    assert_eq!(cold, plain, "a cold memo changed a count");
    let cache_dir = dir.join(format!("count-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache_dir);
    let cache = CountCache::at(&cache_dir);
    let mut stored = cache.open(&shown).expect("a file source has a cache file");
    let file = stored.file().to_path_buf();
    stored.memo = memo;
    let ((), write_s) = timed(|| stored.finish());
    let file_len = std::fs::metadata(&file).map_or(0, |m| m.len());
    let (mut stored, read_s) = timed(|| cache.open(&shown).expect("cache file"));
    let entries = stored.memo.known_len();
    let cpu = cpu_secs();
    let (warm, warm_s) =
        timed(|| count_session_memo(&session, &counter, costing, None, &mut stored.memo));
    let warm_cpu = cpu_secs() - cpu;
    assert_eq!(warm, plain, "a warm memo changed a count");
    assert_eq!(stored.memo.misses(), 0);
    println!(
        "  count cache: {entries} entries ({keyed} keyed messages, hashed in {:.1} ms, one thread), file {} KB · count plain {plain_s:.3} s (cpu {plain_cpu:.2}) · cold memo {cold_s:.3} s (cpu {cold_cpu:.2}) · write {:.1} ms · read {:.1} ms · warm memo {warm_s:.3} s (cpu {warm_cpu:.2})",
        hash_s * 1e3,
        file_len / 1000,
        write_s * 1e3,
        read_s * 1e3,
    );
    let _ = std::fs::remove_dir_all(&cache_dir);
    for (name, no_cache) in [("no cache", true), ("cold", false), ("warm", false)] {
        report(path, &cache_dir, name, no_cache);
    }
    let _ = std::fs::remove_dir_all(&cache_dir);
}

/// `ctxray report --json` with the cache in `cache_dir` (or none): wall, CPU, peak memory.
fn report(path: &Path, cache_dir: &Path, name: &str, no_cache: bool) {
    let mut cmd = Command::new(super::measure::gnu_time());
    cmd.args([
        "-f",
        "%e %U %S %M",
        env!("CARGO_BIN_EXE_ctxray"),
        "report",
        "--json",
    ]);
    if no_cache {
        cmd.arg("--no-cache");
    }
    let out = cmd
        .arg(path)
        .env("CTXRAY_CACHE_DIR", cache_dir)
        .env_remove("CTXRAY_NO_CACHE")
        .stdout(Stdio::null())
        .output();
    let Ok(out) = out else {
        println!("  report binary: GNU time not available (set CTXRAY_TIME)");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let f: Vec<f64> = stderr
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if let [wall, user, sys, kb] = f[..] {
        println!(
            "  `ctxray report --json` ({name}): wall {wall:.2} s · cpu {:.2} s · peak {} MB",
            user + sys,
            mb((kb * 1e3) as u64)
        );
    }
}
