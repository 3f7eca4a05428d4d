//! The binary in a real pseudo-terminal (util-linux `script`): it enters the alternate
//! screen, obeys keys, quits on `q` with status 0 and leaves the terminal as it found it.

use crate::support;
use crate::support::pty::Pty;

use std::io::Write;
use std::process::Command;
use std::time::Duration;

/// How long a step waits for the screen it needs (a safety net: a step moves on as soon as the
/// text shows).
const SHOWN_WITHIN: Duration = Duration::from_secs(30);

/// The same safety net for the steps that wait on a whole 40 MB file being read and drawn: on a
/// machine whose cores other work holds, that alone can take most of `SHOWN_WITHIN`.
const READ_WITHIN: Duration = Duration::from_secs(150);

/// Runs the binary in a 120×30 pseudo-terminal; for each step, waits until the screen shows
/// its text (none: at once), then types its keys. Then waits at most 10 s for the program to
/// end by itself.
fn run_in_pty(args: &str, steps: &[(&str, &str)]) -> (Option<i32>, Vec<u8>, Duration) {
    run_in_pty_with(&[], args, steps)
}

/// Runs the binary with `vars` added to its environment.
fn run_in_pty_with(
    vars: &[(&str, &str)],
    args: &str,
    steps: &[(&str, &str)],
) -> (Option<i32>, Vec<u8>, Duration) {
    let mut pty = Pty::start_env(vars, "", 120, 30, args);
    for (shown, keys) in steps {
        if !shown.is_empty() {
            pty.wait_for(shown, SHOWN_WITHIN);
        }
        pty.send(keys);
    }
    let (code, took) = pty.wait_exit(Duration::from_secs(10));
    (code, pty.output(), took)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Whether `needle` was on the screen after any frame: the output is played into a terminal
/// emulator of the pty's size and its screen read at the end of each frame (every draw ends by
/// hiding the cursor, or showing it where the picker's prompt is). Text drawn as differences from the frame before is only
/// whole on the screen, not in the byte stream.
fn shown(out: &[u8], needle: &str) -> bool {
    first_frame(out, needle).is_some()
}

/// The number of the first frame whose screen held `needle`.
fn first_frame(out: &[u8], needle: &str) -> Option<usize> {
    frame_where(out, |screen| screen.contains(needle))
}

/// The number of the first frame whose screen (as text) satisfies `test`.
fn frame_where(out: &[u8], test: impl Fn(&str) -> bool) -> Option<usize> {
    screens(out).iter().position(|s| test(s))
}

/// The screen after each frame, as text.
fn screens(out: &[u8]) -> Vec<String> {
    let mut term = vt100::Parser::new(30, 120, 0);
    let is_end = |w: &[u8]| w == b"\x1b[?25l" || w == b"\x1b[?25h";
    let mut at = 0;
    let mut all = Vec::new();
    while at < out.len() {
        let end = out[at..]
            .windows(6)
            .position(is_end)
            .map_or(out.len(), |p| at + p + 6);
        term.process(&out[at..end]);
        all.push(term.screen().contents());
        at = end;
    }
    all
}

#[test]
fn esc_never_quits_from_the_top_and_q_does() {
    let steps = [
        ("dimos", "\x1b"),
        // Still there, and still answering keys.
        ("at the top: q quits", "j"),
        ("2 of 23", "q"),
    ];
    let (code, out, _) = run_in_pty(
        "fixtures/samples/claude-code-demo.jsonl --preset dimos",
        &steps,
    );
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
}

#[test]
fn settings_given_for_a_preset_are_kept_across_p() {
    let steps = [
        ("dimos fires", "p"),
        (" codex: ", "P"),
        ("dimos fires", "q"),
    ];
    let (code, out, _) = run_in_pty(
        "fixtures/samples/claude-code-demo.jsonl --preset dimos --set context_window=6000",
        &steps,
    );
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
}

#[test]
fn opens_moves_and_quits_restoring_the_terminal() {
    let mut pty = Pty::start(
        "fixtures/samples/claude-code-demo.jsonl --preset dimos --set context_window=6000",
    );
    for (shown, keys) in [("dimos fires", "jjj"), ("4 of 23", "?"), ("┌ keys", "\x1b")] {
        pty.wait_for(shown, SHOWN_WITHIN);
        pty.send(keys);
    }
    // (An Esc and the next key typed together read as Alt and that key.)
    pty.wait_until("the help closed", |s| !s.contains("┌ keys"), SHOWN_WITHIN);
    pty.send("p");
    for (shown, keys) in [
        (" codex: ", "d"),
        ("evidence survival", "/Write\r"),
        ("/Write 1 of", "q"),
    ] {
        pty.wait_for(shown, SHOWN_WITHIN);
        pty.send(keys);
    }
    let (code, _) = pty.wait_exit(Duration::from_secs(10));
    let out = pty.output();
    assert_eq!(
        code,
        Some(0),
        "did not quit on q: {}",
        String::from_utf8_lossy(&out)
    );
    assert!(
        contains(&out, b"\x1b[?1049h"),
        "never entered the alternate screen"
    );
    assert!(
        contains(&out, b"\x1b[?1049l"),
        "did not leave the alternate screen"
    );
    assert!(shown(&out, "claude-code"), "header not drawn");
    assert!(shown(&out, "cut: summarized above"), "cut rule not drawn");
    assert!(shown(&out, "keys"), "help overlay not drawn");
    // `p` moved from dimos to the next preset, `d` opened its diff, `/Write` found a match.
    assert!(shown(&out, "codex"), "the preset did not change");
    assert!(shown(&out, "evidence survival"), "diff view not drawn");
    assert!(shown(&out, "/Write 1 of"), "search status not drawn");
    let leave = out.windows(8).rposition(|w| w == b"\x1b[?1049l").unwrap();
    let enter = out.windows(8).rposition(|w| w == b"\x1b[?1049h").unwrap();
    assert!(
        leave > enter,
        "the last alternate-screen switch must be the way out"
    );
}

#[test]
fn a_broken_file_never_enters_the_screen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    std::fs::write(&path, "{ this is not json").unwrap();
    let (code, out, _) = run_in_pty(path.to_str().unwrap(), &[]);
    assert_eq!(code, Some(2));
    assert!(!contains(&out, b"\x1b[?1049h"));
    assert!(shown(&out, "broken.json"));
}

