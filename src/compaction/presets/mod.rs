//! One file per framework preset. Each emulates a named framework version exactly, bugs
//! included; `ALL` is the registry `ctxray presets` lists, in that order.

mod dimos;
mod lc;
mod openhands;

use super::preset::Preset;

pub static ALL: &[&dyn Preset] = &[
    &openhands::OpenHands,
    &openhands::OpenHandsFixed,
    &dimos::Dimos,
];
