//! The count cache: exact text counts of messages kept on disk between runs, so that opening a
//! session again skips the token count (the slow pass).
//!
//! Owns: where the cache lives (`CTXRAY_CACHE_DIR`, else the user's cache directory's
//! `ctxray/counts/`; `CTXRAY_NO_CACHE=1` turns it off), one file per source (named by a hash of
//! its canonical path) holding the entries of that source's latest analysis, reading a file
//! (anything unexpected reads as empty), writing one (a temp file renamed over it, so
//! concurrent writers never leave a torn file) and keeping the directory under a size cap
//! (oldest files go first). Must not: fail an analysis — every IO error here means "no cache".
//! What a key covers and how a hit is used is `tokens::memo`'s.
//!
//! File layout (little-endian): magic `CTXRAYCC`, format version u32, entry count u32, then
//! per entry a 128-bit key and a u32 count (20 bytes), then an xxh3-64 checksum of all that
//! precedes it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use xxhash_rust::xxh3::{xxh3_128, xxh3_64};

use crate::tokens::memo::Key;
use crate::tokens::CountMemo;

const MAGIC: &[u8; 8] = b"CTXRAYCC";
/// Bumped when the layout changes; a file of another version is ignored and rewritten.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 16;
const ENTRY: usize = 20;
const TRAILER: usize = 8;
/// What the directory may hold before the oldest files are removed.
pub const DEFAULT_CAP_BYTES: u64 = 64 << 20;
/// A temp file this old was left by a writer that died.
const STALE_TEMP: Duration = Duration::from_secs(600);
const EXTENSION: &str = "counts";

/// Where counts are cached, and how much the directory may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountCache {
    dir: PathBuf,
    cap_bytes: u64,
}

impl CountCache {
    /// A cache in `dir`, capped at [`DEFAULT_CAP_BYTES`].
    pub fn at(dir: impl Into<PathBuf>) -> CountCache {
        CountCache {
            dir: dir.into(),
            cap_bytes: DEFAULT_CAP_BYTES,
        }
    }

    pub fn with_cap(mut self, cap_bytes: u64) -> CountCache {
        self.cap_bytes = cap_bytes;
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cache the environment asks for: none when `disabled` (`--no-cache`) or
    /// `CTXRAY_NO_CACHE` is set to anything but `0` or empty; `CTXRAY_CACHE_DIR` when set; else
    /// the user's cache directory (none when there is no home to find it from).
    pub fn from_env(disabled: bool) -> Option<CountCache> {
        let off = std::env::var_os("CTXRAY_NO_CACHE").is_some_and(|v| !v.is_empty() && v != "0");
        if disabled || off {
            return None;
        }
        if let Some(dir) = std::env::var_os("CTXRAY_CACHE_DIR").filter(|d| !d.is_empty()) {
            return Some(CountCache::at(dir));
        }
        directories::ProjectDirs::from("", "", "ctxray")
            .map(|d| CountCache::at(d.cache_dir().join("counts")))
    }

    /// The file that holds `source`'s counts; `None` for a source that is not a file on disk
    /// (stdin: nothing names it again, so nothing is kept for it).
    pub fn file_for(&self, source: &str) -> Option<PathBuf> {
        if source == "<stdin>" || source.is_empty() {
            return None;
        }
        let canonical = fs::canonicalize(source).ok()?;
        let name = format!(
            "{:032x}.{EXTENSION}",
            xxh3_128(canonical.as_os_str().as_encoded_bytes())
        );
        Some(self.dir.join(name))
    }

    /// The stored counts of `source`, ready to be used by one analysis and then
    /// [`Stored::finish`]ed. A missing, unreadable or invalid file gives an empty memo.
    pub fn open(&self, source: &str) -> Option<Stored> {
        let file = self.file_for(source)?;
        let read = fs::read(&file).ok().and_then(|bytes| decode(&bytes));
        let valid = read.is_some();
        Some(Stored {
            cache: self.clone(),
            file,
            valid,
            memo: CountMemo::with_known(read.unwrap_or_default()),
        })
    }

    /// Removes the oldest cache files (by modification time) until the directory holds at most
    /// the cap, never `keep`; also removes temp files left by writers that died.
    pub fn prune(&self, keep: Option<&Path>) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let now = SystemTime::now();
        let mut files = Vec::new();
        let mut total = 0u64;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".tmp") {
                if now.duration_since(modified).unwrap_or_default() > STALE_TEMP {
                    let _ = fs::remove_file(&path);
                }
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some(EXTENSION) {
                continue;
            }
            total += meta.len();
            files.push((modified, meta.len(), path));
        }
        if total <= self.cap_bytes {
            return;
        }
        files.sort();
        for (_, len, path) in files {
            if total <= self.cap_bytes {
                break;
            }
            if Some(path.as_path()) == keep {
                continue;
            }
            if fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }
}

/// One source's stored counts, open for one analysis.
#[derive(Debug)]
pub struct Stored {
    cache: CountCache,
    file: PathBuf,
    /// The file was read and whole (a missing or bad one is rewritten).
    valid: bool,
    pub memo: CountMemo,
}

impl Stored {
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// After the analysis: writes the entries it used when they differ from the file's (then
    /// prunes the directory), else marks the file as just used so pruning keeps it. Errors are
    /// ignored: the counts are already made, the cache only saves the next run some time.
    pub fn finish(self) {
        if self.valid && self.memo.used_all_and_only_known() {
            if let Ok(f) = fs::File::options().append(true).open(&self.file) {
                let _ = f.set_modified(SystemTime::now());
            }
            return;
        }
        if write_atomic(&self.file, &encode(&self.memo.used())).is_ok() {
            self.cache.prune(Some(&self.file));
        }
    }
}

