//! The replay player (`r`): the session's replay under the active preset and settings, played
//! step by step as an animation — where it stands, whether it plays, how fast.
//!
//! Owns: `Player` and its pure transitions (enter, keys, the clock's ticks, a replay computed
//! apart arriving). Must not: sleep, read the clock or do IO — time comes in as `Msg::Tick`
//! with the elapsed duration, and the replay is run apart (`Effect::Run` of
//! `Work::Replay`), reported back as `Msg::Replayed`. The replay itself is
//! `crate::replay` (pure).

use crate::compaction::presets;
use std::sync::Arc;
use std::time::Duration;

use super::msg::{Effect, Msg};
use super::state::{AppState, RunKey};
use crate::replay::{self, Progress, Replay, Watch};

/// Speeds, in steps per second, are powers of two in this range.
pub const SLOWEST: u32 = 1;
pub const FASTEST: u32 = 1024;
/// The speed a replay starts at plays it whole in about this many seconds (never slower than
/// `START_MIN` steps a second).
const START_SECONDS: usize = 20;
const START_MIN: u32 = 2;

/// A replay being played.
#[derive(Debug, Clone)]
pub struct Player {
    /// The preset, settings and session length it replays.
    pub key: RunKey,
    /// `None` while it is computed apart.
    pub replay: Option<Arc<Replay>>,
    /// Where the replay computed apart stands, once it has said.
    pub progress: Option<Progress>,
    /// Where the animation stands, in steps (fractional while playing); the step shown is its
    /// whole part.
    pub clock: f64,
    pub playing: bool,
    /// Steps a second.
    pub speed: u32,
}

