//! The replay as one self-contained HTML page (inline CSS, SVG and a few lines of JS; nothing
//! loaded from outside): the session, the sawtooth with a legend, each run's configuration and
//! totals side by side, then each run's compactions, rejected attempts and findings. Light or
//! dark following `prefers-color-scheme`, like the plan's page; the finished page is masked.
//!
//! Owns: the page's layout. Must not: run replays, or write files.

use std::fmt::Write;

use super::super::html::{esc, CSS};
use super::super::{masked, thousands};
use super::sawtooth::{run_class, svg, window_name, window_on_chart, windows};
use super::{
    checks_text, compaction_cells, finding_groups, letter, rejected_cells, settings_text,
    summaries_text, Doc, Run, COMPACTION_HEAD, COMPACTION_NUMERIC, REJECTED_HEAD, SUMMARY,
};

const REPLAY_CSS: &str = r#"
:root{--run-a:var(--bar);--run-b:#d0641c}
@media (prefers-color-scheme:dark){:root{--run-b:#f2994a}}
svg.sawtooth{width:100%;height:auto;background:var(--card)}
svg.sawtooth .grid{stroke:var(--line)}svg.sawtooth .axis{stroke:var(--dim)}
svg.sawtooth .tick,svg.sawtooth .label{fill:var(--dim);font-size:11px}
svg.sawtooth .window{stroke:var(--dim);stroke-width:1.5}
svg.sawtooth .threshold{fill:none;stroke:var(--dropped);stroke-dasharray:6 4;stroke-width:1.5}
svg.sawtooth .tokens{fill:none;stroke-width:2;stroke-linejoin:round}
svg.sawtooth .tokens.run-a{stroke:var(--run-a)}svg.sawtooth .tokens.run-b{stroke:var(--run-b)}
svg.sawtooth .threshold.run-a{stroke:var(--run-a)}svg.sawtooth .threshold.run-b{stroke:var(--run-b);stroke-dasharray:2 4}
svg.sawtooth .compaction circle{stroke:var(--bg);stroke-width:1.5}
svg.sawtooth .compaction.run-a circle{fill:var(--run-a)}svg.sawtooth .compaction.run-b circle{fill:var(--run-b)}
svg.sawtooth .compaction .hit{stroke:transparent;stroke-width:10}
svg.sawtooth .compaction.hi circle,svg.sawtooth .compaction:hover circle{stroke:var(--fg);stroke-width:2.5}
svg.sawtooth .rejected{fill:none;stroke-width:2}svg.sawtooth .rejected.run-a{stroke:var(--run-a)}svg.sawtooth .rejected.run-b{stroke:var(--run-b)}
.legend span{display:inline-block;margin-right:1.2rem}.legend i{display:inline-block;width:1.4rem;height:0;border-top:3px solid;vertical-align:middle;margin-right:.35rem}
.legend .run-a{border-color:var(--run-a)}.legend .run-b{border-color:var(--run-b)}.legend .threshold{border-top:2px dashed var(--dropped)}.legend .window{border-color:var(--dim);border-top-width:2px}
tr.compaction-row:hover td{background:var(--card)}
"#;

/// Highlights a compaction's marker while its table row is hovered, and marks the page ready
/// with the number of markers drawn.
const JS: &str = r#"
(function(){document.querySelectorAll('tr.compaction-row').forEach(function(r){
var m=document.getElementById(r.getAttribute('data-marker'));if(!m){return;}
r.addEventListener('mouseenter',function(){m.classList.add('hi');});
r.addEventListener('mouseleave',function(){m.classList.remove('hi');});});
document.body.setAttribute('data-markers',document.querySelectorAll('svg.sawtooth g.compaction').length);})();
"#;

/// The whole replay report as one HTML document.
pub fn render(d: &Doc) -> String {
    let a = d.analysis;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\
<title>ctxray replay: {}</title><style>{CSS}{REPLAY_CSS}</style></head>\n<body>",
        esc(&a.session.source.path)
    );
    header(&mut out, d);
    sawtooth(&mut out, d);
    configuration(&mut out, d);
    for (i, run) in d.runs.iter().enumerate() {
        compactions(&mut out, d, i, run);
    }
    let _ = write!(out, "<script>{JS}</script>\n</body></html>\n");
    masked(&out)
}

/// `A: label` when comparing, else nothing.
fn run_name(d: &Doc, i: usize, run: &Run) -> String {
    if d.compare() {
        format!("{}: <code>{}</code>", letter(i), esc(run.label))
    } else {
        String::new()
    }
}

fn header(out: &mut String, d: &Doc) {
    let a = d.analysis;
    let s = &a.session;
    let _ = write!(
        out,
        "<header><h1>ctxray replay: <code>{}</code></h1><dl class=\"meta\">",
        esc(&s.source.path)
    );
    let mut item = |k: &str, v: String| {
        let _ = write!(out, "<dt>{k}</dt><dd>{v}</dd>");
    };
    for (key, value) in crate::export::html::fact_items(a) {
        item(key, value);
    }
    item(
        "session",
        format!(
            "{} messages · {} tokens",
            s.messages.len(),
            thousands(a.total_tokens() as u64)
        ),
    );
    out.push_str("</dl></header>\n");
}

fn sawtooth(out: &mut String, d: &Doc) {
    out.push_str("<section id=\"sawtooth\"><h2>Sawtooth</h2>");
    svg(out, d);
    out.push_str("<p class=\"legend\">");
    for (i, run) in d.runs.iter().enumerate() {
        let name = if d.compare() {
            run_name(d, i, run)
        } else {
            format!("<code>{}</code>", esc(run.replay.preset))
        };
        let _ = write!(
            out,
            "<span><i class=\"{}\"></i>{name} · {} compaction(s)</span>",
            run_class(i),
            run.replay.compactions.len()
        );
    }
    if !d.compare() {
        out.push_str("<span><i class=\"threshold\"></i>threshold</span>");
    }
    let mut above = String::new();
    for (window, runs) in windows(d) {
        let name = window_name(d, &runs);
        if window_on_chart(d, window) {
            let _ = write!(out, "<span><i class=\"window\"></i>{}</span>", esc(&name));
        } else {
            let _ = write!(
                above,
                " The {} ({} tokens) is above the chart.",
                esc(&name),
                thousands(window)
            );
        }
    }
    out.push_str("</p>");
    let _ = writeln!(
        out,
        "<p>Context tokens sent at each check point; a marker where a compaction fired, the line dropping to what it left (hover a marker for its numbers, a row below to find its marker).{above}</p></section>"
    );
}

/// Each run's preset, settings and totals, one column a run.
fn configuration(out: &mut String, d: &Doc) {
    let _ = write!(
        out,
        "<section id=\"summary\"><h2>{}</h2><table><thead><tr><th></th>",
        if d.compare() { "Comparison" } else { "Replay" }
    );
    for (i, run) in d.runs.iter().enumerate() {
        let _ = write!(out, "<th>{}</th>", run_name(d, i, run));
    }
    out.push_str("</tr></thead><tbody>");
    let line = |out: &mut String, key: &str, value: &dyn Fn(&Run) -> String| {
        let _ = write!(out, "<tr><th>{key}</th>");
        for run in d.runs {
            let _ = write!(out, "<td>{}</td>", value(run));
        }
        out.push_str("</tr>");
    };
    line(out, "preset", &|r| {
        format!(
            "<code>{}</code> ({})",
            esc(r.replay.preset),
            esc(r.replay.framework)
        )
    });
    line(out, "settings", &|r| {
        format!("<code>{}</code>", esc(&settings_text(r.replay)))
    });
    line(out, "checks", &|r| checks_text(r.replay).to_string());
    line(out, "summaries", &|r| esc(&summaries_text(r.replay)));
    line(out, "check points", &|r| r.replay.steps.len().to_string());
    for (key, value) in SUMMARY {
        line(out, key, &|r| esc(&value(r.replay)));
    }
    out.push_str("</tbody></table></section>\n");
}

/// A run's compactions, rejected attempts and findings.
fn compactions(out: &mut String, d: &Doc, i: usize, run: &Run) {
    let r = run.replay;
    let class = run_class(i);
    let name = run_name(d, i, run);
    let suffix = if name.is_empty() {
        String::new()
    } else {
        format!(" · {name}")
    };
    let _ = write!(
        out,
        "<section class=\"compactions\" id=\"compactions-{class}\"><h2>Compactions{suffix}</h2>"
    );
    if r.compactions.is_empty() {
        out.push_str("<p>None: the trigger never fired.</p>");
    } else {
        out.push_str("<table><thead><tr>");
        for h in COMPACTION_HEAD {
            let _ = write!(out, "<th>{h}</th>");
        }
        out.push_str("</tr></thead><tbody>");
        for (k, c) in r.compactions.iter().enumerate() {
            let _ = write!(
                out,
                "<tr class=\"compaction-row\" data-marker=\"{class}-c{}\">",
                k + 1
            );
            for (cell, numeric) in compaction_cells(k, c).iter().zip(COMPACTION_NUMERIC) {
                let _ = write!(
                    out,
                    "<td{}>{}</td>",
                    if numeric { " class=\"n\"" } else { "" },
                    esc(cell)
                );
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
    }
    if !r.rejected.is_empty() {
        let _ = write!(
            out,
            "<h3>Rejected by the guard{suffix}</h3><p>The framework compacted here and threw the result away; the history was kept.</p><table><thead><tr>"
        );
        for h in REJECTED_HEAD {
            let _ = write!(out, "<th>{h}</th>");
        }
        out.push_str("</tr></thead><tbody>");
        for x in &r.rejected {
            out.push_str("<tr class=\"rejected-row\">");
            for cell in rejected_cells(x) {
                let _ = write!(out, "<td class=\"n\">{}</td>", esc(&cell));
            }
            out.push_str("</tr>");
        }
        out.push_str("</tbody></table>");
    }
    findings(out, r, &suffix);
    out.push_str("</section>\n");
}

/// Each finding code once, with the compactions it was raised at.
fn findings(out: &mut String, r: &crate::replay::Replay, suffix: &str) {
    let seen = finding_groups(r);
    if seen.is_empty() {
        return;
    }
    let _ = write!(out, "<h3>Findings{suffix}</h3><ul>");
    for (f, at) in seen {
        let list: Vec<String> = at.iter().take(12).map(|k| k.to_string()).collect();
        let _ = write!(
            out,
            "<li class=\"finding\"><span class=\"sev-{s}\">{s}</span> <code>{}</code> at compaction {}{}: {}</li>",
            f.code,
            list.join(", "),
            if at.len() > 12 {
                format!(" +{}", at.len() - 12)
            } else {
                String::new()
            },
            esc(&masked(&f.detail)),
            s = f.severity.as_str()
        );
    }
    out.push_str("</ul>");
}
