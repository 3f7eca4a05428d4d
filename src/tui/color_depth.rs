//! Colour depth: how many colours the terminal shows (none, 16, 256, truecolor), read from the
//! environment, and degrading a colour to that depth.
//!
//! Owns: the `NO_COLOR` / `COLORTERM` / `TERM` rules and the nearest-colour maps (xterm's 256
//! palette, the 16 ANSI colours). Everything but `ColorDepth::detect` is a pure function of its
//! arguments. Must not know about roles or styles (the theme does) nor touch the terminal.

use std::ffi::OsStr;

use ratatui::style::Color;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColorDepth {
    /// `NO_COLOR`, `--no-color` or `TERM=dumb`: emphasis by modifiers only.
    None,
    Ansi16,
    Ansi256,
    TrueColor,
}

/// The 16 ANSI colours in palette order, with xterm's default RGB for each.
const ANSI16: [(Color, (u8, u8, u8)); 16] = [
    (Color::Black, (0, 0, 0)),
    (Color::Red, (205, 0, 0)),
    (Color::Green, (0, 205, 0)),
    (Color::Yellow, (205, 205, 0)),
    (Color::Blue, (0, 0, 238)),
    (Color::Magenta, (205, 0, 205)),
    (Color::Cyan, (0, 205, 205)),
    (Color::Gray, (229, 229, 229)),
    (Color::DarkGray, (127, 127, 127)),
    (Color::LightRed, (255, 0, 0)),
    (Color::LightGreen, (0, 255, 0)),
    (Color::LightYellow, (255, 255, 0)),
    (Color::LightBlue, (92, 92, 255)),
    (Color::LightMagenta, (255, 0, 255)),
    (Color::LightCyan, (0, 255, 255)),
    (Color::White, (255, 255, 255)),
];

/// The six levels of each channel in xterm's 6×6×6 colour cube (indices 16–231).
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

