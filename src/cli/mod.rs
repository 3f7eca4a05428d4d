//! The command line: argument parsing, one module per command, one per output format.
//!
//! Owns: the CLI contract of DESIGN.md (commands, flags, format names, exit codes). A command
//! computes what it shows and hands it to its `--format` (`output`, the formats listed once),
//! which writes it to stdout; errors are one line on stderr and exit 2.

mod check_cmd;
mod check_report;
mod compact_cmd;
mod diff_cmd;
mod formats_cmd;
pub mod guard;
mod loading;
mod many;
mod numbers;
pub mod output;
mod plan_cmd;
mod presets_cmd;
mod progress_line;
mod replay_cmd;
mod report_cmd;
mod report_text;
mod request_preview;
mod share_cmd;
mod style;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::analysis::{Analysis, Options};
use crate::formats;
use crate::session::Format;
use crate::tokens::Encoding;
pub use output::OutputFormat;

/// Files up to this size are loaded before the inspector takes the screen.
const LOAD_BEFORE_SCREEN: u64 = 4 << 20;

/// Exit code for unusable input or usage.
pub const EXIT_USAGE: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "ctxray",
    version,
    about = "X-ray an LLM agent's context window: tokens per message, tool-call groups, compaction marks",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Session file or directory to open in the inspector (`-` reads stdin).
    pub source: Option<String>,
    /// Compaction preset to preview (see `ctxray presets`).
    #[arg(long, value_name = "P")]
    pub preset: Option<String>,
    /// A preset setting (repeatable).
    #[arg(long = "set", value_name = "K=V")]
    pub sets: Vec<String>,
    /// Scale the preset's window (or count) down until it fires on this session (the
    /// inspector's `w`), saying so on screen.
    #[arg(long, requires = "preset")]
    pub demo: bool,
    /// Keep reading the file as the agent writes it (new messages appear as they land).
    #[arg(long)]
    pub follow: bool,
    /// Theme: dark, light, high-contrast, or a theme in the config directory's themes/
    /// (default: `theme` in config.toml, else dark).
    #[arg(long, value_name = "NAME")]
    pub theme: Option<String>,
    /// The summarizer `c` runs in the inspector (a network one is called only when `c` is
    /// pressed).
    #[command(flatten)]
    pub summarizer: SummarizerArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Messages, tokens, tool-call groups, compaction marks and findings of a session; of
    /// each session, given several (or a directory of them).
    Report {
        /// Session files or directories (`-` reads stdin).
        #[arg(required = true, value_name = "SOURCE")]
        sources: Vec<String>,
        #[command(flatten)]
        jobs: many::JobsArg,
        #[command(flatten)]
        common: Common,
    },
    /// What a compaction preset would do: trigger, split, the exact summarizer request, findings.
    Plan {
        /// Session file or directory (`-` reads stdin).
        source: String,
        #[command(flatten)]
        preset: PresetArgs,
        #[command(flatten)]
        common: Common,
    },
    /// The summarized range against what the summarizer is shown: losses and evidence survival.
    Diff {
        /// Session file or directory (`-` reads stdin).
        source: String,
        #[command(flatten)]
        preset: PresetArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Run the compaction `plan` shows: the summary (offline digest, or a real model) inserted
    /// where the framework puts it; the history before and after.
    Compact {
        /// Session file or directory (`-` reads stdin).
        source: String,
        #[command(flatten)]
        preset: PresetArgs,
        #[command(flatten)]
        summarizer: SummarizerArgs,
        /// Write the compacted session here, in the source's own format as the framework persists it (else OpenAI chat JSON; secrets masked); `-` writes it to stdout.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
        /// Write OUT in this format instead: `openai-chat`, or the framework's own (`compact --json` names it in `result.history_format`).
        #[arg(long, value_name = "FORMAT", value_parser = parse_format, requires = "output")]
        to: Option<Format>,
        /// Overwrite OUT if it exists (even when it is the input).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Replay the session under a preset: every compaction it would make as the history grows,
    /// the sawtooth of the context; `--compare` runs two configurations side by side.
    Replay {
        /// Session file or directory (`-` reads stdin).
        source: String,
        #[command(flatten)]
        preset: PresetArgs,
        /// Model each summary as exactly N tokens instead of the offline digest.
        #[arg(long, value_name = "N", value_parser = numbers::summary_tokens)]
        summary_tokens: Option<usize>,
        /// Two configurations to compare: each a preset name or `K=V,...` over --preset.
        #[arg(long, num_args = 2, value_names = ["A", "B"])]
        compare: Vec<String>,
        #[command(flatten)]
        common: Common,
    },
    /// For CI: `plan` on every file, one finding a line (`file:message: severity code: detail`);
    /// exit 1 when a finding reaches --fail-on, 2 when a file is unusable (the others are still
    /// checked). `--format github` writes workflow annotations, `--format junit` JUnit XML.
    Check {
        /// Session files or directories.
        #[arg(required = true, value_name = "SOURCE")]
        sources: Vec<String>,
        #[command(flatten)]
        preset: PresetArgs,
        /// Lowest severity that fails the check (default: error — a lost message, a tool call
        /// cut from its result, a secret sent to the summarizer; warn also fails on what the
        /// framework is known to drop).
        #[arg(long, value_enum, default_value = "error", value_name = "SEVERITY")]
        fail_on: check_report::FailOn,
        #[command(flatten)]
        jobs: many::JobsArg,
        #[command(flatten)]
        common: Common,
    },
    /// The plan as one self-contained HTML page (no external resources): gauge, token bars,
    /// timeline, split, summarizer input, the diff with its losses, findings.
    Export {
        /// Session file or directory (`-` reads stdin).
        source: String,
        #[command(flatten)]
        preset: PresetArgs,
        /// The page to write (`-` writes it to stdout).
        #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
        output: PathBuf,
        /// Overwrite OUT if it exists.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        common: Common,
    },
    /// The compaction presets, the framework version each emulates, and their settings.
    Presets {
        #[command(flatten)]
        common: Common,
    },
    /// The session formats ctxray reads, with the names `--from` takes.
    Formats {
        #[command(flatten)]
        common: Common,
    },
}

/// Which preset, and its settings.
#[derive(Debug, Clone, Args)]
pub struct PresetArgs {
    /// Compaction preset (see `ctxray presets`).
    #[arg(long, value_name = "P")]
    pub preset: String,
    /// A preset setting, with the framework's own parameter name (repeatable).
    #[arg(long = "set", value_name = "K=V")]
    pub sets: Vec<String>,
    /// Scale the preset's window (or count) down until it fires on this session, and say so on
    /// stderr: for a session too small for the framework's real settings.
    #[arg(long)]
    pub demo: bool,
}

/// Which summarizer `compact` calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SummarizerKind {
    /// No network: the framework's own offline digest, or ctxray's extractive one.
    #[default]
    Offline,
    /// An OpenAI-compatible Chat Completions endpoint (`OPENAI_API_KEY`).
    Openai,
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY`).
    Anthropic,
}

#[derive(Debug, Clone, Args)]
pub struct SummarizerArgs {
    /// The summarizer: offline (default, no network), openai or anthropic.
    #[arg(long, value_enum, default_value = "offline")]
    pub summarizer: SummarizerKind,
    /// Endpoint of the network summarizer (default: the provider's public API).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Model the network summarizer runs.
    #[arg(long, value_name = "M")]
    pub summarizer_model: Option<String>,
    /// Deadline of a network summarizer call in seconds, retries included (1 to 86400).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = numbers::DEFAULT_SUMMARIZER_TIMEOUT,
        value_parser = numbers::summarizer_timeout
    )]
    pub summarizer_timeout: u64,
}

impl Default for SummarizerArgs {
    fn default() -> SummarizerArgs {
        SummarizerArgs {
            summarizer: SummarizerKind::default(),
            base_url: None,
            summarizer_model: None,
            summarizer_timeout: numbers::DEFAULT_SUMMARIZER_TIMEOUT,
        }
    }
}

impl SummarizerArgs {
    /// The network summarizer chosen, or `None` for the offline one.
    pub fn choice(&self) -> Option<crate::summarize::Choice> {
        use crate::summarize::{Choice, Provider};
        let provider = match self.summarizer {
            SummarizerKind::Offline => return None,
            SummarizerKind::Openai => Provider::OpenAi,
            SummarizerKind::Anthropic => Provider::Anthropic,
        };
        Some(Choice {
            provider,
            base_url: self.base_url.clone(),
            model: self.summarizer_model.clone(),
            timeout: Some(std::time::Duration::from_secs(self.summarizer_timeout)),
        })
    }
}

/// Flags every command takes.
#[derive(Debug, Clone, Args, Default)]
pub struct Common {
    /// Input format, overriding detection (see `ctxray formats`).
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub from: Option<Format>,
    /// Model name, overriding the session's (sets window and encoding from the registry).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// Context window in tokens, overriding the source and the registry.
    #[arg(long, value_name = "N", value_parser = numbers::window)]
    pub window: Option<u64>,
    /// Tokenizer to count with.
    #[arg(long, value_name = "ENC", value_parser = parse_encoding)]
    pub tokenizer: Option<Encoding>,
    /// Output format.
    #[arg(long, value_name = "FMT", value_parser = OutputFormat::parser())]
    pub format: Option<OutputFormat>,
    /// Same as `--format json`.
    #[arg(long)]
    pub json: bool,
    /// No colours in text output.
    #[arg(long)]
    pub no_color: bool,
    /// A configuration file layered over the defaults (e.g. `[models."name"]` entries).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Count every message afresh and keep no counts (also `CTXRAY_NO_CACHE=1`).
    #[arg(long)]
    pub no_cache: bool,
    /// Most bytes read from a source that is not a regular file (stdin, a pipe, a device):
    /// `1G`, `512M`, plain bytes [default: 2G].
    #[arg(long, value_name = "SIZE", value_parser = crate::limits::parse_size)]
    pub max_input: Option<u64>,
    /// Longest JSONL line read [default: 512M].
    #[arg(long, value_name = "SIZE", value_parser = crate::limits::parse_size)]
    pub max_line: Option<u64>,
    /// Largest configuration file read (`--config`, models.toml, config.toml, a theme)
    /// [default: 1M].
    #[arg(long, value_name = "SIZE", value_parser = crate::limits::parse_size)]
    pub max_config: Option<u64>,
}

impl Common {
    fn output(&self) -> OutputFormat {
        if self.json {
            OutputFormat::JSON
        } else {
            self.format.unwrap_or(OutputFormat::TEXT)
        }
    }

    /// The input limits the flags give, the defaults otherwise.
    pub fn limits(&self) -> crate::limits::Limits {
        let d = crate::limits::Limits::default();
        crate::limits::Limits {
            input: self.max_input.unwrap_or(d.input),
            line: self.max_line.unwrap_or(d.line),
            config: self.max_config.unwrap_or(d.config),
        }
    }

    fn options(&self) -> Options {
        Options {
            model: self.model.clone(),
            window: self.window,
            tokenizer: self.tokenizer,
            cache: crate::count_cache::CountCache::from_env(self.no_cache),
        }
    }
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

fn parse_encoding(s: &str) -> Result<Encoding, String> {
    s.parse()
}

/// Runs the parsed command line; the error is printed by `main` as one line, exit 2.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    let Some(command) = cli.command else {
        return inspect(cli);
    };
    match command {
        Command::Report {
            sources,
            jobs,
            common,
        } => report_cmd::run(&sources, jobs.count(), &common),
        Command::Plan {
            source,
            preset,
            common,
        } => plan(&source, &preset, &common),
        Command::Diff {
            source,
            preset,
            common,
        } => diff(&source, &preset, &common),
        Command::Compact {
            source,
            preset,
            summarizer,
            output,
            to,
            force,
            common,
        } => compact(
            &source,
            &preset,
            &summarizer,
            Output {
                path: output.as_deref(),
                to,
                force,
            },
            &common,
        ),
        Command::Replay {
            source,
            preset,
            summary_tokens,
            compare,
            common,
        } => replay_cmd::run(&source, &preset, summary_tokens, &compare, &common),
        Command::Check {
            sources,
            preset,
            fail_on,
            jobs,
            common,
        } => check_cmd::run(&sources, &preset, &common, fail_on, jobs.count()),
        Command::Export {
            source,
            preset,
            output,
            force,
            common,
        } => share_cmd::export(&source, &preset, &output, force, &common),
        Command::Presets { common } => presets_cmd::run(common.output()),
        Command::Formats { common } => formats_cmd::run(common.output()),
    }
}

/// `ctxray SOURCE`: the interactive inspector. Everything that can be refused cheaply (an
/// unknown preset or setting, a missing file, no terminal) is refused before the screen is
/// taken; loading then happens behind a progress gauge.
fn inspect(cli: Cli) -> anyhow::Result<i32> {
    use crate::tui::runtime::{self, Exit, Start};
    use crate::tui::tasks::Loader;
    if let Some(name) = &cli.preset {
        let found = crate::compaction::presets::find(name)?;
        crate::compaction::Settings::resolve(found.name(), found.params(), &cli.sets)?;
    }
    // A network summarizer is checked now (its key is in the environment) and called only
    // when `c` is pressed.
    let summarizer = cli.summarizer.choice();
    if let Some(choice) = &summarizer {
        choice.build()?;
    }
    let limits = cli.common.limits();
    let theme = crate::tui::theme::Theme::load(
        cli.theme.as_deref(),
        cli.common.no_color,
        crate::config::config_dir().as_deref(),
        limits.config,
    )?;
    let source = match cli.source.as_deref() {
        None => None,
        Some(source) => Some(source_of(source, cli.follow)?),
    };
    if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        return Err(anyhow!(match &source {
            Some(s) => format!(
                "stdout is not a terminal: use `ctxray report {}` for a printed report",
                s.shown()
            ),
            None => "stdout is not a terminal: the session picker needs one; give a SOURCE to `ctxray report`".into(),
        }));
    }
    let loader = Loader {
        from: cli.common.from,
        registry: crate::config::load_registry(cli.common.config.as_deref(), limits.config)?,
        options: cli.common.options(),
        limits,
    };
    let loaded = load_before_screen(source.as_ref(), &loader)?;
    let start = Start {
        source,
        loader,
        loaded,
        preset: cli.preset,
        sets: cli.sets,
        demo: cli.demo,
        legend: crate::config::first_run(),
        summarizer,
    };
    crate::config::first_run_done();
    match runtime::run(start, theme)? {
        Exit::Quit => Ok(0),
        Exit::Signal(n) => Ok(128 + n),
        Exit::Failed(error) => Err(anyhow!(error)),
    }
}

/// A small file is read before the screen is taken, so a broken one is refused without
/// flashing the screen; a large one loads behind the progress gauge (`None`).
fn load_before_screen(
    source: Option<&crate::tui::tasks::Source>,
    loader: &crate::tui::tasks::Loader,
) -> anyhow::Result<Option<Analysis>> {
    let Some(crate::tui::tasks::Source::Path(path)) = source else {
        return Ok(None);
    };
    if !std::fs::metadata(path).is_ok_and(|m| m.len() <= LOAD_BEFORE_SCREEN) {
        return Ok(None);
    }
    let session = formats::load_path_within(path, loader.from, &loader.limits)?;
    Ok(Some(Analysis::new(
        session,
        &loader.registry,
        &loader.options,
    )))
}

/// The inspector's source: `-` (stdin, which must be a pipe), a followed file, or a path.
fn source_of(source: &str, follow: bool) -> anyhow::Result<crate::tui::tasks::Source> {
    use crate::tui::tasks::Source;
    Ok(if source == "-" {
        if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err(anyhow!(
                "`-` reads a session from stdin, but stdin is a terminal: pipe a session in"
            ));
        }
        Source::Stdin
    } else {
        let path = PathBuf::from(source);
        std::fs::metadata(&path).with_context(|| format!("{source}: cannot read"))?;
        if follow {
            Source::Follow(path)
        } else {
            Source::Path(path)
        }
    })
}

/// An error and its causes on one line, a cause the text so far already holds left out (an
/// error whose message quotes its source would otherwise say it twice).
pub fn error_text(err: &anyhow::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

fn analyse(source: &str, common: &Common) -> anyhow::Result<Analysis> {
    loading::analyse(source, common)
}

/// Loads and analyses a session and runs a preset on it; an unknown preset or setting is
/// refused before a possibly huge file is read.
fn planned(
    source: &str,
    preset: &PresetArgs,
    common: &Common,
) -> anyhow::Result<(Analysis, crate::compaction::Plan)> {
    let (analysis, sets) = analysed_for(source, preset, common)?;
    // Text shows the request a message at a time; the documents show it whole.
    let plan = match common.output() {
        OutputFormat::TEXT => plan_cmd::plan_read_by_message(&analysis, &preset.preset, &sets)?,
        _ => plan_cmd::plan(&analysis, &preset.preset, &sets)?,
    };
    Ok((analysis, plan))
}

/// The session analysed for `preset`, and the settings to plan it with: the preset and its
/// settings are checked before the session is read.
fn analysed_for(
    source: &str,
    preset: &PresetArgs,
    common: &Common,
) -> anyhow::Result<(Analysis, Vec<String>)> {
    let found = crate::compaction::presets::find(&preset.preset)?;
    crate::compaction::Settings::resolve(found.name(), found.params(), &preset.sets)?;
    let analysis = analyse(source, common)?;
    let sets = demo_sets(&analysis, preset)?;
    Ok((analysis, sets))
}

/// The settings a command runs the preset under: those given, and with `--demo` the ones that
/// make it fire on this session (said on stderr, so that stdout stays the output).
pub(crate) fn demo_sets(analysis: &Analysis, preset: &PresetArgs) -> anyhow::Result<Vec<String>> {
    use crate::compaction::demo::{fit, Fit};
    let mut sets = preset.sets.clone();
    if !preset.demo {
        return Ok(sets);
    }
    let found = crate::compaction::presets::find(&preset.preset)?;
    let input = crate::compaction::PlanInput::new(analysis);
    match fit(&input, found, &sets)? {
        Fit::Fires => eprintln!("demo: {} fires as set; nothing scaled", found.name()),
        Fit::Scaled(d) => {
            eprintln!(
                "{} (--set {})",
                d.said(found.name()),
                d.sets.join(" --set ")
            );
            sets.extend(d.sets);
        }
        Fit::Cannot(why) => eprintln!("demo: {why}"),
    }
    Ok(sets)
}

fn diff(source: &str, preset: &PresetArgs, common: &Common) -> anyhow::Result<i32> {
    let format = common.output();
    format.check(output::Command::Diff)?;
    let (analysis, sets) = analysed_for(source, preset, common)?;
    // The summarized messages' facts are read while the plan is made (see `diff::ahead`).
    let (plan, ahead) = crate::diff::ahead::while_planning(&analysis.session, || {
        plan_cmd::plan(&analysis, &preset.preset, &sets)
    });
    let mut plan = plan?;
    let d = if format.output().shows_raw() {
        crate::diff::diff(&analysis.session, &plan)
    } else {
        // The request itself is not shown: its texts move into the index, not copied.
        let summarizer = std::mem::take(&mut plan.summarizer);
        crate::diff::diff_moving(&analysis.session, &plan, summarizer, Some(&ahead))
    };
    drop(ahead);
    show(common, &output::Shown::Diff(&analysis, &plan, &d))?;
    leave((analysis, plan, d));
    Ok(0)
}

/// Leaves `value` to the end of the process: what a command made and has written out (a
/// session, a plan, a diff) is many small allocations, whose freeing takes as long as some of
/// the steps that made them, just before the system frees them all at once. Only for what a
/// one-shot command holds at its end.
pub(crate) fn leave<T>(value: T) {
    std::mem::forget(value);
}

/// Writes what a command computed to stdout in the `--format` asked.
fn show(common: &Common, shown: &output::Shown) -> anyhow::Result<()> {
    let format = common.output();
    let mut out = output::stdout(format, common.no_color);
    let st = style::Style {
        on: style::use_color(common.no_color),
    };
    format.write(&mut out, shown, st)?;
    out.flush().ok();
    Ok(())
}

/// Where `compact` writes the compacted session.
struct Output<'a> {
    path: Option<&'a Path>,
    to: Option<Format>,
    force: bool,
}

fn compact(
    source: &str,
    preset: &PresetArgs,
    summarizer: &SummarizerArgs,
    target: Output,
    common: &Common,
) -> anyhow::Result<i32> {
    let Output {
        path: output,
        to,
        force,
    } = target;
    let to_stdout = output.is_some_and(|p| p == Path::new("-"));
    let format = common.output();
    format.check(output::Command::Compact)?;
    if let Some(out) = output.filter(|_| !to_stdout) {
        crate::write::check_output(out, force)?;
    }
    let (analysis, sets) = analysed_for(source, preset, common)?;
    // The offline digest and the text report read the request a message at a time; a
    // network summarizer and the documents take it whole.
    let by_message = summarizer.summarizer == SummarizerKind::Offline
        && (to_stdout || format == OutputFormat::TEXT);
    let plan = plan_cmd::to_carry_out(&analysis, &preset.preset, &sets, by_message)?;
    // The offline digest is written as the compaction is carried out (`None` here).
    let (name, written, masked) = match summarizer.summarizer {
        SummarizerKind::Offline => ("offline".to_string(), None, 0),
        // Nothing to send: the plan does not fire, or the framework writes its summary without a
        // model (an offline digest, or a strategy that only drops).
        _ if !plan.trigger.fired || plan.summarizer.is_empty() || plan.insertion.is_none() => {
            ("offline".to_string(), None, 0)
        }
        _ => {
            let choice = summarizer
                .choice()
                .ok_or_else(|| anyhow!("no network summarizer chosen"))?;
            let client = choice.build()?;
            let quiet = format != OutputFormat::TEXT;
            let s = compact_cmd::summarize_network(client.as_ref(), &plan.summarizer, quiet)?;
            (
                format!("{}:{}", client.name(), s.model),
                Some(s.text),
                s.masked_secrets,
            )
        }
    };
    let summary = || written.or_else(|| compact_cmd::offline(&analysis, &plan));
    let input = (source != "-").then(|| Path::new(source));
    if to_stdout && compact_cmd::as_source_lines(&analysis, &plan, input, to) {
        // The compacted session as data, of the source's lines around the summary: nothing
        // else of the carrying out is shown, so nothing else is made.
        let summary = summary();
        let mut raw = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        compact_cmd::lines(&analysis, &plan, summary.as_deref(), false, input, &mut raw)?;
        raw.flush().ok();
        leave((analysis, plan));
        return Ok(0);
    }
    // `-o -` shows no finding: the summarized range's facts are not read.
    use crate::compaction::carry_out::{carry_out, Wants};
    let wants = if to_stdout {
        Wants::HISTORY
    } else {
        Wants::REPORT
    };
    let done = carry_out(&analysis, &plan, name, summary, masked, wants);
    let target = || compact_cmd::target(&analysis, &done, input, to);
    if to_stdout {
        // `-o -`: the compacted session is the output, as data.
        let target = target()?;
        let mut raw = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        compact_cmd::written(&analysis, &plan, &done, input, target, &mut raw)?;
        raw.flush().ok();
        leave((analysis, plan, done));
        return Ok(0);
    }
    let written = match output {
        Some(out) => {
            let target = target()?;
            let mut written = String::new();
            crate::write::write_file_with(out, input, force, |w| {
                written = compact_cmd::written(&analysis, &plan, &done, input, target, w)?;
                Ok(())
            })?;
            Some(written)
        }
        None => None,
    };
    show(common, &output::Shown::Compact(&analysis, &plan, &done))?;
    if let (Some(out), Some(written), OutputFormat::TEXT) = (output, written, format) {
        let mut stdout = output::stdout(format, common.no_color);
        writeln!(stdout, "\nwrote {} ({written})", out.display())?;
        stdout.flush().ok();
    }
    Ok(0)
}

fn plan(source: &str, preset: &PresetArgs, common: &Common) -> anyhow::Result<i32> {
    common.output().check(output::Command::Plan)?;
    let (analysis, plan) = planned(source, preset, common)?;
    show(common, &output::Shown::Plan(&analysis, &plan))?;
    leave((analysis, plan));
    Ok(0)
}

/// Loads a session from a path, or stdin for `-`, within `limits`.
pub fn load_source(
    source: &str,
    from: Option<Format>,
    limits: &crate::limits::Limits,
) -> anyhow::Result<crate::session::Session> {
    if source == "-" {
        let bytes = crate::limits::read_at_most(std::io::stdin().lock(), limits.input)
            .map_err(|e| formats::read_error("<stdin>", e))?;
        return Ok(formats::load_bytes_within(
            bytes, None, "<stdin>", from, limits,
        )?);
    }
    Ok(formats::load_path_within(Path::new(source), from, limits)?)
}