#[test]
fn follow_shows_a_line_appended_while_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.jsonl");
    let first = r#"{"type":"user","sessionId":"s1","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hello there"}}"#;
    std::fs::write(&path, format!("{first}\n")).unwrap();
    let appended = r#"{"type":"user","sessionId":"s1","uuid":"u2","parentUuid":"u1","timestamp":"2026-01-01T00:00:05Z","message":{"role":"user","content":"APPENDED-MARKER-XYZ"}}"#;
    let mut pty = Pty::start(&format!("{} --follow", path.display()));
    pty.wait_for("hello there", SHOWN_WITHIN);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    // Half a line first: nothing may show until the newline lands.
    f.write_all(&appended.as_bytes()[..20]).unwrap();
    f.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(!pty.screen().contains("APPENDED"), "half a line was shown");
    f.write_all(format!("{}\n", &appended[20..]).as_bytes())
        .unwrap();
    pty.wait_for("APPENDED-MARKER-XYZ", SHOWN_WITHIN);
    pty.send("q");
    let (code, _) = pty.wait_exit(Duration::from_secs(10));
    let out = pty.output();
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    assert!(shown(&out, "following"), "no follow indicator");
    assert!(
        shown(&out, "APPENDED-MARKER-XYZ"),
        "the appended message never showed"
    );
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sigterm-target-4711.jsonl");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl"),
        &path,
    )
    .unwrap();
    let mut pty = Pty::start(path.to_str().unwrap());
    pty.wait_for("claude-code", SHOWN_WITHIN);
    let killed = {
        // The binary itself, not the `script` or shell whose command line names the file too.
        let out = Command::new("pgrep")
            .args(["-f", "sigterm-target-4711"])
            .output()
            .expect("pgrep");
        let pids: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter(|pid| {
                std::fs::read_to_string(ctxray::procfs::path(format!("{pid}/comm")))
                    .is_ok_and(|c| c.trim() == "ctxray")
            })
            .map(str::to_string)
            .collect();
        !pids.is_empty()
            && pids.iter().all(|pid| {
                Command::new("kill")
                    .args(["-TERM", pid])
                    .status()
                    .is_ok_and(|s| s.success())
            })
    };
    let (code, elapsed) = pty.wait_exit(Duration::from_secs(10));
    let out = pty.output();
    assert!(killed, "no process to signal");
    assert_eq!(code, Some(143), "{}", String::from_utf8_lossy(&out));
    assert!(elapsed < Duration::from_secs(8));
    assert!(contains(&out, b"\x1b[?1049h"));
    let leave = out.windows(8).rposition(|w| w == b"\x1b[?1049l");
    let enter = out.windows(8).rposition(|w| w == b"\x1b[?1049h").unwrap();
    assert!(
        leave.is_some_and(|l| l > enter),
        "alternate screen not left"
    );
    assert!(contains(&out, b"\x1b[?1000l"), "mouse capture not released");
}

