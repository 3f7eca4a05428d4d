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

/// OpenAI high detail (the "Calculating costs" rule of the vision guide): the image is scaled
/// to fit 2048×2048, then its short side to 768, then 170 per 512-px tile + 85; so it never
/// costs more than 2048×768 would (4 × 2 tiles, 1,445 tokens), whatever size a header claims.
fn openai_tiles(w: u32, h: u32) -> usize {
    let (mut w, mut h) = (f64::from(w), f64::from(h));
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

/// Anthropic ("Vision" guide, "Evaluate image size"): an image whose long edge is over 1568 px,
/// or that would cost more than about 1,600 tokens, is first scaled down, aspect ratio kept,
/// until it is within both limits; then width × height / 750. The largest image it accepts
/// therefore costs at most `ANTHROPIC_UNKNOWN_IMAGE`, whatever size a header claims.
fn anthropic(w: u32, h: u32) -> usize {
    let (mut w, mut h) = (f64::from(w), f64::from(h));
    if w.max(h) > 1568.0 {
        let s = 1568.0 / w.max(h);
        w *= s;
        h *= s;
    }
    let tokens = ((w * h) / 750.0).ceil();
    tokens.min(ANTHROPIC_UNKNOWN_IMAGE as f64) as usize
}

/// Gemini: 258 tokens if both sides ≤ 384 px, else 258 per 768×768 tile. Vertex AI's image
/// understanding guide: larger images are scaled down (and padded) to fit 3072×3072, aspect
/// ratio kept, so an image never takes more than 4 × 4 tiles (4,128 tokens), whatever size a
/// header claims.
fn gemini(w: u32, h: u32) -> usize {
    if w <= 384 && h <= 384 {
        return GEMINI_IMAGE_TILE;
    }
    let (mut w, mut h) = (f64::from(w), f64::from(h));
    if w.max(h) > GEMINI_MAX_SIDE {
        let s = GEMINI_MAX_SIDE / w.max(h);
        w *= s;
        h *= s;
    }
    let tiles = (w / 768.0).ceil().max(1.0) * (h / 768.0).ceil().max(1.0);
    GEMINI_IMAGE_TILE * tiles as usize
}

/// The side of the square a Gemini image is scaled down to fit.
const GEMINI_MAX_SIDE: f64 = 3072.0;

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
        // 1568×1568 is within the long edge but over the ~1,600-token ceiling.
        assert_eq!(
            image_tokens(&img(1568, 1568), ImageCosting::Anthropic),
            1600
        );
        // 3072×3072 is 4 × 4 tiles of 768.
        assert_eq!(
            image_tokens(&img(3072, 3072), ImageCosting::Gemini),
            16 * 258
        );
    }

    /// A forged header (width and height 0xFFFFFFFF) costs no more than the largest image each
    /// provider accepts.
    #[test]
    fn absurd_dimensions_cost_no_more_than_the_largest_accepted_image() {
        let forged = [
            (u32::MAX, u32::MAX),
            (u32::MAX, 1),
            (1, u32::MAX),
            (u32::MAX, 385),
        ];
        for (w, h) in forged {
            let openai = image_tokens(&img(w, h), ImageCosting::Openai);
            assert!(
                openai <= image_tokens(&img(2048, 768), ImageCosting::Openai),
                "{w}×{h}"
            );
            assert!(
                image_tokens(&img(w, h), ImageCosting::Anthropic) <= 1600,
                "{w}×{h}"
            );
            let gemini = image_tokens(&img(w, h), ImageCosting::Gemini);
            assert!(gemini <= 16 * 258, "{w}×{h}: {gemini}");
        }
        assert_eq!(image_tokens(&img(2048, 768), ImageCosting::Openai), 1445);
    }
}
