//! A server-sent events parser, fed the body's bytes as they arrive.
//!
//! Owns: splitting a `text/event-stream` into events (`event:` and `data:` fields, comments,
//! `\n` / `\r\n` / `\r` line ends, a UTF-8 character split across two chunks), following the
//! WHATWG rules: an event is dispatched at a blank line, several `data:` lines join with `\n`,
//! and an event left unfinished when the stream ends is discarded. It knows nothing of any
//! provider's JSON.

/// One dispatched event. `event` is empty when the server named none (the spec's `message`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Incremental parser: `feed` bytes, get the events completed by them.
#[derive(Debug, Default)]
pub struct SseParser {
    pending: Vec<u8>,
    skip_lf: bool,
    event: String,
    data: Vec<String>,
    started: bool,
    begun: bool,
}

impl SseParser {
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// The events that `bytes` completes, in order. Invalid UTF-8 is replaced, not an error.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.skip_lf {
                self.skip_lf = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.skip_lf = b == b'\r';
                    let line = std::mem::take(&mut self.pending);
                    if let Some(ev) = self.line(&line) {
                        out.push(ev);
                    }
                }
                _ => self.pending.push(b),
            }
        }
        out
    }

    /// Whether bytes of an unfinished event are held (the stream stopped inside an event).
    pub fn mid_event(&self) -> bool {
        !self.pending.is_empty() || self.started
    }

    fn line(&mut self, raw: &[u8]) -> Option<SseEvent> {
        let mut line = String::from_utf8_lossy(raw).into_owned();
        if !self.begun && line.starts_with('\u{feff}') {
            line.remove(0);
        }
        self.begun = true;
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_str(), ""),
        };
        match field {
            "event" => {
                self.event = value.to_string();
                self.started = true;
            }
            "data" => {
                self.data.push(value.to_string());
                self.started = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        self.started = false;
        let event = std::mem::take(&mut self.event);
        if self.data.is_empty() {
            return None;
        }
        let data = std::mem::take(&mut self.data).join("\n");
        Some(SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_split_across_chunks_and_line_ends() {
        let mut p = SseParser::new();
        let mut got = p.feed(b": keep-alive\r\n\r\nevent: ping\r\nda");
        got.extend(p.feed(b"ta: {\"type\":\"ping\"}\r\n\r"));
        got.extend(p.feed(b"\ndata:{\"a\":1}\n\ndata: x\rdata: y\r\r"));
        assert_eq!(
            got,
            [
                ev("ping", "{\"type\":\"ping\"}"),
                ev("", "{\"a\":1}"),
                ev("", "x\ny"),
            ]
        );
        assert!(!p.mid_event());
    }

    #[test]
    fn a_character_split_between_chunks_survives() {
        let mut p = SseParser::new();
        let bytes = "data: café ✓\n\n".as_bytes();
        let mut got = p.feed(&bytes[..10]);
        got.extend(p.feed(&bytes[10..]));
        assert_eq!(got, [ev("", "café ✓")]);
    }

    #[test]
    fn an_unfinished_event_is_held_not_dispatched() {
        let mut p = SseParser::new();
        assert!(p
            .feed(b"data: {\"choices\":[{\"delta\":{\"content\":\"he")
            .is_empty());
        assert!(p.mid_event());
        let mut q = SseParser::new();
        assert!(q.feed(b"event: message_stop\ndata: {}\n").is_empty());
        assert!(q.mid_event());
    }
}