#[test]
fn a_session_piped_to_stdin_is_shown_as_it_arrives() {
    let (code, out, _) = run_in_pty(
        "- < fixtures/samples/claude-code-demo.jsonl",
        &[("end of input", "G"), ("23 of 23", "q")],
    );
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    assert!(shown(&out, "<stdin>"), "header not drawn");
    assert!(shown(&out, "23 of 23"), "not every message arrived");
    assert!(
        shown(&out, "end of input"),
        "the end of the pipe was not noticed"
    );
}

#[test]
fn following_an_empty_file_waits_for_its_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").unwrap();
    let line = r#"{"type":"user","sessionId":"s1","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"FIRST-RECORD-MARKER"}}"#;
    let mut pty = Pty::start(&format!("{} --follow", path.display()));
    pty.wait_for("waiting for the first record", SHOWN_WITHIN);
    std::fs::write(&path, format!("{line}\n")).unwrap();
    pty.wait_for("FIRST-RECORD-MARKER", SHOWN_WITHIN);
    pty.send("q");
    let (code, _) = pty.wait_exit(Duration::from_secs(10));
    let out = pty.output();
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    assert!(shown(&out, "waiting for the first record"));
    assert!(shown(&out, "FIRST-RECORD-MARKER"));
}

#[test]
fn without_a_source_the_picker_opens_a_session_and_esc_comes_back() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-home-dev-demo");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/samples/claude-code-demo.jsonl"),
        project.join("picked-demo.jsonl"),
    )
    .unwrap();
    std::fs::write(project.join("broken.jsonl"), "not json\n").unwrap();
    let home_str = home.path().to_str().unwrap();
    let (code, out, _) = run_in_pty_with(
        &[("HOME", home_str), ("CLAUDE_CONFIG_DIR", "")],
        "",
        &[
            ("found 2 sessions", "broken\r"),
            ("not a session", "\x15picked\r"),
            ("5,077", "\x1b"),
            ("found 2 sessions", "\x1b"),
            ("type to filter", "\x1b"),
        ],
    );
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    assert!(
        shown(&out, "found 2 sessions"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    assert!(
        shown(&out, "not a session"),
        "a broken pick did not say why"
    );
    assert!(shown(&out, "5,077"), "the picked session was not opened");
}

/// `run_in_pty_with` off the async runtime, so a test server keeps answering meanwhile.
async fn run_in_pty_async(
    vars: Vec<(&'static str, String)>,
    args: String,
    keys: Vec<(&'static str, &'static str)>,
) -> (Option<i32>, Vec<u8>) {
    tokio::task::spawn_blocking(move || {
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (code, out, _) = run_in_pty_with(&vars, &args, &keys);
        (code, out)
    })
    .await
    .unwrap()
}

const KEY: &str = "sk-test-pty-0123456789abcdef";

#[tokio::test(flavor = "multi_thread")]
async fn c_streams_a_network_summary_onto_the_screen_then_shows_the_result() {
    use support::http_server::{Reply, TestServer};
    let deltas = ["STREAMED-FIRST ", "words, then ", "STREAMED-LAST."];
    // A pause before the last delta: the first words are on screen before the summary ends.
    let reply = Reply::sse(&support::wire::openai_events(&deltas))
        .wait_before(3, Duration::from_millis(1500));
    let server = TestServer::start(vec![reply]).await;
    let args = format!(
        "fixtures/samples/claude-code-demo.jsonl --preset custom --set trigger_tokens=1000 \
         --summarizer openai --base-url {}/v1 --summarizer-model gpt-test",
        server.url()
    );
    let (code, out) = run_in_pty_async(
        vec![("OPENAI_API_KEY", KEY.to_string())],
        args,
        vec![("custom fires", "c"), ("freed", "q")],
    )
    .await;
    let text = String::from_utf8_lossy(&out);
    assert_eq!(code, Some(0), "{text}");
    // The screen is written as differences from the last frame: look for runs of new cells.
    let writing = text
        .find("writing the custom summary")
        .expect("no writing view");
    let first = text
        .find("STREAMED-FIRST")
        .expect("first delta never shown");
    let result = text.find("freed").expect("no result view");
    assert!(writing < result && first < result, "{text}");
    assert!(text.contains("openai:gpt-test-2025-01-01"), "{text}");
    assert!(!text.contains(KEY));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn esc_stops_a_summary_that_never_comes_and_closes_the_connection() {
    use support::http_server::{Reply, TestServer};
    let server = TestServer::start(vec![Reply::silent()]).await;
    let args = format!(
        "fixtures/samples/claude-code-demo.jsonl --preset custom --set trigger_tokens=1000 \
         --summarizer openai --base-url {}/v1",
        server.url()
    );
    let (code, out) = run_in_pty_async(
        vec![("OPENAI_API_KEY", KEY.to_string())],
        args,
        vec![
            ("custom fires", "c"),
            ("waiting for the first words", "\x1b"),
            ("cancelled, the history is unchanged", "q"),
        ],
    )
    .await;
    let text = String::from_utf8_lossy(&out);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("waiting for the first words"), "{text}");
    assert!(
        text.contains("cancelled, the history is unchanged"),
        "{text}"
    );
    assert!(!text.contains("compaction 1"), "{text}");
    assert!(
        server.closed_within(0, Duration::from_secs(3)).await,
        "the connection stayed open"
    );
}

#[test]
fn r_plays_the_replay_and_brackets_step_it() {
    // 14 exchanges of 1,000-token messages under custom, trigger 6,500: 15 check points, the
    // first compaction before record 7 (tests/it/tui_replay.rs works it out).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chat.json");
    let counter = ctxray::tokens::Counter::new(ctxray::tokens::Encoding::O200kBase);
    let text = ctxray::replay::filler::summary_of(1000, &counter);
    let messages: Vec<serde_json::Value> = (0..14)
        .flat_map(|_| {
            [
                serde_json::json!({"role": "user", "content": text}),
                serde_json::json!({"role": "assistant", "content": text}),
            ]
        })
        .collect();
    let session = serde_json::json!({"model": "gpt-4o", "messages": messages});
    std::fs::write(&path, session.to_string()).unwrap();
    let args = format!(
        "{} --window 128000 --preset custom --set trigger_tokens=6500 --set keep_last=2",
        path.display()
    );
    // r plays at 2 steps a second; End stops at the last step, Home goes back to the first,
    // `]` steps to the second; q leaves the replay, the second q quits.
    let (code, out, _) = run_in_pty(
        &args,
        &[
            ("1 of 28", "r"),
            // It moves by itself before End is pressed.
            ("step 3/15 ", "\x1b[F"),
            ("step 15/15 ", "\x1b[H"),
            ("step 1/15 ", "]"),
            ("step 2/15 ", "q"),
            ("1 of 28 · p preset", "q"),
        ],
    );
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    let moved = frame_where(&out, |s| {
        s.contains("▶ playing · 2 steps/s") && !s.contains("step 1/15 ") && s.contains("replay ")
    });
    assert!(moved.is_some(), "the animation never advanced by itself");
    let end = frame_where(&out, |s| {
        s.contains("step 15/15 · record #28 (the next request)")
    });
    let stepped = frame_where(&out, |s| {
        s.contains("step 2/15 · record #3 · ") && s.contains("‖ paused")
    });
    assert!(end.is_some(), "End did not reach the last step");
    assert!(stepped > end, "] after Home did not show step 2, paused");
    assert!(
        frame_where(&out, |s| s.contains("⇣ compaction 1 · step 4 · record #7")).is_some(),
        "the first compaction was never listed"
    );
    // After q the inspector is back (its list and footer), and the next q quit.
    let all = screens(&out);
    let last_replay = all.iter().rposition(|s| s.contains("‖ paused")).unwrap();
    assert!(
        all[last_replay..]
            .iter()
            .any(|s| s.contains("1 of 28 · p preset")),
        "q did not leave the replay for the inspector"
    );
}

#[test]
fn a_large_file_is_shown_while_it_is_read_and_ends_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.jsonl");
    let base = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/claude-code/mixed.jsonl"),
    )
    .unwrap();
    let mut content = Vec::new();
    while content.len() < 40 << 20 {
        content.extend_from_slice(&base);
    }
    let last = r#"{"type":"user","sessionId":"s1","uuid":"u-last","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"LAST-LINE-MARKER"}}"#;
    content.extend_from_slice(format!("{last}\n").as_bytes());
    std::fs::write(&path, content).unwrap();
    let args = path.display().to_string();
    let mut pty = Pty::start(&args);
    // Any frame drawn while the file was read: the last screen may already be past it.
    pty.wait_drawn("reading ", READ_WITHIN);
    pty.wait_until(
        "the whole file read",
        |screen| !screen.contains("reading ") && screen.contains(" of "),
        READ_WITHIN,
    );
    pty.send("G");
    pty.wait_for("LAST-LINE-MARKER", READ_WITHIN);
    pty.send("q");
    let (code, _) = pty.wait_exit(Duration::from_secs(30));
    let out = pty.output();
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    let screens = screens(&out);
    let reading = screens.iter().position(|s| s.contains("reading "));
    assert!(
        reading.is_some(),
        "the header never said the file was being read"
    );
    let end = screens
        .iter()
        .position(|s| s.contains("LAST-LINE-MARKER"))
        .expect("the last line never showed");
    assert!(reading < Some(end));
    assert!(!screens[end].contains("reading "), "{}", screens[end]);
}

