//! `ctxray plan`: what a preset would do to a session — trigger, split, the exact summarizer
//! request and findings — as text or as the JSON of DESIGN.md's contract.

use std::io::Write;

use serde_json::{json, Value};

use super::report_json;
use super::style::Style;
use crate::analysis::Analysis;
use crate::compaction::plan::{source_fates, Plan};
use crate::compaction::preset::{self, PlanInput};

/// Runs the preset named `preset` on an analysed session.
pub fn plan(analysis: &Analysis, preset_name: &str, sets: &[String]) -> anyhow::Result<Plan> {
    let preset = preset::find(preset_name)?;
    let input = PlanInput::new(analysis);
    Ok(preset::run(preset, &input, sets)?)
}

/// The plan document: the report's fields plus the plan's.
pub fn plan_json<'a>(a: &'a Analysis, plan: &'a Plan) -> report_json::Doc<'a> {
    let mut doc = report_json::report(a).with_plan(plan);
    let fates = source_fates(&a.session, &plan.split);
    let preset = preset::find(plan.preset).ok();
    let extra = json!({
        "preset": {
            "name": plan.preset,
            "framework": plan.framework,
            "approximate": preset.is_some_and(|p| p.approximate()),
            "settings": plan.settings.to_json(),
        },
        "trigger": {
            "fired": plan.trigger.fired,
            "measure": plan.trigger.measure,
            "value": plan.trigger.value,
            "threshold": plan.trigger.threshold,
            "reason": plan.trigger.reason,
            "estimator": plan.trigger.estimator,
            "tokens": a.total_tokens(),
        },
        "split": {
            "pinned": plan.split.pinned,
            "summarized": plan.split.summarized,
            "kept": plan.split.kept,
            "dropped": plan.split.dropped,
        },
        "kept_source_indices": fates.kept,
        "summarized_source_indices": fates.summarized,
        "dropped_source_indices": fates.dropped,
        "summarizer": null,
        "insertion": plan.insertion.as_ref().map(|i| json!({"role": i.role.as_str(), "position": i.position, "prefix": i.prefix})),
    });
    if let Value::Object(extra) = extra {
        let doc_map = &mut doc.fields;
        let mut findings = doc_map
            .remove("findings")
            .and_then(|f| match f {
                Value::Array(a) => Some(a),
                _ => None,
            })
            .unwrap_or_default();
        findings.extend(plan.findings.iter().map(report_json::finding));
        doc_map.insert("findings".into(), Value::Array(findings));
        doc_map.extend(extra);
    }
    doc
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
    for m in &a.session.messages {
        let fate = fate_of(plan, m.index);
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
    if !plan.summarizer.is_empty() {
        writeln!(out, "\n{}", st.bold("summarizer request:"))?;
        for m in &plan.summarizer {
            let chars = m.content.chars().count();
            writeln!(out, "  [{}] {} chars", m.role.as_str(), chars)?;
            for l in m.content.lines().take(12) {
                writeln!(out, "  {}", st.dim(&clip(l, 140)))?;
            }
            if m.content.lines().count() > 12 {
                writeln!(
                    out,
                    "  {}",
                    st.dim(&format!("… {} more lines", m.content.lines().count() - 12))
                )?;
            }
        }
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

fn fate_of(plan: &Plan, i: usize) -> &'static str {
    let s = &plan.split;
    if s.pinned.contains(&i) {
        "pinned"
    } else if s.kept.contains(&i) {
        "kept"
    } else if s.summarized.contains(&i) {
        "summarized"
    } else if s.dropped.contains(&i) {
        "dropped"
    } else {
        "-"
    }
}

fn preview(parts: &[crate::session::Part]) -> String {
    let text = parts
        .iter()
        .map(|p| p.plain_text())
        .find(|t| !t.trim().is_empty())
        .unwrap_or_default();
    clip(&text.replace('\n', " "), 90)
}

fn clip(s: &str, width: usize) -> String {
    crate::text::clip(s, width)
}
