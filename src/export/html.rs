//! The HTML report: one self-contained page (inline CSS, SVG and a few lines of JS; no external
//! resource) that opens offline in any browser. The context gauge, one SVG token bar per
//! message, the timeline of context tokens with the trigger line and compaction points, the
//! split with its tool-call groups, the summarizer input, the summarized range against that input
//! with losses highlighted, and findings linking to their messages; light or dark following the
//! reader's `prefers-color-scheme`. Every piece of session content is masked and escaped.
//!
//! Owns: HTML layout, SVG geometry and escaping. Must not: compute plans or diffs, or write files.

use std::fmt::Write;

use super::{
    clip, fate_at, fates, masked, masked_lines, message_text, part_summary, pct, preview,
    thousands, Report,
};
use crate::analysis::Analysis;
use crate::compaction::Plan;
use crate::diff::{summarizer_input_chars, Diff, MessageDiff};
use crate::session::Message;
use crate::timeline::Timeline;
use crate::tokens::MessageCount;

pub(super) const CSS: &str = r#"
:root{color-scheme:light dark;--bg:#fdfdfc;--fg:#1d1f21;--dim:#6a6f75;--line:#d9dce0;--bar:#3b6fd8;
--pinned:#138a8a;--summarized:#b7791f;--kept:#2f855a;--dropped:#c53030;--lost-bg:#fde2e1;--cut-bg:#fdf1d6;
--seen:#2f855a;--lost:#c53030;--card:#f3f4f6}
@media (prefers-color-scheme:dark){:root{--bg:#16181b;--fg:#e6e6e6;--dim:#9aa0a6;--line:#33373c;--bar:#6f9bf2;
--pinned:#3fc1c1;--summarized:#e0a84a;--kept:#5ccf8a;--dropped:#f07070;--lost-bg:#4a1f22;--cut-bg:#463a1c;
--seen:#5ccf8a;--lost:#f07070;--card:#202328}}
body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1rem 1.5rem}
h1{font-size:1.3rem;word-break:break-all}h2{font-size:1.1rem;border-bottom:1px solid var(--line);padding-bottom:.2rem;margin-top:2rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}
pre{background:var(--card);padding:.6rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem}dl.meta dt{color:var(--dim)}dl.meta dd{margin:0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.15rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--dim);font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr:target{outline:2px solid var(--bar)}td.preview{color:var(--dim)}td.preview div{max-width:22rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
svg.bar{display:block}svg.bar rect{fill:var(--bar)}
.fate-pinned{color:var(--pinned)}.fate-summarized{color:var(--summarized)}.fate-kept{color:var(--kept)}.fate-dropped{color:var(--dropped)}
tr.mark td{color:var(--summarized);font-weight:600}
svg.gauge .track{fill:var(--card);stroke:var(--line)}svg.gauge .fill{fill:var(--bar)}svg.gauge .trigger{stroke:var(--dropped);stroke-width:2}
svg.timeline{width:100%;height:auto;background:var(--card)}svg.timeline .exact{fill:none;stroke:var(--bar);stroke-width:2}
svg.timeline .reported{fill:none;stroke:var(--dim);stroke-dasharray:4 3}svg.timeline .trigger{stroke:var(--dropped);stroke-dasharray:6 4}
svg.timeline .window{stroke:var(--dim)}svg.timeline .mark{stroke:var(--summarized);stroke-width:2}svg.timeline .cut{stroke:var(--pinned);stroke-dasharray:2 3;stroke-width:2}
svg.timeline text{fill:var(--dim);font-size:11px}
svg.seen .s{fill:var(--seen)}svg.seen .l{fill:var(--lost)}
.diff span{display:block}.diff .lost{background:var(--lost-bg)}.diff .cut{background:var(--cut-bg)}.diff .head{color:var(--dim);font-weight:600}
.sev-error{color:var(--dropped);font-weight:600}.sev-warn{color:var(--summarized);font-weight:600}.sev-info{color:var(--dim)}
label{color:var(--dim)}
"#;

/// Hides rows that are not in the summarized range when asked, and marks the page ready.
const JS: &str = r#"
(function(){var box=document.getElementById('only-summarized');
if(box){box.addEventListener('change',function(){document.querySelectorAll('#messages tbody tr').forEach(function(r){
r.hidden=box.checked&&!r.classList.contains('row-summarized');});});}
document.body.setAttribute('data-bars',document.querySelectorAll('#messages svg.bar').length);})();
"#;

/// The whole report as one HTML document.
pub fn render(r: &Report) -> String {
    let mut bytes = Vec::new();
    // Written into memory: no write can fail.
    let _ = render_to(r, &mut bytes);
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`render`], written to `w` as it is made: the page is never held whole (for a large
/// session it is larger than the session). Every piece of session content is masked where it
/// is put on the page; what is written is masked once more, a piece at a time, each piece
/// ending where a section, a message or a row does — on a second thread while the next piece
/// is made. The rows of the message table and of the diff, most of the page, are masked as
/// pieces of their own where they are made, on every core, and pass that thread as they are.
pub fn render_to(r: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    std::thread::scope(|scope| {
        let (pieces, to_mask) = std::sync::mpsc::sync_channel::<Piece>(IN_FLIGHT);
        let (masked_back, masked) = std::sync::mpsc::channel::<String>();
        scope.spawn(move || {
            for piece in to_mask {
                let text = match piece {
                    Piece::ToMask(text) => mask_piece(text),
                    Piece::Masked(text) => text,
                };
                if masked_back.send(text).is_err() {
                    break;
                }
            }
        });
        render_pieces(r, Page::new(w, pieces, masked))
    })
}

/// A piece handed to the masking thread: to be masked, or masked already (rows).
enum Piece {
    ToMask(String),
    Masked(String),
}

/// A piece of the page with every secret masked (the piece itself when it holds none).
fn mask_piece(piece: String) -> String {
    match crate::secrets::mask_cow(&piece).0 {
        std::borrow::Cow::Owned(masked) => masked,
        std::borrow::Cow::Borrowed(_) => piece,
    }
}

/// The page's sections, made into `page`.
fn render_pieces(r: &Report, mut page: Page<'_>) -> std::io::Result<()> {
    let a = r.analysis;
    let out = &mut page;
    let _ = writeln!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
<title>ctxray: {}</title><style>{CSS}</style></head>\n<body>",
        esc(&a.session.source.path)
    );
    header(out, r);
    gauge(out, a, r.plan);
    timeline(out, a, r.plan);
    out.end_piece();
    if r.messages {
        messages(out, a, r.plan);
    }
    if let Some(plan) = r.plan {
        split(out, a, plan);
        out.end_piece();
        summarizer(out, plan);
    }
    if let (Some(plan), Some(d)) = (r.plan, r.diff) {
        diff(out, a, plan, d);
    }
    if let Some(c) = r.compacted {
        compacted(out, a, c);
    }
    findings(out, r);
    let _ = write!(out, "<script>{JS}</script>\n</body></html>\n");
    page.finish()
}

/// Pieces of the page this large or larger are written out at the next end of a piece (in
/// tests, small: every page is then written in many pieces).
const PIECE: usize = if cfg!(test) { 256 } else { 64 << 10 };

/// Pieces handed to the masking thread and not yet written, at most (beyond those, making the
/// page waits for the writing).
const IN_FLIGHT: usize = 2;

/// The page being written: text collects until a piece ends (a section, a message, a row)
/// past [`PIECE`] bytes, and is then handed to be masked, and written once masked, in order.
/// The first write that fails ends the writing; its error is the page's.
struct Page<'w> {
    buf: String,
    /// Whether `buf` holds rows masked already (`push_masked`), not text to mask.
    buf_masked: bool,
    w: &'w mut dyn std::io::Write,
    failed: Option<std::io::Error>,
    /// Pieces to mask, and the masked pieces, in the order handed.
    to_mask: Option<std::sync::mpsc::SyncSender<Piece>>,
    masked: std::sync::mpsc::Receiver<String>,
    /// Pieces handed and not yet written.
    waiting: usize,
}

impl<'w> Page<'w> {
    fn new(
        w: &'w mut dyn std::io::Write,
        to_mask: std::sync::mpsc::SyncSender<Piece>,
        masked: std::sync::mpsc::Receiver<String>,
    ) -> Page<'w> {
        Page {
            buf: String::new(),
            buf_masked: false,
            w,
            failed: None,
            to_mask: Some(to_mask),
            masked,
            waiting: 0,
        }
    }

    fn push_str(&mut self, s: &str) {
        self.switch_kind(false);
        self.buf.push_str(s);
    }

    /// Puts a row masked already (by `mask_piece`, as a piece of its own) on the page; a
    /// piece ends after it.
    fn push_masked(&mut self, row: &str) {
        self.switch_kind(true);
        self.buf.push_str(row);
        self.end_piece();
    }

    /// Hands what collected on when what follows is of the other kind (`masked` or not).
    fn switch_kind(&mut self, masked: bool) {
        if self.buf_masked != masked {
            if !self.buf.is_empty() {
                self.write_out();
            }
            self.buf_masked = masked;
        }
    }

    /// A piece ends here: what collected is written once it is large enough.
    fn end_piece(&mut self) {
        if self.buf.len() >= PIECE {
            self.write_out();
        }
    }

    /// Hands what collected to be masked, and writes the pieces masked by now (waiting for
    /// the oldest while more than `IN_FLIGHT` are handed).
    fn write_out(&mut self) {
        if self.failed.is_some() {
            self.buf.clear();
            return;
        }
        let text = std::mem::take(&mut self.buf);
        let piece = if self.buf_masked {
            Piece::Masked(text)
        } else {
            Piece::ToMask(text)
        };
        let handed = self.to_mask.as_ref().map(|to| to.send(piece));
        match handed {
            Some(Ok(())) => self.waiting += 1,
            _ => self.failed = Some(std::io::Error::other("the page's masking stopped")),
        }
        while self.waiting > IN_FLIGHT {
            self.write_masked(true);
        }
        while self.waiting > 0 && self.write_masked(false) {}
    }

    /// Writes the oldest masked piece, waiting for it if `wait`: whether one was written.
    fn write_masked(&mut self, wait: bool) -> bool {
        let got = if wait {
            self.masked.recv().ok()
        } else {
            self.masked.try_recv().ok()
        };
        let Some(text) = got else {
            if wait {
                self.waiting = 0;
                self.failed = Some(std::io::Error::other("the page's masking stopped"));
            }
            return false;
        };
        self.waiting -= 1;
        if self.failed.is_none() {
            if let Err(e) = self.w.write_all(text.as_bytes()) {
                self.failed = Some(e);
            }
        }
        true
    }

    fn finish(mut self) -> std::io::Result<()> {
        self.write_out();
        self.to_mask = None;
        while self.waiting > 0 {
            self.write_masked(true);
        }
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.w.flush(),
        }
    }
}

