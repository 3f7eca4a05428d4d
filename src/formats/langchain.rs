//! Parser stub: filled in by this format's implementation.

use super::common::Loaded;
use super::LoadError;
use crate::session::{Format, Session};

pub fn parse(loaded: &Loaded) -> Result<Session, LoadError> {
    let _ = Format::ALL;
    Err(LoadError::not_session(&loaded.shown, "this format is not implemented yet"))
}
