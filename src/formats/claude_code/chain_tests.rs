//! Tests of rewound trees written inline: what is left out, what is kept when the tree cannot
//! be trusted, a followed file that forks while it grows, and the finding that names a branch.

use std::sync::Arc;

use serde_json::json;

use crate::formats::common::{Loaded, Record};
use crate::formats::load_bytes;
use crate::formats::stream::{Fed, Stream};
use crate::session::{Abandoned, Format, Session};
use crate::structure::{findings::session_findings, group_messages, Severity};

fn turn(uuid: &str, parent: Option<&str>, role: &str, text: &str) -> String {
    json!({
        "type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s",
        "message": {"role": role, "id": format!("msg_{uuid}"), "content": [{"type": "text", "text": text}]}
    })
    .to_string()
}

fn note(uuid: &str, parent: &str) -> String {
    json!({"type": "system", "subtype": "turn_duration", "uuid": uuid, "parentUuid": parent, "sessionId": "s"})
        .to_string()
}

fn parse(lines: &[String]) -> Session {
    let bytes = lines.join("\n").into_bytes();
    load_bytes(bytes, None, "-", Some(Format::CLAUDE_CODE)).unwrap()
}

fn sources(s: &Session) -> Vec<usize> {
    s.messages.iter().map(|m| m.source_index).collect()
}

/// u0 a0, then u1 a1 abandoned when u1b is written under a0.
fn rewound() -> Vec<String> {
    vec![
        turn("u0", None, "user", "start"),
        turn("a0", Some("u0"), "assistant", "ready"),
        turn("u1", Some("a0"), "user", "first try"),
        turn("a1", Some("u1"), "assistant", "first answer"),
        turn("u1b", Some("a0"), "user", "second try"),
        turn("a1b", Some("u1b"), "assistant", "second answer"),
    ]
}

#[test]
fn a_fork_leaves_the_side_off_the_leaf_out() {
    let s = parse(&rewound());
    assert_eq!(sources(&s), vec![0, 1, 4, 5]);
    let branch = Abandoned {
        fork: 1,
        records: vec![2, 3],
    };
    assert_eq!(s.source.abandoned, vec![branch]);
    // Rewound again, back to the first answer's branch: now the second try is the one left.
    let mut lines = rewound();
    lines.push(turn("u2", Some("a1"), "user", "back to the first"));
    let s = parse(&lines);
    assert_eq!(sources(&s), vec![0, 1, 2, 3, 6]);
    assert_eq!(s.source.abandoned[0].records, vec![4, 5]);
}

#[test]
fn files_without_uuids_keep_every_record() {
    let lines: Vec<String> = (0..4)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"type": role, "sessionId": "s", "message": {"role": role, "content": format!("m{i}")}})
                .to_string()
        })
        .collect();
    let s = parse(&lines);
    assert_eq!(sources(&s), vec![0, 1, 2, 3]);
    assert!(s.source.abandoned.is_empty());
}

#[test]
fn a_chain_broken_by_a_missing_parent_keeps_every_record() {
    // The leaf's chain stops at u1b, whose parent is not in the file: no fork is seen.
    let mut lines = rewound();
    lines[4] = turn("u1b", Some("not-in-this-file"), "user", "second try");
    let s = parse(&lines);
    assert_eq!(sources(&s), vec![0, 1, 2, 3, 4, 5]);
    assert!(s.source.abandoned.is_empty());
}

