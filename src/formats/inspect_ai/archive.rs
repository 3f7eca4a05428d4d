//! The `.eval` zip: `header.json` (the log without samples; `_journal/start.json` while the
//! eval is running) and `samples/<id>_epoch_<n>.json`, read within a budget for what the
//! entries may decompress to, all together (a zip bomb is refused after reading at most the
//! budget, never expanded whole).

use std::io::{Cursor, Read};
use std::sync::Arc;

use serde_json::Value;
use zip::ZipArchive;

use super::sample::{self, Header, Place};
use crate::formats::common::Loaded;
use crate::formats::LoadError;
use crate::session::{Format, Session};

/// The entries of any log may always decompress to this much, all together.
const BUDGET_FLOOR: u64 = 256 * 1024 * 1024;
/// Beyond the floor, the entries may decompress to this many times the archive's size (JSON
/// logs compress 5 to 30 times; deflate's limit, a bomb's ratio, is about 1,000).
const BUDGET_RATIO: u64 = 100;

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

pub(super) fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let archive = loaded.buffer.len().saturating_sub(loaded.start) as u64;
    parse_capped(
        loaded,
        BUDGET_FLOOR.max(archive.saturating_mul(BUDGET_RATIO)),
    )
}

/// `parse` with the decompression budget given (tests use a small one).
pub(super) fn parse_capped(loaded: &Loaded, budget: u64) -> Result<Session, LoadError> {
    let mut cap = Budget {
        left: budget,
        total: budget,
    };
    let body = loaded.buffer.get(loaded.start..).unwrap_or_default();
    let mut zip = ZipArchive::new(Cursor::new(body)).map_err(|e| {
        LoadError::not_session(&loaded.shown, format!("not a readable .eval archive: {e}"))
    })?;
    let mut header = None;
    for name in ["header.json", "_journal/start.json"] {
        if let Some(mut bytes) = read_named(&mut zip, name, &loaded.shown, &mut cap)? {
            crate::formats::surrogates::repair(&mut bytes);
            if let Ok(log) = serde_json::from_slice::<Value>(&bytes) {
                header = Some(Header::read(&log));
                break;
            }
        }
    }
    let header = header.ok_or_else(|| {
        LoadError::not_session(&loaded.shown, "a zip without inspect_ai's header.json")
    })?;

    let mut session = super::super::start(Format::INSPECT_AI, loaded);
    let mut samples = Vec::new();
    let names = sample_names(&zip);
    for (n, name) in names.iter().enumerate() {
        let Some(mut bytes) = read_named(&mut zip, name, &loaded.shown, &mut cap)? else {
            continue;
        };
        crate::formats::surrogates::repair(&mut bytes);
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

/// What the entries may still decompress to.
struct Budget {
    left: u64,
    total: u64,
}

/// An entry's bytes (`None` when absent), taken from the budget; an entry that would
/// overdraw it is an error.
fn read_named(
    zip: &mut Archive<'_>,
    name: &str,
    shown: &str,
    budget: &mut Budget,
) -> Result<Option<Vec<u8>>, LoadError> {
    let cap = budget.left;
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
            format!(
                "decompresses to more than {cap} bytes, past the {} bytes this archive may \
                 expand to (expected a compression ratio a JSON log has); not read",
                budget.total
            ),
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
    budget.left -= bytes.len() as u64;
    Ok(Some(bytes))
}
