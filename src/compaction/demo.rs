//! Demo scaling: the settings under which a preset fires on this session now, for a session
//! too small for the framework's real window (`--demo`, the inspector's `w`).
//!
//! Owns: the lever of each preset (the one setting that moves its trigger: the window for a
//! token trigger, the count for an event, message or group trigger, and the settings a lever
//! needs beside it) and the search for a value of it that fires. Must not: change how a preset
//! plans; the values found are ordinary `--set` assignments, shown and undone as such.
//!
//! The search: from the lever's value in force (or, for a required setting, a value above
//! anything the session holds), a first guess scaled by the trigger's own value over its
//! threshold, then steps of a fifth (rounded to two significant digits) down until it fires
//! and up while it still fires. The value kept fires with the session at up to a quarter
//! above the threshold, so the compaction shown has something to summarize. A handful of plans
//! when the threshold is proportional to the lever; about forty at worst.

use super::preset::{PlanError, PlanInput, Preset};
use super::settings::Settings;
use super::Trigger;

/// How the lever's value in force is found when it is not set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unset {
    /// A window: null means the window in force.
    Window,
    /// A token count with no default: above anything the session estimates.
    Tokens,
    /// A count of messages, events or groups with no default: above the session's length.
    Count,
}

/// A setting set beside the lever, unless the user gave it.
#[derive(Debug, Clone, Copy)]
struct Beside {
    setting: &'static str,
    of: Of,
}

/// What a setting beside the lever is derived from.
#[derive(Debug, Clone, Copy)]
enum Of {
    /// The lever's value divided by this.
    Lever(u64),
    /// A tail to keep: the session's length divided by this, when below the setting in force
    /// (a default tail longer than a small session leaves nothing to compact).
    Tail(u64),
}

#[derive(Debug, Clone, Copy)]
struct Lever {
    setting: &'static str,
    unset: Unset,
    beside: Option<Beside>,
}

const fn lever(setting: &'static str, unset: Unset) -> Lever {
    Lever {
        setting,
        unset,
        beside: None,
    }
}

/// The lever of `preset`: the setting whose lowering makes its trigger fire sooner.
fn lever_of(preset: &str) -> Option<Lever> {
    use Unset::*;
    Some(match preset {
        "openhands" | "openhands-fixed" => lever("max_size", Count),
        "agent-framework" | "agent-framework-1.17" => lever("target_count", Count),
        "agent-framework-sliding" => lever("keep_last_groups", Count),
        "agent-framework-truncation" => Lever {
            beside: Some(Beside {
                setting: "compact_to",
                of: Of::Lever(2),
            }),
            ..lever("max_n", Count)
        },
        "agent-framework-selective-tool" | "agent-framework-tool-result" => {
            lever("keep_last_tool_call_groups", Count)
        }
        "agent-framework-token-budget" => lever("token_budget", Window),
        "agent-framework-context-window" => Lever {
            beside: Some(Beside {
                setting: "max_output_tokens",
                of: Of::Lever(8),
            }),
            ..lever("max_context_window_tokens", Window)
        },
        "pydantic-ai-harness" | "pydantic-ai-harness-sliding" => Lever {
            beside: Some(Beside {
                setting: "keep_messages",
                of: Of::Tail(3),
            }),
            ..lever("max_tokens", Tokens)
        },
        "hermes" => lever("config_context_length", Window),
        "dimos" | "codex" | "claude-code" | "custom" => lever("context_window", Window),
        _ => return None,
    })
}

/// The setting `--demo` scales for `preset`, when it has one.
pub fn lever_name(preset: &str) -> Option<&'static str> {
    lever_of(preset).map(|l| l.setting)
}

/// What the search found.
#[derive(Debug, Clone, PartialEq)]
pub enum Fit {
    /// The preset fires under the settings given: nothing to scale.
    Fires,
    /// These settings, added after the ones given, make it fire.
    Scaled(Demo),
    /// No value of the lever makes it fire (why, for the user).
    Cannot(String),
}

