//! Session discovery over fake homes: which sessions are found, in what order, with which titles
//! and message counts; filtering; environment overrides; unreadable and looping directories.

use std::ffi::OsString;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ctxray::live::discover::{
    discover, discover_with, filter, Discovery, Found, Limits, Locations,
};
use ctxray::session::Format;

fn write(path: &Path, lines: &[&str]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = lines.join("\n");
    text.push('\n');
    fs::write(path, text).unwrap();
}

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
}

fn touch(path: &Path, secs: u64) {
    File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(at(secs))
        .unwrap();
}

fn rel(home: &Path, f: &Found) -> String {
    f.path.strip_prefix(home).unwrap().display().to_string()
}

fn summary(
    home: &Path,
    d: &Discovery,
) -> Vec<(String, &'static str, Option<String>, Option<usize>)> {
    d.found
        .iter()
        .map(|f| (rel(home, f), f.tool.name(), f.title.clone(), f.messages))
        .collect()
}

const CLAUDE_A: &[&str] = &[
    r#"{"type":"summary","summary":"Fix the flaky   login test","leafUuid":"u3"}"#,
    r#"{"parentUuid":null,"isSidechain":false,"cwd":"/home/u/app","sessionId":"a","type":"user","message":{"role":"user","content":"why does login flake?"},"uuid":"u1"}"#,
    r#"{"parentUuid":"u1","cwd":"/home/u/app","sessionId":"a","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hm"}]},"uuid":"u2"}"#,
    r#"{"parentUuid":"u2","cwd":"/home/u/app","sessionId":"a","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo \"type\":\"user\""}}]},"uuid":"u3"}"#,
    r#"{"parentUuid":"u3","sessionId":"a","data":{"message":{"type":"user","message":{"role":"user","content":"nested"}}},"type":"progress","uuid":"u4"}"#,
    r#"{"type":"file-history-snapshot","messageId":"m1","snapshot":{}}"#,
    r#"{"parentUuid":"u3","sessionId":"a","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"uuid":"u5"}"#,
];

const CLAUDE_B: &[&str] = &[
    r#"{"type":"summary","summary":"old summary","leafUuid":"x"}"#,
    r#"{"type":"user","isMeta":true,"sessionId":"b","message":{"role":"user","content":"<local-command-caveat>Caveat</local-command-caveat>"},"uuid":"v0"}"#,
    r#"{"type":"user","sessionId":"b","message":{"role":"user","content":"<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>\n<command-args></command-args>"},"uuid":"v1"}"#,
    r#"{"type":"ai-title","sessionId":"b","aiTitle":"First AI title"}"#,
    r#"{"type":"ai-title","sessionId":"b","aiTitle":"Repo bootstrap"}"#,
];

const CLAUDE_C: &[&str] = &[
    r#"{"type":"user","isMeta":true,"sessionId":"c","message":{"role":"user","content":"<local-command-caveat>x</local-command-caveat>"},"uuid":"w0"}"#,
    r#"{"type":"user","sessionId":"c","message":{"role":"user","content":[{"type":"text","text":"Add a\n  dark mode toggle"}]},"uuid":"w1"}"#,
    r#"{"type":"assistant","sessionId":"c","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"ok"}]},"uuid":"w2"}"#,
];

const CODEX: &[&str] = &[
    r#"{"timestamp":"2025-01-02T10:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/home/u/svc","originator":"codex_cli_rs"}}"#,
    r#"{"timestamp":"2025-01-02T10:00:01Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>..."}]}}"#,
    r#"{"timestamp":"2025-01-02T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/home/u/svc</cwd>\n</environment_context>"}]}}"#,
    r#"{"timestamp":"2025-01-02T10:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Speed up the CSV export"}]}}"#,
    r#"{"timestamp":"2025-01-02T10:00:02Z","type":"event_msg","payload":{"type":"user_message","message":"Speed up the CSV export"}}"#,
    r#"{"timestamp":"2025-01-02T10:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}}"#,
    r#"{"timestamp":"2025-01-02T10:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
];

