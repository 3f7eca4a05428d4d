//! `ctxray compact`: run the compaction `plan` shows — the summary from the offline digest (or,
//! when asked, a real model) inserted where the framework puts it — and show the history before
//! and after, the summary, and what only a real run can show.

use crate::compaction::presets;
use std::io::Write;

use super::style::Style;
use crate::analysis::Analysis;
use crate::compaction::carry_out::Compacted as Compaction;
use crate::compaction::plan::Plan;
use crate::compaction::preset::{self, PlanInput};
use crate::session::{Format, RawLines};

/// The format `-o` writes the compacted history in, or why it cannot be written as `to`. By
/// default the source's own format as the framework persists it: a Claude Code file from its
/// original lines; the framework's own document when it is of the source's format (Hermes'
/// message dicts for an OpenAI chat file, pydantic-ai messages, Agent Framework dicts,
/// OpenHands events with the `Condensation`); else OpenAI chat JSON. `to` asks for a format
/// instead: `openai-chat`, or the framework's own.
pub fn target(
    before: &Analysis,
    done: &Compaction,
    input: Option<&std::path::Path>,
    to: Option<Format>,
) -> anyhow::Result<Format> {
    let source = before.session.format;
    let target = to.unwrap_or(match (source, input) {
        (Format::CLAUDE_CODE, Some(path)) if path.is_file() => Format::CLAUDE_CODE,
        _ if done.history_format == Some(source) => source,
        _ => Format::OPENAI_CHAT,
    });
    let claude_code_lines = target == Format::CLAUDE_CODE
        && source == Format::CLAUDE_CODE
        && input.is_some_and(|p| p.is_file());
    if Some(target) == done.history_format || claude_code_lines || target == Format::OPENAI_CHAT {
        return Ok(target);
    }
    anyhow::bail!(
        "--to {}: this compaction is written as openai-chat{}",
        target.name(),
        done.history_format
            .filter(|f| *f != Format::OPENAI_CHAT)
            .map(|f| format!(" or {}", f.name()))
            .unwrap_or_default()
    )
}

/// Writes the compacted history in `target` (from [`target`]) to `out` as it is made, secrets
/// masked in every string, and says in a few words what was written.
pub fn written(
    before: &Analysis,
    plan: &Plan,
    done: &Compaction,
    input: Option<&std::path::Path>,
    target: Format,
    out: &mut dyn Write,
) -> std::io::Result<String> {
    let source = before.session.format;
    let (masked, what) = if Some(target) == done.history_format {
        let doc = done.persisted.as_ref().unwrap_or(&done.history);
        let masked = crate::write::write_document(out, doc, target, true)?;
        (
            masked,
            format!("{} as the framework persists it", target.name()),
        )
    } else if target == Format::CLAUDE_CODE && source == Format::CLAUDE_CODE {
        let summary = done.summary.as_deref();
        let masked = lines(before, plan, summary, done.rejected, input, out)?;
        (masked, "claude-code JSONL".to_string())
    } else {
        let (doc, masked) = crate::write::openai_chat::to_json(&done.after.session);
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        out.write_all(b"\n")?;
        (masked, "openai-chat JSON".to_string())
    };
    Ok(format!("{what}, {masked} secret(s) masked"))
}

/// Whether `compact` writes the history as the source's own Claude Code lines spliced around
/// the summary, whatever the carrying out finds: a Claude Code file, to its own format
/// ([`target`] by default, or asked for), compacted by a framework that is not Claude Code
/// (whose history is written as it makes it) and has no guard (whose verdict the carrying
/// out gives).
pub fn as_source_lines(
    before: &Analysis,
    plan: &Plan,
    input: Option<&std::path::Path>,
    to: Option<Format>,
) -> bool {
    let plain =
        presets::find(plan.preset).is_ok_and(|p| !p.guards() && !p.keeps_claude_code_lines());
    plain
        && before.session.format == Format::CLAUDE_CODE
        && to.is_none_or(|f| f == Format::CLAUDE_CODE)
        && input.is_some_and(|p| p.is_file())
}

/// Another framework's history, kept in Claude Code's own lines: the plan's kept messages
/// (which name the original lines) around `summary`, or the lines as they were when the
/// framework's guard `rejected` it. Returns how many secrets were masked.
pub fn lines(
    before: &Analysis,
    plan: &Plan,
    summary: Option<&str>,
    rejected: bool,
    input: Option<&std::path::Path>,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    let read;
    let original = match RawLines::of_session(&before.session) {
        Some(lines) => lines,
        None => {
            read = crate::limits::read_regular(input.unwrap_or(std::path::Path::new("")))?;
            RawLines::of_bytes(&read)
        }
    };
    let spliced;
    let compacted = if rejected {
        &before.session
    } else {
        spliced = crate::compaction::apply::apply(&before.session, plan, summary);
        &spliced
    };
    crate::write::claude_code::write_jsonl(out, &original, compacted, before.total_tokens())
}

/// The offline summary of a fired plan (`None` when it does not fire or summarizes nothing).
pub fn offline(analysis: &Analysis, plan: &Plan) -> Option<String> {
    if !plan.trigger.fired || plan.insertion.is_none() {
        return None;
    }
    let p = presets::find(plan.preset).ok()?;
    Some(preset::offline_summary(p, &PlanInput::new(analysis), plan))
}

