//! The legend (`L`): what the list's bars, edge marks, brackets and rules mean, in the glyphs
//! and colours this terminal shows (with `NO_COLOR` each fate has a glyph of its own).

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use crate::tui::color_depth::ColorDepth;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame, area: Rect, theme: &Theme) {
    frame.render_widget(
        Paragraph::new(line(theme, area.width)).wrap(Wrap { trim: false }),
        area,
    );
}

/// Rows the legend takes at `width`.
pub fn height(theme: &Theme, width: u16) -> u16 {
    let w = u16::try_from(line(theme, width).width()).unwrap_or(u16::MAX);
    w.div_ceil(width.max(1)).max(1)
}

/// The legend in words, or in fewer words where the long one would take more than two rows.
fn line<'a>(theme: &Theme, width: u16) -> Line<'a> {
    let long = words(theme, false);
    if long.width() <= usize::from(width) * 2 {
        long
    } else {
        words(theme, true)
    }
}

fn words<'a>(theme: &Theme, short: bool) -> Line<'a> {
    let dim = theme.fg("dim");
    let plain = theme.depth() == ColorDepth::None;
    let fates: [(&str, &str, &str); 4] = if plain {
        [
            ("◆", "pinned", "pinned"),
            ("░", "summarized", "summarized"),
            ("▌", "kept", "kept"),
            ("×", "dropped", "dropped"),
        ]
    } else {
        [
            ("▌", "pinned", "pinned"),
            ("▌", "summarized", "summarized"),
            ("▌", "kept", "kept"),
            ("▌", "dropped", "dropped"),
        ]
    };
    let mut spans = vec![
        Span::styled(" █", theme.fg("bar")),
        Span::styled(
            if short {
                " tokens "
            } else {
                " content tokens "
            },
            dim,
        ),
        Span::styled("▒", theme.fg("bar_overhead")),
        Span::styled(
            if short {
                " overhead · out = reported output · edge"
            } else {
                " overhead (framing, images) · total = both · out = output tokens the provider reported · edge:"
            },
            dim,
        ),
    ];
    for (glyph, role, name) in fates {
        spans.push(Span::styled(format!(" {glyph}"), theme.fg(role)));
        spans.push(Span::styled(name, dim));
    }
    if short {
        spans.extend([
            Span::styled(" · ", dim),
            Span::styled("┌└", theme.fg("group")),
            Span::styled(" tool group · ", dim),
            Span::styled("──", theme.fg("mark")),
            Span::styled(" compaction, ", dim),
            Span::styled("──", theme.bold("cut")),
            Span::styled(" cut · L hides", dim),
        ]);
        return Line::from(spans);
    }
    spans.extend([
        Span::styled(" (faint rows leave the context) · ", dim),
        Span::styled("┌│└", theme.fg("group")),
        Span::styled(" tool call and its results (", dim),
        Span::styled("┌│└", theme.fg("group_broken")),
        Span::styled(" broken) · ", dim),
        Span::styled("────", theme.fg("mark")),
        Span::styled(" compaction in the file · ", dim),
        Span::styled("────", theme.bold("cut")),
        Span::styled(" the preset's cut · L hides", dim),
    ]);
    Line::from(spans)
}
