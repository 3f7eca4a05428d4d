//! What `ctxray check` found, and its four layouts: each finding on one line
//! (`file:message: severity code: detail`), GitHub workflow annotations, JUnit XML, JSON; the
//! exit code (1 when a finding reaches `--fail-on`, 2 when a file is unusable).
//!
//! Owns: the results' types and the layouts, pure functions of the results (tested without a
//! process). Running the checks is `check_cmd`'s.

use std::collections::HashMap;

use clap::ValueEnum;
use serde::Serialize;

use crate::compaction::{Finding, Severity};
use crate::report::view::FindingView;

/// `--fail-on`: the lowest severity that fails the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum FailOn {
    Info,
    Warn,
    #[default]
    Error,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Info => Severity::Info,
            FailOn::Warn => Severity::Warn,
            FailOn::Error => Severity::Error,
        }
    }

    fn name(self) -> &'static str {
        self.severity().as_str()
    }
}

/// One file's outcome: its findings, or why it could not be checked.
#[derive(Debug, Clone)]
pub struct FileCheck {
    pub path: String,
    /// The session within the file, for a file of many (an evaluation log's instance id).
    pub session: Option<String>,
    pub outcome: Result<Checked, String>,
}

#[derive(Debug, Clone)]
pub struct Checked {
    pub format: &'static str,
    pub fired: bool,
    pub findings: Vec<Finding>,
    /// The 1-based line of the file where a message's record starts, for the messages the
    /// findings name first (where the source records where its messages are).
    pub lines: HashMap<usize, usize>,
}

impl Checked {
    /// The file line a finding points at: where its first message's record starts.
    fn line_of(&self, f: &Finding) -> Option<usize> {
        self.lines.get(f.messages.first()?).copied()
    }
}

impl FileCheck {
    /// The path, and `#session` for one session of a file of many.
    fn label(&self) -> String {
        match &self.session {
            Some(id) => format!("{}#{}", self.path, crate::text::inline(id)),
            None => self.path.clone(),
        }
    }

    /// Whether a finding reaches `fail_on`.
    fn fails(&self, fail_on: FailOn) -> bool {
        self.outcome
            .as_ref()
            .is_ok_and(|c| c.findings.iter().any(|f| f.severity >= fail_on.severity()))
    }
}

/// 2 when a file is unusable, else 1 when a finding reaches `fail_on`, else 0.
pub fn exit_code(results: &[FileCheck], fail_on: FailOn) -> i32 {
    if results.iter().any(|r| r.outcome.is_err()) {
        super::EXIT_USAGE
    } else if results.iter().any(|r| r.fails(fail_on)) {
        1
    } else {
        0
    }
}

/// One closing line: files, findings by severity, and the verdict.
pub fn summary(results: &[FileCheck], fail_on: FailOn) -> String {
    let count = |s: Severity| {
        results
            .iter()
            .filter_map(|r| r.outcome.as_ref().ok())
            .flat_map(|c| &c.findings)
            .filter(|f| f.severity == s)
            .count()
    };
    let unusable = results.iter().filter(|r| r.outcome.is_err()).count();
    let failing = results.iter().filter(|r| r.fails(fail_on)).count();
    format!(
        "checked {} file(s): {} error, {} warn, {} info{}; {} at or above --fail-on {}",
        results.len(),
        count(Severity::Error),
        count(Severity::Warn),
        count(Severity::Info),
        if unusable > 0 {
            format!("; {unusable} unusable")
        } else {
            String::new()
        },
        if failing == 0 {
            "none".to_string()
        } else {
            format!("{failing} file(s)")
        },
        fail_on.name()
    )
}

/// `file:message: severity code: detail`, one finding a line (`file: …` when the finding names
/// no message; further messages follow the detail).
/// One finding as a compiler-style line: `path:LINE:` where the file line of its first
/// message is known, then the message it names.
pub fn line(path: &str, f: &Finding, at_line: Option<usize>) -> String {
    let at = at_line.map_or(String::new(), |l| format!(":{l}"));
    let message = f
        .messages
        .first()
        .map_or(String::new(), |m| format!(" (message #{m})"));
    format!(
        "{path}{at}: {} {}: {}{message}{}",
        f.severity.as_str(),
        f.code,
        one_line(&f.detail),
        also(&f.messages)
    )
}

fn also(messages: &[usize]) -> String {
    if messages.len() <= 1 {
        return String::new();
    }
    let rest: Vec<String> = messages[1..]
        .iter()
        .take(12)
        .map(|m| format!("#{m}"))
        .collect();
    let more = if messages.len() > 13 { " …" } else { "" };
    format!(" (also {}{more})", rest.join(" "))
}

fn one_line(s: &str) -> String {
    crate::export::masked(&s.replace(['\n', '\r'], " "))
}