/// `NO_COLOR` as <https://no-color.org> defines it: set and not empty.
pub fn no_color_requested(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

impl ColorDepth {
    /// The depth the variables describe: `TERM=dumb` shows no colour; `COLORTERM=truecolor` or
    /// `24bit` (or a `*-direct` TERM) shows all; a `*256color*` TERM shows 256; anything else 16.
    pub fn from_vars(colorterm: Option<&str>, term: Option<&str>) -> ColorDepth {
        let term = term.unwrap_or("");
        if term == "dumb" {
            return ColorDepth::None;
        }
        let colorterm = colorterm.unwrap_or("").to_ascii_lowercase();
        if colorterm == "truecolor" || colorterm == "24bit" || term.ends_with("-direct") {
            ColorDepth::TrueColor
        } else if term.contains("256color") {
            ColorDepth::Ansi256
        } else {
            ColorDepth::Ansi16
        }
    }

    /// The depth of this process's terminal: none when `no_color` (the `--no-color` flag) or
    /// `NO_COLOR` asks for it, otherwise what `COLORTERM` and `TERM` say.
    pub fn detect(no_color: bool) -> ColorDepth {
        if no_color || no_color_requested(std::env::var_os("NO_COLOR").as_deref()) {
            return ColorDepth::None;
        }
        let colorterm = std::env::var("COLORTERM").ok();
        let term = std::env::var("TERM").ok();
        ColorDepth::from_vars(colorterm.as_deref(), term.as_deref())
    }

    /// `color` as this depth shows it; `Color::Reset` (the terminal's own) when it shows none.
    pub fn degrade(self, color: Color) -> Color {
        match (self, color) {
            (ColorDepth::None, _) => Color::Reset,
            (ColorDepth::TrueColor, c) => c,
            (ColorDepth::Ansi256, Color::Rgb(r, g, b)) => Color::Indexed(nearest_256(r, g, b)),
            (ColorDepth::Ansi256, c) => c,
            (ColorDepth::Ansi16, Color::Rgb(r, g, b)) => nearest_ansi16(r, g, b),
            (ColorDepth::Ansi16, Color::Indexed(i)) => {
                let (r, g, b) = rgb_of_index(i);
                nearest_ansi16(r, g, b)
            }
            (ColorDepth::Ansi16, c) => c,
        }
    }

    /// Like `degrade`, for a background: in 16 colours it never becomes black or white, the
    /// likely backgrounds of the terminal itself, or a selection would vanish into them.
    pub fn degrade_background(self, color: Color) -> Color {
        let rgb = match color {
            Color::Rgb(r, g, b) => (r, g, b),
            Color::Indexed(i) if i >= 16 => rgb_of_index(i),
            _ => return self.degrade(color),
        };
        match self {
            ColorDepth::Ansi16 => nearest_among(rgb, |c| !matches!(c, Color::Black | Color::White)),
            _ => self.degrade(color),
        }
    }
}

/// The nearest of the 16 ANSI colours, by a weighted RGB distance that follows the eye's
/// sensitivity better than a plain one ("redmean").
pub fn nearest_ansi16(r: u8, g: u8, b: u8) -> Color {
    nearest_among((r, g, b), |_| true)
}

fn nearest_among(rgb: (u8, u8, u8), allowed: fn(Color) -> bool) -> Color {
    ANSI16
        .iter()
        .filter(|(c, _)| allowed(*c))
        .min_by_key(|(_, candidate)| distance(rgb, *candidate))
        .map_or(Color::Reset, |(c, _)| *c)
}

/// The nearest index of xterm's 256 palette among the cube and the grey ramp (indices 16–255;
/// 0–15 are left out because terminals redefine them).
pub fn nearest_256(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| {
        (0..CUBE.len())
            .min_by_key(|&i| CUBE[i].abs_diff(v))
            .unwrap_or(0)
    };
    let (ri, gi, bi) = (level(r), level(g), level(b));
    let cube_index = 16 + 36 * ri + 6 * gi + bi;
    let cube_rgb = (CUBE[ri], CUBE[gi], CUBE[bi]);
    let mean = (u16::from(r) + u16::from(g) + u16::from(b)) / 3;
    let grey_step = (mean.saturating_sub(3) / 10).min(23) as u8;
    let grey = 8 + 10 * grey_step;
    if distance((r, g, b), (grey, grey, grey)) < distance((r, g, b), cube_rgb) {
        232 + grey_step
    } else {
        cube_index as u8
    }
}

/// The RGB xterm shows for a palette index.
pub fn rgb_of_index(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => ANSI16[usize::from(i)].1,
        16..=231 => {
            let n = usize::from(i - 16);
            (CUBE[n / 36], CUBE[(n / 6) % 6], CUBE[n % 6])
        }
        _ => {
            let v = 8 + 10 * (i - 232);
            (v, v, v)
        }
    }
}

