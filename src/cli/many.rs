//! Commands over many sources (`report`, `check`): the files a directory holds, the sessions a
//! multi-session source holds, and running them on `--jobs` threads with each result handed
//! back as it finishes.
//!
//! Owns: expanding the sources given into the sources run (a directory that is a session
//! stays one; another is walked for session files), the units of a loaded source (an
//! evaluation log's instances, not its subagents), the worker pool and its default size.
//! Must not: know what a command computes or how it is written.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::analysis::Analysis;
use crate::formats::LoadError;

/// `--jobs`: how many sources are worked on at once (default: every core).
#[derive(Debug, Clone, clap::Args, Default)]
pub struct JobsArg {
    /// Sources worked on at once [default: the number of cores].
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
}

impl JobsArg {
    pub fn count(&self) -> usize {
        match self.jobs {
            Some(n) => n as usize,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// A source to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The path (or `-`), as given or as found under a directory given.
    pub path: String,
    /// Found by walking a directory: a file there that is not a session is passed over
    /// quietly, where one named on the command line is an error.
    pub found: bool,
}

/// File names a walked directory's session files end with; other files are not read.
const SESSION_EXTENSIONS: &[&str] = &["json", "jsonl", "ndjson", "traj", "eval", "md"];

/// The sources run for `given`: each as given, but a directory that is not itself a session
/// (an OpenHands conversation) is replaced by the session files under it, in name order.
/// Directories whose name starts with `.` are not entered (`.git`), files are.
pub fn expand(given: &[String]) -> Vec<Source> {
    let mut out = Vec::new();
    for path in given {
        let p = Path::new(path);
        if path != "-" && p.is_dir() && !crate::formats::is_session_dir(p) {
            walk(p, &mut out);
        } else {
            out.push(Source {
                path: path.clone(),
                found: false,
            });
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<Source>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        // Unreadable: given as is, so that its error is reported.
        out.push(Source {
            path: dir.display().to_string(),
            found: false,
        });
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // `symlink_metadata`: a link is not followed into a loop.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if name.starts_with('.') {
                continue;
            }
            if crate::formats::is_session_dir(&path) {
                out.push(Source {
                    path: path.display().to_string(),
                    found: true,
                });
            } else {
                walk(&path, out);
            }
        } else if meta.is_file() {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if SESSION_EXTENSIONS.contains(&ext) {
                out.push(Source {
                    path: path.display().to_string(),
                    found: true,
                });
            }
        }
    }
}

/// Whether `err` says a found file is not a session at all (passed over, not reported): valid
/// JSON of no session format, or a Markdown file that is not a chat history. A `.json` file
/// that does not parse is reported: it may be a session cut short.
pub fn not_a_session(source: &Source, err: &anyhow::Error) -> bool {
    if !source.found {
        return false;
    }
    match err.downcast_ref::<LoadError>() {
        Some(LoadError::NotASession { .. }) => true,
        Some(LoadError::Malformed { what, .. }) => {
            source.path.ends_with(".md") && what.starts_with("not a session")
        }
        _ => false,
    }
}

/// The sessions a loaded source holds as units of its own: an evaluation log's instances (a
/// source with no messages of its own and children), else the source itself. Subagents stay
/// inside the session that started them.
pub fn units(analysis: &Analysis) -> Vec<&Analysis> {
    if analysis.holds_sessions() {
        analysis.children.iter().collect()
    } else {
        vec![analysis]
    }
}

/// Runs `work` on every item on `jobs` threads and hands each result to `done` (on the calling
/// thread) as it finishes, with the item's index; returns when all are done.
pub fn run<I: Sync, T: Send>(
    items: &[I],
    jobs: usize,
    work: impl Fn(&I) -> T + Sync,
    mut done: impl FnMut(usize, T),
) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            let tx = tx.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                if tx.send((i, work(item))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, result) in rx {
            done(i, result);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_done_once_whatever_the_jobs() {
        let items: Vec<u64> = (0..100).collect();
        for jobs in [1, 2, 7, 200] {
            let mut seen = vec![0u32; items.len()];
            run(
                &items,
                jobs,
                |n| n * 2,
                |i, r| {
                    assert_eq!(r, items[i] * 2);
                    seen[i] += 1;
                },
            );
            assert!(seen.iter().all(|&n| n == 1), "jobs {jobs}");
        }
        run(&[] as &[u8], 4, |_| (), |_, _| panic!("no items"));
    }

    #[test]
    fn a_directory_is_walked_for_session_files_in_name_order() {
        let dir = std::env::temp_dir().join(format!("ctxray-many-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/.git")).unwrap();
        std::fs::create_dir_all(dir.join("a")).unwrap();
        for f in [
            "b/2.jsonl",
            "a/1.json",
            "a/notes.txt",
            "b/.git/x.json",
            "c.traj",
        ] {
            std::fs::write(dir.join(f), "{}").unwrap();
        }
        let given = vec![dir.display().to_string(), "-".to_string()];
        let found: Vec<(String, bool)> = expand(&given)
            .into_iter()
            .map(|s| {
                let rel = s.path.strip_prefix(&given[0]).unwrap_or(&s.path);
                (rel.trim_start_matches('/').to_string(), s.found)
            })
            .collect();
        assert_eq!(
            found,
            [
                ("a/1.json".to_string(), true),
                ("b/2.jsonl".to_string(), true),
                ("c.traj".to_string(), true),
                ("-".to_string(), false),
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