impl Write for Page<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

fn header(out: &mut Page<'_>, r: &Report) {
    let a = r.analysis;
    let s = &a.session;
    let _ = write!(
        out,
        "<header><h1>ctxray: <code>{}</code></h1><dl class=\"meta\">",
        esc(&s.source.path)
    );
    let mut item = |k: &str, v: String| {
        let _ = write!(out, "<dt>{k}</dt><dd>{v}</dd>");
    };
    for (key, value) in fact_items(a) {
        item(key, value);
    }
    item(
        "context",
        format!(
            "{} messages · {} tokens",
            s.messages.len(),
            thousands(a.total_tokens() as u64)
        ),
    );
    if let Some(plan) = r.plan {
        let settings: Vec<String> = plan
            .settings
            .pairs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        item(
            "preset",
            format!(
                "<code>{}</code> ({}) <code>{}</code>",
                esc(plan.preset),
                esc(plan.framework),
                esc(&settings.join(" "))
            ),
        );
        let t = &plan.trigger;
        item(
            "trigger",
            format!(
                "<strong>{}</strong>: {} ({} {} by {})",
                if t.fired { "fires" } else { "does not fire" },
                esc(&t.reason),
                t.value,
                esc(t.measure),
                esc(&t.estimator)
            ),
        );
    }
    out.push_str("</dl></header>\n");
}

