//! The devices the hostile-input tests read and write: an endless one (`zero`) and a
//! character device that swallows what is written (`null`). They are looked for in the
//! directory `CTXRAY_TEST_DEVICES` names, which the project's cargo configuration
//! (`.cargo/config.toml`) gives unless the environment names another. The pseudo-terminal
//! tests keep `script`'s typescript in a temporary file of their own, not in a device.

use std::path::PathBuf;

/// The device `name` (`zero`, `null`) in the devices' directory.
pub fn device(name: &str) -> PathBuf {
    let dir = std::env::var_os("CTXRAY_TEST_DEVICES")
        .expect("CTXRAY_TEST_DEVICES names the devices' directory (see .cargo/config.toml)");
    PathBuf::from(dir).join(name)
}

/// [`device`] as a string, for an argument list.
pub fn device_arg(name: &str) -> String {
    device(name).display().to_string()
}