#[test]
fn a_branch_holding_most_turns_is_kept_until_the_chain_outgrows_it() {
    // Six turns on the old branch, four on the chain: the tree is not trusted.
    let mut lines = vec![
        turn("u0", None, "user", "start"),
        turn("a0", Some("u0"), "assistant", "ready"),
    ];
    let mut parent = "a0".to_string();
    for i in 0..6 {
        let (uuid, role) = (format!("old{i}"), ["user", "assistant"][i % 2]);
        lines.push(turn(&uuid, Some(&parent), role, "old"));
        parent = uuid;
    }
    lines.push(turn("new0", Some("a0"), "user", "rewound"));
    lines.push(turn("new1", Some("new0"), "assistant", "new"));
    let s = parse(&lines);
    assert_eq!(s.messages.len(), 10);
    assert!(s.source.abandoned.is_empty());
    // Two more turns on the chain: six of twelve is not most, the old branch goes; followed,
    // the file is read again when it does.
    let mut followed = Followed::open(&lines);
    lines.push(turn("new2", Some("new1"), "user", "more"));
    assert!(matches!(followed.feed(&lines[10]), Fed::Changed { .. }));
    lines.push(turn("new3", Some("new2"), "assistant", "more"));
    assert_eq!(followed.feed(&lines[11]), Fed::Restart);
    let s = parse(&lines);
    assert_eq!(sources(&s), vec![0, 1, 8, 9, 10, 11]);
    assert_eq!(s.source.abandoned[0].records, (2..8).collect::<Vec<_>>());
}

/// A followed file: `lines` is what was read, `more` what is appended.
struct Followed {
    stream: Stream,
    buffer: Vec<u8>,
    lines: usize,
}

impl Followed {
    fn open(lines: &[String]) -> Followed {
        let buffer = (lines.join("\n") + "\n").into_bytes();
        let loaded = Loaded::new(buffer.clone(), None, "-").unwrap();
        let stream = Stream::open(Format::CLAUDE_CODE, &loaded).unwrap().unwrap();
        Followed {
            stream,
            buffer,
            lines: lines.len(),
        }
    }

    fn feed(&mut self, line: &str) -> Fed {
        let start = self.buffer.len();
        self.buffer.extend_from_slice(line.as_bytes());
        let record = Record {
            index: self.lines,
            range: start..self.buffer.len(),
            value: serde_json::from_str(line).unwrap(),
        };
        self.buffer.push(b'\n');
        self.lines += 1;
        self.stream
            .feed(&[record], &[], &Arc::new(self.buffer.clone()))
    }
}

#[test]
fn a_followed_file_reads_again_when_it_forks_and_agrees_with_a_whole_read() {
    let lines = rewound();
    let mut followed = Followed::open(&lines[..4]);
    assert_eq!(followed.stream.session().messages.len(), 4);
    // The rewind: the first try, already shown, is no longer the conversation.
    assert_eq!(followed.feed(&lines[4]), Fed::Restart);

    let mut followed = Followed::open(&lines);
    assert_eq!(sources(followed.stream.session()), vec![0, 1, 4, 5]);
    // A note under the abandoned answer joins its branch; the next turn extends the chain.
    let late = [note("n1", "a1"), turn("u2", Some("a1b"), "user", "go on")];
    for line in &late {
        assert!(matches!(followed.feed(line), Fed::Changed { .. }));
    }
    let mut all = lines.clone();
    all.extend(late);
    let whole = parse(&all);
    let got = followed.stream.session();
    assert_eq!(sources(got), vec![0, 1, 4, 5, 7]);
    assert_eq!(sources(got), sources(&whole));
    assert_eq!(got.source.abandoned, whole.source.abandoned);
    assert_eq!(got.source.abandoned[0].records, vec![2, 3, 6]);
}

#[test]
fn the_finding_names_the_branch_and_the_message_before_the_fork() {
    let mut lines = rewound();
    lines.insert(4, note("n1", "a1"));
    let s = parse(&lines);
    let findings = session_findings(&s, &group_messages(&s), 0, None);
    let found: Vec<_> = findings
        .iter()
        .filter(|f| f.code == "abandoned-branch")
        .collect();
    assert_eq!(found.len(), 1);
    let f = found[0];
    assert_eq!(f.severity, Severity::Info);
    // a0, line 2, is message 1: the last message the branch shares with the conversation.
    assert_eq!(f.messages, vec![1]);
    assert_eq!(
        f.detail,
        "3 records on a branch abandoned by a rewind to line 2 are not in context (lines 3–5)"
    );
}