/// The bytes of a cache file holding `entries`.
pub fn encode(entries: &[(Key, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + entries.len() * ENTRY + TRAILER);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (key, count) in entries {
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
    }
    let sum = xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The entries of a cache file, or `None` when it is not one whole file of this version.
pub fn decode(bytes: &[u8]) -> Option<Vec<(Key, u32)>> {
    if bytes.len() < HEADER + TRAILER || &bytes[..8] != MAGIC {
        return None;
    }
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    if u32_at(8)? != FORMAT_VERSION {
        return None;
    }
    let n = u32_at(12)? as usize;
    let body = n.checked_mul(ENTRY)?.checked_add(HEADER)?;
    if bytes.len() != body.checked_add(TRAILER)? {
        return None;
    }
    let sum = u64::from_le_bytes(bytes[body..].try_into().ok()?);
    if xxh3_64(&bytes[..body]) != sum {
        return None;
    }
    Some(
        bytes[HEADER..body]
            .chunks_exact(ENTRY)
            .map(|e| {
                let key = Key::from_le_bytes(e[..16].try_into().unwrap_or_default());
                let count = u32::from_le_bytes(e[16..].try_into().unwrap_or_default());
                (key, count)
            })
            .collect(),
    )
}

/// Writes `bytes` to a temp file beside `path` and renames it over `path`: a reader sees the
/// old file or the new one, never a mix, whoever else writes at the same time.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(".{name}.{}.{nanos}.tmp", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&temp)?;
        // No fsync: a file cut short by a crash fails its checksum and is rewritten.
        f.write_all(bytes)?;
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_and_any_damage_reads_as_nothing() {
        let entries = vec![(1u128 << 100 | 7, 42u32), (3, 0), (u128::MAX, u32::MAX)];
        let bytes = encode(&entries);
        assert_eq!(bytes.len(), HEADER + 3 * ENTRY + TRAILER);
        assert_eq!(decode(&bytes), Some(entries.clone()));
        assert_eq!(decode(&encode(&[])), Some(vec![]));
        // Every truncation, and every single flipped byte, is refused.
        for cut in 0..bytes.len() {
            assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x20;
            assert_eq!(decode(&bad), None, "flipped byte {at}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), None);
        // Another version, even with a right checksum, is refused.
        let mut other = bytes[..bytes.len() - TRAILER].to_vec();
        other[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
        let sum = xxh3_64(&other);
        other.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(decode(&other), None);
        // An entry count that would overflow is refused, not allocated.
        let mut huge = bytes[..HEADER].to_vec();
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&huge), None);
    }

    #[test]
    fn stdin_and_missing_files_have_no_cache_file() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CountCache::at(dir.path());
        assert_eq!(cache.file_for("<stdin>"), None);
        assert_eq!(cache.file_for(""), None);
        assert_eq!(
            cache.file_for(&format!("{}/nope", dir.path().display())),
            None
        );
        let src = dir.path().join("s.jsonl");
        fs::write(&src, "{}").unwrap();
        let a = cache.file_for(&src.display().to_string()).unwrap();
        // The same file by another spelling of its path shares the cache file.
        let b = cache
            .file_for(&format!("{}/./s.jsonl", dir.path().display()))
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.parent(), Some(dir.path()));
    }

    #[test]
    fn finish_writes_what_was_used_and_prune_keeps_under_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CountCache::at(dir.path().join("counts")).with_cap(3 * 100);
        let mut sources = Vec::new();
        for i in 0..6 {
            let src = dir.path().join(format!("s{i}.jsonl"));
            fs::write(&src, "{}").unwrap();
            sources.push(src.display().to_string());
        }
        // Each file: 3 entries = 16 + 60 + 8 = 84 bytes; the cap holds 3 of them.
        for (i, src) in sources.iter().enumerate() {
            let mut stored = cache.open(src).unwrap();
            assert_eq!(stored.memo.known_len(), 0);
            for k in 0..3u128 {
                stored.memo.note(k + 10 * i as u128, k as u32, false);
            }
            let file = stored.file().to_path_buf();
            stored.finish();
            assert!(file.exists());
            // Distinct modification times for the pruning order.
            let past = SystemTime::now() - Duration::from_secs(1000 - i as u64 * 10);
            fs::File::options()
                .append(true)
                .open(&file)
                .unwrap()
                .set_modified(past)
                .unwrap();
        }
        let kept: Vec<usize> = (0..6)
            .filter(|i| cache.file_for(&sources[*i]).unwrap().exists())
            .collect();
        // The newest survive; the one written last is never removed.
        assert_eq!(kept, vec![3, 4, 5]);
        let again = cache.open(&sources[5]).unwrap();
        assert_eq!(again.memo.get(50), Some(0));
        assert_eq!(again.memo.get(52), Some(2));
        // No temp file is left behind.
        let names: Vec<String> = fs::read_dir(cache.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| n.ends_with(".counts")), "{names:?}");
    }

    #[test]
    fn a_bad_file_is_ignored_then_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CountCache::at(dir.path());
        let src = dir.path().join("s.jsonl");
        fs::write(&src, "{}").unwrap();
        let src = src.display().to_string();
        let file = cache.file_for(&src).unwrap();
        fs::write(&file, b"CTXRAYCC garbage").unwrap();
        let mut stored = cache.open(&src).unwrap();
        assert_eq!(stored.memo.known_len(), 0);
        stored.memo.note(9, 99, false);
        stored.finish();
        assert_eq!(decode(&fs::read(&file).unwrap()), Some(vec![(9, 99)]));
        // A run that finds everything leaves the file as it is.
        let mut stored = cache.open(&src).unwrap();
        stored.memo.note(9, 99, true);
        stored.finish();
        assert_eq!(decode(&fs::read(&file).unwrap()), Some(vec![(9, 99)]));
    }
}