/// Settings that make a preset fire now.
#[derive(Debug, Clone, PartialEq)]
pub struct Demo {
    pub setting: &'static str,
    /// The lever's value before (`None`: a required setting that was not given).
    pub from: Option<u64>,
    pub to: u64,
    /// The assignments to add: the lever's, and any setting set beside it.
    pub sets: Vec<String>,
    /// The trigger under the new settings.
    pub trigger: Trigger,
}

impl Demo {
    /// What was scaled, in a few words: `demo: context_window 200,000 → 7,300`.
    pub fn short(&self) -> String {
        let from = match self.from {
            Some(v) => crate::text::thousands(v),
            None => "unset".into(),
        };
        format!(
            "demo: {} {from} → {}",
            self.setting,
            crate::text::thousands(self.to)
        )
    }

    /// One line for the user: what was scaled, from what, to what.
    pub fn said(&self, preset: &str) -> String {
        let from = match self.from {
            Some(v) => crate::text::thousands(v),
            None => "unset".into(),
        };
        format!(
            "demo: {} {from} → {} so {preset} fires ({} {} vs threshold {})",
            self.setting,
            crate::text::thousands(self.to),
            crate::text::thousands(self.trigger.value),
            self.trigger.measure,
            crate::text::thousands(self.trigger.threshold),
        )
    }
}

/// Plans at most this many times before giving up.
const MAX_PLANS: usize = 48;

/// The settings to add to `sets` so that `preset` fires on `input`.
pub fn fit(input: &PlanInput, preset: &dyn Preset, sets: &[String]) -> Result<Fit, PlanError> {
    fit_until(input, preset, sets, &|| false)
}

/// [`fit`], given up (`PlanError::Stopped`) before any plan once `stopped()` says so: the
/// search plans up to `MAX_PLANS` times, a minute on a large session.
pub fn fit_until(
    input: &PlanInput,
    preset: &dyn Preset,
    sets: &[String],
    stopped: &dyn Fn() -> bool,
) -> Result<Fit, PlanError> {
    // Settings the user gave are checked first: a bad one is the user's error, not the search's.
    let given = Settings::resolve(preset.name(), preset.params(), sets)?;
    let before = preset.plan(input, &given);
    if matches!(&before, Ok(p) if p.trigger.fired) {
        return Ok(Fit::Fires);
    }
    let Some(lever) = lever_of(preset.name()) else {
        return Ok(Fit::Cannot(format!(
            "{} has no setting that scales its trigger",
            preset.name()
        )));
    };
    let from = given
        .int(lever.setting)
        .filter(|v| *v > 0)
        .map(|v| v as u64);
    let top = from.unwrap_or_else(|| match lever.unset {
        Unset::Window => input.window.max(1),
        Unset::Tokens => (input.real_tokens() as u64).saturating_mul(4).max(16),
        Unset::Count => input.session.messages.len() as u64 + 1,
    });
    let from = from.or((lever.unset == Unset::Window).then_some(top));
    let mut search = Search {
        input,
        preset,
        sets,
        lever,
        in_force: &given,
        plans: 0,
        stopped,
    };
    // A trigger proportional to the lever fires at about value / threshold of it.
    let guess = match &before {
        Ok(p) if p.trigger.threshold > 0 && p.trigger.value > 0 => {
            let ratio = p.trigger.value as f64 / p.trigger.threshold as f64;
            round2(((top as f64) * ratio * 0.8) as u64).clamp(1, top)
        }
        _ => top,
    };
    let Some((mut at, mut trigger)) = search.down_from(guess)? else {
        return Ok(Fit::Cannot(format!(
            "no value of {} makes {} fire on this session",
            lever.setting,
            preset.name()
        )));
    };
    // Up while it still fires, so the threshold stays as near the session as a step allows.
    while let Some(next) = up(at).filter(|&n| n < top) {
        match search.fires(next)? {
            Some(t) => (at, trigger) = (next, t),
            None => break,
        }
    }
    Ok(Fit::Scaled(Demo {
        setting: lever.setting,
        from,
        to: at,
        sets: search.assignments(at),
        trigger,
    }))
}

