//! Costs that are not text: per-message framing and images, stated explicitly.
//!
//! Owns: the constants and formulas, each with where it comes from. These are estimates of what
//! a provider bills beyond the message text; they are reported apart (`overhead_tokens`) so the
//! exact text count is never blurred by them.

use super::registry::ImageCosting;
use crate::session::{ImageRef, Message, Part, Role};

/// Role and delimiter tokens around every message (OpenAI's published chat-format rule:
/// `<|start|>{role}\n{content}<|end|>\n` = 3 tokens per message).
pub const FRAMING_PER_MESSAGE: usize = 3;

/// Extra framing per tool call (the `functions.NAME` recipient and the call delimiters).
pub const FRAMING_PER_TOOL_CALL: usize = 3;

/// Image cost when the pixel size is unknown (a remote URL, an undecodable header).
pub const OPENAI_UNKNOWN_IMAGE: usize = 765; // 1024×1024 at high detail: 4 tiles × 170 + 85
pub const ANTHROPIC_UNKNOWN_IMAGE: usize = 1_600; // the documented ~1.15 megapixel ceiling
pub const GEMINI_IMAGE_TILE: usize = 258;

/// Non-text tokens of a message: framing plus images.
pub fn message_overhead(message: &Message, costing: ImageCosting) -> usize {
    if message.role == Role::Event {
        return 0;
    }
    let mut total = FRAMING_PER_MESSAGE;
    for part in &message.parts {
        total += part_overhead(part, costing);
    }
    total
}

fn part_overhead(part: &Part, costing: ImageCosting) -> usize {
    match part {
        Part::Image(img) => image_tokens(img, costing),
        Part::ToolCall { .. } => FRAMING_PER_TOOL_CALL,
        Part::ToolResult { content, .. } => content.iter().map(|p| part_overhead(p, costing)).sum(),
        _ => 0,
    }
}

/// Tokens one image costs under a provider's published rule.
pub fn image_tokens(img: &ImageRef, costing: ImageCosting) -> usize {
    let dims = img.width.zip(img.height).filter(|(w, h)| *w > 0 && *h > 0);
    match costing {
        ImageCosting::Openai => {
            if img.detail.as_deref() == Some("low") {
                return 85;
            }
            dims.map_or(OPENAI_UNKNOWN_IMAGE, |(w, h)| openai_tiles(w, h))
        }
        ImageCosting::Anthropic => dims.map_or(ANTHROPIC_UNKNOWN_IMAGE, |(w, h)| anthropic(w, h)),
        ImageCosting::Gemini => dims.map_or(GEMINI_IMAGE_TILE, |(w, h)| gemini(w, h)),
    }
}

/// OpenAI high detail: fit in 2048×2048, scale the short side to 768, 170 per 512-px tile + 85.
fn openai_tiles(w: u32, h: u32) -> usize {
    let (mut w, mut h) = (w as f64, h as f64);
    if w.max(h) > 2048.0 {
        let s = 2048.0 / w.max(h);
        w *= s;
        h *= s;
    }
    if w.min(h) > 768.0 {
        let s = 768.0 / w.min(h);
        w *= s;
        h *= s;
    }
    let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
    170 * tiles as usize + 85
}

/// Anthropic: long edge capped at 1568 px, then width × height / 750.
fn anthropic(w: u32, h: u32) -> usize {
    let (mut w, mut h) = (w as f64, h as f64);
    if w.max(h) > 1568.0 {
        let s = 1568.0 / w.max(h);
        w *= s;
        h *= s;
    }
    ((w * h) / 750.0).ceil() as usize
}

/// Gemini: 258 tokens if both sides ≤ 384 px, else 258 per 768×768 tile.
fn gemini(w: u32, h: u32) -> usize {
    if w <= 384 && h <= 384 {
        return GEMINI_IMAGE_TILE;
    }
    let tiles = w.div_ceil(768) * h.div_ceil(768);
    GEMINI_IMAGE_TILE * tiles as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: u32, h: u32) -> ImageRef {
        ImageRef {
            width: Some(w),
            height: Some(h),
            ..ImageRef::default()
        }
    }

    #[test]
    fn openai_examples_from_the_pricing_page() {
        // 1024×1024 → 768×768 → 4 tiles → 765; 2048×4096 → 1024×2048 → 768×1536 → 6 tiles → 1105.
        assert_eq!(image_tokens(&img(1024, 1024), ImageCosting::Openai), 765);
        assert_eq!(image_tokens(&img(2048, 4096), ImageCosting::Openai), 1105);
        let mut low = img(4000, 4000);
        low.detail = Some("low".into());
        assert_eq!(image_tokens(&low, ImageCosting::Openai), 85);
    }

    #[test]
    fn anthropic_and_gemini_rules() {
        assert_eq!(
            image_tokens(&img(1000, 1000), ImageCosting::Anthropic),
            1334
        );
        assert_eq!(image_tokens(&img(200, 200), ImageCosting::Gemini), 258);
        assert_eq!(image_tokens(&img(1000, 800), ImageCosting::Gemini), 4 * 258);
        assert_eq!(
            image_tokens(&ImageRef::default(), ImageCosting::Anthropic),
            1600
        );
    }
}
