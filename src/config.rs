//! Where ctxray keeps user configuration, and loading the model registry with the user's layer.
//!
//! Owns: the config directory (`directories`, or `CTXRAY_CONFIG_DIR`), the user's `models.toml`
//! and `config.toml` there (and where user themes live), and a `--config FILE` layered last.
//! Defaults are embedded in the binary. Must not know how a theme looks (the inspector does).
//! Also the state directory (`CTXRAY_STATE_DIR`), where the inspector notes that a first run
//! has happened.

use std::path::{Path, PathBuf};

use crate::tokens::registry::{Registry, RegistryError};

/// The user's configuration directory, if one can be found.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CTXRAY_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "ctxray").map(|d| d.config_dir().to_path_buf())
}

/// Where ctxray keeps what it learns while running (not configuration), if a place is found.
pub fn state_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CTXRAY_STATE_DIR") {
        return Some(PathBuf::from(dir));
    }
    let dirs = directories::ProjectDirs::from("", "", "ctxray")?;
    Some(
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .to_path_buf(),
    )
}

const FIRST_RUN_DONE: &str = "first-run-done";

/// Whether the inspector has not been opened before (then it shows its legend). A state
/// directory that cannot be found counts as not a first run: no legend forced on each start.
pub fn first_run() -> bool {
    state_dir().is_some_and(|d| !d.join(FIRST_RUN_DONE).exists())
}

/// Notes that the first run happened (best effort: a read-only home only means the legend
/// shows again next time).
pub fn first_run_done() {
    if let Some(dir) = state_dir() {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(FIRST_RUN_DONE), b"");
    }
}

/// The registry: bundled, then `<config dir>/models.toml`, then `explicit` (which must exist).
/// Each file is a regular file of at most `limit` bytes.
pub fn load_registry(explicit: Option<&Path>, limit: u64) -> Result<Registry, RegistryError> {
    let mut registry = Registry::bundled();
    if let Some(dir) = config_dir() {
        let path = dir.join("models.toml");
        if let Some(text) =
            read_optional(&path, limit).map_err(|message| RegistryError::Invalid {
                path: path.display().to_string(),
                message,
            })?
        {
            registry.layer(&text, &path.display().to_string())?;
        }
    }
    if let Some(path) = explicit {
        let shown = path.display().to_string();
        let text = read_text(path, limit).map_err(|message| RegistryError::Invalid {
            path: shown.clone(),
            message,
        })?;
        registry.layer(&text, &shown)?;
    }
    Ok(registry)
}

/// A configuration file's text, bounded by `limit` (see `limits::read_config`); the error is
/// the reason, without the file name.
pub fn read_text(path: &Path, limit: u64) -> Result<String, String> {
    crate::limits::read_config(path, limit).map_err(|e| e.to_string())
}

/// [`read_text`], `None` when there is no such file.
pub fn read_optional(path: &Path, limit: u64) -> Result<Option<String>, String> {
    match crate::limits::read_config(path, limit) {
        Ok(text) => Ok(Some(text)),
        Err(crate::limits::ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The settings file in the config directory.
pub const CONFIG_FILE: &str = "config.toml";

/// `<config dir>/config.toml`. Absent keys keep their defaults; unknown keys are an error, so
/// that a misspelt setting is reported rather than ignored.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    /// The inspector's theme: a bundled name, or `NAME` for `<config dir>/themes/NAME.toml`.
    pub theme: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

/// Reads `<dir>/config.toml`; the defaults when there is no such file.
///
/// # Errors
/// The file exists but cannot be read or is not a valid settings file; the error names it.
pub fn read_user_config(dir: &Path) -> Result<UserConfig, ConfigError> {
    read_user_config_within(dir, crate::limits::DEFAULT_CONFIG)
}

/// [`read_user_config`] with the file bounded by `limit` bytes.
///
/// # Errors
/// As [`read_user_config`]; a file over the limit, or not a regular file, too.
pub fn read_user_config_within(dir: &Path, limit: u64) -> Result<UserConfig, ConfigError> {
    let path = dir.join(CONFIG_FILE);
    let invalid = |message: String| ConfigError::Invalid {
        path: path.display().to_string(),
        message,
    };
    let Some(text) = read_optional(&path, limit).map_err(invalid)? else {
        return Ok(UserConfig::default());
    };
    toml::from_str(&text).map_err(|e| invalid(toml_error_line(&text, &e)))
}

/// Where a user theme called `name` lives: `<dir>/themes/NAME.toml`. `None` when `name` is not
/// a plain file name (a path, or empty), which cannot name a theme.
pub fn user_theme_path(dir: &Path, name: &str) -> Option<PathBuf> {
    let plain = !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\'])
        && Path::new(name).file_name().is_some();
    plain.then(|| dir.join("themes").join(format!("{name}.toml")))
}

/// A TOML error on one line: `line L, column C: what was expected` (toml's own text spans
/// several lines, and errors are printed as one).
pub fn toml_error_line(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().replace('\n', "; ");
    match error.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_config_file_is_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_user_config(dir.path()).unwrap(), UserConfig::default());
    }

    #[test]
    fn the_config_file_names_a_theme() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), "theme = \"light\"\n").unwrap();
        let config = read_user_config(dir.path()).unwrap();
        assert_eq!(config.theme.as_deref(), Some("light"));
    }

    #[test]
    fn a_bad_config_file_is_named_with_the_place_on_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(CONFIG_FILE);
        std::fs::write(&file, "# settings\ntheme = light\n").unwrap();
        let err = read_user_config(dir.path()).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}: line 2, column 9: ", file.display())),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
        std::fs::write(&file, "thme = \"light\"\n").unwrap();
        let err = read_user_config(dir.path()).unwrap_err().to_string();
        assert!(err.contains("unknown field `thme`"), "{err}");
    }

    #[test]
    fn only_a_plain_name_names_a_user_theme() {
        let dir = Path::new("cfg");
        assert_eq!(
            user_theme_path(dir, "solar"),
            Some(dir.join("themes").join("solar.toml"))
        );
        for bad in ["", "../x", "a/b", "a\\b", ".hidden"] {
            assert_eq!(user_theme_path(dir, bad), None, "{bad:?}");
        }
    }
}
