//! `ctxray plan`: what a preset would do to a session — trigger, split, the exact summarizer
//! request and findings — as text (the JSON document is `report::view::plan`).

use crate::compaction::presets;
use std::io::Write;

use super::style::Style;
use crate::analysis::Analysis;
use std::borrow::Cow;

use super::request_preview;
use crate::compaction::plan::{Plan, PromptRole};
use crate::compaction::preset::{self, PlanInput};
use crate::compaction::request;

/// Runs the preset named `preset` on an analysed session.
pub fn plan(analysis: &Analysis, preset_name: &str, sets: &[String]) -> anyhow::Result<Plan> {
    planned(analysis, preset_name, sets, false, false)
}

/// `plan` for a command that reads the summarizer request only a message at a time (counts,
/// scans or previews it): the preset may leave it to render when read (`Plan::deferred`).
pub fn plan_read_by_message(
    analysis: &Analysis,
    preset_name: &str,
    sets: &[String],
) -> anyhow::Result<Plan> {
    planned(analysis, preset_name, sets, false, true)
}

/// The plan `compact` carries out: the preset may keep what its run left for the compaction,
/// and leave the request to render when read when `by_message` (see `plan_read_by_message`).
pub fn to_carry_out(
    analysis: &Analysis,
    preset_name: &str,
    sets: &[String],
    by_message: bool,
) -> anyhow::Result<Plan> {
    planned(analysis, preset_name, sets, true, by_message)
}

fn planned(
    analysis: &Analysis,
    preset_name: &str,
    sets: &[String],
    carries_out: bool,
    defer_request: bool,
) -> anyhow::Result<Plan> {
    let preset = presets::find(preset_name)?;
    let input = PlanInput {
        carries_out,
        defer_request,
        ..PlanInput::new(analysis)
    };
    Ok(preset::run(preset, &input, sets)?)
}

/// The plan as text: trigger, one line per message with its fate, the summarizer request.
pub fn write_text(
    out: &mut impl Write,
    a: &Analysis,
    plan: &Plan,
    st: Style,
) -> std::io::Result<()> {
    let t = &plan.trigger;
    writeln!(
        out,
        "{}  {}  preset {} ({})",
        st.bold(&crate::text::inline(&a.session.source.path)),
        a.session.format.name(),
        plan.preset,
        plan.framework
    )?;
    let settings: Vec<String> = plan
        .settings
        .pairs()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    writeln!(
        out,
        "{}",
        st.dim(&format!("settings: {}", settings.join(" ")))
    )?;
    let verdict = if t.fired {
        st.severity("warn", "FIRES")
    } else {
        st.dim("does not fire")
    };
    writeln!(out, "trigger {verdict}: {}", crate::text::inline(&t.reason))?;
    writeln!(
        out,
        "{}",
        st.dim(&format!(
            "{} {} by the framework's estimator ({}); {} tokens by {}",
            t.value,
            t.measure,
            t.estimator,
            a.total_tokens(),
            a.counter.encoding()
        ))
    )?;
    let fates = plan.split.fates(a.session.messages.len());
    for m in &a.session.messages {
        let fate = fates.get(m.index).map_or("-", |f| f.as_str());
        let line = format!(
            "{:>5}  {:<10} {:<9}  {}",
            m.index,
            fate,
            m.role.as_str(),
            preview(&m.parts)
        );
        let painted = match fate {
            "pinned" => st.paint("36", &line),
            "kept" => line,
            "summarized" => st.paint("33", &line),
            "dropped" => st.paint("31", &line),
            _ => st.dim(&line),
        };
        writeln!(out, "{painted}")?;
    }
    if !plan.request_is_empty() {
        writeln!(out, "\n{}", st.bold("summarizer request:"))?;
        // Each message's preview made on every core (a deferred request is rendered there),
        // a window of messages at a time.
        // A message made of many (a transcript) is read a piece at a time.
        let preview = |role: PromptRole, pieces: &mut dyn Iterator<Item = Cow<'_, str>>| {
            (role, request_preview::of_pieces(pieces))
        };
        let deferred = plan.deferred.as_ref();
        let write = |(role, p): (PromptRole, request_preview::Preview)| {
            writeln!(out, "  [{}] {} chars", role.as_str(), p.chars)?;
            for l in p.shown {
                writeln!(out, "  {}", st.dim(&l))?;
            }
            if p.lines > request_preview::LINES {
                let more = p.lines - request_preview::LINES;
                writeln!(out, "  {}", st.dim(&format!("… {more} more lines")))?;
            }
            Ok::<(), std::io::Error>(())
        };
        request::map_each(&plan.summarizer, deferred, &a.session, 1024, preview, write)?;
    }
    let all: Vec<_> = a.findings.iter().chain(&plan.findings).collect();
    if !all.is_empty() {
        writeln!(out)?;
    }
    for f in all {
        let at: Vec<String> = f.messages.iter().take(6).map(|m| format!("#{m}")).collect();
        writeln!(
            out,
            "{} {} {}: {}",
            st.severity(f.severity.as_str(), &format!("{:<5}", f.severity.as_str())),
            f.code,
            at.join(","),
            crate::text::inline(&f.detail)
        )?;
    }
    Ok(())
}

/// The first characters of the first part with a visible character, on one line.
fn preview(parts: &[crate::session::Part]) -> String {
    const WIDTH: usize = 90;
    let Some(part) = parts
        .iter()
        .find(|p| p.plain_pieces().any(|t| !t.trim().is_empty()))
    else {
        return String::new();
    };
    // Only the first `WIDTH + 1` characters can show (`clip`), so no more are copied.
    let mut head = String::new();
    let mut chars = 0;
    for piece in part.plain_pieces() {
        for c in piece.chars() {
            if chars > WIDTH {
                break;
            }
            head.push(if c == '\n' { ' ' } else { c });
            chars += 1;
        }
    }
    clip(&head, WIDTH)
}

fn clip(s: &str, width: usize) -> String {
    crate::text::clip(s, width)
}
