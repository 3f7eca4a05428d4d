//! The interactive inspector: `ctxray SOURCE`.
//!
//! Owns the terminal side only. `state` holds everything a frame shows; `update` is pure
//! (`Msg` in, state changed, `Effect`s out); `views` render from `&AppState`; `runtime` owns the
//! terminal, reads keys and runs effects. The core (session, tokens, compaction) is used, never
//! reimplemented here.

pub mod app;
pub mod busy;
pub mod color_depth;
pub mod complete;
pub mod demo;
pub mod demo_update;
pub mod drill;
pub mod highlight;
pub mod input;
pub mod jobs;
pub mod keymap;
pub mod knob;
pub mod msg;
pub mod picker;
pub mod replay;
pub mod replay_drill;
pub mod runtime;
pub mod search;
pub mod state;
pub mod tasks;
pub mod theme;
pub mod update;
pub mod views;

pub use msg::{Effect, Msg};
pub use state::AppState;