pub fn text(results: &[FileCheck]) -> String {
    let mut out = String::new();
    for r in results {
        match &r.outcome {
            Ok(c) => {
                for f in &c.findings {
                    out.push_str(&line(&r.label(), f, c.line_of(f)));
                    out.push('\n');
                }
            }
            Err(e) => {
                out.push_str(&format!(
                    "{}: error unusable-input: {}\n",
                    r.label(),
                    one_line(e)
                ));
            }
        }
    }
    out
}

/// GitHub Actions workflow commands: `::error file=…,title=…::…` (warn is `warning`, info
/// `notice`); an unusable file is an error annotation.
pub fn github(results: &[FileCheck]) -> String {
    let mut out = String::new();
    for r in results {
        match &r.outcome {
            Ok(c) => {
                for f in &c.findings {
                    let level = match f.severity {
                        Severity::Error => "error",
                        Severity::Warn => "warning",
                        Severity::Info => "notice",
                    };
                    let at = f
                        .messages
                        .first()
                        .map_or(String::new(), |m| format!(" (message #{m})"));
                    let line = c.line_of(f).map_or(String::new(), |l| format!(",line={l}"));
                    out.push_str(&format!(
                        "::{level} file={}{line},title={}::{}{at}{}\n",
                        gh_property(&r.path),
                        gh_property(&format!("ctxray {}", f.code)),
                        gh_data(&one_line(&f.detail)),
                        gh_data(&also(&f.messages))
                    ));
                }
            }
            Err(e) => out.push_str(&format!(
                "::error file={},title=ctxray unusable-input::{}\n",
                gh_property(&r.path),
                gh_data(&one_line(e))
            )),
        }
    }
    out
}

/// Escapes a workflow command's message.
fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn gh_property(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// JUnit XML: one test case per file, failing when a finding reaches `fail_on` (the failure
/// lists them), erroring when the file is unusable; findings below the threshold go to
/// `system-out`.
pub fn junit(results: &[FileCheck], preset: &str, fail_on: FailOn) -> String {
    let failures = results.iter().filter(|r| r.fails(fail_on)).count();
    let errors = results.iter().filter(|r| r.outcome.is_err()).count();
    let mut cases = String::new();
    for r in results {
        cases.push_str(&format!(
            "    <testcase classname=\"ctxray.check.{}\" name=\"{}\">\n",
            xml(preset),
            xml(&r.label())
        ));
        match &r.outcome {
            Err(e) => cases.push_str(&format!(
                "      <error type=\"unusable-input\" message=\"{}\"/>\n",
                xml(&one_line(e))
            )),
            Ok(c) => {
                let (over, under): (Vec<&Finding>, Vec<&Finding>) = c
                    .findings
                    .iter()
                    .partition(|f| f.severity >= fail_on.severity());
                if !over.is_empty() {
                    let body: Vec<String> = over
                        .iter()
                        .map(|f| line(&r.label(), f, c.line_of(f)))
                        .collect();
                    cases.push_str(&format!(
                        "      <failure type=\"{}\" message=\"{} finding(s) at or above {}: {}\">{}</failure>\n",
                        xml(over[0].code),
                        over.len(),
                        fail_on.name(),
                        xml(&over.iter().map(|f| f.code).collect::<Vec<_>>().join(", ")),
                        xml(&body.join("\n"))
                    ));
                }
                if !under.is_empty() {
                    let body: Vec<String> = under
                        .iter()
                        .map(|f| line(&r.label(), f, c.line_of(f)))
                        .collect();
                    cases.push_str(&format!(
                        "      <system-out>{}</system-out>\n",
                        xml(&body.join("\n"))
                    ));
                }
            }
        }
        cases.push_str("    </testcase>\n");
    }
    let n = results.len();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ctxray check\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\">\n  <testsuite name=\"ctxray check --preset {}\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\">\n{cases}  </testsuite>\n</testsuites>\n",
        xml(preset)
    )
}

/// Text safe in XML content and attributes; characters XML 1.0 forbids are dropped.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

pub fn json_doc<'a>(results: &'a [FileCheck], preset: &'a str, fail_on: FailOn) -> CheckDoc<'a> {
    CheckDoc {
        preset,
        fail_on: fail_on.name(),
        exit_code: exit_code(results, fail_on),
        files: results
            .iter()
            .map(|r| match &r.outcome {
                Ok(c) => FileDoc {
                    path: &r.path,
                    session: r.session.as_deref(),
                    format: Some(c.format),
                    fired: Some(c.fired),
                    failed: r.fails(fail_on),
                    findings: FindingView::all(&c.findings),
                    error: None,
                },
                Err(e) => FileDoc {
                    path: &r.path,
                    session: r.session.as_deref(),
                    format: None,
                    fired: None,
                    failed: true,
                    findings: Vec::new(),
                    error: Some(one_line(e)),
                },
            })
            .collect(),
    }
}

