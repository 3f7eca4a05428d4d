//! Demo mode's part of `update`: `w` turning it on or off, asking for the search
//! (`Work::Demo`) and taking its answer. What it holds is `demo`.

use super::demo::{remove_last, Added};
use super::jobs::Work;
use super::state::{AppState, RunKey};
use crate::compaction::demo::Fit;

impl AppState {
    /// `w`: demo mode on (the active preset scaled until it fires), or off (the settings it
    /// added taken away).
    pub fn toggle_demo(&mut self) {
        let Some(preset) = self.preset.clone() else {
            self.notice = Some("no preset: p chooses one, then w scales it until it fires".into());
            return;
        };
        if self.demo.on {
            self.demo.on = false;
            self.demo.asked = None;
            for (p, added) in std::mem::take(&mut self.demo.added) {
                if p == preset {
                    remove_last(&mut self.sets, &added.sets);
                } else if let Some(kept) = self.kept_sets.get_mut(&p) {
                    remove_last(kept, &added.sets);
                }
            }
            self.notice = Some(format!("demo off: {preset} under its own settings"));
            self.replan();
            return;
        }
        self.demo.on = true;
        self.ask_demo();
    }

    /// In demo mode, asks for the settings that make the active preset fire, unless it has them.
    pub fn ask_demo(&mut self) {
        let Some(preset) = self.preset.clone() else {
            return;
        };
        if !self.demo.on || self.demo.added.contains_key(&preset) {
            return;
        }
        let key = (preset, self.sets.clone(), self.len());
        self.demo.asked = Some(key.clone());
        if self.loading.is_none() {
            self.notice = Some(format!("demo: scaling {} until it fires…", key.0));
            self.ask(Work::Demo(key));
        }
    }

    /// The search's answer: its settings added (and planned) when it is still the one awaited.
    pub fn demo_found(&mut self, key: RunKey, fit: Result<Fit, String>) {
        if self.demo.asked.as_ref() != Some(&key) {
            return;
        }
        self.demo.asked = None;
        let preset = key.0;
        match fit {
            Ok(Fit::Scaled(d)) => {
                let said = d.said(&preset);
                self.sets.extend(d.sets.iter().cloned());
                self.notice = Some(format!("{said} · w: its own settings"));
                self.demo.added.insert(
                    preset,
                    Added {
                        short: d.short(),
                        sets: d.sets,
                    },
                );
                self.replan();
            }
            Ok(Fit::Fires) => {
                self.notice = Some(format!("demo: {preset} fires as set; nothing scaled"));
            }
            Ok(Fit::Cannot(why)) => self.notice = Some(format!("demo: {why}")),
            Err(e) => self.notice = Some(format!("demo: {e}")),
        }
    }

    /// What demo mode added to the active preset, when it did.
    pub fn demo_added(&self) -> Option<&Added> {
        self.demo.added.get(self.preset.as_deref()?)
    }
}
