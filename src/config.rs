//! Where ctxray keeps user configuration, and loading the model registry with the user's layer.
//!
//! Owns: the config directory (`directories`, or `CTXRAY_CONFIG_DIR`), the user's `models.toml`
//! there, and a `--config FILE` layered last. Defaults are embedded in the binary.

use std::path::{Path, PathBuf};

use crate::tokens::registry::{Registry, RegistryError};

/// The user's configuration directory, if one can be found.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CTXRAY_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "ctxray").map(|d| d.config_dir().to_path_buf())
}

/// The registry: bundled, then `<config dir>/models.toml`, then `explicit` (which must exist).
pub fn load_registry(explicit: Option<&Path>) -> Result<Registry, RegistryError> {
    let mut registry = match config_dir() {
        Some(dir) => Registry::with_user_file(&dir.join("models.toml"))?,
        None => Registry::bundled(),
    };
    if let Some(path) = explicit {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| RegistryError::Invalid {
            path: shown.clone(),
            message: format!("cannot read: {e}"),
        })?;
        registry.layer(&text, &shown)?;
    }
    Ok(registry)
}