/// The context against the window, with the trigger's threshold when it counts tokens.
fn gauge(out: &mut Page<'_>, a: &Analysis, plan: Option<&Plan>) {
    let total = a.total_tokens() as u64;
    let w = 600.0;
    let frac = (total as f64 / a.window.max(1) as f64).min(1.0);
    let _ = write!(
        out,
        "<section id=\"gauge\"><h2>Context</h2><svg class=\"gauge\" viewBox=\"0 0 {w} 28\" width=\"{w}\" height=\"28\" role=\"img\" aria-label=\"{} of {} tokens\">\
<rect class=\"track\" x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"27\" rx=\"4\"/><rect class=\"fill\" x=\"1\" y=\"1\" width=\"{:.1}\" height=\"26\" rx=\"3\"/>",
        thousands(total),
        thousands(a.window),
        w - 1.0,
        (w - 2.0) * frac
    );
    if let Some(t) = plan.map(|p| &p.trigger).filter(|t| t.measure == "tokens") {
        let x = (t.threshold as f64 / a.window.max(1) as f64).min(1.0) * (w - 2.0) + 1.0;
        let _ = write!(
            out,
            "<line class=\"trigger\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"0\" y2=\"28\"><title>trigger at {} tokens</title></line>",
            thousands(t.threshold)
        );
    }
    let _ = writeln!(
        out,
        "</svg><p>{} of {} tokens · {:.1}% of the window</p></section>",
        thousands(total),
        thousands(a.window),
        pct(total, a.window.max(1))
    );
}

