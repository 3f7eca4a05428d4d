//! The devices the hostile-input tests read and write: an endless one (`zero`) and a
//! character device that swallows what is written (`null`). They are looked for in the
//! directory `CTXRAY_TEST_DEVICES` names, `/dev` unless it is set (a sandbox that gives no
//! `/dev` can point it at its own). The pseudo-terminal tests keep `script`'s typescript in a
//! temporary file of their own, not in a device.

use std::path::PathBuf;

/// The device `name` (`zero`, `null`) in the devices' directory.
pub fn device(name: &str) -> PathBuf {
    let dir = std::env::var_os("CTXRAY_TEST_DEVICES").unwrap_or_else(|| "/dev".into());
    PathBuf::from(dir).join(name)
}

/// [`device`] as a string, for an argument list.
pub fn device_arg(name: &str) -> String {
    device(name).display().to_string()
}
