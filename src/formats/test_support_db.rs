//! What the database readers' tests share (opencode's `opencode.db`, Goose's `sessions.db`):
//! a live copy of a fixture database that a writer holds open in WAL mode, and damaged copies
//! of one, each of which must be a load error that names the file.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::load_path;

/// A copy of `fixture` in a directory of its own, named `name`, opened by a writer in WAL mode
/// that never checkpoints: the rows the test writes stay in the `-wal` file, as they are while
/// the tool runs. The directory lives as long as the first value.
pub fn live_copy(fixture: &Path, name: &str) -> (tempfile::TempDir, PathBuf, Connection) {
    let dir = tempfile::tempdir().expect("scratch dir");
    let path = dir.path().join(name);
    fs::copy(fixture, &path).expect("copy the fixture");
    let writer = Connection::open(&path).expect("open the copy");
    let mode: String = writer
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .expect("WAL mode");
    assert_eq!(mode, "wal");
    writer
        .execute_batch("PRAGMA wal_autocheckpoint=0")
        .expect("no checkpoint");
    (dir, path, writer)
}

/// Whether the copy's `-wal` file holds what was written since it was opened.
pub fn wal_holds_changes(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > 0)
}

/// Three damaged copies of `fixture` (cut to a third, cut to its header, scrambled after its
/// first page): each must fail to load with an error that names the file. Returns the errors.
pub fn damaged_copies_fail(fixture: &Path) -> Vec<String> {
    let dir = tempfile::tempdir().expect("scratch dir");
    let bytes = fs::read(fixture).expect("read the fixture");
    let cases: [(&str, Vec<u8>); 3] = [
        ("truncated.db", bytes[..bytes.len() / 3].to_vec()),
        ("header-only.db", bytes[..100.min(bytes.len())].to_vec()),
        ("scrambled.db", {
            let mut b = bytes.clone();
            for (i, x) in b.iter_mut().enumerate().skip(4096) {
                *x = x.wrapping_mul(31).wrapping_add(i as u8);
            }
            b
        }),
    ];
    cases
        .into_iter()
        .map(|(name, bytes)| {
            let path = dir.path().join(name);
            fs::write(&path, &bytes).expect("write the damaged copy");
            match load_path(&path, None) {
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains(name), "{name}: {e}");
                    e
                }
                Ok(s) => panic!("{name}: read as {} messages", s.messages.len()),
            }
        })
        .collect()
}