/// Context tokens request by request: the exact series, the provider's reported one, the
/// trigger line, the file's compactions and the plan's cut.
fn timeline(out: &mut Page<'_>, a: &Analysis, plan: Option<&Plan>) {
    let t = Timeline::build(a, plan);
    if t.points.is_empty() {
        return;
    }
    let (w, h, pad) = (1000.0, 220.0, 30.0);
    let threshold = t
        .trigger
        .as_ref()
        .filter(|tr| tr.in_tokens())
        .map(|tr| tr.threshold);
    let top = t.series_max().max(threshold.unwrap_or(0)).max(1) as f64 * 1.1;
    let x = |upto: usize| pad + (w - 2.0 * pad) * upto as f64 / t.len.max(1) as f64;
    let y = |v: u64| h - pad - (h - 2.0 * pad) * (v as f64 / top).min(1.05);
    let _ = write!(
        out,
        "<section id=\"timeline\"><h2>Timeline</h2><svg class=\"timeline\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"context tokens per request\">"
    );
    if a.window as f64 <= top {
        let yw = y(a.window);
        let _ = write!(
            out,
            "<line class=\"window\" x1=\"{pad}\" x2=\"{}\" y1=\"{yw:.1}\" y2=\"{yw:.1}\"/><text x=\"{}\" y=\"{:.1}\">window</text>",
            w - pad,
            w - pad - 50.0,
            yw - 3.0
        );
    }
    if let Some(th) = threshold {
        let yt = y(th);
        let _ = write!(
            out,
            "<line class=\"trigger\" x1=\"{pad}\" x2=\"{}\" y1=\"{yt:.1}\" y2=\"{yt:.1}\"><title>trigger: {} tokens</title></line><text x=\"{}\" y=\"{:.1}\">trigger {}</text>",
            w - pad,
            thousands(th),
            pad + 4.0,
            yt - 3.0,
            thousands(th)
        );
    }
    for m in &t.marks {
        let xm = x(m.at);
        let _ = write!(
            out,
            "<line class=\"mark\" x1=\"{xm:.1}\" x2=\"{xm:.1}\" y1=\"{pad}\" y2=\"{}\"><title>{} before #{}</title></line>",
            h - pad,
            esc(&m.kind),
            m.at
        );
    }
    if let Some(p) = plan.filter(|p| p.trigger.fired) {
        if let Some(&last) = p.split.summarized.iter().max() {
            let xc = x(last + 1);
            let _ = write!(
                out,
                "<line class=\"cut\" x1=\"{xc:.1}\" x2=\"{xc:.1}\" y1=\"{pad}\" y2=\"{}\"><title>{} compacts up to #{last}</title></line>",
                h - pad,
                esc(p.preset)
            );
        }
    }
    let exact: Vec<String> = t
        .points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.upto), y(p.exact)))
        .collect();
    let _ = write!(
        out,
        "<polyline class=\"exact\" points=\"{}\"><title>context tokens (exact)</title></polyline>",
        exact.join(" ")
    );
    let reported: Vec<String> = t
        .points
        .iter()
        .filter_map(|p| p.reported.map(|r| format!("{:.1},{:.1}", x(p.upto), y(r))))
        .collect();
    if reported.len() > 1 {
        let _ = write!(
            out,
            "<polyline class=\"reported\" points=\"{}\"><title>reported by the provider</title></polyline>",
            reported.join(" ")
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{pad}\" y=\"{}\">#0</text><text x=\"{}\" y=\"{}\">#{}</text><text x=\"{pad}\" y=\"{}\">{} tokens</text></svg></section>",
        h - 10.0,
        w - pad - 30.0,
        h - 10.0,
        t.len,
        pad - 12.0,
        thousands(top as u64)
    );
}

fn messages(out: &mut Page<'_>, a: &Analysis, plan: Option<&Plan>) {
    let largest = a
        .counts
        .messages
        .iter()
        .map(|c| c.total())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let _ = writeln!(
        out,
        "<section id=\"messages\"><h2>Tokens per message</h2>{}<table><thead><tr><th>#</th><th>role</th>{}<th>parts</th><th>tools</th><th>tokens</th><th></th><th>preview</th></tr></thead><tbody>",
        if plan.is_some() {
            "<p><label><input type=\"checkbox\" id=\"only-summarized\"> only the summarized range</label></p>"
        } else {
            ""
        },
        if plan.is_some() { "<th>fate</th>" } else { "" }
    );
    let mut marks = a.session.marks.iter().peekable();
    let cols = if plan.is_some() { 7 } else { 6 };
    let all = fates(a, plan);
    let rows: Vec<(&Message, &MessageCount)> =
        a.session.messages.iter().zip(&a.counts.messages).collect();
    let row = |&(m, c): &(&Message, &MessageCount)| {
        let fate = plan.map(|_| fate_at(&all, m.index));
        mask_piece(message_row(m, c, fate, largest))
    };
    // Rows are made a window at a time on every core (each masks and clips its message's
    // text) and put on the page in order, the marks between them.
    for window in rows.chunks(ROWS_AT_ONCE) {
        let made = crate::par::map(window, PARALLEL_ROWS, row, |_| {});
        for (&(m, _), html) in window.iter().zip(made) {
            while let Some(mark) = marks.next_if(|k| k.before_message <= m.index) {
                let _ = writeln!(
                    out,
                    "<tr class=\"mark\"><td></td><td colspan=\"{cols}\">── {} ──</td></tr>",
                    esc(&mark.kind)
                );
            }
            out.push_masked(&html);
        }
    }
    out.push_str("</tbody></table></section>\n");
}

/// Rows made together at most (on every core), and the fewest worth more than one thread (in
/// tests, few: every page is then made in many windows, each on several threads).
const ROWS_AT_ONCE: usize = if cfg!(test) { 4 } else { 1024 };
const PARALLEL_ROWS: usize = if cfg!(test) { 2 } else { 64 };
/// Characters of the messages whose diff rows are made together at most (their rows are
/// about as large), unless that is a single message.
const DIFF_CHARS_AT_ONCE: usize = if cfg!(test) { 256 } else { 8 << 20 };

/// One message's row of the table: its token bar and its text masked, then clipped.
fn message_row(m: &Message, c: &MessageCount, fate: Option<&str>, largest: f64) -> String {
    let width = 160.0 * c.total() as f64 / largest;
    let text = message_text(&m.parts);
    format!(
        "<tr id=\"m{i}\" class=\"row-{f}\"><td class=\"n\">{i}</td><td>{}</td>{}<td>{}</td><td>{}</td><td class=\"n\">{}</td>\
<td><svg class=\"bar\" width=\"160\" height=\"12\" viewBox=\"0 0 160 12\" data-tokens=\"{}\"><rect x=\"0\" y=\"1\" width=\"{width:.1}\" height=\"10\"><title>{} tokens</title></rect></svg></td><td class=\"preview\" title=\"{}\"><div>{}</div></td></tr>\n",
        m.role.as_str(),
        fate.map_or(String::new(), |f| format!("<td class=\"fate-{f}\">{f}</td>")),
        part_summary(&m.parts),
        esc(&m.tool_names().join(", ")),
        thousands(c.total() as u64),
        c.total(),
        thousands(c.total() as u64),
        esc(&clip(&text, 400)),
        esc(&preview(&text, 80)),
        i = m.index,
        f = fate.unwrap_or("all"),
    )
}

