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

/// `doc` with secrets masked in every string value (keys are left as they are); the second
/// value counts them.
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
    write_document(&mut bytes, doc, format, false)?;
    Ok(bytes)
}

/// [`document_bytes`] written to `w` as they are made, with every string masked as it is
/// written when `mask` is set (as [`mask_json`] would, without a masked copy of the document);
/// returns how many secrets were masked.
pub fn write_document(
    w: &mut dyn Write,
    doc: &serde_json::Value,
    format: crate::session::Format,
    mask: bool,
) -> serde_json::Result<usize> {
    let masked = std::cell::Cell::new(0);
    let shown = |v| Shown {
        value: v,
        mask,
        masked: &masked,
    };
    match doc {
        serde_json::Value::Array(records)
            if crate::formats::registry::of(format).writes_lines() =>
        {
            for r in records {
                serde_json::to_writer(&mut *w, &shown(r))?;
                w.write_all(b"\n").map_err(serde_json::Error::io)?;
            }
        }
        _ => {
            serde_json::to_writer_pretty(&mut *w, &shown(doc))?;
            w.write_all(b"\n").map_err(serde_json::Error::io)?;
        }
    }
    Ok(masked.get())
}

/// A JSON value serialized with its string values masked when `mask` is set (keys are
/// written as they are, as [`mask_json`] leaves them), counting what was masked.
struct Shown<'a> {
    value: &'a serde_json::Value,
    mask: bool,
    masked: &'a std::cell::Cell<usize>,
}

impl Shown<'_> {
    fn text<'t>(&self, s: &'t str) -> std::borrow::Cow<'t, str> {
        if !self.mask {
            return std::borrow::Cow::Borrowed(s);
        }
        let (text, n) = crate::secrets::mask_cow(s);
        self.masked.set(self.masked.get() + n);
        text
    }

    fn of<'v>(&self, value: &'v serde_json::Value) -> Shown<'v>
    where
        Self: 'v,
    {
        Shown {
            value,
            mask: self.mask,
            masked: self.masked,
        }
    }
}

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        use serde_json::Value;
        match self.value {
            Value::String(text) => s.serialize_str(&self.text(text)),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&self.of(item))?;
                }
                seq.end()
            }
            Value::Object(map) => {
                let mut out = s.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    out.serialize_entry(k, &self.of(v))?;
                }
                out.end()
            }
            other => other.serialize(s),
        }
    }
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
    write_file_with(path, input, force, |w| w.write_all(bytes))
}

/// [`write_file`] of what `write` writes as it makes it (through a buffer), not held whole
/// first.
pub fn write_file_with(
    path: &Path,
    input: Option<&Path>,
    force: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
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
    let (f, tmp) = target::create_temp(dir, &name).map_err(io)?;
    let guard = interrupt::guard(&tmp);
    let result = (|| {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, f);
        write(&mut buffered).map_err(io)?;
        let f = buffered.into_inner().map_err(|e| io(e.into_error()))?;
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

    /// A document with secrets in nested values, in a key and in a non-string, and text that
    /// needs escaping.
    fn secret_doc() -> serde_json::Value {
        serde_json::json!([
            {"role": "user", "content": "key sk-proj-abcDEF1234567890ghijKLMN \"quoted\"\n",
             "n": 3, "ok": true, "none": null, "f": 1.5},
            {"args": {"token": ["AKIAABCDEFGHIJKLMNOP", {"sk-proj-abcDEF1234567890ghijKLMN": "x"}]},
             "empty": [], "obj": {}},
        ])
    }

    #[test]
    fn a_document_written_masked_is_the_masked_copy_written() {
        let doc = secret_doc();
        let (copy, n) = mask_json(&doc);
        assert_eq!(n, 2, "two secret values; the key is left as it is");
        for format in [
            crate::session::Format::OPENHANDS,
            crate::session::Format::OPENAI_CHAT,
        ] {
            let mut streamed = Vec::new();
            let masked = write_document(&mut streamed, &doc, format, true).unwrap();
            assert_eq!(masked, n);
            assert_eq!(
                streamed,
                document_bytes(&copy, format).unwrap(),
                "{format:?}"
            );
            let mut plain = Vec::new();
            assert_eq!(write_document(&mut plain, &doc, format, false).unwrap(), 0);
            assert_eq!(plain, document_bytes(&doc, format).unwrap(), "{format:?}");
        }
    }

    #[test]
    fn a_write_that_fails_is_reported_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.json");
        let failed = write_file_with(&out, None, false, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("the writer gave up"))
        });
        let message = failed.unwrap_err().to_string();
        assert!(message.contains("the writer gave up"), "{message}");
        assert!(!out.exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no temporary file left"
        );
        write_file_with(&out, None, false, |w| w.write_all(b"whole")).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"whole");
    }

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