impl Player {
    /// Steps of the replay (0 while it is computed).
    pub fn len(&self) -> usize {
        self.replay.as_ref().map_or(0, |r| r.steps.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The step shown: an index into `Replay::steps`.
    pub fn step(&self) -> usize {
        (self.clock.max(0.0) as usize).min(self.len().saturating_sub(1))
    }

    /// Whether the runtime should send ticks: a computed replay is playing.
    pub fn ticks(&self) -> bool {
        self.playing && self.replay.is_some()
    }

    fn last(&self) -> usize {
        self.len().saturating_sub(1)
    }

    fn jump(&mut self, step: usize) {
        self.clock = step.min(self.last()) as f64;
    }

    fn start(&mut self, r: Replay) {
        self.speed = start_speed(r.steps.len());
        self.replay = Some(Arc::new(r));
        self.clock = 0.0;
        self.playing = true;
    }
}

/// The speed that plays `steps` in about `START_SECONDS`: a power of two.
fn start_speed(steps: usize) -> u32 {
    let wanted = steps.div_ceil(START_SECONDS).max(START_MIN as usize);
    (wanted.next_power_of_two().min(FASTEST as usize)) as u32
}

/// `r`: asks for the replay of the session under the active preset and settings, which plays
/// once it comes back. What refuses shows in the footer.
pub fn enter(state: &mut AppState) {
    if let Some((read, total)) = state.loading {
        state.notice = Some(format!(
            "still reading the session ({}%): the replay waits for all of it",
            read * 100 / total.max(1)
        ));
        return;
    }
    if let Some(s) = &state.summarizing {
        state.notice = Some(format!("{} is still writing (Esc cancels)", s.label));
        return;
    }
    let Some(name) = state.preset.clone() else {
        state.notice = Some("no preset: p chooses one to replay under".into());
        return;
    };
    if state.is_empty() {
        state.notice = Some("nothing to replay: the session has no messages".into());
        return;
    }
    let key = (name, state.sets.clone(), state.len());
    state.ask(super::jobs::Work::Replay(key.clone()));
    let player = Player {
        key,
        replay: None,
        progress: None,
        clock: 0.0,
        playing: false,
        speed: START_MIN,
    };
    state.replay = Some(player);
}

/// The replay of `key` on `analysis`, offline summaries (what the runtime runs apart too),
/// followed by `watch` when given.
pub fn run(
    analysis: &crate::analysis::Analysis,
    key: &RunKey,
    watch: Option<Arc<Watch>>,
) -> Result<Replay, String> {
    let p = presets::find(&key.0).map_err(|e| e.to_string())?;
    let options = replay::Options {
        watch,
        ..replay::Options::default()
    };
    replay::replay(analysis, p, &key.1, &options).map_err(|e| e.to_string())
}

/// The key of the replay being computed apart, if one is.
pub fn computing(state: &AppState) -> Option<RunKey> {
    state
        .replay
        .as_ref()
        .filter(|p| p.replay.is_none())
        .map(|p| p.key.clone())
}

/// Where the replay computed apart stands: shown while it is the one awaited.
pub fn progressed(state: &mut AppState, key: &RunKey, progress: Progress) {
    if let Some(p) = state.replay.as_mut() {
        if &p.key == key && p.replay.is_none() {
            p.progress = Some(progress);
        }
    }
}

fn refused(preset: &str, error: &str) -> String {
    format!("{preset} cannot replay this session: {error}")
}

/// The replay has come back: played when it is the one awaited.
pub fn replayed(state: &mut AppState, key: RunKey, result: Result<Replay, String>) {
    let Some(p) = state.replay.as_mut() else {
        return;
    };
    if p.key != key || p.replay.is_some() {
        return;
    }
    match result {
        Ok(r) => p.start(r),
        Err(e) => {
            state.replay = None;
            state.notice = Some(refused(&key.0, &e));
        }
    }
}

/// The clock: `elapsed` × speed steps further; it stops at the last step.
pub fn tick(state: &mut AppState, elapsed: Duration) {
    let Some(p) = state.replay.as_mut().filter(|p| p.ticks()) else {
        return;
    };
    let end = p.last() as f64;
    p.clock = (p.clock + elapsed.as_secs_f64() * f64::from(p.speed)).min(end);
    if p.clock >= end {
        p.playing = false;
    }
}

/// A key while the replay is open. Esc, `q` and `r` leave it; `?` still shows the help.
pub fn key(state: &mut AppState, msg: Msg) -> Vec<Effect> {
    let Some(p) = state.replay.as_mut() else {
        return Vec::new();
    };
    match msg {
        Msg::Back | Msg::Quit | Msg::Replay => state.replay = None,
        Msg::ToggleHelp => state.show_help = true,
        _ if p.replay.is_none() => {
            state.notice = Some(format!("{} is still replaying (Esc stops it)", p.key.0));
        }
        Msg::PlayPause if p.playing => p.playing = false,
        Msg::PlayPause => {
            // At the end, play again from the start.
            if p.step() >= p.last() {
                p.clock = 0.0;
            }
            p.playing = p.last() > 0;
        }
        Msg::Step(d) => {
            p.playing = false;
            let step = p.step();
            p.jump(if d < 0 {
                step.saturating_sub(1)
            } else {
                step + 1
            });
        }
        Msg::Speed(d) => {
            let speed = if d < 0 { p.speed / 2 } else { p.speed * 2 };
            if (SLOWEST..=FASTEST).contains(&speed) {
                p.speed = speed;
            } else {
                state.notice = Some(format!("{} steps/s is as far as it goes", p.speed));
            }
        }
        // Home keeps playing from the start; End stops at the last step.
        Msg::Top => p.clock = 0.0,
        Msg::Bottom => {
            p.playing = false;
            p.jump(usize::MAX);
        }
        _ => {
            state.notice = Some(
                "replay: space pause · [ ] step · < > speed · s d Enter open the step · Esc leaves"
                    .into(),
            );
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_speed_plays_any_replay_in_about_twenty_seconds() {
        assert_eq!(start_speed(1), 2);
        assert_eq!(start_speed(40), 2);
        assert_eq!(start_speed(41), 4);
        assert_eq!(start_speed(2_000), 128);
        assert_eq!(start_speed(10_000_000), FASTEST);
    }
}