fn split(out: &mut Page<'_>, a: &Analysis, plan: &Plan) {
    let s = &plan.split;
    let total = a.total_tokens().max(1) as f64;
    out.push_str("<section id=\"split\"><h2>Split</h2><table><thead><tr><th>fate</th><th>messages</th><th>tokens</th><th></th></tr></thead><tbody>");
    for (name, ix) in [
        ("pinned", &s.pinned),
        ("summarized", &s.summarized),
        ("kept", &s.kept),
        ("dropped", &s.dropped),
    ] {
        let t: usize = ix
            .iter()
            .filter_map(|&i| a.counts.messages.get(i))
            .map(|c| c.total())
            .sum();
        let links: Vec<String> = ix
            .iter()
            .take(200)
            .map(|i| format!("<a href=\"#m{i}\">#{i}</a>"))
            .collect();
        let _ = write!(
            out,
            "<tr><td class=\"fate-{name}\">{name}</td><td>{}{}</td><td class=\"n\">{}</td><td><svg class=\"bar\" width=\"160\" height=\"12\"><rect x=\"0\" y=\"1\" width=\"{:.1}\" height=\"10\"/></svg></td></tr>",
            if links.is_empty() { "—".to_string() } else { links.join(" ") },
            if ix.len() > 200 { " …" } else { "" },
            thousands(t as u64),
            160.0 * t as f64 / total
        );
    }
    out.push_str("</tbody></table>");
    if !a.grouping.groups.is_empty() {
        out.push_str("<h3>Tool-call groups</h3><table><thead><tr><th>group</th><th>tools</th><th>messages</th><th>fate</th><th>complete</th></tr></thead><tbody>");
        let all = fates(a, Some(plan));
        for (g, grp) in a.grouping.groups.iter().enumerate() {
            let mut fates: Vec<&str> = Vec::new();
            for &i in &grp.messages {
                let f = fate_at(&all, i);
                if !fates.contains(&f) {
                    fates.push(f);
                }
            }
            let names: Vec<String> = grp
                .messages
                .iter()
                .filter_map(|&i| a.session.messages.get(i))
                .flat_map(|m| m.tool_names())
                .collect();
            let links: Vec<String> = grp
                .messages
                .iter()
                .map(|i| format!("<a href=\"#m{i}\">#{i}</a>"))
                .collect();
            let _ = write!(
                out,
                "<tr><td>{g}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&clip(&names.join(", "), 60)),
                links.join(" "),
                if fates.len() > 1 {
                    format!("<strong>split</strong>: {}", fates.join(" / "))
                } else {
                    fates.join("")
                },
                if grp.complete() {
                    "yes"
                } else {
                    "<strong>no</strong>"
                }
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("</section>\n");
}

/// Bytes of a long text put on the page a piece at a time (in tests, few: a request is then
/// cut into many).
const TEXT_PIECE: usize = if cfg!(test) { 64 } else { 1 << 20 };

/// `text` cut into pieces of about `size` bytes, each ending at a line's end (or the text's).
fn at_lines(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let from = size.min(rest.len());
        let cut = match rest.as_bytes()[from..].iter().position(|&b| b == b'\n') {
            Some(at) => from + at + 1,
            None => rest.len(),
        };
        let (piece, later) = rest.split_at(cut);
        out.push(piece);
        rest = later;
    }
    out
}

fn summarizer(out: &mut Page<'_>, plan: &Plan) {
    if plan.summarizer.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<section id=\"summarizer\"><h2>Summarizer input</h2><p>{} message(s), {} characters.</p>",
        plan.summarizer.len(),
        thousands(summarizer_input_chars(plan) as u64)
    );
    for m in &plan.summarizer {
        let _ = write!(
            out,
            "<details class=\"prompt\"><summary>{} · {} characters</summary><pre>",
            m.role.as_str(),
            thousands(m.content.chars().count() as u64),
        );
        // Masked whole, then escaped and masked once more as the page is, in pieces cut at
        // line ends, a window of them at a time on every core (a request can be as large as
        // the session).
        let masked = crate::secrets::mask_cow(&m.content).0;
        let pieces = at_lines(&masked, TEXT_PIECE);
        for window in pieces.chunks(crate::par::cores().max(1) * 4) {
            let made = crate::par::map(window, 2, |p| mask_piece(esc(p)), |_| {});
            for html in made {
                out.push_masked(&html);
            }
        }
        out.push_str("</pre></details>");
        out.end_piece();
    }
    out.push_str("</section>\n");
    out.end_piece();
}

fn diff(out: &mut Page<'_>, a: &Analysis, plan: &Plan, d: &Diff) {
    out.push_str("<section id=\"diff\"><h2>Summarized range against the summarizer input</h2>");
    if d.messages.is_empty() {
        let _ = writeln!(
            out,
            "<p>Nothing is summarized: {}</p></section>",
            esc(&plan.trigger.reason)
        );
        return;
    }
    let _ = write!(
        out,
        "<p>{} messages summarized · {} of {} characters reach the summarizer ({:.0}%) · evidence survival {}/{} ({:.0}%). \
Lines <span class=\"sev-error\">highlighted red</span> never reach the summarizer; amber ones only cut short.</p>",
        d.messages.len(),
        thousands(d.seen_chars as u64),
        thousands(d.raw_chars as u64),
        pct(d.seen_chars as u64, d.raw_chars as u64),
        d.evidence_survived,
        d.evidence_total,
        d.evidence_survival() * 100.0
    );
    out.push_str("<div class=\"diff\">");
    // A window of rows at a time on every core (each masks its message's lines), put on the
    // page in order.
    let mut rest = d.messages.as_slice();
    while !rest.is_empty() {
        let mut take = 0;
        let mut chars = 0;
        while take < rest.len() && take < ROWS_AT_ONCE && (take == 0 || chars < DIFF_CHARS_AT_ONCE)
        {
            chars += rest[take].raw_chars;
            take += 1;
        }
        let (window, later) = rest.split_at(take);
        rest = later;
        let row = |m: &MessageDiff| mask_piece(diff_row(a, m));
        for html in crate::par::map(window, 2, row, |_| {}) {
            out.push_masked(&html);
        }
    }
    out.push_str("</div></section>\n");
    out.end_piece();
}

/// One summarized message's piece of the diff: its head (what it loses) and its lines, each
/// masked, then clipped, marked seen, cut or lost.
fn diff_row(a: &Analysis, m: &MessageDiff) -> String {
    let mut out = String::new();
    let frac = if m.raw_chars == 0 {
        1.0
    } else {
        m.seen_chars as f64 / m.raw_chars as f64
    };
    let lost = crate::report::lost::Lost::of(m).pieces(
        esc,
        |f| format!("<code>{}</code>", esc(&clip(&f.text, 60))),
        ", ",
    );
    let _ = write!(
        out,
        "<div class=\"dm\" data-message=\"{i}\"><p class=\"head\"><a href=\"#m{i}\">#{i}</a> {} \
<svg class=\"seen\" width=\"120\" height=\"10\"><rect class=\"s\" x=\"0\" y=\"0\" width=\"{:.1}\" height=\"10\"/><rect class=\"l\" x=\"{:.1}\" y=\"0\" width=\"{:.1}\" height=\"10\"/></svg> \
{} / {} chars seen{}</p><pre>",
        m.role.as_str(),
        120.0 * frac,
        120.0 * frac,
        120.0 * (1.0 - frac),
        thousands(m.seen_chars as u64),
        thousands(m.raw_chars as u64),
        if lost.is_empty() {
            String::new()
        } else {
            format!(" · <span class=\"sev-error\">lost: {}</span>", lost.join(" · "))
        },
        i = m.index
    );
    if let Some(msg) = a.session.messages.get(m.index) {
        let seen = crate::diff::message_lines(msg, m);
        let texts = masked_lines(seen.iter().map(|l| l.text.as_str()));
        for (l, text) in seen.iter().zip(&texts) {
            let class = if l.seen >= l.chars {
                "seen"
            } else if l.seen == 0 {
                "lost"
            } else {
                "cut"
            };
            let _ = write!(out, "<span class=\"{class}\">");
            esc_into(&mut out, &clip(text, 400));
            out.push_str("</span>");
        }
    }
    out.push_str("</pre></div>");
    out
}

fn compacted(out: &mut Page<'_>, before: &Analysis, c: super::Compacted) {
    let b = before.total_tokens() as u64;
    let a = c.after.total_tokens() as u64;
    let largest = b.max(a).max(1) as f64;
    let _ = write!(
        out,
        "<section id=\"compaction\"><h2>Compaction</h2><table><tbody>\
<tr><td>before</td><td class=\"n\">{} messages</td><td class=\"n\">{} tokens</td><td><svg class=\"bar\" width=\"240\" height=\"12\"><rect x=\"0\" y=\"1\" width=\"{:.1}\" height=\"10\"/></svg></td></tr>\
<tr><td>after</td><td class=\"n\">{} messages</td><td class=\"n\">{} tokens</td><td><svg class=\"bar\" width=\"240\" height=\"12\"><rect x=\"0\" y=\"1\" width=\"{:.1}\" height=\"10\"/></svg></td></tr>\
</tbody></table><p>summarizer: <code>{}</code></p>",
        before.session.messages.len(),
        thousands(b),
        240.0 * b as f64 / largest,
        c.after.session.messages.len(),
        thousands(a),
        240.0 * a as f64 / largest,
        esc(c.summarizer)
    );
    if let Some(s) = c.summary {
        let _ = write!(
            out,
            "<details open><summary>summary</summary><pre>{}</pre></details>",
            esc(&masked(s))
        );
    }
    out.push_str("</section>\n");
}

fn findings(out: &mut Page<'_>, r: &Report) {
    out.push_str("<section id=\"findings\"><h2>Findings</h2>");
    let all = r.findings();
    if all.is_empty() {
        out.push_str("<p>None.</p></section>\n");
        return;
    }
    // Links go to the message rows only when the table is on the page.
    out.push_str("<ul>");
    for f in all {
        let refs: Vec<String> = f
            .messages
            .iter()
            .take(30)
            .map(|i| {
                if r.messages {
                    format!("<a href=\"#m{i}\">#{i}</a>")
                } else {
                    format!("#{i}")
                }
            })
            .collect();
        let _ = write!(
            out,
            "<li class=\"finding\"><span class=\"sev-{s}\">{s}</span> <code>{}</code> {}: {}</li>",
            f.code,
            refs.join(" "),
            esc(&masked(&f.detail)),
            s = f.severity.as_str()
        );
    }
    out.push_str("</ul></section>\n");
}

/// Text safe in HTML content and attribute values.
/// [`super::session_facts`] as HTML definition values.
pub(super) fn fact_items(a: &Analysis) -> Vec<(&'static str, String)> {
    super::session_facts(a)
        .into_iter()
        .map(|(key, fact)| {
            let value = match fact {
                super::Fact::Code(c) => format!("<code>{}</code>", esc(&c)),
                super::Fact::Text(t) => esc(&t),
            };
            (key, value)
        })
        .collect()
}

pub(super) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    esc_into(&mut out, s);
    out
}