/// `check --format jsonl`: one object a finding, and one an unusable file (code
/// `unusable-input`), each on its own line, so that a run's output loads into a table.
pub fn jsonl(results: &[FileCheck], preset: &str) -> String {
    let mut out = String::new();
    for r in results {
        let mut push = |row: FindingRow| {
            if let Ok(line) = serde_json::to_string(&row) {
                out.push_str(&line);
                out.push('\n');
            }
        };
        match &r.outcome {
            Ok(c) => {
                for f in &c.findings {
                    push(FindingRow {
                        path: &r.path,
                        session: r.session.as_deref(),
                        format: Some(c.format),
                        preset,
                        fired: Some(c.fired),
                        code: f.code,
                        severity: f.severity.as_str(),
                        messages: &f.messages,
                        line: c.line_of(f),
                        detail: f.detail.clone(),
                    });
                }
            }
            Err(e) => push(FindingRow {
                path: &r.path,
                session: r.session.as_deref(),
                format: None,
                preset,
                fired: None,
                code: "unusable-input",
                severity: "error",
                messages: &[],
                line: None,
                detail: one_line(e),
            }),
        }
    }
    out
}

/// One line of [`jsonl`]: the same fields on every line, null where they do not apply.
#[derive(Serialize)]
struct FindingRow<'a> {
    path: &'a str,
    session: Option<&'a str>,
    format: Option<&'a str>,
    preset: &'a str,
    fired: Option<bool>,
    code: &'a str,
    severity: &'a str,
    messages: &'a [usize],
    line: Option<usize>,
    detail: String,
}

/// `check --json`: the preset, the threshold, the exit code and each file's findings.
#[derive(Serialize)]
pub struct CheckDoc<'a> {
    preset: &'a str,
    fail_on: &'a str,
    exit_code: i32,
    files: Vec<FileDoc<'a>>,
}

/// One file checked; an unusable file has no format and no `fired`, and says why in `error`.
#[derive(Serialize)]
struct FileDoc<'a> {
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fired: Option<bool>,
    failed: bool,
    findings: Vec<FindingView<'a>>,
    error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(severity: Severity, messages: Vec<usize>) -> Finding {
        Finding {
            code: "orphan-tool-result",
            severity,
            messages,
            detail: "a result, 50% sure\nsecond line".into(),
        }
    }

    #[test]
    fn a_line_names_file_message_severity_code_and_detail() {
        let f = finding(Severity::Warn, vec![3, 5, 9]);
        assert_eq!(
            line("a.jsonl", &f, Some(12)),
            "a.jsonl:12: warn orphan-tool-result: a result, 50% sure second line (message #3) (also #5 #9)"
        );
        let f = finding(Severity::Info, vec![]);
        assert!(line("a.jsonl", &f, None).starts_with("a.jsonl: info orphan-tool-result: "));
    }

    #[test]
    fn github_commands_escape_their_data_and_properties() {
        let r = vec![FileCheck {
            path: "logs/a,b:c.jsonl".into(),
            session: None,
            outcome: Ok(Checked {
                format: "codex",
                fired: true,
                findings: vec![finding(Severity::Error, vec![1])],
                lines: HashMap::from([(1, 7)]),
            }),
        }];
        let out = github(&r);
        assert_eq!(
            out,
            "::error file=logs/a%2Cb%3Ac.jsonl,line=7,title=ctxray orphan-tool-result::a result, 50%25 sure second line (message #1)\n"
        );
    }

    #[test]
    fn the_threshold_decides_the_exit_code_and_unusable_input_wins() {
        let ok = |s| FileCheck {
            path: "a".into(),
            session: None,
            outcome: Ok(Checked {
                format: "codex",
                fired: false,
                findings: vec![finding(s, vec![])],
                lines: HashMap::new(),
            }),
        };
        assert_eq!(exit_code(&[ok(Severity::Warn)], FailOn::Error), 0);
        assert_eq!(exit_code(&[ok(Severity::Warn)], FailOn::Warn), 1);
        assert_eq!(exit_code(&[ok(Severity::Info)], FailOn::Info), 1);
        let bad = FileCheck {
            path: "b".into(),
            session: None,
            outcome: Err("b:1: not JSON".into()),
        };
        assert_eq!(exit_code(&[ok(Severity::Error), bad], FailOn::Error), 2);
    }

    #[test]
    fn xml_escapes_markup_and_drops_forbidden_characters() {
        assert_eq!(xml("a<b>&\"'\u{1}"), "a&lt;b&gt;&amp;&quot;&apos;");
    }
}
