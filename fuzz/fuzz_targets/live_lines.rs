//! The live line splitter fed arbitrary bytes in arbitrary chunks: no byte lost or counted
//! twice, whatever the cuts (a partial last line, CRLF, a BOM split across chunks).
#![no_main]

use ctxray::live::LineSplitter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&step, body)) = data.split_first() else {
        return;
    };
    let step = usize::from(step % 31) + 1;
    let mut splitter = LineSplitter::new();
    for chunk in body.chunks(step) {
        let _ = splitter.feed(chunk.to_vec());
    }
    assert_eq!(splitter.consumed(), body.len() as u64);
    let _ = splitter.finish();
});