const CODEX_OLD: &[&str] = &[
    r#"{"timestamp":"2024-11-01T09:00:00Z","type":"session_meta","payload":{"id":"c0","cwd":"/x"}}"#,
    r#"{"timestamp":"2024-11-01T09:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"<environment_context>x</environment_context>"}}"#,
    r#"{"timestamp":"2024-11-01T09:00:02Z","type":"event_msg","payload":{"type":"user_message","message":"Archive me"}}"#,
];

const GEMINI: &[&str] = &[
    r#"{"sessionId":"g1","projectHash":"abc","startTime":"2025-09-18T10:15:02Z","lastUpdated":"2025-09-18T10:15:02Z","kind":"main"}"#,
    r#"{"id":"r1","timestamp":"2025-09-18T10:15:07Z","type":"user","content":[{"text":"Why does the build fail?"}]}"#,
    r#"{"$set":{"lastUpdated":"2025-09-18T10:15:14Z"}}"#,
    r#"{"id":"r2","timestamp":"2025-09-18T10:15:28Z","type":"gemini","content":"Looking.","model":"gemini-2.5-pro"}"#,
    r#"{"id":"r2","timestamp":"2025-09-18T10:15:29Z","type":"gemini","content":"Looking at it.","model":"gemini-2.5-pro"}"#,
    r#"{"id":"r3","timestamp":"2025-09-18T10:15:30Z","type":"info","content":"note"}"#,
    r#"{"id":"r4","timestamp":"2025-09-18T10:15:31Z","type":"user","content":"and tests?"}"#,
    r#"{"id":"r5","timestamp":"2025-09-18T10:15:32Z","type":"gemini","content":"Yes."}"#,
    r#"{"$rewindTo":"r5"}"#,
    r#"{"$set":{"summary":"Build failure triage"}}"#,
];

/// A home with sessions of every tool, each with a distinct modification time.
fn fake_home() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let files: &[(&str, &[&str], u64)] = &[
        (".claude/projects/-home-u-app/aaaa.jsonl", CLAUDE_A, 50),
        (
            ".claude/projects/-home-u-app/agent-1234.jsonl",
            CLAUDE_C,
            99,
        ),
        (
            ".claude/projects/-home-u-app/aaaa/subagents/agent-x.jsonl",
            CLAUDE_C,
            99,
        ),
        (".claude/projects/-home-u-web/bbbb.jsonl", CLAUDE_B, 40),
        (".claude/projects/-home-u-web/cccc.jsonl", CLAUDE_C, 10),
        (".claude/projects/-home-u-web/notes.txt", &["x"], 99),
        (
            ".codex/sessions/2025/01/02/rollout-2025-01-02T10-00-00-c1.jsonl",
            CODEX,
            60,
        ),
        (".codex/sessions/2025/01/02/other.jsonl", CODEX, 99),
        (
            ".codex/archived_sessions/rollout-2024-11-01T09-00-00-c0.jsonl",
            CODEX_OLD,
            5,
        ),
        (
            ".gemini/tmp/proj1/chats/session-2025-09-18T10-15-g1.jsonl",
            GEMINI,
            30,
        ),
        (".gemini/tmp/proj1/chats/g1/sub.jsonl", GEMINI, 99),
    ];
    for (path, lines, secs) in files {
        write(&h.join(path), lines);
        touch(&h.join(path), *secs);
    }
    let legacy = r#"{"sessionId":"g0","projectHash":"abc","messages":[{"id":"a","type":"user","content":"Legacy question"},{"id":"b","type":"gemini","content":"x"},{"id":"c","type":"info","content":"i"}]}"#;
    let checkpoint = r#"{"history":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"yo"}]},{"role":"user","parts":[{"text":"more"}]}]}"#;
    for (path, text, secs) in [
        (
            ".gemini/tmp/proj1/chats/session-2025-07-02T14-30-g0.json",
            legacy,
            20,
        ),
        (
            ".gemini/tmp/proj1/checkpoint-before-refactor.json",
            checkpoint,
            25,
        ),
    ] {
        write(&h.join(path), &[text]);
        touch(&h.join(path), secs);
    }
    openhands_conv(
        &h.join(".openhands/conversations/0a1b"),
        "Port the parser to Rust",
        70,
    );
    openhands_conv(
        &h.join(".openhands/agent-canvas/conversations/9f8e"),
        "Write the docs",
        45,
    );
    fs::create_dir_all(h.join(".openhands/conversations/not-a-conversation/misc")).unwrap();
    tmp
}