#[test]
fn escape_sequences_in_tool_output_are_shown_and_do_not_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("escapes.json");
    let doc = serde_json::json!({"messages": [
        {"role": "user", "content": "build it"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "shell", "arguments": "{\"cmd\": \"npm i\"}"}}]},
        // Hides the cursor, clears the screen and sets the title, were it written raw.
        {"role": "tool", "tool_call_id": "c1",
            "content": "\u{1b}[?25l\u{1b}[2J\u{1b}]0;pwned\u{7}progress done"},
    ]});
    std::fs::write(&path, doc.to_string()).unwrap();
    let steps = [("build it", "jj"), ("progress done", "q")];
    let (code, out, _) = run_in_pty(&path.display().to_string(), &steps);
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&out));
    assert!(shown(&out, "␛[?25l␛[2J␛]0;pwned␇progress done"));
    assert!(
        !contains(&out, b"pwned\x07"),
        "the title sequence reached the terminal"
    );
    assert!(
        !contains(&out, b"\x1b[2J\x1b]0"),
        "the clear reached the terminal"
    );
}

/// `--demo` opens with the preset scaled until it fires, says so, and `w` puts its own
/// settings back; switching preset in demo mode scales the next one too.
#[test]
fn demo_mode_makes_the_preset_fire_and_w_undoes_it() {
    let mut pty = Pty::start("fixtures/samples/claude-code-demo.jsonl --preset dimos --demo");
    pty.wait_for("dimos: fires", SHOWN_WITHIN);
    pty.wait_for("demo: context_window 200,000 → 7,300", SHOWN_WITHIN);
    pty.send("w");
    pty.wait_for(
        "dimos: does not fire · fires at 160,000 tokens — 27× this session",
        SHOWN_WITHIN,
    );
    pty.wait_for("demo off", SHOWN_WITHIN);
    pty.send("w");
    pty.wait_for("dimos: fires", SHOWN_WITHIN);
    pty.send("p");
    pty.wait_for("codex: fires", SHOWN_WITHIN);
    pty.wait_for("demo: context_window 200,000 → 5,600", SHOWN_WITHIN);
    pty.send("q");
    let (code, _) = pty.wait_exit(Duration::from_secs(10));
    assert_eq!(code, Some(0));
}