/// [`esc`], appended to `out`.
fn esc_into(out: &mut String, s: &str) {
    out.reserve(s.len());
    // Runs of bytes that stand as they are are copied whole; a byte is looked at only when
    // it may need showing otherwise (see `STOPS`), and only such a byte that leads a character
    // outside ASCII has its character read.
    let bytes = s.as_bytes();
    let (mut copied, mut at) = (0, 0);
    while let Some(stop) = bytes[at..].iter().position(|&b| STOPS[usize::from(b)]) {
        at += stop;
        let b = bytes[at];
        let (len, shown): (usize, Option<std::borrow::Cow<str>>) = if b < 0x80 {
            let shown = match b {
                b'&' => "&amp;".into(),
                b'<' => "&lt;".into(),
                b'>' => "&gt;".into(),
                b'"' => "&quot;".into(),
                b'\'' => "&#39;".into(),
                _ => unsafe_shown(char::from(b)),
            };
            (1, Some(shown))
        } else {
            let c = s[at..].chars().next().unwrap_or_default();
            let unsafe_ = crate::text::sanitize::is_unsafe(c, crate::text::Mode::Block);
            (c.len_utf8().max(1), unsafe_.then(|| unsafe_shown(c)))
        };
        if let Some(shown) = shown {
            out.push_str(&s[copied..at]);
            out.push_str(&shown);
            copied = at + len;
        }
        at += len;
    }
    out.push_str(&s[copied..]);
}