fn openhands_conv(dir: &Path, prompt: &str, secs: u64) {
    let system = r#"{"id":"e0","timestamp":"t","source":"agent","system_prompt":{"text":"You are"},"tools":[],"kind":"SystemPromptEvent"}"#;
    let user = format!(
        r#"{{"id":"e1","timestamp":"t","source":"user","llm_message":{{"role":"user","content":[{{"type":"text","text":"{prompt}"}}]}},"kind":"MessageEvent"}}"#
    );
    let files = [
        (
            "base_state.json",
            r#"{"id":"0a1b","agent":{"llm":{"model":"gpt-4o"}}}"#.to_string(),
            secs - 3,
        ),
        ("events/event-00000-e0.json", system.to_string(), secs - 2),
        ("events/event-00001-e1.json", user, secs),
    ];
    for (name, text, s) in files {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        touch(&path, s);
    }
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn finds_every_tool_newest_first_with_titles_and_counts() {
    let home = fake_home();
    let h = home.path();
    let d = discover(&Locations::under_home(h));
    let expected = vec![
        (
            ".openhands/conversations/0a1b",
            "openhands",
            some("Port the parser to Rust"),
            None,
        ),
        (
            ".codex/sessions/2025/01/02/rollout-2025-01-02T10-00-00-c1.jsonl",
            "codex",
            some("Speed up the CSV export"),
            Some(4),
        ),
        (
            ".claude/projects/-home-u-app/aaaa.jsonl",
            "claude-code",
            some("Fix the flaky login test"),
            Some(4),
        ),
        (
            ".openhands/agent-canvas/conversations/9f8e",
            "openhands",
            some("Write the docs"),
            None,
        ),
        (
            ".claude/projects/-home-u-web/bbbb.jsonl",
            "claude-code",
            some("Repo bootstrap"),
            Some(2),
        ),
        (
            ".gemini/tmp/proj1/chats/session-2025-09-18T10-15-g1.jsonl",
            "gemini-cli",
            some("Build failure triage"),
            Some(3),
        ),
        (
            ".gemini/tmp/proj1/checkpoint-before-refactor.json",
            "gemini-cli",
            some("checkpoint before-refactor"),
            Some(3),
        ),
        (
            ".gemini/tmp/proj1/chats/session-2025-07-02T14-30-g0.json",
            "gemini-cli",
            some("Legacy question"),
            Some(2),
        ),
        (
            ".claude/projects/-home-u-web/cccc.jsonl",
            "claude-code",
            some("Add a dark mode toggle"),
            Some(3),
        ),
        (
            ".codex/archived_sessions/rollout-2024-11-01T09-00-00-c0.jsonl",
            "codex",
            some("Archive me"),
            Some(0),
        ),
    ];
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(p, t, title, n)| (p.to_string(), t, title, n))
        .collect();
    assert_eq!(summary(h, &d), expected);
    assert_eq!(d.skipped, 0);
    let first = &d.found[0];
    assert_eq!((first.tool, first.modified), (Format::OPENHANDS, at(70)));
    let oh_size: u64 = [
        "base_state.json",
        "events/event-00000-e0.json",
        "events/event-00001-e1.json",
    ]
    .iter()
    .map(|n| fs::metadata(first.path.join(n)).unwrap().len())
    .sum();
    assert_eq!(first.size_bytes, oh_size);
    let codex = &d.found[1];
    assert_eq!(codex.size_bytes, fs::metadata(&codex.path).unwrap().len());
    assert_eq!(codex.modified, at(60));
}

