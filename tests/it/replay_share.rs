//! `replay --format md|html` on a generated session whose compactions are known by
//! construction (the `custom` preset compacts before messages #7, #13, #19 and #25; see
//! tests/it/replay.rs): the Markdown table's rows, the HTML sawtooth's geometry (one x a check
//! point, a drop and a marker where each compaction fired), both runs of `--compare`, secrets
//! masked, the page opened in headless Chromium without a console message, and the formats
//! replay refuses.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

fn ctxray(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctxray"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn session(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("chat.json");
    std::fs::write(&path, support::chat_session(14, 1000)).unwrap();
    path.display().to_string()
}

/// The replay under `custom` that compacts four times, in `format`, with `extra` arguments.
fn replay(file: &str, format: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "replay",
        file,
        "--preset",
        "custom",
        "--set",
        "trigger_tokens=6500",
        "--set",
        "keep_first=0",
        "--summary-tokens",
        "100",
        "--format",
        format,
    ];
    args.extend(extra);
    ok(ctxray(&args))
}

/// The rows of the Markdown table that follows `heading`, as trimmed cells.
fn table_after(md: &str, heading: &str) -> Vec<Vec<String>> {
    let start = md
        .find(heading)
        .unwrap_or_else(|| panic!("{heading}:\n{md}"));
    md[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn markdown_lists_each_compaction_where_it_fired() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(&dir);
    let md = replay(&file, "md", &["--set", "keep_last=2"]);
    let v: serde_json::Value =
        serde_json::from_str(&replay(&file, "json", &["--set", "keep_last=2"])).unwrap();

    let rows = table_after(&md, "## Compactions");
    assert_eq!(rows.len(), 4, "{md}");
    let json = v["compactions"].as_array().unwrap();
    for (k, (row, c)) in rows.iter().zip(json).enumerate() {
        // Checks come before each assistant message (#1, #3, …): message #7 is step 3.
        let record = [7, 13, 19, 25][k];
        assert_eq!(row[0], (k + 1).to_string());
        assert_eq!(row[1], ((record - 1) / 2).to_string(), "step: {row:?}");
        assert_eq!(row[2], record.to_string(), "record: {row:?}");
        assert_eq!(row[3], "6,500", "the threshold in force: {row:?}");
        let before = c["tokens_before"].as_u64().unwrap();
        let after = c["tokens_after"].as_u64().unwrap();
        assert_eq!(
            row[4],
            format!("{} → {}", thousands(before), thousands(after))
        );
        assert_eq!(row[5], format!("{} → 3", c["messages_before"]));
        assert_eq!(
            row[6],
            if k == 0 { "5" } else { "7" },
            "summarized: {row:?}"
        );
        assert_eq!(
            row[7],
            thousands(c["summarizer_input_tokens"].as_u64().unwrap())
        );
        // The summarizer input does not depend on the summary: a stand-in has its fidelity.
        let input = &c["input"];
        let (chars, seen) = (
            input["chars"].as_u64().unwrap(),
            input["chars_seen"].as_u64().unwrap(),
        );
        assert!(chars > 0 && seen <= chars, "{input}");
        assert_eq!(
            row[8],
            format!(
                "{}/{} ({}%)",
                thousands(seen),
                thousands(chars),
                seen * 100 / chars
            )
        );
        assert_eq!(row[10], "100", "the stand-in summary");
    }

    let summary = table_after(&md, "## Replay");
    let value = |key: &str| {
        summary
            .iter()
            .find(|r| r[0] == key)
            .unwrap_or_else(|| panic!("{key}: {summary:?}"))[1]
            .clone()
    };
    assert_eq!(value("compactions"), "4");
    assert_eq!(value("check points"), "15");
    assert_eq!(value("threshold"), "6,500 tokens");
    assert_eq!(
        value("peak tokens"),
        thousands(v["peak_tokens"].as_u64().unwrap())
    );
    assert_eq!(value("evidence lost"), "n/a (stand-in summary)");
    // The sparkline (one column a step here) marks the four compactions under their steps.
    assert!(md.contains("```text\n"), "{md}");
    assert!(md.contains("\n   ▲  ▲  ▲  ▲\n```"), "{md}");
}

#[test]
fn markdown_compare_puts_both_runs_side_by_side_and_masks_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(&dir);
    let key = format!("sk-proj-{}", "A1b2C3d4".repeat(5));
    // The key straddles where the settings row clips the prompt: masked first, none of it shows.
    let secret_side = format!("keep_last=4,prompt=xxxxxxxxxxxxxxxxxxx use {key} to summarize");
    let md = replay(&file, "md", &["--compare", "keep_last=2", &secret_side]);
    assert!(!md.contains("sk-proj"), "a key leaked:\n{md}");
    assert!(md.contains("[REDACTED:"), "{md}");
    let summary = table_after(&md, "## Comparison");
    let compactions = summary.iter().find(|r| r[0] == "compactions").unwrap();
    assert_eq!(compactions[1..], ["4", "6"], "{md}");
    assert_eq!(table_after(&md, "## Compactions · A").len(), 4);
    assert_eq!(table_after(&md, "## Compactions · B").len(), 6);
}

