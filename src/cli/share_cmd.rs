//! The report documents of `--format md` and `html` (`report`, `plan`, `diff`, `compact`),
//! and `ctxray export`: hands what the command computed to the pure renderers of
//! `crate::export`.

use std::io::Write;

use crate::analysis::Analysis;
use crate::compaction::carry_out::Compacted as Compaction;
use crate::compaction::Plan;
use crate::export::{self, Compacted, Report};

/// Which command the document is for: it decides the sections shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Report,
    Plan,
    Diff,
    Compact,
}

/// The report of `kind` over what the command computed. The diff of the summarized range is
/// part of every plan-based document.
pub fn report<'a>(
    kind: Kind,
    a: &'a Analysis,
    plan: Option<&'a Plan>,
    diff: Option<&'a crate::diff::Diff>,
    done: Option<&'a Compaction>,
) -> Report<'a> {
    Report {
        analysis: a,
        messages: kind != Kind::Diff,
        plan,
        diff,
        compacted: done.map(|c| Compacted {
            summarizer: &c.summarizer,
            summary: c.summary.as_deref(),
            after: &c.after,
            findings: &c.findings,
        }),
    }
}

/// `ctxray export SOURCE --preset P -o OUT`: the plan's HTML page written to OUT (a temporary
/// file and a rename; an existing OUT, or the input itself, is refused without `force`; what is
/// not a regular file is refused always), or to stdout for `-o -`.
pub fn export(
    source: &str,
    preset: &super::PresetArgs,
    output: &std::path::Path,
    force: bool,
    common: &super::Common,
) -> anyhow::Result<i32> {
    let format = common.output();
    if !matches!(
        format,
        super::OutputFormat::HTML | super::OutputFormat::TEXT
    ) || common.json
    {
        return Err(anyhow::anyhow!(
            "`export` writes HTML only; for other formats use `plan --format md|json`"
        ));
    }
    let to_stdout = output == std::path::Path::new("-");
    if !to_stdout {
        crate::write::check_output(output, force)?;
    }
    let (analysis, sets) = super::analysed_for(source, preset, common)?;
    // The summarized messages' facts are read while the plan is made, as `diff` reads them.
    let (plan, ahead) = crate::diff::ahead::while_planning(&analysis.session, || {
        super::plan_cmd::plan(&analysis, &preset.preset, &sets)
    });
    let plan = plan?;
    let input = crate::diff::TextIndex::new(crate::diff::summarizer_input(&plan));
    let diff = crate::diff::diff_range_with(
        &analysis.session,
        &plan.split.summarized,
        &input,
        Some(&ahead),
    );
    drop((input, ahead));
    let report = report(Kind::Plan, &analysis, Some(&plan), Some(&diff), None);
    let page = |w: &mut dyn Write| export::html::render_to(&report, w);
    if to_stdout {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        page(&mut out)?;
        return Ok(0);
    }
    let input = (source != "-").then(|| std::path::Path::new(source));
    crate::write::write_file_with(output, input, force, page)?;
    eprintln!(
        "wrote {}",
        super::guard::message(&output.display().to_string())
    );
    super::leave((analysis, plan, diff));
    Ok(0)
}
