//! The session picker screen: a title with discovery's status, the filter input with its
//! cursor and match count, the table of sessions (tool, title, project, size, messages, last
//! activity, matched characters highlighted), the selected session's path and the key hints; or,
//! with nothing to list, where discovery looked and how to look elsewhere.
//!
//! Owns: layout and styling of the picker from `&PickerState`. Must not change state, read the
//! clock, the environment or the disk. Only the visible rows are built.

mod cells;
mod empty;

use crate::text::inline;
use ratatui::layout::{Alignment, Constraint, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell, Paragraph, Row, Table};
use ratatui::Frame;

use crate::live::discover::Found;
use crate::session::Format;
use crate::tui::picker::{PickerState, PickerStatus};
use crate::tui::theme::Theme;

const TOOL: u16 = 11;
const PLACE: u16 = 20;
const SIZE: u16 = 8;
const MSGS: u16 = 10;
const WHEN: u16 = 10;
const MARK: u16 = 1;

/// Where each part of the picker goes in `area`.
struct Regions {
    title: Rect,
    input: Rect,
    header: Rect,
    list: Rect,
    path: Rect,
    keys: Rect,
}

fn regions(area: Rect) -> Regions {
    let row = |y: u16, h: u16| Rect::new(area.x, area.y + y, area.width, h);
    let h = area.height;
    let footer = match h {
        0..=3 => 0,
        4..=9 => 1,
        _ => 2,
    };
    let top = h.min(2);
    let header = u16::from(h >= 4);
    let list_y = top + header;
    let list_h = h.saturating_sub(list_y + footer);
    Regions {
        title: row(0, h.min(1)),
        input: row(h.min(1), top.saturating_sub(1)),
        header: row(top, header),
        list: row(list_y, list_h),
        path: row(list_y + list_h, footer.saturating_sub(1)),
        keys: row(h - footer.min(1), footer.min(1)),
    }
}

/// The rows of `area` the session list occupies (for mapping mouse clicks).
pub fn list_area(area: Rect) -> Rect {
    regions(area).list
}

/// Draws the picker into `area`; returns the number of list rows.
pub fn render(frame: &mut Frame, area: Rect, state: &PickerState, theme: &Theme) -> u16 {
    let r = regions(area);
    render_title(frame, r.title, state, theme);
    render_input(frame, r.input, state, theme);
    if state.matches().is_empty() {
        let block = Rect::new(
            r.header.x,
            r.header.y,
            area.width,
            r.header.height + r.list.height,
        );
        frame.render_widget(empty::paragraph(state, theme), block);
    } else {
        render_table(frame, r.header, r.list, state, theme);
    }
    render_path(frame, r.path, state, theme);
    render_keys(frame, r.keys, theme);
    r.list.height
}

