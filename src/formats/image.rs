//! Images inside sessions: base64 payloads and data URIs reduced to what costing needs.
//!
//! Owns: decoding just enough of an inline image to know its byte size and pixel size (PNG,
//! JPEG, GIF, WebP headers). The payload itself is never kept.

use base64::Engine;

use crate::session::ImageRef;

/// An image given as base64 data with a media type.
pub fn from_base64(media_type: Option<&str>, data: &str) -> ImageRef {
    let data = data.trim();
    if !data.is_ascii() {
        return ImageRef {
            media_type: media_type.map(str::to_string),
            ..ImageRef::default()
        };
    }
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count().min(2);
    let bytes = (data.len() / 4 * 3).saturating_sub(padding);
    // Enough of the head to read any of the supported headers.
    let head_len = data.len().min(64 * 1024) / 4 * 4;
    let head = base64::engine::general_purpose::STANDARD
        .decode(&data[..head_len])
        .unwrap_or_default();
    let (width, height) = dimensions(&head).map_or((None, None), |(w, h)| (Some(w), Some(h)));
    ImageRef {
        media_type: media_type.map(str::to_string).or_else(|| sniff(&head)),
        bytes: Some(bytes),
        width,
        height,
        ..ImageRef::default()
    }
}

/// An image given as a URL: a `data:` URI is decoded, anything else is kept as a remote URL.
pub fn from_url(url: &str) -> ImageRef {
    if let Some(rest) = url.strip_prefix("data:") {
        if let Some((meta, data)) = rest.split_once(',') {
            let media = meta.split(';').next().filter(|m| !m.is_empty());
            if meta.ends_with(";base64") {
                return from_base64(media, data);
            }
            return ImageRef {
                media_type: media.map(str::to_string),
                bytes: Some(data.len()),
                ..ImageRef::default()
            };
        }
    }
    ImageRef {
        url: Some(url.to_string()),
        ..ImageRef::default()
    }
}

fn sniff(head: &[u8]) -> Option<String> {
    let t = if head.starts_with(b"\x89PNG") {
        "image/png"
    } else if head.starts_with(&[0xFF, 0xD8]) {
        "image/jpeg"
    } else if head.starts_with(b"GIF8") {
        "image/gif"
    } else if head.len() > 12 && &head[8..12] == b"WEBP" {
        "image/webp"
    } else {
        return None;
    };
    Some(t.to_string())
}

/// Pixel size from an image header.
pub fn dimensions(head: &[u8]) -> Option<(u32, u32)> {
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    if head.starts_with(b"\x89PNG\r\n\x1a\n") && head.len() >= 24 {
        return Some((be32(&head[16..20]), be32(&head[20..24])));
    }
    if head.starts_with(b"GIF8") && head.len() >= 10 {
        let w = u16::from_le_bytes([head[6], head[7]]) as u32;
        let h = u16::from_le_bytes([head[8], head[9]]) as u32;
        return Some((w, h));
    }
    if head.len() >= 30 && &head[0..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        return webp(head);
    }
    if head.starts_with(&[0xFF, 0xD8]) {
        return jpeg(head);
    }
    None
}

fn webp(head: &[u8]) -> Option<(u32, u32)> {
    match &head[12..16] {
        b"VP8X" => {
            let w = 1 + u32::from_le_bytes([head[24], head[25], head[26], 0]);
            let h = 1 + u32::from_le_bytes([head[27], head[28], head[29], 0]);
            Some((w, h))
        }
        b"VP8 " => {
            let w = u16::from_le_bytes([head[26], head[27]]) as u32 & 0x3FFF;
            let h = u16::from_le_bytes([head[28], head[29]]) as u32 & 0x3FFF;
            Some((w, h))
        }
        b"VP8L" => {
            let b = &head[21..25];
            let w = 1 + (((b[1] as u32 & 0x3F) << 8) | b[0] as u32);
            let h = 1 + (((b[3] as u32 & 0xF) << 10) | ((b[2] as u32) << 2) | ((b[1] as u32) >> 6));
            Some((w, h))
        }
        _ => None,
    }
}

fn jpeg(head: &[u8]) -> Option<(u32, u32)> {
    let mut i = 2;
    while i + 9 < head.len() {
        if head[i] != 0xFF {
            return None;
        }
        let marker = head[i + 1];
        let len = u16::from_be_bytes([head[i + 2], head[i + 3]]) as usize;
        let is_sof = matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            let h = u16::from_be_bytes([head[i + 5], head[i + 6]]) as u32;
            let w = u16::from_be_bytes([head[i + 7], head[i + 8]]) as u32;
            return Some((w, h));
        }
        i += 2 + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_data_uri_gives_size_and_pixels() {
        // A 1x1 PNG.
        let uri = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
        let img = from_url(uri);
        assert_eq!(img.media_type.as_deref(), Some("image/png"));
        assert_eq!((img.width, img.height), (Some(1), Some(1)));
        assert_eq!(img.bytes, Some(70));
        assert!(img.url.is_none());
    }

    #[test]
    fn non_ascii_payload_does_not_panic() {
        let data = format!("A{}", "é".repeat(40_000));
        let img = from_base64(Some("image/png"), &data);
        assert_eq!(img.media_type.as_deref(), Some("image/png"));
        assert_eq!(img.bytes, None);
        let _ = from_base64(None, "==");
        let _ = from_url("data:,");
    }

    #[test]
    fn remote_url_is_kept() {
        let img = from_url("https://example.com/a.jpg");
        assert_eq!(img.url.as_deref(), Some("https://example.com/a.jpg"));
        assert_eq!(img.bytes, None);
    }
}
