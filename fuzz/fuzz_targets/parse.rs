//! Every parser on arbitrary bytes: the first byte picks the format (as `--from` would), the
//! rest is the file. A session or a `LoadError`; never a panic.
#![no_main]

use ctxray::formats::load_bytes;
use ctxray::formats::registry::FORMATS;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let format = FORMATS[pick as usize % FORMATS.len()].format();
    if let Ok(session) = load_bytes(body.to_vec(), None, "fuzz", Some(format)) {
        // Every message's raw record is re-read on demand: it must lie inside the buffer.
        for m in &session.messages {
            let _ = session.raw_record(m);
        }
    }
});
