//! Writing sessions back out: a compacted history as a file that ctxray (and the tools that
//! read the format) load again.
//!
//! Owns: serialising a compacted history in its source's own format where ctxray can write it
//! (Claude Code JSONL, from the original lines) and otherwise as OpenAI Chat Completions
//! messages, masking secrets on the way, and writing files safely (a temporary file beside the
//! target, then a rename; an existing file is refused unless forced; the input is never the
//! output unless forced; what is not a regular file is never written). Must not: parse or count.

pub mod claude_code;
mod interrupt;
pub mod openai_chat;
mod target;

use std::io::Write;
use std::path::Path;

/// `doc` with secrets masked in every string (keys included); the second value counts them.
pub fn mask_json(doc: &serde_json::Value) -> (serde_json::Value, usize) {
    use serde_json::Value;
    fn walk(v: &Value, n: &mut usize) -> Value {
        match v {
            Value::String(s) => {
                let (m, k) = crate::secrets::mask(s);
                *n += k;
                Value::String(m)
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| walk(x, n)).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), walk(x, n))).collect())
            }
            other => other.clone(),
        }
    }
    let mut n = 0;
    let out = walk(doc, &mut n);
    (out, n)
}

/// A framework's history document as the bytes of a session file of `format`: the records of
/// the JSONL formats (OpenHands events, Codex and Claude Code lines) one per line, every other
/// document as pretty JSON.
pub fn document_bytes(
    doc: &serde_json::Value,
    format: crate::session::Format,
) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    match doc {
        serde_json::Value::Array(records)
            if crate::formats::registry::of(format).writes_lines() =>
        {
            for r in records {
                serde_json::to_writer(&mut bytes, r)?;
                bytes.push(b'\n');
            }
        }
        _ => {
            bytes = serde_json::to_vec_pretty(doc)?;
            bytes.push(b'\n');
        }
    }
    Ok(bytes)
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{0}: exists; give --force to overwrite it")]
    Exists(String),
    #[error("{0}: is the input session; give --force to overwrite it")]
    IsInput(String),
    #[error("{path}: is a {what}; ctxray writes only to a regular file or a new path, even with --force")]
    NotAFile { path: String, what: &'static str },
    #[error("{path}: cannot write: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Refuses an output path ctxray must not write: anything but a regular file or a new path
/// (a symbolic link, a directory, a FIFO, a socket, a device), whatever `force` says, and an
/// existing file without `force`. Commands call it before any work; `write_file` again.
pub fn check_output(path: &Path, force: bool) -> Result<(), WriteError> {
    let shown = path.display().to_string();
    match target::inspect(path) {
        Ok(target::Target::New) => Ok(()),
        Ok(target::Target::Regular) if force => Ok(()),
        Ok(target::Target::Regular) => Err(WriteError::Exists(shown)),
        Ok(target::Target::NotAFile(what)) => Err(WriteError::NotAFile { path: shown, what }),
        Err(source) => Err(WriteError::Io {
            path: shown,
            source,
        }),
    }
}

/// Writes `bytes` to `path` through a temporary file created exclusively in the same directory
/// and a rename, so a reader never sees half a file and a failed write leaves the old one
/// whole; an interrupting signal removes the temporary file.
pub fn write_file(
    path: &Path,
    bytes: &[u8],
    input: Option<&Path>,
    force: bool,
) -> Result<(), WriteError> {
    let shown = path.display().to_string();
    let same_as_input = input.is_some_and(|i| {
        let (a, b) = (std::fs::canonicalize(i), std::fs::canonicalize(path));
        matches!((a, b), (Ok(a), Ok(b)) if a == b)
    });
    if same_as_input && !force {
        return Err(WriteError::IsInput(shown));
    }
    check_output(path, force)?;
    let io = |source| WriteError::Io {
        path: shown.clone(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or("out".into(), |n| n.to_string_lossy().into_owned());
    let (mut f, tmp) = target::create_temp(dir, &name).map_err(io)?;
    let guard = interrupt::guard(&tmp);
    let result = (|| {
        f.write_all(bytes).map_err(io)?;
        f.sync_all().map_err(io)?;
        drop(f);
        // Checked again just before the rename: what appeared at OUT meanwhile is not replaced.
        check_output(path, force)?;
        std::fs::rename(&tmp, path).map_err(io)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    drop(guard);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_unless_forced_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.jsonl");
        std::fs::write(&input, "x").unwrap();
        let out = dir.path().join("out.json");
        write_file(&out, b"first", Some(&input), false).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"first");
        assert!(matches!(
            write_file(&out, b"second", Some(&input), false),
            Err(WriteError::Exists(_))
        ));
        write_file(&out, b"second", Some(&input), true).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"second");
        assert!(matches!(
            write_file(&input, b"y", Some(&input), false),
            Err(WriteError::IsInput(_))
        ));
        assert_eq!(std::fs::read(&input).unwrap(), b"x");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let missing = dir.path().join("no/such/dir/out.json");
        assert!(matches!(
            write_file(&missing, b"z", None, false),
            Err(WriteError::Io { .. })
        ));
    }
}