#[test]
fn missing_roots_find_nothing_and_skip_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let d = discover(&Locations::under_home(&tmp.path().join("nobody")));
    assert_eq!(d, Discovery::default());
}

#[test]
fn env_overrides_replace_one_root_each() {
    let home = PathBuf::from("/home/u");
    let vars = |claude: &str, codex: &str| {
        let (claude, codex) = (OsString::from(claude), OsString::from(codex));
        move |name: &str| match name {
            "CLAUDE_CONFIG_DIR" => Some(claude.clone()),
            "CODEX_HOME" => Some(codex.clone()),
            _ => None,
        }
    };
    let loc = Locations::from_vars(&home, vars("/etc/cc", ""));
    assert_eq!(loc.root(Format::CLAUDE_CODE), Some(Path::new("/etc/cc")));
    assert_eq!(loc.root(Format::CODEX), Some(Path::new("/home/u/.codex")));
    assert_eq!(
        loc.root(Format::OPENHANDS),
        Some(Path::new("/home/u/.openhands"))
    );
    assert_eq!(
        loc.root(Format::GEMINI_CLI),
        Some(Path::new("/home/u/.gemini"))
    );
    let loc = Locations::from_vars(&home, vars("", "/srv/codex"));
    assert_eq!(
        loc.root(Format::CLAUDE_CODE),
        Some(Path::new("/home/u/.claude"))
    );
    assert_eq!(loc.root(Format::CODEX), Some(Path::new("/srv/codex")));
    assert_eq!(
        Locations::from_vars(&home, |_| None),
        Locations::under_home(&home)
    );
    let loc = Locations::from_vars(&home, |name| match name {
        "OPENHANDS_PERSISTENCE_DIR" => Some(OsString::from("/srv/oh")),
        "GEMINI_CLI_HOME" => Some(OsString::from("/srv/g")),
        _ => None,
    });
    assert_eq!(loc.root(Format::OPENHANDS), Some(Path::new("/srv/oh")));
    assert_eq!(
        loc.root(Format::GEMINI_CLI),
        Some(Path::new("/srv/g/.gemini")),
        "GEMINI_CLI_HOME is a home"
    );
    assert_eq!(
        loc.root(Format::CLAUDE_CODE),
        Some(Path::new("/home/u/.claude"))
    );
    let env = Locations::from_env().unwrap();
    let root = |f| env.root(f).unwrap();
    assert!(
        root(Format::OPENHANDS).ends_with(".openhands")
            && root(Format::GEMINI_CLI).ends_with(".gemini")
    );
    let loc = Locations::from_vars(&home, |name| {
        (name == "COPILOT_HOME").then(|| OsString::from("/srv/copilot"))
    });
    assert_eq!(
        loc.root(Format::COPILOT_CLI),
        Some(Path::new("/srv/copilot"))
    );
    assert_eq!(
        Locations::under_home(&home).root(Format::COPILOT_CLI),
        Some(Path::new("/home/u/.copilot"))
    );
    // Only the tools that keep sessions of their own have a root.
    assert_eq!(env.roots().count(), 6);
    assert_eq!(env.root(Format::OPENAI_CHAT), None);
}

#[test]
fn overridden_roots_are_searched_instead() {
    let home = fake_home();
    let alt = tempfile::tempdir().unwrap();
    let path = alt.path().join("projects/p/zzzz.jsonl");
    write(&path, CLAUDE_C);
    let loc = Locations::under_home(home.path()).with(Format::CLAUDE_CODE, alt.path());
    let d = discover(&loc);
    let claude: Vec<&Path> = d
        .found
        .iter()
        .filter(|f| f.tool == Format::CLAUDE_CODE)
        .map(|f| f.path.as_path())
        .collect();
    assert_eq!(claude, vec![path.as_path()]);
    assert_eq!(d.found.len(), 8);
}

