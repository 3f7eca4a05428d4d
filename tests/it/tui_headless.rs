//! The inspector's real event loop, headless (`support::headless`): keys go in as terminal
//! events, the work they ask for runs on the executor's threads, and the test waits for the
//! screen to show the answer.

use ctxray::compaction::presets;
use std::path::Path;
use std::time::Duration;

use crate::support::headless::Headless;
use crossterm::event::KeyCode;
use ctxray::tui::runtime::Exit;

const WITHIN: Duration = Duration::from_secs(30);

fn demo(preset: &str, sets: &[&str]) -> Headless {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/samples/claude-code-demo.jsonl");
    Headless::open(&path, Some(preset), sets, 120, 30)
}

#[test]
fn keys_reach_the_loop_the_plan_comes_from_a_job_and_q_quits() {
    let mut ui = demo("dimos", &["context_window=6000"]);
    ui.wait_for("dimos fires", WITHIN);
    assert!(ui.screen().contains("cut: summarized above"));
    ui.type_keys("jjj");
    ui.wait_for("4 of 23", WITHIN);
    ui.type_keys("q");
    assert_eq!(ui.wait_exit(WITHIN), Exit::Quit);
}

#[test]
fn presets_switched_in_a_burst_end_on_the_last_ones_plan() {
    let names: Vec<&str> = presets::all().iter().map(|p| p.name()).collect();
    let at = names.iter().position(|n| *n == "custom").unwrap();
    let mut ui = demo("custom", &[]);
    ui.wait_for("custom", WITHIN);
    // Three presses at once: the loop applies them all before it draws, and the plans asked
    // for on the way are replaced by the last one.
    ui.type_keys("ppp");
    // `p` cycles through no preset and then every preset, in order.
    let next = (at + 1 + 3) % (names.len() + 1);
    let last = next.checked_sub(1).map(|i| names[i]);
    let header = match last {
        Some(name) => format!(" {name}"),
        None => "no preset".to_string(),
    };
    ui.wait_until(
        &header,
        |s| s.contains(&header) && !s.contains("planning…"),
        WITHIN,
    );
    ui.type_keys("q");
    assert_eq!(ui.wait_exit(WITHIN), Exit::Quit);
}

#[test]
fn c_compacts_through_a_job_and_esc_walks_back() {
    let mut ui = demo("dimos", &["context_window=6000"]);
    ui.wait_for("dimos fires", WITHIN);
    ui.type_keys("c");
    ui.wait_for("compaction 1 · dimos · summarizer offline", WITHIN);
    // Esc leaves the result for the compacted history's messages, then for the history before.
    ui.key(KeyCode::Esc);
    ui.wait_until(
        "the compacted history",
        |s| !s.contains("summarizer offline") && s.contains("[compacted history]"),
        WITHIN,
    );
    ui.key(KeyCode::Esc);
    ui.wait_until(
        "the history before",
        |s| s.contains("1 of 23") && !s.contains("compaction 1 ·"),
        WITHIN,
    );
    ui.type_keys("q");
    assert_eq!(ui.wait_exit(WITHIN), Exit::Quit);
}

#[test]
fn the_detail_pane_scrolls_no_further_than_its_content_and_says_where_it_is() {
    let mut ui = demo("dimos", &["context_window=6000"]);
    ui.wait_for("dimos fires", WITHIN);
    // The summarizer input is longer than the pane.
    ui.type_keys("s");
    ui.wait_until(
        "a position",
        |s| position(s).is_some_and(|p| p.0 == 1),
        WITHIN,
    );
    ui.key(KeyCode::Tab);
    ui.type_keys("G");
    let at_end = |s: &str| position(s).is_some_and(|(_, last, of)| last == of);
    ui.wait_until("the last row at the bottom", at_end, WITHIN);
    let (first, last, of) = position(&ui.screen()).unwrap();
    assert!(first > 1, "{}", ui.screen());
    // One row up is one row up: G did not scroll past the end.
    ui.type_keys("k");
    let up = Some((first - 1, last - 1, of));
    ui.wait_until("one row up", |s| position(s) == up, WITHIN);
    ui.type_keys("q");
    assert_eq!(ui.wait_exit(WITHIN), Exit::Quit);
}

/// The detail pane's `rows A–B of N`.
fn position(screen: &str) -> Option<(u32, u32, u32)> {
    let rest = &screen[screen.find(" rows ")? + 6..];
    let (first, rest) = rest.split_once('–')?;
    let (last, rest) = rest.split_once(" of ")?;
    let of: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((first.parse().ok()?, last.parse().ok()?, of.parse().ok()?))
}
