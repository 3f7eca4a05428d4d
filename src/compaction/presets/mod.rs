//! One file per framework preset. Each emulates a named framework version exactly, bugs
//! included; `ALL` is the registry `ctxray presets` lists.

mod dimos;
mod lc;

use super::preset::Preset;

pub static ALL: &[&dyn Preset] = &[&dimos::Dimos];