/// The bytes `esc_into` looks at: the five HTML escapes, the ASCII controls but newline and
/// tab, and the first bytes of every character outside ASCII that is unsafe on a page
/// (U+0080–U+009F, U+061C, and the U+2000 block's separators and bidi controls). No byte of a
/// character outside ASCII is ASCII, and these are first bytes, so a stop is always where a
/// character starts.
static STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b != b'\n' as usize && b != b'\t' as usize;
        b += 1;
    }
    t[0x7f] = true;
    t[b'&' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[0xc2] = true;
    t[0xd8] = true;
    t[0xe2] = true;
    t
};

/// A character that must not reach the page as itself, as the page shows it.
fn unsafe_shown(c: char) -> std::borrow::Cow<'static, str> {
    crate::text::sanitize::sanitize(&c.to_string(), crate::text::Mode::Block)
        .into_owned()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that keeps what it is given and counts the writes, or fails every write.
    struct Kept {
        bytes: Vec<u8>,
        writes: usize,
        fail: bool,
    }

    impl std::io::Write for Kept {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.writes += 1;
            if self.fail {
                return Err(std::io::Error::other("disk full"));
            }
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_page_is_written_in_pieces_each_masked_and_a_failed_write_ends_it() {
        let mut a = crate::testing::demo();
        let secret = "sk-proj-abcDEF1234567890ghijKLMN";
        // The source path is put on the page unmasked (it is not session content): only the
        // masking of what is written catches it.
        a.session.source.path = format!("sessions/{secret}.jsonl");
        let r = Report {
            analysis: &a,
            messages: true,
            plan: None,
            diff: None,
            compacted: None,
        };
        let mut out = Kept {
            bytes: Vec::new(),
            writes: 0,
            fail: false,
        };
        render_to(&r, &mut out).unwrap();
        let page = String::from_utf8(out.bytes).unwrap();
        assert!(out.writes > 3, "written in pieces: {} writes", out.writes);
        assert!(!page.contains(secret));
        assert_eq!(
            page.matches("[REDACTED:openai-key]").count(),
            2,
            "title and header"
        );
        assert!(page.ends_with("</body></html>\n"));
        assert_eq!(page, render(&r));

        let mut broken = Kept {
            bytes: Vec::new(),
            writes: 0,
            fail: true,
        };
        let err = render_to(&r, &mut broken).unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(
            broken.writes, 1,
            "nothing is written after the first failure"
        );
    }

    /// The numbers after each `marker` on the page, in order.
    fn numbers_after(page: &str, marker: &str) -> Vec<usize> {
        page.match_indices(marker)
            .filter_map(|(at, _)| {
                let rest = &page[at + marker.len()..];
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                rest[..digits].parse().ok()
            })
            .collect()
    }

    #[test]
    fn rows_made_on_every_core_come_in_order_each_masked() {
        let mut a = crate::testing::demo();
        let secret = "sk-proj-abcDEF1234567890ghijKLMN";
        // A tool's name is put on the rows as it is (the texts are masked where they are
        // made): only the masking of each row catches it.
        let mut named = 0;
        for m in &mut a.session.messages {
            for p in &mut m.parts {
                if let crate::session::Part::ToolCall { name, .. } = p {
                    *name = secret.to_string();
                    named += 1;
                }
            }
        }
        assert!(named > 0);
        let preset = crate::compaction::presets::find("claude-code").unwrap();
        let input = crate::compaction::preset::PlanInput::new(&a);
        let plan = crate::testing::fired(&input, preset).expect("a compaction");
        let d = crate::diff::diff(&a.session, &plan);
        assert!(d.messages.len() > ROWS_AT_ONCE, "one window only");
        let r = Report {
            analysis: &a,
            messages: true,
            plan: Some(&plan),
            diff: Some(&d),
            compacted: None,
        };
        let page = render(&r);
        assert!(!page.contains(secret));
        assert!(page.contains("[REDACTED:openai-key]"));
        let rows: Vec<usize> = (0..a.session.messages.len()).collect();
        assert_eq!(numbers_after(&page, "<tr id=\"m"), rows);
        let diffed: Vec<usize> = d.messages.iter().map(|m| m.index).collect();
        assert_eq!(numbers_after(&page, "data-message=\""), diffed);
    }

    #[test]
    fn a_long_request_is_put_on_the_page_as_it_was_masked_and_escaped_whole() {
        let a = crate::testing::demo();
        let preset = crate::compaction::presets::find("claude-code").unwrap();
        let input = crate::compaction::preset::PlanInput::new(&a);
        let mut plan = crate::testing::fired(&input, preset).expect("a compaction");
        let secret = "sk-proj-abcDEF1234567890ghijKLMN";
        let lines: Vec<String> = (0..40)
            .map(|i| format!("line {i} of the request"))
            .collect();
        plan.summarizer[0].content = format!(
            "{}\nkey <{secret}> & \"é\"\n\u{1b}]0;x\u{7}",
            lines.join("\n")
        );
        let content = plan.summarizer[0].content.clone();
        assert!(content.len() > 4 * TEXT_PIECE, "cut into pieces");
        let whole = esc(&crate::secrets::mask(&content).0);
        let r = Report {
            analysis: &a,
            messages: false,
            plan: Some(&plan),
            diff: None,
            compacted: None,
        };
        let page = render(&r);
        assert!(!page.contains(secret));
        let section = &page[page.find("<section id=\"summarizer\">").unwrap()..];
        let shown = &section[section.find("<pre>").unwrap() + 5..section.find("</pre>").unwrap()];
        assert_eq!(shown, whole);
        let pieces = at_lines(&content, TEXT_PIECE);
        assert!(pieces.len() > 2);
        assert_eq!(pieces.concat(), content);
        assert!(pieces[..pieces.len() - 1].iter().all(|p| p.ends_with('\n')));
    }

    #[test]
    fn escaping_closes_every_door() {
        assert_eq!(
            esc("<script>alert('x')</script>&\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"
        );
        assert_eq!(esc("a\u{1b}]0;t\u{7}\u{202e}b\nc"), "a␛]0;t␇\\u{202e}b\nc");
    }

    proptest::proptest! {
        /// Escaping copies runs whole and reads as one only the bytes of a character outside
        /// ASCII: the page is the one escaping a character at a time gives.
        #[test]
        fn escaping_runs_is_escaping_each_character(
            s in "[a<>&\"' \n\t\u{0}\u{1b}\u{7f}\u{85}\u{a0}\u{61c}\u{60c}\u{200e}\u{2028}\u{2029}\u{202e}\u{2069}\u{2013}é中🙂z]{0,40}"
        ) {
            let mut want = String::new();
            for ch in s.chars() {
                match ch {
                    '&' => want.push_str("&amp;"),
                    '<' => want.push_str("&lt;"),
                    '>' => want.push_str("&gt;"),
                    '"' => want.push_str("&quot;"),
                    '\'' => want.push_str("&#39;"),
                    c if crate::text::sanitize::is_unsafe(c, crate::text::Mode::Block) => want
                        .push_str(&crate::text::sanitize::sanitize(
                            &c.to_string(),
                            crate::text::Mode::Block,
                        )),
                    c => want.push(c),
                }
            }
            let mut got = String::from("kept ");
            esc_into(&mut got, &s);
            proptest::prop_assert_eq!(got, format!("kept {want}"));
        }
    }
}