/// Calls a network summarizer on the plan's summarizer messages. Before sending, says on
/// stderr how many secrets were masked; while it streams, and stderr is a terminal, the summary
/// appears there as it is written (unless `quiet`).
pub fn summarize_network(
    client: &dyn crate::summarize::Summarizer,
    messages: &[crate::compaction::PromptMessage],
    quiet: bool,
) -> anyhow::Result<crate::summarize::Summary> {
    use std::io::IsTerminal;
    let masked = crate::summarize::prepare(messages).masked;
    let mut err = super::guard::Guard::new(std::io::stderr(), super::guard::Allow::default());
    if masked > 0 {
        let _ = writeln!(
            err,
            "ctxray: masked {masked} secret(s) in the summarizer input before sending"
        );
    }
    let stream = !quiet && std::io::stderr().is_terminal();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let call = client.summarize(messages, tx.into());
        tokio::pin!(call);
        loop {
            tokio::select! {
                Some(delta) = rx.recv() => {
                    if stream {
                        let _ = write!(err, "{delta}");
                        let _ = err.flush();
                    }
                }
                done = &mut call => break done,
            }
        }
    });
    if stream {
        let _ = writeln!(err);
    }
    Ok(result?)
}

pub fn write_text(
    out: &mut impl Write,
    before: &Analysis,
    plan: &Plan,
    c: &Compaction,
    st: Style,
) -> std::io::Result<()> {
    let b = before.total_tokens();
    let a = c.after.total_tokens();
    writeln!(
        out,
        "{}  {} → {}",
        st.bold(&format!(
            "{} · {}",
            crate::text::inline(&before.session.source.path),
            plan.preset
        )),
        before.session.messages.len(),
        c.after.session.messages.len()
    )?;
    if !plan.trigger.fired {
        writeln!(
            out,
            "{}",
            st.dim(&format!("does not fire: {}", plan.trigger.reason))
        )?;
        return Ok(());
    }
    let largest = b.max(a).max(1);
    for (label, n) in [("before", b), ("after", a)] {
        let width = n * 40 / largest;
        writeln!(out, "  {label:<7}{:<40} {n:>9} tokens", "█".repeat(width))?;
    }
    let saved = b as i64 - a as i64;
    writeln!(
        out,
        "  {}",
        st.dim(&format!(
            "{} {} tokens ({:.1}%) · summarizer: {}{}",
            if saved >= 0 { "freed" } else { "grew by" },
            saved.abs(),
            saved.abs() as f64 * 100.0 / b.max(1) as f64,
            c.summarizer,
            if c.masked > 0 {
                format!(" · {} secret(s) masked before sending", c.masked)
            } else {
                String::new()
            }
        ))
    )?;
    if let Some(s) = &c.summary {
        writeln!(out, "\n{}", st.bold("summary"))?;
        // Masked as `-o` masks it.
        let (s, _) = crate::secrets::mask(s);
        for line in s.lines() {
            writeln!(out, "  {}", crate::text::block(line))?;
        }
    }
    writeln!(out, "\n{}", st.bold("compacted history"))?;
    for (m, n) in c
        .after
        .session
        .messages
        .iter()
        .zip(&c.after.counts.messages)
    {
        let is_summary = matches!(m.parts.first(), Some(crate::session::Part::Summary { .. }));
        let from = if is_summary {
            "summary".to_string()
        } else {
            format!("record {}", m.source_index)
        };
        writeln!(
            out,
            "  {:>4}  {:<10} {:>8}  {}",
            m.index,
            m.role.as_str(),
            n.total(),
            st.dim(&from)
        )?;
    }
    if !c.findings.is_empty() {
        writeln!(out)?;
        for f in &c.findings {
            writeln!(
                out,
                "{:<5} {}: {}",
                f.severity.as_str(),
                f.code,
                crate::text::inline(&f.detail)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::carry_out::{carry_out, Wants};
    use std::path::Path;

    /// What `compact -o -` writes when it makes the summary alone is what it writes from the
    /// whole carrying out, for every preset that takes that way, and the others do not.
    #[test]
    fn source_lines_made_from_the_summary_alone_are_those_of_the_whole_compaction() {
        let mut checked = 0;
        for file in [
            "fixtures/samples/claude-code-demo.jsonl",
            "fixtures/claude-code/compaction.jsonl",
            "fixtures/claude-code/mixed.jsonl",
        ] {
            let a = crate::testing::analysed(file);
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let input = Some(path.as_path());
            for p in presets::all() {
                let plan_input = PlanInput {
                    carries_out: true,
                    ..PlanInput::new(&a)
                };
                let Some(plan) = crate::testing::fired(&plan_input, p) else {
                    continue;
                };
                if !as_source_lines(&a, &plan, input, None) {
                    assert!(p.guards() || p.keeps_claude_code_lines(), "{}", p.name());
                    continue;
                }
                let summary = offline(&a, &plan);
                let wants = Wants::REPORT;
                let done = carry_out(&a, &plan, "offline".into(), || summary.clone(), 0, wants);
                // The whole carrying out takes the splice too: no history of Claude Code's
                // own lines, no verdict against the summary.
                let shape = (done.history_format, done.rejected);
                assert!(shape.0 != Some(Format::CLAUDE_CODE), "{}", p.name());
                assert!(!shape.1, "{}", p.name());
                let to = target(&a, &done, input, None).unwrap();
                let mut whole = Vec::new();
                written(&a, &plan, &done, input, to, &mut whole).unwrap();
                let mut alone = Vec::new();
                lines(&a, &plan, summary.as_deref(), false, input, &mut alone).unwrap();
                assert!(alone == whole, "{} {file}", p.name());
                checked += 1;
            }
        }
        assert!(checked >= 20, "{checked}");
    }
}