struct Search<'a, 'b> {
    input: &'a PlanInput<'b>,
    preset: &'a dyn Preset,
    sets: &'a [String],
    lever: Lever,
    /// The settings given, defaults resolved.
    in_force: &'a Settings,
    plans: usize,
    stopped: &'a dyn Fn() -> bool,
}

impl Search<'_, '_> {
    /// The lever's assignment at `v`, and the one beside it unless the user gave that.
    fn assignments(&self, v: u64) -> Vec<String> {
        let mut out = vec![format!("{}={v}", self.lever.setting)];
        if let Some(b) = self.lever.beside {
            let given = self.sets.iter().any(|s| {
                s.split_once('=')
                    .is_some_and(|(k, _)| k.trim() == b.setting)
            });
            let value = match b.of {
                Of::Lever(divisor) => Some(v / divisor),
                Of::Tail(divisor) => {
                    let tail = self.input.session.messages.len() as u64 / divisor;
                    let now = self.in_force.int(b.setting).map_or(u64::MAX, |n| n as u64);
                    (tail < now).then_some(tail)
                }
            };
            if let Some(value) = value.filter(|_| !given) {
                out.push(format!("{}={}", b.setting, value.max(1)));
            }
        }
        out
    }

    /// The trigger at lever value `v` when it fires; a plan the preset refuses at `v` (a value
    /// out of its range) does not fire.
    fn fires(&mut self, v: u64) -> Result<Option<Trigger>, PlanError> {
        if (self.stopped)() {
            return Err(PlanError::Stopped);
        }
        self.plans += 1;
        let mut sets = self.sets.to_vec();
        sets.extend(self.assignments(v));
        let settings = Settings::resolve(self.preset.name(), self.preset.params(), &sets)?;
        Ok(match self.preset.plan(self.input, &settings) {
            Ok(plan) => plan.trigger.fired.then_some(plan.trigger),
            Err(PlanError::Setting(_) | PlanError::Invalid { .. }) => None,
            Err(e) => return Err(e),
        })
    }

    /// The first value from `start` down, by steps of a fifth, that fires.
    fn down_from(&mut self, start: u64) -> Result<Option<(u64, Trigger)>, PlanError> {
        let mut v = start;
        while v >= 1 && self.plans < MAX_PLANS {
            if let Some(t) = self.fires(v)? {
                return Ok(Some((v, t)));
            }
            v = down(v);
        }
        Ok(None)
    }
}

/// A fifth down, to two significant digits; by one below 20; 0 after 1.
fn down(v: u64) -> u64 {
    if v < 20 {
        return v - 1;
    }
    round2(v * 4 / 5).min(v - 1)
}

/// A quarter up, to two significant digits; by one below 20.
fn up(v: u64) -> Option<u64> {
    if v < 20 {
        return Some(v + 1);
    }
    let next = round2(v.checked_mul(5)? / 4);
    Some(next.max(v + 1))
}

