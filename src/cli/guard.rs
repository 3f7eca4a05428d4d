//! The last step before stdout or stderr for text-like outputs (text, Markdown, JUnit, GitHub
//! annotations, error lines): every line is passed through the sanitiser in `crate::text`, so no
//! session text, tool name or file name reaches a terminal or a CI log as a control sequence or a
//! workflow command, whichever renderer produced it; and the values of the environment's own
//! secrets (`secrets::mask_env`) are masked on every line.
//!
//! Owns: line buffering and the two exceptions the outputs themselves need — the colour codes
//! of `style` (kept only when colour is on) and `--format github`'s own `::` annotations.
//! Must not: touch JSON or written session files (serde escapes those; they are data).

use std::io::{self, Write};

use crate::text::{self, Mode};

/// What the output may keep of what the sanitiser would show.
#[derive(Debug, Clone, Copy, Default)]
pub struct Allow {
    /// SGR colour sequences (`ESC[…m`) that `style` writes when colour is on.
    pub sgr: bool,
    /// Lines starting with `::` (the `github` format's annotations, escaped by their writer).
    pub workflow: bool,
}

/// A writer that sanitises whole lines before they reach `inner`.
pub struct Guard<W: Write> {
    inner: W,
    allow: Allow,
    pending: Vec<u8>,
}

impl<W: Write> Guard<W> {
    pub fn new(inner: W, allow: Allow) -> Self {
        Guard {
            inner,
            allow,
            pending: Vec::new(),
        }
    }

    fn emit(&mut self, line: &[u8]) -> io::Result<()> {
        let text = String::from_utf8_lossy(line);
        self.inner
            .write_all(clean_line(&text, self.allow).as_bytes())
    }
}

impl<W: Write> Write for Guard<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(pos) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=pos).collect();
            self.emit(&line[..pos])?;
            self.inner.write_all(b"\n")?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.emit(&line)?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Guard<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// One output line (without its `\n`) made inert under `allow`.
pub fn clean_line(line: &str, allow: Allow) -> String {
    // The user's own keys never reach a terminal or a log, whatever the session holds.
    let line = crate::secrets::mask_env(line);
    let line = line.as_ref();
    let body = if allow.sgr {
        keep_sgr(line)
    } else {
        text::sanitize::sanitize(line, Mode::Inline).into_owned()
    };
    if allow.workflow {
        body
    } else {
        text::neutralize_line(&body).into_owned()
    }
}

/// Sanitises `line` but keeps `ESC[` digits/`;` `m` sequences as they are.
fn keep_sgr(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&text::inline(&rest[..at]));
        let tail = &rest[at..];
        let len = sgr_len(tail);
        if len > 0 {
            out.push_str(&tail[..len]);
            rest = &tail[len..];
        } else {
            out.push('␛');
            rest = &tail[1..];
        }
    }
    out.push_str(&text::inline(rest));
    out
}

/// The byte length of the SGR sequence `s` starts with, or 0.
fn sgr_len(s: &str) -> usize {
    let Some(params) = s.strip_prefix("\x1b[") else {
        return 0;
    };
    let n = params
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    if params.as_bytes().get(n) == Some(&b'm') {
        n + 3
    } else {
        0
    }
}

/// Stdout for a text-like output, sanitised line by line.
pub fn stdout(allow: Allow) -> Guard<io::BufWriter<io::StdoutLock<'static>>> {
    Guard::new(io::BufWriter::new(io::stdout().lock()), allow)
}

/// One message line for stderr (`ctxray: …`), sanitised: kept line breaks, no controls.
pub fn message(s: &str) -> String {
    text::block(s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(allow: Allow, chunks: &[&str]) -> String {
        let mut g = Guard::new(Vec::new(), allow);
        for c in chunks {
            g.write_all(c.as_bytes()).unwrap();
        }
        g.flush().unwrap();
        String::from_utf8(g.inner.clone()).unwrap()
    }

    #[test]
    fn sequences_split_across_writes_are_shown() {
        let out = through(
            Allow::default(),
            &["a\x1b", "]0;t\x07\n::error::x\n", "\u{202e}z"],
        );
        assert_eq!(out, "a␛]0;t␇\n·::error::x\n\\u{202e}z");
    }

    #[test]
    fn colour_is_kept_only_when_allowed() {
        let line = "\x1b[1;31merror\x1b[0m \x1b[2J";
        assert_eq!(
            clean_line(
                line,
                Allow {
                    sgr: true,
                    workflow: false
                }
            ),
            "\x1b[1;31merror\x1b[0m ␛[2J"
        );
        assert_eq!(clean_line(line, Allow::default()), "␛[1;31merror␛[0m ␛[2J");
    }

    #[test]
    fn github_annotations_are_kept_when_allowed() {
        let allow = Allow {
            sgr: false,
            workflow: true,
        };
        assert_eq!(
            clean_line("::warning file=a::b", allow),
            "::warning file=a::b"
        );
    }
}