/// The `points` of the polyline whose class is `class`.
fn polyline(html: &str, class: &str) -> Vec<(f64, f64)> {
    let tag = format!("<polyline class=\"{class}\"");
    let at = html.find(&tag).unwrap_or_else(|| panic!("{tag}"));
    let rest = &html[at..];
    let start = rest.find("points=\"").unwrap() + 8;
    let end = start + rest[start..].find('"').unwrap();
    rest[start..end]
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// Each compaction marker of `class`: its step, and its circle's centre.
fn markers(html: &str, class: &str) -> Vec<(usize, f64, f64)> {
    let tag = format!("<g class=\"compaction {class}\"");
    html.match_indices(&tag)
        .map(|(at, _)| {
            let g = &html[at..at + html[at..].find("</g>").unwrap()];
            let attr = |name: &str| {
                let s = g.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                g[s..s + g[s..].find('"').unwrap()].to_string()
            };
            let circle = &g[g.find("<circle").unwrap()..];
            let attr_c = |name: &str| -> f64 {
                let s = circle.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                circle[s..s + circle[s..].find('"').unwrap()]
                    .parse()
                    .unwrap()
            };
            (
                attr("data-step").parse().unwrap(),
                attr_c("cx"),
                attr_c("cy"),
            )
        })
        .collect()
}

/// The distinct x of `points`, in order, with how many points share each.
fn columns(points: &[(f64, f64)]) -> Vec<(f64, usize)> {
    let mut out: Vec<(f64, usize)> = Vec::new();
    for &(x, _) in points {
        match out.last_mut() {
            Some((last, n)) if *last == x => *n += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}

#[test]
fn html_sawtooth_has_a_point_per_step_and_a_marker_where_each_compaction_fired() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(&dir);
    let html = replay(&file, "html", &["--set", "keep_last=2"]);
    assert!(html.starts_with("<!doctype html>"));
    for external in ["src=\"http", "href=\"http", "url(", "@import", "<link"] {
        assert!(!html.contains(external), "external resource: {external}");
    }
    assert!(html.contains("prefers-color-scheme:dark"));

    let points = polyline(&html, "tokens run-a");
    let cols = columns(&points);
    assert_eq!(cols.len(), 15, "one x a check point: {cols:?}");
    assert!(cols.windows(2).all(|w| w[0].0 < w[1].0), "x grows");
    let dropped: Vec<usize> = (0..cols.len()).filter(|&i| cols[i].1 == 2).collect();
    assert_eq!(
        dropped,
        vec![3, 6, 9, 12],
        "a drop where each compaction fired"
    );
    assert_eq!(points.len(), 15 + 4);

    let marks = markers(&html, "run-a");
    assert_eq!(
        marks.iter().map(|m| m.0).collect::<Vec<_>>(),
        vec![3, 6, 9, 12]
    );
    for (step, cx, cy) in &marks {
        assert_eq!(*cx, cols[*step].0, "marker at its step's x");
        // The marker sits on the top of the drop (the history before it compacted).
        let top = points.iter().find(|p| p.0 == *cx).unwrap();
        assert_eq!(*cy, top.1);
    }
    // Each marker's hover title gives its numbers.
    assert!(html.contains("<title>compaction 1 at step 3 (record 7): "));
    // The threshold line, and the same table as the Markdown report.
    assert!(html.contains("<polyline class=\"threshold\""));
    assert_eq!(html.matches("<tr class=\"compaction-row\"").count(), 4);
}

#[test]
fn html_compare_draws_both_runs_with_a_legend() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(&dir);
    let html = replay(&file, "html", &["--compare", "keep_last=2", "keep_last=4"]);
    assert_eq!(markers(&html, "run-a").len(), 4);
    assert_eq!(markers(&html, "run-b").len(), 6);
    assert_eq!(columns(&polyline(&html, "tokens run-b")).len(), 15);
    assert!(html.contains("<i class=\"run-a\"></i>A: <code>keep_last=2</code>"));
    assert!(html.contains("<i class=\"run-b\"></i>B: <code>keep_last=4</code>"));
    assert!(html.contains("<section class=\"compactions\" id=\"compactions-run-b\">"));
}

#[test]
fn replay_refuses_the_check_formats_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(&dir);
    for format in ["github", "junit"] {
        let out = ctxray(&["replay", &file, "--preset", "custom", "--format", format]);
        assert_eq!(out.status.code(), Some(2), "{format}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("--format {format} is not available for `replay`")),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

fn thousands(n: u64) -> String {
    ctxray::export::thousands(n)
}

/// The DOM Chromium built from `page` after its script ran, and the console messages the page
/// logged (script errors, blocked resources, anything it printed).
fn open(chromium: &Path, page: &Path, profile: &Path) -> (String, Vec<String>) {
    let out = support::headless(chromium, page, profile);
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (String::from_utf8(out.stdout).unwrap(), console)
}

#[test]
#[ignore = "needs Chromium: `.ci/run` runs it when Chromium is installed"]
fn chromium_replay_page_renders_without_a_console_message() {
    let chromium = support::browser_or_fail();
    let dir = tempfile::tempdir().unwrap();
    let file = session(&dir);

    // The console is read: a page that errs is caught.
    let bad = dir.path().join("bad.html");
    std::fs::write(&bad, "<!doctype html><script>undefinedFunction();</script>").unwrap();
    let (_, console) = open(&chromium, &bad, &dir.path().join("profile-bad"));
    assert!(
        console.iter().any(|l| l.contains("undefinedFunction")),
        "{console:?}"
    );

    let page = dir.path().join("replay.html");
    std::fs::write(
        &page,
        replay(&file, "html", &["--compare", "keep_last=2", "keep_last=4"]),
    )
    .unwrap();
    let (dom, console) = open(&chromium, &page, &dir.path().join("profile"));
    assert!(console.is_empty(), "console: {console:?}");
    // The page's script ran and counted the markers of both runs (4 + 6).
    assert!(
        dom.contains("data-markers=\"10\""),
        "script did not run:\n{dom}"
    );
    assert_eq!(dom.matches("<g class=\"compaction run-a\"").count(), 4);
    assert_eq!(dom.matches("<g class=\"compaction run-b\"").count(), 6);
    assert!(dom.contains("<svg class=\"sawtooth\""));
}