/// The first run shows the legend; the next does not, and `L` brings it back.
#[test]
fn the_legend_shows_on_a_first_run_and_l_toggles_it() {
    let state = tempfile::tempdir().unwrap();
    let dir = state.path().to_str().unwrap();
    let args = "fixtures/samples/claude-code-demo.jsonl";
    let legend = "out = output tokens the provider reported";
    let mut first = Pty::start_env(&[("CTXRAY_STATE_DIR", dir)], "", 150, 40, args);
    first.wait_for(legend, SHOWN_WITHIN);
    first.send("L");
    first.wait_until("the legend hidden", |s| !s.contains(legend), SHOWN_WITHIN);
    first.send("q");
    assert_eq!(first.wait_exit(Duration::from_secs(10)).0, Some(0));
    let mut next = Pty::start_env(&[("CTXRAY_STATE_DIR", dir)], "", 150, 40, args);
    next.wait_for("1 of 23", SHOWN_WITHIN);
    assert!(!next.screen().contains(legend), "{}", next.screen());
    next.send("L");
    next.wait_for(legend, SHOWN_WITHIN);
    next.send("q");
    assert_eq!(next.wait_exit(Duration::from_secs(10)).0, Some(0));
}

/// At a step of a replay, `s` opens the history the preset checked there with its summarizer
/// input, `d` its diff, Enter the history its compaction left; Esc comes back to the replay at
/// the same step each time.
#[test]
fn a_replay_step_opens_its_summarizer_input_diff_and_the_history_it_left() {
    let steps = [
        ("1 of 23", "r"),
        ("step 1/10 ", "\x1b[F"),
        ("step 10/10 ", "s"),
        ("replay step 10 (Esc: replay)", ""),
        // Esc: the detail back to the message, then back to the replay.
        ("summarizer request of custom", "\x1b"),
    ];
    let mut pty = Pty::start(
        "fixtures/samples/claude-code-demo.jsonl --preset custom --set trigger_tokens=1500",
    );
    for (shown, keys) in steps {
        pty.wait_for(shown, SHOWN_WITHIN);
        pty.send(keys);
    }
    pty.wait_until(
        "the summarizer view closed",
        |s| !s.contains("summarizer request of custom"),
        SHOWN_WITHIN,
    );
    pty.send("\x1b");
    pty.wait_for("step 10/10 ", SHOWN_WITHIN);
    pty.send("d");
    pty.wait_for("evidence survival", SHOWN_WITHIN);
    pty.wait_for("replay step 10 (Esc: replay)", SHOWN_WITHIN);
    pty.send("\x1b");
    pty.wait_until(
        "the diff closed",
        |s| !s.contains("evidence survival"),
        SHOWN_WITHIN,
    );
    pty.send("\x1b");
    pty.wait_for("step 10/10 ", SHOWN_WITHIN);
    pty.send("\r");
    pty.wait_for("compaction 7 · custom · summarizer offline", SHOWN_WITHIN);
    pty.wait_for("1 of 11", SHOWN_WITHIN);
    pty.send("q");
    let (code, _) = pty.wait_exit(Duration::from_secs(10));
    assert_eq!(code, Some(0));
}
