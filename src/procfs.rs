//! Where the process table is mounted: the `proc` directory at the filesystem's root, where
//! Linux puts it, or the directory `CTXRAY_PROCFS` names (a container or sandbox that mounts
//! it elsewhere). Read once.
//!
//! Owns: that one place. Must not: read anything under it.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

/// The directory's name under the filesystem's root on Linux.
const MOUNT: &str = "proc";

/// The process table's directory.
pub fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        std::env::var_os("CTXRAY_PROCFS")
            .filter(|v| !v.is_empty())
            .map_or_else(
                || Path::new(Component::RootDir.as_os_str()).join(MOUNT),
                PathBuf::from,
            )
    })
}

/// `rel` under the process table (`self/maps`, `1234/status` …).
pub fn path(rel: impl AsRef<Path>) -> PathBuf {
    root().join(rel)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The default place is where Linux keeps this process's own entry.
    #[test]
    fn this_process_has_its_entry_under_the_root() {
        if std::env::var_os("CTXRAY_PROCFS").is_none() {
            assert!(super::path("self/status").is_file());
        }
        assert!(super::path(format!("{}/status", std::process::id())).is_file());
    }
}
