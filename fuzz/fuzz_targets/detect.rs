//! Format detection on arbitrary bytes: splitting into records, then the detection table.
//! Either a format or a `LoadError`; never a panic.
#![no_main]

use ctxray::formats::{detect, Loaded};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(loaded) = Loaded::new(data.to_vec(), None, "fuzz") {
        let _ = detect::detect(&loaded);
    }
});
