//! A key over everything the framework's message of a common-model message is made from (its
//! role, id, and every field of every part), so that a message the replay holds again (kept by
//! a compaction, planned at the next check) is rebuilt from the copy made before.
//!
//! Owns: that key. Must not: leave out a field `model::from_model` could read (equal keys must
//! mean the same framework message).

use xxhash_rust::xxh3::Xxh3;

use crate::session::{ImageRef, Message, Part};

/// The key of `m`: the xxh3-128 of a canonical feed of its role, id and parts.
pub fn model_key(m: &Message) -> u128 {
    let mut h = Xxh3::new();
    h.update(b"agent-framework model message\0");
    h.update(&[m.role as u8]);
    opt(&mut h, m.id.as_deref());
    h.update(&(m.parts.len() as u64).to_le_bytes());
    for p in &m.parts {
        part(&mut h, p);
    }
    h.digest128()
}

fn text(h: &mut Xxh3, s: &str) {
    h.update(&(s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

fn opt(h: &mut Xxh3, s: Option<&str>) {
    match s {
        Some(s) => {
            h.update(&[1]);
            text(h, s);
        }
        None => h.update(&[0]),
    }
}

fn num(h: &mut Xxh3, n: Option<u64>) {
    match n {
        Some(n) => {
            h.update(&[1]);
            h.update(&n.to_le_bytes());
        }
        None => h.update(&[0]),
    }
}

fn part(h: &mut Xxh3, p: &Part) {
    match p {
        Part::Text { text: t } => {
            h.update(&[1]);
            text(h, t);
        }
        Part::ToolCall {
            id,
            name,
            arguments,
            server,
        } => {
            h.update(&[2, u8::from(*server)]);
            text(h, id);
            text(h, name);
            text(h, arguments);
        }
        Part::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            h.update(&[3, is_error.map_or(2, u8::from)]);
            text(h, call_id);
            h.update(&(content.len() as u64).to_le_bytes());
            for c in content {
                part(h, c);
            }
        }
        Part::Image(img) => {
            h.update(&[4]);
            image(h, img);
        }
        Part::Reasoning {
            text: t,
            opaque_len,
        } => {
            h.update(&[5]);
            text(h, t);
            h.update(&(*opaque_len as u64).to_le_bytes());
        }
        Part::Summary { text: t } => {
            h.update(&[6]);
            text(h, t);
        }
        Part::Opaque { kind, raw } => {
            h.update(&[7]);
            text(h, kind);
            text(h, raw);
        }
    }
}

fn image(h: &mut Xxh3, img: &ImageRef) {
    opt(h, img.media_type.as_deref());
    num(h, img.bytes.map(|b| b as u64));
    opt(h, img.url.as_deref());
    num(h, img.width.map(u64::from));
    num(h, img.height.map(u64::from));
    opt(h, img.detail.as_deref());
}
