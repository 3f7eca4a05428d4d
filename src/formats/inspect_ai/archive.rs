//! The `.eval` zip: `header.json` (the log without samples; `_journal/start.json` while the
//! eval is running) and `samples/<id>_epoch_<n>.json`, read with a cap on what any entry may
//! decompress to.

use std::io::{Cursor, Read};
use std::sync::Arc;

use serde_json::Value;
use zip::ZipArchive;

use super::sample::{self, Header, Place};
use crate::formats::common::Loaded;
use crate::formats::LoadError;
use crate::session::{Format, Session};

/// No entry of a log is allowed to decompress to more than this (a zip bomb is refused).
const MAX_ENTRY: u64 = 512 * 1024 * 1024;

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

pub(super) fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    parse_capped(loaded, MAX_ENTRY)
}

/// `parse` with the per-entry cap given (tests use a small one).
pub(super) fn parse_capped(loaded: &Loaded, cap: u64) -> Result<Session, LoadError> {
    let body = loaded.buffer.get(loaded.start..).unwrap_or_default();
    let mut zip = ZipArchive::new(Cursor::new(body)).map_err(|e| {
        LoadError::not_session(&loaded.shown, format!("not a readable .eval archive: {e}"))
    })?;
    let mut header = None;
    for name in ["header.json", "_journal/start.json"] {
        if let Some(bytes) = read_named(&mut zip, name, &loaded.shown, cap)? {
            if let Ok(log) = serde_json::from_slice::<Value>(&bytes) {
                header = Some(Header::read(&log));
                break;
            }
        }
    }
    let header = header.ok_or_else(|| {
        LoadError::not_session(&loaded.shown, "a zip without inspect_ai's header.json")
    })?;

    let mut session = super::super::start(Format::InspectAi, loaded);
    let mut samples = Vec::new();
    let names = sample_names(&zip);
    for (n, name) in names.iter().enumerate() {
        let Some(bytes) = read_named(&mut zip, name, &loaded.shown, cap)? else {
            continue;
        };
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(value) => {
                let place = Place {
                    path: format!("{}/{name}", loaded.shown),
                    range: Some(0..bytes.len()),
                    buffer: Arc::new(bytes),
                };
                samples.push(sample::build(&value, place, &header));
            }
            Err(e) => session.skip(n + 1, format!("{name}: invalid JSON: {e}")),
        }
    }
    Ok(super::assemble(session, &header, samples))
}

/// The sample entries, in archive order.
fn sample_names(zip: &Archive<'_>) -> Vec<String> {
    zip.file_names()
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .map(str::to_string)
        .collect()
}

/// An entry's bytes (`None` when absent); an entry larger than `cap` is an error.
fn read_named(
    zip: &mut Archive<'_>,
    name: &str,
    shown: &str,
    cap: u64,
) -> Result<Option<Vec<u8>>, LoadError> {
    let Some(index) = zip.index_for_name(name) else {
        return Ok(None);
    };
    let entry_path = format!("{shown}/{name}");
    let io = |source: std::io::Error| LoadError::Io {
        path: entry_path.clone(),
        source,
    };
    let file = zip
        .by_index(index)
        .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    let too_big = || {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("decompresses to more than {cap} bytes; not read"),
        ))
    };
    if file.size() > cap {
        return Err(too_big());
    }
    let mut bytes = Vec::new();
    // The declared size may lie: never read past the cap.
    file.take(cap + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(Some(bytes))
}