/// `v` rounded down to two significant digits (123,456 → 120,000).
fn round2(v: u64) -> u64 {
    let mut scale = 1;
    while v / scale >= 100 {
        scale *= 10;
    }
    (v / scale) * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_a_fifth_down_and_a_quarter_up_at_two_digits() {
        assert_eq!(down(200_000), 160_000);
        assert_eq!(down(25), 20);
        assert_eq!(down(20), 16);
        assert_eq!(down(5), 4);
        assert_eq!(down(1), 0);
        assert_eq!(up(160_000), Some(200_000));
        assert_eq!(up(5), Some(6));
        assert_eq!(up(20), Some(25));
        assert_eq!(round2(123_456), 120_000);
    }

    #[test]
    fn every_preset_has_a_lever_it_declares() {
        for p in crate::compaction::presets::all() {
            let l = lever_of(p.name()).unwrap_or_else(|| panic!("{} has no lever", p.name()));
            for name in [Some(l.setting), l.beside.map(|b| b.setting)]
                .into_iter()
                .flatten()
            {
                assert!(
                    p.params().iter().any(|s| s.name == name),
                    "{}: {name} is not one of its settings",
                    p.name()
                );
            }
        }
    }

    fn demo_session() -> crate::analysis::Analysis {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl");
        let session = crate::formats::load_path(&path, None).unwrap();
        crate::analysis::Analysis::new(
            session,
            &crate::tokens::Registry::bundled(),
            &crate::analysis::Options::default(),
        )
    }

    /// On a 5K-token session with a 200K window, every preset either fires as it is or is
    /// scaled until it does, and the plan under the settings found fires.
    #[test]
    fn every_preset_fires_on_a_small_session_once_scaled() {
        let a = demo_session();
        let input = PlanInput::new(&a);
        let mut scaled = 0;
        for p in crate::compaction::presets::all() {
            let fit = fit(&input, p, &[]).unwrap();
            let sets = match &fit {
                Fit::Fires => Vec::new(),
                Fit::Scaled(d) => {
                    scaled += 1;
                    assert!(d.to < d.from.unwrap_or(u64::MAX), "{}: {d:?}", p.name());
                    assert!(d.trigger.fired);
                    d.sets.clone()
                }
                Fit::Cannot(why) => panic!("{}: {why}", p.name()),
            };
            let plan = crate::compaction::preset::run(p, &input, &sets).unwrap();
            assert!(plan.trigger.fired, "{} under {sets:?}", p.name());
        }
        assert!(scaled >= 10, "only {scaled} presets needed scaling");
    }

    /// The search asks before each plan whether to go on, and stops when told.
    #[test]
    fn the_search_stops_before_its_next_plan_when_told() {
        let a = demo_session();
        let input = PlanInput::new(&a);
        let dimos = crate::compaction::presets::find("dimos").unwrap();
        let asked = std::cell::Cell::new(0);
        let stop_at_second = || {
            asked.set(asked.get() + 1);
            asked.get() >= 2
        };
        let stopped = fit_until(&input, dimos, &[], &stop_at_second);
        assert!(matches!(stopped, Err(PlanError::Stopped)), "{stopped:?}");
        assert_eq!(asked.get(), 2);
        // Never told: the same search as `fit`, asking once a plan.
        asked.set(0);
        let whole = fit_until(&input, dimos, &[], &|| {
            asked.set(asked.get() + 1);
            false
        });
        assert_eq!(whole.unwrap(), fit(&input, dimos, &[]).unwrap());
        assert!(asked.get() > 2, "{}", asked.get());
    }

    /// The window found keeps the session within a quarter above the threshold: the step
    /// above it does not fire.
    #[test]
    fn the_window_found_is_the_largest_step_that_fires() {
        let a = demo_session();
        let input = PlanInput::new(&a);
        let dimos = crate::compaction::presets::find("dimos").unwrap();
        let Fit::Scaled(d) = fit(&input, dimos, &[]).unwrap() else {
            panic!("dimos fires on a 5K session at 200K");
        };
        assert_eq!(d.setting, "context_window");
        assert_eq!(d.from, Some(a.window));
        let above = vec![format!("context_window={}", up(d.to).unwrap())];
        let plan = crate::compaction::preset::run(dimos, &input, &above).unwrap();
        assert!(!plan.trigger.fired, "{d:?}");
        assert!(
            d.trigger.value as f64 <= d.trigger.threshold as f64 * 1.6,
            "{d:?}"
        );
    }

    #[test]
    fn a_preset_that_fires_is_left_alone_and_a_bad_setting_is_the_users_error() {
        let a = demo_session();
        let input = PlanInput::new(&a);
        let af = crate::compaction::presets::find("agent-framework").unwrap();
        assert_eq!(fit(&input, af, &[]).unwrap(), Fit::Fires);
        let bad = vec!["no_such_setting=1".to_string()];
        assert!(fit(&input, af, &bad).is_err());
    }
}
