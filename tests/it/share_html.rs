//! The HTML page opened in headless Chromium: the DOM after the page's own script ran must hold
//! the gauge, one token bar per message, the timeline, the summarized range with its losses, and
//! findings linking to message rows; the page must load nothing from outside. Without a browser
//! on the machine the browser part is skipped with a message (`.ci/run` installs one).

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

fn ctxray(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

const CHAT: &str = "fixtures/openai-chat/completion-log.json";
const PRESET: [&str; 6] = [
    "--preset",
    "openhands",
    "--set",
    "max_size=6",
    "--set",
    "keep_first=1",
];

fn export(out: &Path) -> Output {
    let mut args = vec!["export", CHAT];
    args.extend(PRESET);
    args.extend(["-o", out.to_str().unwrap()]);
    ctxray(&args)
}

/// The DOM Chromium built from `page`, after its scripts ran.
fn rendered(chromium: &Path, page: &Path, profile: &Path) -> String {
    String::from_utf8(support::headless(chromium, page, profile).stdout).unwrap()
}

#[test]
fn export_writes_one_self_contained_page_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let o = export(&page);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    for external in ["src=\"http", "href=\"http", "url(", "@import", "<link"] {
        assert!(!html.contains(external), "external resource: {external}");
    }
    let again = export(&page);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("give --force"));
    // The same page on stdout with --format html.
    let mut args = vec!["plan", CHAT];
    args.extend(PRESET);
    args.extend(["--format", "html"]);
    let o = ctxray(&args);
    assert_eq!(String::from_utf8(o.stdout).unwrap(), html);
}

#[test]
#[ignore = "needs Chromium: `.ci/run` runs it when Chromium is installed"]
fn chromium_page_renders() {
    let chromium = support::browser_or_fail();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    assert!(export(&page).status.success());
    let dom = rendered(&chromium, &page, &dir.path().join("profile"));

    // The page's script ran and counted one SVG bar per message (the session has 6).
    assert!(
        dom.contains("data-bars=\"6\""),
        "script did not run:\n{dom}"
    );
    assert_eq!(dom.matches("<tr id=\"m").count(), 6);
    // The gauge and the timeline with the plan's cut.
    assert!(dom.contains("<svg class=\"gauge\""));
    assert!(dom.contains("<polyline class=\"exact\""));
    assert!(dom.contains("class=\"cut\""));
    // The split, the summarizer input, the diff with a lost argument line highlighted.
    assert!(dom.contains("<section id=\"split\">"));
    assert!(dom.contains("<details class=\"prompt\"><summary>user · 713 characters</summary>"));
    assert!(
        dom.contains("<span class=\"lost\">wc -l notes.txt</span>"),
        "{dom}"
    );
    assert!(dom.contains("<span class=\"seen\">12 notes.txt</span>"));
    // Findings link to rows that exist.
    assert!(
        dom.contains("<code>tool-arguments-dropped</code> <a href=\"#m2\">#2</a>"),
        "{dom}"
    );
    assert!(dom.contains("<tr id=\"m2\""));
}