fn distance(a: (u8, u8, u8), b: (u8, u8, u8)) -> u32 {
    let rmean = (u32::from(a.0) + u32::from(b.0)) / 2;
    let dr = i32::from(a.0) - i32::from(b.0);
    let dg = i32::from(a.1) - i32::from(b.1);
    let db = i32::from(a.2) - i32::from(b.2);
    let sq = |d: i32| d.unsigned_abs() * d.unsigned_abs();
    (((512 + rmean) * sq(dr)) >> 8) + 4 * sq(dg) + (((767 - rmean) * sq(db)) >> 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_follows_colorterm_then_term() {
        let d = ColorDepth::from_vars;
        assert_eq!(
            d(Some("truecolor"), Some("xterm-256color")),
            ColorDepth::TrueColor
        );
        assert_eq!(d(Some("24bit"), Some("screen")), ColorDepth::TrueColor);
        assert_eq!(d(None, Some("xterm-direct")), ColorDepth::TrueColor);
        assert_eq!(d(None, Some("xterm-256color")), ColorDepth::Ansi256);
        assert_eq!(d(Some(""), Some("screen-256color")), ColorDepth::Ansi256);
        assert_eq!(d(None, Some("xterm")), ColorDepth::Ansi16);
        assert_eq!(d(None, Some("linux")), ColorDepth::Ansi16);
        assert_eq!(d(None, None), ColorDepth::Ansi16);
        assert_eq!(d(Some("truecolor"), Some("dumb")), ColorDepth::None);
    }

    #[test]
    fn no_color_means_set_and_not_empty() {
        assert!(no_color_requested(Some(OsStr::new("1"))));
        assert!(no_color_requested(Some(OsStr::new("0"))));
        assert!(!no_color_requested(Some(OsStr::new(""))));
        assert!(!no_color_requested(None));
    }

    #[test]
    fn rgb_maps_to_the_expected_ansi_colour() {
        let to16 = |hex: &str| {
            let Color::Rgb(r, g, b) = hex.parse::<Color>().unwrap() else {
                panic!("{hex}")
            };
            nearest_ansi16(r, g, b)
        };
        assert_eq!(to16("#ff0000"), Color::LightRed);
        assert_eq!(to16("#cd0000"), Color::Red);
        assert_eq!(to16("#b00000"), Color::Red);
        assert_eq!(to16("#000000"), Color::Black);
        assert_eq!(to16("#ffffff"), Color::White);
        assert_eq!(to16("#808080"), Color::DarkGray);
        assert_eq!(to16("#40a02b"), Color::Green, "light theme's user green");
        assert_eq!(to16("#d20f39"), Color::Red, "light theme's error red");
        assert_eq!(
            to16("#a3be8c"),
            Color::DarkGray,
            "a muted green is closest to grey"
        );
        assert_eq!(to16("#00d7ff"), Color::LightCyan);
    }

    #[test]
    fn rgb_maps_to_the_expected_256_index() {
        assert_eq!(nearest_256(255, 0, 0), 196);
        assert_eq!(nearest_256(0, 0, 0), 16);
        assert_eq!(nearest_256(255, 255, 255), 231);
        assert_eq!(
            nearest_256(0x30, 0x34, 0x46),
            237,
            "a dark blue-grey is a grey"
        );
        assert_eq!(nearest_256(0x1e, 0x66, 0xf5), 27);
        assert_eq!(nearest_256(128, 128, 128), 244);
        for i in 16..=255u8 {
            let (r, g, b) = rgb_of_index(i);
            assert_eq!(rgb_of_index(nearest_256(r, g, b)), (r, g, b), "index {i}");
        }
    }

    #[test]
    fn degrading_keeps_what_the_depth_can_show() {
        let rgb = Color::Rgb(0xff, 0, 0);
        assert_eq!(ColorDepth::TrueColor.degrade(rgb), rgb);
        assert_eq!(ColorDepth::Ansi256.degrade(rgb), Color::Indexed(196));
        assert_eq!(ColorDepth::Ansi16.degrade(rgb), Color::LightRed);
        assert_eq!(ColorDepth::None.degrade(rgb), Color::Reset);
        assert_eq!(ColorDepth::None.degrade(Color::Green), Color::Reset);
        assert_eq!(ColorDepth::Ansi16.degrade(Color::Green), Color::Green);
        assert_eq!(
            ColorDepth::Ansi256.degrade(Color::Indexed(27)),
            Color::Indexed(27)
        );
        assert_eq!(
            ColorDepth::Ansi16.degrade(Color::Indexed(196)),
            Color::LightRed
        );
        assert_eq!(
            ColorDepth::Ansi16.degrade(Color::Indexed(9)),
            Color::LightRed
        );
    }

    #[test]
    fn a_background_in_16_colours_is_never_the_terminals_own() {
        let dark_selection = Color::Rgb(0x30, 0x34, 0x46);
        assert_eq!(ColorDepth::Ansi16.degrade(dark_selection), Color::Black);
        assert_eq!(
            ColorDepth::Ansi16.degrade_background(dark_selection),
            Color::DarkGray
        );
        let light_selection = Color::Rgb(0xdc, 0xe0, 0xe8);
        assert_eq!(
            ColorDepth::Ansi16.degrade_background(light_selection),
            Color::Gray
        );
        assert_eq!(
            ColorDepth::Ansi256.degrade_background(dark_selection),
            Color::Indexed(237)
        );
        assert_eq!(
            ColorDepth::Ansi16.degrade_background(Color::Blue),
            Color::Blue
        );
    }
}
