//! The walls between modules, checked on the source: no two top-level modules of the crate use
//! each other, even through others (the core never reaches up into the presentation or the
//! front ends), and no two modules inside one do either, but for the inspector's state machine
//! (`tui`: its messages, state, update and jobs name each other), which may only shrink.
//!
//! A use is any `crate::<module>` path, and inside a module's directory also `super::<module>`
//! from its files, outside comments and test modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The one group of modules allowed to name each other (a cycle found inside it passes).
const TOLERATED: &[&str] = &[
    "tui::app",
    "tui::jobs",
    "tui::msg",
    "tui::replay",
    "tui::state",
    "tui::update",
];

type Graph = BTreeMap<String, BTreeSet<String>>;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its test module.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or_default();
        out.push_str(line);
        out.push('\n');
    }
    // A test module written inline (`mod tests {`), not one declared (`mod tests;`).
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]\nmod ") {
        let start = from + at;
        let line_end = out[start + 13..]
            .find('\n')
            .map_or(out.len(), |e| start + 13 + e);
        if out[start..line_end].contains('{') {
            return out[..start].to_string();
        }
        from = line_end;
    }
    out
}

/// The identifiers that follow `prefix` (not preceded by another path segment).
fn after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(prefix) {
        let start = from + at;
        from = start + prefix.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[from..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        found.push(&rest[..end]);
    }
    found
}

/// The uses between top-level modules, and between the modules inside each.
fn graphs(src: &Path) -> (Graph, Graph) {
    let mut files = Vec::new();
    sources(src, &mut files);
    let (mut top, mut inner) = (Graph::new(), Graph::new());
    for file in files {
        let rel: Vec<String> = file
            .strip_prefix(src)
            .unwrap()
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        let name = rel.last().unwrap();
        if name == "tests" || name.ends_with("_tests") {
            continue;
        }
        let code = code(&std::fs::read_to_string(&file).unwrap());
        let module = &rel[0];
        if !matches!(module.as_str(), "lib" | "main" | "testing") {
            for used in after(&code, "crate::") {
                if used != module {
                    let uses = top.entry(module.clone()).or_default();
                    uses.insert(used.to_string());
                }
            }
        }
        if rel.len() < 2 || rel[1] == "mod" {
            continue;
        }
        let inside = format!("{module}::{}", rel[1]);
        let mut used: Vec<&str> = after(&code, &format!("crate::{module}::"));
        if rel.len() == 2 {
            used.extend(after(&code, "super::"));
        }
        for u in used {
            let exists = src.join(module).join(format!("{u}.rs")).exists()
                || src.join(module).join(u).is_dir();
            if exists && u != rel[1] {
                let uses = inner.entry(inside.clone()).or_default();
                uses.insert(format!("{module}::{u}"));
            }
        }
    }
    (top, inner)
}

/// A cycle through `start`, if there is one: the path back to it.
fn cycle_from(graph: &Graph, start: &str) -> Option<Vec<String>> {
    fn walk(
        graph: &Graph,
        at: &str,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in graph.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(graph, next, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(graph, start, start, &mut path, &mut seen).then(|| {
        path.push(start.to_string());
        path
    })
}

fn cycles(graph: &Graph, tolerated: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for start in graph.keys() {
        if let Some(path) = cycle_from(graph, start) {
            if !path.iter().all(|m| tolerated.contains(&m.as_str())) {
                found.push(path.join(" → "));
            }
        }
    }
    found
}

#[test]
fn no_two_modules_use_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (top, inner) = graphs(&src);
    assert!(top.len() > 15, "only {} modules read", top.len());
    assert!(top["cli"].contains("compaction") && top["analysis"].contains("structure"));
    let found = cycles(&top, &[]);
    assert!(
        found.is_empty(),
        "top-level modules use each other:\n{}",
        found.join("\n")
    );
    let found = cycles(&inner, TOLERATED);
    assert!(
        found.is_empty(),
        "modules use each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_cycle_is_found_and_a_tolerated_one_passes() {
    let mut g = Graph::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.entry(from.into()).or_default().insert(to.into());
    }
    assert_eq!(
        cycles(&g, &[]).first().map(String::as_str),
        Some("a → b → c → a")
    );
    assert!(cycles(&g, &["a", "b", "c"]).is_empty());
    let code = code("#[cfg(test)]\nmod fixtures;\nuse crate::x::Y; // crate::z\nfn f() { super::w(); a::crate::v; }\n#[cfg(test)]\nmod tests { use crate::t; }\n");
    assert_eq!(after(&code, "crate::"), vec!["x"]);
    assert_eq!(after(&code, "super::"), vec!["w"]);
}
