//! Tests over the real histories in `fixtures/aider/` (see its NOTICE.md): the exact counts of
//! runs, inputs, replies and output blocks, each counted again over the raw file by a Python
//! one-liner that knows nothing of this parser, and the refusals of text that is not a history.

use std::path::Path;

use crate::formats::{load_bytes, load_path};
use crate::session::{Format, Role, Session};

fn load(name: &str) -> Session {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/aider")
        .join(name);
    let session = load_path(&path, None).unwrap();
    assert_eq!(session.format, Format::AIDER, "{name} detected as aider");
    session
}

/// Messages of each role over every run, and replies with a token report.
fn counts(s: &Session) -> (usize, usize, usize, usize, usize) {
    let all: Vec<_> = s
        .messages
        .iter()
        .chain(s.children.iter().flat_map(|c| &c.messages))
        .collect();
    let n = |r: Role| all.iter().filter(|m| m.role == r).count();
    let calls = all.iter().flat_map(|m| m.client_calls()).count();
    let used = all.iter().filter(|m| m.usage.is_some()).count();
    assert_eq!(
        n(Role::User) + n(Role::Assistant) + n(Role::Event),
        all.len()
    );
    (
        n(Role::User),
        n(Role::Assistant),
        n(Role::Event),
        calls,
        used,
    )
}

// The independent count, per file (U inputs, A replies, O output blocks, runs, token reports):
// python3 -c "import sys,itertools;L=open(sys.argv[1],encoding='utf-8').read().splitlines();
//   k=lambda l:'H' if l.startswith('# aider chat started at ') else 'U' if l.startswith('#### ')
//   else 'O' if l.startswith('> ') else 'A';b=[(g,list(x)) for g,x in itertools.groupby(L,k)];
//   print(sum(g=='H' for g,_ in b),{g:sum(1 for h,x in b if h==g and ''.join(x).strip())
//   for g in 'UAO'},sum(l.startswith('> Tokens: ') for l in L))" FILE

#[test]
fn a_history_of_three_runs_with_replies_reads_exactly() {
    // -> 3 {'U': 21, 'A': 16, 'O': 31} 14
    let s = load("mozgoslav.aider.chat.history.md");
    assert_eq!(s.children.len(), 3);
    assert!(s.messages.is_empty());
    // aider keeps no tool calls in its history: every call count is 0.
    assert_eq!(counts(&s), (21, 16, 31, 0, 14));
    assert_eq!(s.source.records, 4376);
    assert!(s.source.skipped.is_empty());
    let first = &s.children[0];
    assert!(first
        .title
        .as_deref()
        .is_some_and(|t| t.starts_with("aider chat started at 20")));
    // A reply's usage is the report shown after it, as aider rounds it.
    let used: Vec<_> = s
        .children
        .iter()
        .flat_map(|c| &c.messages)
        .filter_map(|m| m.usage.as_ref())
        .collect();
    assert!(used.iter().all(|u| u.input.is_some() && u.output.is_some()));
}

#[test]
fn a_history_of_commands_only_reads_as_inputs_and_output() {
    // -> 4 {'U': 8, 'A': 0, 'O': 12} 0
    let s = load("zen-mcp-server.aider.chat.history.md");
    assert_eq!(s.children.len(), 4);
    assert_eq!(counts(&s), (8, 0, 12, 0, 0));
    assert_eq!(
        s.model.as_deref(),
        Some("gemini/gemini-2.5-pro-preview-06-05")
    );
    // A multi-line input is one message, its lines without `#### ` and the line breaks.
    let add = s.children[3]
        .messages
        .iter()
        .find(|m| m.role == Role::User)
        .map(|m| m.parts[0].plain_text())
        .unwrap_or_default();
    assert!(add.starts_with("/add /home/"), "{add}");
    assert_eq!(add.lines().count(), 8);
    assert!(!add.contains("####") && !add.contains("  \n"));
}

#[test]
fn one_run_is_the_session_itself() {
    let text = "\n# aider chat started at 2025-01-02 03:04:05\n\n> Model: gpt-4o with diff edit format  \n\n#### hi  \n\nHello! How can I help?\n\n> Tokens: 1.2k sent, 9 received.  \n";
    let s = load_bytes(text.as_bytes().to_vec(), None, "h.md", None).unwrap();
    assert_eq!(s.format, Format::AIDER);
    assert!(s.children.is_empty());
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![Role::Event, Role::User, Role::Assistant, Role::Event]
    );
    assert_eq!(s.messages[1].parts[0].plain_text(), "hi");
    assert_eq!(s.messages[1].source_index, 5);
    assert_eq!(
        s.messages[2].parts[0].plain_text(),
        "Hello! How can I help?"
    );
    let usage = s.messages[2].usage.clone().unwrap_or_default();
    assert_eq!((usage.input, usage.output), (Some(1200), Some(9)));
    assert_eq!(s.model.as_deref(), Some("gpt-4o"));
    assert_eq!(
        s.title.as_deref(),
        Some("aider chat started at 2025-01-02 03:04:05")
    );
}

#[test]
fn other_text_is_refused_as_before_and_json_is_not_a_history() {
    let err = load_bytes(b"# notes\nhello\n".to_vec(), None, "n.md", None)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.starts_with("n.md:1: not a session: expected JSON or JSON Lines"),
        "{err}"
    );
    // Forced onto a JSON reader, text is refused the same way.
    let err = load_bytes(
        b"# notes\n".to_vec(),
        None,
        "n.md",
        Some(Format::CLAUDE_CODE),
    )
    .err()
    .map(|e| e.to_string())
    .unwrap_or_default();
    assert!(err.contains("expected JSON or JSON Lines"), "{err}");
    let err = load_bytes(b"[]".to_vec(), None, "a.json", Some(Format::AIDER))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("not an aider chat history"), "{err}");
    // A history holding a line that happens to be JSON is still a history.
    let text = "# aider chat started at 2025-01-02 03:04:05\n\n#### show it  \n\n{\"a\": 1}\n";
    let s = load_bytes(text.as_bytes().to_vec(), None, "h.md", None).unwrap();
    assert_eq!(s.format, Format::AIDER);
    assert_eq!(s.messages.len(), 2);
    assert!(s.source.skipped.is_empty());
}
