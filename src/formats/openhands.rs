//! Parser stub: filled in by this format's implementation.

use std::path::Path;

use super::common::Loaded;
use super::LoadError;
use crate::session::Session;

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    Err(LoadError::not_session(&loaded.shown, "this format is not implemented yet"))
}

/// A conversation directory (`base_state.json` + `events/`); `None` when `path` is not one.
pub fn load_dir(path: &Path) -> Result<Option<Session>, LoadError> {
    let _ = path;
    Ok(None)
}