fn render_title(frame: &mut Frame, area: Rect, state: &PickerState, theme: &Theme) {
    let mut spans = vec![Span::styled(" ctxray · sessions  ", theme.bold("title"))];
    match state.status() {
        PickerStatus::Discovering => {
            spans.push(Span::styled("looking for sessions…", theme.fg("dim")));
        }
        PickerStatus::Failed(message) => {
            spans.push(Span::styled(message.clone(), theme.fg("error")))
        }
        PickerStatus::Ready => {
            let n = state.found().len();
            let roots = state.roots_with_sessions();
            spans.push(Span::styled(
                format!(
                    "found {n} session{} in {roots} root{}",
                    plural(n),
                    plural(roots)
                ),
                theme.fg("dim"),
            ));
            let k = state.skipped();
            if k > 0 {
                spans.push(Span::styled(
                    format!(" · {k} unreadable dir{} skipped", plural(k)),
                    theme.fg("warn"),
                ));
            }
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn render_input(frame: &mut Frame, area: Rect, state: &PickerState, theme: &Theme) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let count = format!(" {}/{} ", state.matches().len(), state.found().len());
    let count_w = (count.chars().count() as u16).min(area.width);
    let prompt = "> ";
    let room = usize::from(area.width.saturating_sub(count_w + 2 + 1));
    let shown = tail_fitting(state.query(), room);
    let mut spans = vec![
        Span::styled(prompt, theme.bold("title")),
        Span::styled(shown.clone(), theme.fg("title")),
    ];
    if state.query().is_empty() {
        spans.push(Span::styled(
            " type to filter by tool, title or path",
            theme.fg("dim"),
        ));
    }
    let field = Rect::new(area.x, area.y, area.width - count_w, 1);
    frame.render_widget(Paragraph::new(Line::from(spans)), field);
    let counter = Rect::new(area.x + area.width - count_w, area.y, count_w, 1);
    frame.render_widget(
        Paragraph::new(Span::styled(count, theme.fg("dim"))),
        counter,
    );
    let cursor = 2 + Span::raw(shown).width() as u16;
    if cursor < field.width {
        frame.set_cursor_position(Position::new(area.x + cursor, area.y));
    }
}

/// The end of `text` that fits in `width` columns (the typed end of a long query stays in view).
fn tail_fitting(text: &str, width: usize) -> String {
    let mut used = 0;
    let mut start = text.len();
    for (i, c) in text.char_indices().rev() {
        let w = Span::raw(c.to_string()).width();
        if used + w > width {
            break;
        }
        used += w;
        start = i;
    }
    text[start..].to_string()
}

/// The columns shown at this width: the title always, the rest while there is room.
#[derive(Clone, Copy)]
struct Columns {
    tool: bool,
    place: bool,
    numbers: bool,
}

fn columns(width: u16) -> Columns {
    Columns {
        tool: width >= 40,
        place: width >= 86,
        numbers: width >= 60,
    }
}

fn widths(c: Columns) -> Vec<Constraint> {
    let mut w = vec![Constraint::Length(MARK)];
    if c.tool {
        w.push(Constraint::Length(TOOL));
    }
    w.push(Constraint::Fill(1));
    if c.place {
        w.push(Constraint::Length(PLACE));
    }
    if c.numbers {
        w.extend([Constraint::Length(SIZE), Constraint::Length(MSGS)]);
    }
    if c.tool {
        w.push(Constraint::Length(WHEN));
    }
    w
}

fn header(c: Columns, theme: &Theme) -> Row<'static> {
    let mut cells = vec![Cell::from("")];
    if c.tool {
        cells.push(Cell::from("tool"));
    }
    cells.push(Cell::from("session"));
    if c.place {
        cells.push(Cell::from("project"));
    }
    if c.numbers {
        cells.push(Cell::from(Line::from("size").alignment(Alignment::Right)));
        cells.push(Cell::from(Line::from("msgs").alignment(Alignment::Right)));
    }
    if c.tool {
        cells.push(Cell::from(Line::from("active").alignment(Alignment::Right)));
    }
    Row::new(cells).style(theme.fg("dim").add_modifier(Modifier::BOLD))
}

fn render_table(frame: &mut Frame, head: Rect, list: Rect, state: &PickerState, theme: &Theme) {
    let c = columns(head.width.max(list.width));
    let rows = usize::from(list.height);
    let visible = state
        .matches()
        .iter()
        .enumerate()
        .skip(state.offset())
        .take(rows);
    let body: Vec<Row> = visible
        .filter_map(|(pos, &i)| state.found().get(i).map(|f| (pos, f)))
        .map(|(pos, f)| session_row(f, pos == state.selected(), c, state, theme))
        .collect();
    let area = Rect::new(
        head.x,
        head.y,
        head.width.max(list.width),
        head.height + list.height,
    );
    let mut table = Table::new(body, widths(c)).column_spacing(1);
    if head.height > 0 {
        table = table.header(header(c, theme));
    }
    frame.render_widget(table, area);
}

fn session_row<'a>(
    f: &'a Found,
    selected: bool,
    c: Columns,
    state: &PickerState,
    theme: &Theme,
) -> Row<'a> {
    let query = state.query();
    let tool = theme.fg(tool_role(f.tool));
    let mut cells = vec![Cell::from(Span::styled(
        if selected { "▌" } else { " " },
        tool,
    ))];
    if c.tool {
        cells.push(Cell::from(Span::styled(f.tool.name(), tool)));
    }
    cells.push(Cell::from(match &f.title {
        Some(title) => highlighted(&inline(title), query, theme.fg("title"), theme),
        None => highlighted(&inline(&cells::file_name(f)), query, theme.fg("dim"), theme),
    }));
    if c.place {
        let home = state.locations().map(|l| l.home());
        let place = cells::clip_left(&inline(&cells::place(f, home)), usize::from(PLACE));
        cells.push(Cell::from(highlighted(
            &place,
            query,
            theme.fg("dim"),
            theme,
        )));
    }
    if c.numbers {
        cells.push(right(cells::size(f.size_bytes), theme.fg("dim")));
        cells.push(right(cells::messages(f), theme.fg("dim")));
    }
    if c.tool {
        cells.push(right(cells::ago(f.modified, state.now()), theme.fg("dim")));
    }
    let row = Row::new(cells);
    if selected {
        row.style(Style::default().bg(theme.color("selected_bg")))
    } else {
        row
    }
}

fn right(text: String, style: Style) -> Cell<'static> {
    Cell::from(Line::styled(text, style).alignment(Alignment::Right))
}

/// `text` in `base`, with the characters the filter matched in bold in the `search` role (as
/// the inspector's list marks its search hits).
fn highlighted(text: &str, query: &str, base: Style, theme: &Theme) -> Line<'static> {
    let marks = cells::highlights(text, query);
    let hit = theme.bold("search").add_modifier(Modifier::UNDERLINED);
    let mut spans: Vec<Span> = Vec::new();
    let mut run = String::new();
    let mut run_hit = false;
    for (c, m) in text.chars().zip(marks) {
        if m != run_hit && !run.is_empty() {
            let style = if run_hit { hit } else { base };
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        run_hit = m;
        run.push(c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, if run_hit { hit } else { base }));
    }
    Line::from(spans)
}

/// The theme role a tool's name is drawn in.
pub fn tool_role(tool: Format) -> &'static str {
    crate::formats::registry::of(tool).picker_role()
}

fn render_path(frame: &mut Frame, area: Rect, state: &PickerState, theme: &Theme) {
    if let Some(notice) = &state.notice {
        let text = format!(" {notice}");
        frame.render_widget(Paragraph::new(Span::styled(text, theme.fg("warn"))), area);
    } else if let Some(f) = state.selected_found() {
        let path = format!(" {}", inline(&f.path.display().to_string()));
        frame.render_widget(Paragraph::new(Span::styled(path, theme.fg("dim"))), area);
    }
}

fn render_keys(frame: &mut Frame, area: Rect, theme: &Theme) {
    let keys = [
        ("↑↓", "move"),
        ("Enter", "open"),
        ("Esc", "clear / quit"),
        ("^U", "clear"),
        ("^W", "word"),
        ("PgUp PgDn", "page"),
        ("^C", "quit"),
    ];
    let mut spans = vec![Span::raw(" ")];
    for (i, (key, what)) in keys.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme.fg("dim")));
        }
        spans.push(Span::styled(*key, theme.bold("title")));
        spans.push(Span::styled(format!(" {what}"), theme.fg("dim")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
