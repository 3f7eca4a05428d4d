//! `report` and `check` over many sources on the binary: a directory walked for session files,
//! `--jobs`, `--format jsonl` (one object a session or a finding, each line standing alone),
//! the JSON array of several reports in the order given, and an unusable source among good
//! ones.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn lines(o: &Output) -> Vec<Value> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A directory of sessions: two good files in a subfolder, a file that is no session, a
/// malformed JSON session, an OpenHands conversation directory, and a `.git` folder.
fn corpus(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ctxray-many-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("runs/.git")).unwrap();
    let copy = |from: &str, to: &str| {
        std::fs::copy(root().join(from), dir.join(to)).unwrap();
    };
    copy("fixtures/openai-chat/completion-log.json", "runs/a.json");
    copy("fixtures/samples/claude-code-demo.jsonl", "runs/b.jsonl");
    copy(
        "fixtures/openai-chat/completion-log.json",
        "runs/.git/c.json",
    );
    std::fs::write(dir.join("package.json"), r#"{"name": "not-a-session"}"#).unwrap();
    std::fs::write(dir.join("broken.json"), "{\"messages\": [").unwrap();
    let conv = dir.join("conv");
    let fixture = root().join("fixtures/openhands/conversation");
    copy_dir(&fixture, &conv);
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn report_jsonl_over_a_directory_writes_one_line_a_session() {
    let dir = corpus("report");
    let d = dir.display().to_string();
    let o = run(&["report", &d, "--format", "jsonl", "--jobs", "2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    // The malformed file is reported and makes the run exit 2; the others are all written.
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("broken.json"), "{err}");
    assert!(err.contains("reported 3 of 5 source(s); 1 unusable; 1 file(s) found that are not sessions passed over"), "{err}");
    let docs = lines(&o);
    let mut paths: Vec<String> = docs
        .iter()
        .map(|d| {
            d["source"]["path"]
                .as_str()
                .unwrap()
                .replace(&d_prefix(&dir), "")
        })
        .collect();
    paths.sort();
    assert_eq!(paths, ["conv", "runs/a.json", "runs/b.jsonl"]);
    // Each line is the `report --json` document of its session.
    for doc in &docs {
        let path = doc["source"]["path"].as_str().unwrap();
        let alone = run(&["report", path, "--json"]);
        let alone: Value = serde_json::from_slice(&alone.stdout).unwrap();
        assert_eq!(doc["total_tokens"], alone["total_tokens"], "{path}");
        assert_eq!(doc["messages"], alone["messages"], "{path}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn d_prefix(dir: &Path) -> String {
    format!("{}/", dir.display())
}

#[test]
fn several_reports_as_json_are_an_array_in_the_order_given() {
    let a = "fixtures/samples/claude-code-demo.jsonl";
    let b = "fixtures/openai-chat/completion-log.json";
    let o = run(&["report", b, a, "--json", "-j", "1"]);
    assert_eq!(o.status.code(), Some(0));
    let docs: Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> = docs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["source"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, [b, a]);
    // One source alone is the document itself, as it always was.
    let one: Value = serde_json::from_slice(&run(&["report", a, "--json"]).stdout).unwrap();
    assert!(one.is_object());
    // A layout that shows one session is refused for several, by name.
    let o = run(&["report", a, b, "--format", "html"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--format html writes one session"));
}

#[test]
fn check_jsonl_writes_one_line_a_finding_and_names_each_instance_of_a_log() {
    let log = "fixtures/inspect-ai/compaction-two-samples.json";
    let chat = "fixtures/openai-chat/completion-log.json";
    let o = run(&[
        "check",
        log,
        chat,
        "missing.jsonl",
        "--preset",
        "openhands",
        "--set",
        "max_size=6",
        "--set",
        "keep_first=1",
        "--format",
        "jsonl",
        "--jobs",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(2), "the missing file is unusable");
    let rows = lines(&o);
    // The same findings as `check --json`, one row each.
    let json = run(&[
        "check",
        log,
        chat,
        "missing.jsonl",
        "--preset",
        "openhands",
        "--set",
        "max_size=6",
        "--set",
        "keep_first=1",
        "--json",
    ]);
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    let expected: usize = files
        .iter()
        .map(|f| {
            f["findings"]
                .as_array()
                .map_or(0, Vec::len)
                .max(usize::from(f["error"].is_string()))
        })
        .sum();
    assert_eq!(rows.len(), expected);
    // The log's two samples are checked one by one, each named.
    let sessions: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| r["path"] == log)
        .filter_map(|r| r["session"].as_str())
        .collect();
    assert_eq!(files.iter().filter(|f| f["path"] == log).count(), 2);
    assert!(!sessions.is_empty());
    let missing: Vec<&Value> = rows
        .iter()
        .filter(|r| r["path"] == "missing.jsonl")
        .collect();
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0]["code"], "unusable-input");
    // Every row has every column, null where it does not apply.
    for r in &rows {
        for key in [
            "path", "session", "format", "preset", "fired", "code", "severity", "messages", "line",
            "detail",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
    }
}

/// A Python that can `import duckdb`: `CTXRAY_DUCKDB_PYTHON`, else `python3`. CI installs
/// one and sets `CTXRAY_REQUIRE_DUCKDB`, which makes its absence a failure, not a skip.
fn duckdb_python() -> Option<String> {
    let candidates = [
        std::env::var("CTXRAY_DUCKDB_PYTHON").ok(),
        Some("python3".into()),
    ];
    let found = candidates.into_iter().flatten().find(|py| {
        Command::new(py)
            .args(["-c", "import duckdb"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CTXRAY_REQUIRE_DUCKDB").is_none(),
            "CTXRAY_REQUIRE_DUCKDB is set but no Python with duckdb was found"
        );
        eprintln!("skipped: no Python with duckdb (pip install duckdb, or CTXRAY_DUCKDB_PYTHON)");
    }
    found
}

/// The issue's recipe, end to end: `check --format jsonl --jobs 2` over OpenHands evaluation
/// outputs (every instance checked on its own), loaded into DuckDB with `read_json_auto`, gives
/// per-instance, per-code counts equal to those of the lines themselves.
#[test]
fn check_jsonl_over_evaluation_outputs_loads_into_duckdb() {
    let Some(py) = duckdb_python() else { return };
    let o = run(&[
        "check",
        "fixtures/openhands-eval/openagentsafety-v1.jsonl",
        "fixtures/openhands-eval/multi-swe-bench-v0-first-line.jsonl",
        "--preset",
        "hermes",
        "--demo",
        "--format",
        "jsonl",
        "--jobs",
        "2",
    ]);
    let rows = lines(&o);
    let mut expected: std::collections::BTreeMap<(String, String), i64> = Default::default();
    for r in &rows {
        let key = (
            r["session"].as_str().unwrap().to_string(),
            r["code"].as_str().unwrap().to_string(),
        );
        *expected.entry(key).or_default() += 1;
    }
    // All three instances of the two files have findings of their own.
    let instances: std::collections::BTreeSet<&String> = expected.keys().map(|k| &k.0).collect();
    assert_eq!(instances.len(), 3, "{expected:?}");
    let out = std::env::temp_dir().join(format!("ctxray-duck-{}.jsonl", std::process::id()));
    std::fs::write(&out, &o.stdout).unwrap();
    let query = format!(
        "import duckdb\n\
         rows = duckdb.sql(\"SELECT session, code, count(*) FROM read_json_auto('{}') \
         GROUP BY session, code ORDER BY session, code\").fetchall()\n\
         for s, c, n in rows: print(f'{{s}}\\t{{c}}\\t{{n}}')\n",
        out.display()
    );
    let duck = Command::new(&py).args(["-c", &query]).output().unwrap();
    std::fs::remove_file(&out).unwrap();
    assert!(
        duck.status.success(),
        "{}",
        String::from_utf8_lossy(&duck.stderr)
    );
    let got: std::collections::BTreeMap<(String, String), i64> = String::from_utf8(duck.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            ((f[0].to_string(), f[1].to_string()), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(got, expected);
}