#[test]
fn filter_matches_substrings_first_then_subsequences() {
    let home = fake_home();
    let found = discover(&Locations::under_home(home.path())).found;
    let titles = |idx: Vec<usize>| -> Vec<String> {
        idx.iter()
            .map(|&i| found[i].title.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(filter(&found, ""), (0..found.len()).collect::<Vec<_>>());
    assert_eq!(filter(&found, "   "), (0..found.len()).collect::<Vec<_>>());
    // Both Codex sessions hold "codex" in their path; "claude-code … fix …" only spells it out
    // as a subsequence, so it ranks after them.
    assert_eq!(
        titles(filter(&found, "CODEX")),
        vec![
            "Speed up the CSV export",
            "Archive me",
            "Fix the flaky login test"
        ]
    );
    // By title, case-insensitive, several words all required.
    assert_eq!(
        titles(filter(&found, "flaky LOGIN")),
        vec!["Fix the flaky login test"]
    );
    // By path: the project directory name.
    assert_eq!(
        titles(filter(&found, "-home-u-web")),
        vec!["Repo bootstrap", "Add a dark mode toggle"]
    );
    // "csvexp" is no substring anywhere, but a subsequence of one session only.
    assert_eq!(
        titles(filter(&found, "csvexp")),
        vec!["Speed up the CSV export"]
    );
    // Substring hits ("docs" in a title) rank above subsequence-only hits, order kept within.
    let docs = filter(&found, "docs");
    assert_eq!(titles(docs[..1].to_vec()), vec!["Write the docs"]);
    assert!(docs.len() > 1);
    assert!(filter(&found, "zzzq").is_empty());
}

#[test]
fn growing_file_counts_only_complete_lines_and_moves_to_the_top() {
    let home = fake_home();
    let h = home.path();
    let path = h.join(".claude/projects/-home-u-live/live.jsonl");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let find = || {
        discover(&Locations::under_home(h))
            .found
            .into_iter()
            .position(|f| f.path == path)
            .map(|i| (i, discover(&Locations::under_home(h)).found[i].clone()))
    };
    // A writer halfway through its first line: listed, nothing counted yet.
    let half = &CLAUDE_C[1][..40];
    fs::write(&path, half).unwrap();
    touch(&path, 1);
    let (_, f) = find().unwrap();
    assert_eq!((f.title.clone(), f.messages), (None, Some(0)));
    // The line is finished but its newline not yet written: whole JSON, so it counts.
    fs::write(&path, CLAUDE_C[1]).unwrap();
    touch(&path, 2);
    let (_, f) = find().unwrap();
    assert_eq!(
        (f.title.clone(), f.messages),
        (some("Add a dark mode toggle"), Some(1))
    );
    // More lines and a newer time: the session is now the newest of all.
    let mut text = format!("{}\n{}\n", CLAUDE_C[1], CLAUDE_C[2]);
    text.push_str(&CLAUDE_A[0][..20]);
    fs::write(&path, &text).unwrap();
    touch(&path, 500);
    let (i, f) = find().unwrap();
    assert_eq!(
        (i, f.messages, f.size_bytes),
        (0, Some(2), text.len() as u64)
    );
    assert_eq!(f.modified, at(500));
}

#[test]
fn big_files_get_a_title_from_their_head_but_no_count() {
    let home = fake_home();
    let limits = Limits {
        count_bytes: 200,
        head_bytes: 600,
        ..Limits::default()
    };
    let d = discover_with(&Locations::under_home(home.path()), &limits);
    let aaaa = d
        .found
        .iter()
        .find(|f| f.path.ends_with("aaaa.jsonl"))
        .unwrap();
    assert_eq!(
        (aaaa.title.clone(), aaaa.messages),
        (some("Fix the flaky login test"), None)
    );
    let codex = d.found.iter().find(|f| f.tool == Format::CODEX).unwrap();
    assert_eq!((codex.title.clone(), codex.messages), (None, None));
}

#[cfg(unix)]
#[test]
fn loops_and_unreadable_directories_are_skipped_not_fatal() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let home = fake_home();
    let h = home.path();
    let before = discover(&Locations::under_home(h));
    // A directory linking back to an ancestor: walked once, no duplicates, no hang.
    symlink("../..", h.join(".codex/sessions/2025/01/back")).unwrap();
    // A project linked twice: its sessions are listed once.
    symlink("-home-u-web", h.join(".claude/projects/alias")).unwrap();
    // A link to itself cannot be resolved: counted as skipped.
    symlink("self", h.join(".claude/projects/self")).unwrap();
    // A dangling link is simply not there.
    symlink("/nonexistent/ctxray", h.join(".claude/projects/gone")).unwrap();
    // A directory nobody may read (root still can).
    let locked = h.join(".gemini/tmp/locked");
    write(&locked.join("chats/session-x.jsonl"), GEMINI);
    touch(&locked.join("chats/session-x.jsonl"), 0);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let readable = fs::read_dir(&locked).is_ok();
    let d = discover(&Locations::under_home(h));
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();

    let mut expected: Vec<PathBuf> = before.found.iter().map(|f| f.path.clone()).collect();
    if readable {
        expected.push(locked.join("chats/session-x.jsonl"));
    }
    let paths: Vec<PathBuf> = d.found.iter().map(|f| f.path.clone()).collect();
    assert_eq!(paths, expected);
    assert_eq!(d.skipped, if readable { 1 } else { 2 });
}

#[test]
fn depth_bound_stops_deep_codex_trees() {
    let tmp = tempfile::tempdir().unwrap();
    let deep = tmp
        .path()
        .join(".codex/sessions/a/b/c/d/e/rollout-deep.jsonl");
    let shallow = tmp.path().join(".codex/sessions/a/rollout-shallow.jsonl");
    write(&deep, CODEX);
    write(&shallow, CODEX);
    let loc = Locations::under_home(tmp.path());
    let limits = |max_depth| Limits {
        max_depth,
        ..Limits::default()
    };
    let names = |d: Discovery| -> Vec<String> {
        let mut v: Vec<String> = d
            .found
            .iter()
            .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        names(discover_with(&loc, &limits(2))),
        vec!["rollout-shallow.jsonl"]
    );
    assert_eq!(
        names(discover_with(&loc, &limits(6))),
        vec!["rollout-deep.jsonl", "rollout-shallow.jsonl"]
    );
}

/// Real sessions from ../shared/samples, copied into a fake home at test time (when present).
#[test]
fn real_sample_sessions_are_titled_and_counted() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples");
    let claude = samples.join("claude_code/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl");
    let codex = samples
        .join("codex/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl");
    let sub = samples.join("claude_code/subagents_layout");
    if !claude.exists() || !codex.exists() || !sub.exists() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let project = h.join(".claude/projects/-path-to-Demo");
    let rollouts = h.join(".codex/sessions/2026/02/23");
    fs::create_dir_all(project.join("55550000-0000-4000-8000-000000000001/subagents")).unwrap();
    fs::create_dir_all(&rollouts).unwrap();
    fs::copy(
        &claude,
        project.join("fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"),
    )
    .unwrap();
    for entry in fs::read_dir(sub.join("55550000-0000-4000-8000-000000000001/subagents")).unwrap() {
        let entry = entry.unwrap();
        let to = project
            .join("55550000-0000-4000-8000-000000000001/subagents")
            .join(entry.file_name());
        fs::copy(entry.path(), to).unwrap();
    }
    let codex_to = rollouts.join(codex.file_name().unwrap());
    fs::copy(&codex, &codex_to).unwrap();
    touch(&codex_to, 1);
    let d = discover(&Locations::under_home(h));
    let got: Vec<_> = d
        .found
        .iter()
        .map(|f| (f.tool, f.title.clone(), f.messages))
        .collect();
    assert_eq!(got.len(), 2);
    assert_eq!(
        got[0],
        (
            Format::CLAUDE_CODE,
            some("Empty Repo Setup: CLAUDE.md Foundation Created"),
            Some(437)
        )
    );
    assert_eq!((got[1].0, got[1].2), (Format::CODEX, Some(346)));
    assert!(got[1].1.is_some());
}
