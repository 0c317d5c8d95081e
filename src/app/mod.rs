//! The command layer: turns arguments into library calls and writes their results. All
//! analysis lives in the rest of the library; this module is the edge that prints.

mod args;
mod audit;
mod baseline;
mod config;
mod config_cmd;
mod db;
mod detect_cmd;
mod docs_cmd;
mod lint_cmd;
mod repair_cmd;
mod repair_stream;
mod sessions_cmd;
mod simulate_cmd;
mod work;

use std::io::{IsTerminal, Write};

use std::ffi::OsString;

use anyhow::{Result, bail};
use clap::Parser;

use args::{
    Cli, ColorChoice, Command, HitlArgs, InputArgs, InputFormat, ModeArg, Profile, TargetArg,
};
use toolmend::{Format, Options as LintOptions, Provider, ReadOptions};

/// Run the command line `args` (the first is the program name) and give the exit status: 0
/// clean, 1 findings or changes needed, 2 failure (a closed output pipe is not one). Usage
/// errors, `--help` and `--version` are printed here, as clap does, but never exit the process:
/// the Python package calls this inside its interpreter.
pub fn main<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    match run(cli, &argv) {
        Ok(status) => status as u8,
        Err(err) if is_broken_pipe(&err) => 0,
        Err(err) => {
            print_error(&err);
            Status::Failure as u8
        }
    }
}

/// `mi_option_purge_delay` (mimalloc's `mimalloc.h`): how long freed memory stays with the
/// process before it is returned to the system.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Settings for mimalloc, which the `toolmend` binary and the Python extension both declare
/// their global allocator (memory allocated on one worker thread and freed on another, as the
/// lines of a big file are, costs the system allocator a lock each time). Freed memory goes
/// back to the system after 10 ms: this build's default waits far longer, so a growing table
/// would leave its old copy behind each time it doubles, and a streamed repair should peak at
/// what it holds. Returning it at once (0) costs a system call per free: 2-3x the system time.
pub fn tune_allocator() {
    // SAFETY: setting an option is allowed at any time; this one is read on each purge.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 10) };
}

/// Exit statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Nothing to report.
    Clean = 0,
    /// Findings, or changes needed.
    Findings = 1,
    /// Usage or I/O failure.
    Failure = 2,
}

/// Run a command; `argv` is the command line it was parsed from (configuration files add
/// to it the options it does not give).
pub(crate) fn run(cli: Cli, argv: &[OsString]) -> Result<Status> {
    match cli.command {
        Command::Lint(a) => lint_cmd::run(a, argv),
        Command::Repair(a) => repair_cmd::run(a, argv),
        Command::Detect(a) => detect_cmd::run(a, argv),
        Command::Simulate(a) => simulate_cmd::run(a),
        Command::Rules => rules(),
        Command::Sessions(a) => sessions_cmd::run(a),
        Command::Explain(a) => docs_cmd::explain(&a.rule),
        Command::Config(a) => config_cmd::run(a),
        Command::Completions(a) => docs_cmd::completions(a.shell),
        Command::Man => docs_cmd::man(),
    }
}

/// Is this error (anywhere in its chain) a closed pipe?
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Decide once whether a stream gets colour.
pub(crate) fn use_color(choice: ColorChoice, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Never => false,
        ColorChoice::Always => true,
        ColorChoice::Auto => {
            is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// Colour decision for standard output; also tells the `colored` crate.
pub(crate) fn stdout_color(choice: ColorChoice) -> bool {
    let on = use_color(choice, std::io::stdout().is_terminal());
    colored::control::set_override(on);
    on
}

/// The inputs named by PATHS (none: standard input), and the paths that could not be taken.
/// With no PATHS and a terminal on standard input there is nothing to read: say so rather than
/// wait for typing.
pub(crate) fn expand(
    paths: &[std::path::PathBuf],
) -> Result<(Vec<toolmend::io::inputs::Input>, Vec<anyhow::Error>)> {
    if paths.is_empty() && std::io::stdin().is_terminal() {
        anyhow::bail!(
            "no input: give PATHS (files, directories, or - for standard input), or pipe a log in"
        );
    }
    let (inputs, errors) = toolmend::io::inputs::expand(paths);
    Ok((inputs, errors.into_iter().map(Into::into).collect()))
}

/// The bytes of one input; a read error is added to `errors` (to report at the end, with the
/// other inputs still processed) and gives `None`.
pub(crate) fn load(
    input: &toolmend::io::inputs::Input,
    errors: &mut Vec<anyhow::Error>,
) -> Option<Vec<u8>> {
    toolmend::io::inputs::load(input)
        .map_err(|e| errors.push(e.into()))
        .ok()
}

/// Library options from the input arguments.
pub(crate) fn lint_options(a: &InputArgs) -> Result<LintOptions> {
    let mut read = ReadOptions {
        dialect: None,
        at: a.at.clone(),
        max_line_bytes: a.max_line_bytes,
        format: a.input_format.map(|f| match f {
            InputFormat::Json => Format::Json,
            InputFormat::Jsonl => Format::Lines,
        }),
    };
    if let Some(name) = &a.dialect
        && !toolmend::force_dialect(&mut read, name)
    {
        bail!(
            "unknown dialect `{name}` (expected one of: {})",
            toolmend::dialect_names().join(", ")
        );
    }
    Ok(LintOptions {
        read,
        tail: a.tail,
        deerflow: a.profile == Some(Profile::Deerflow),
        target: a.target.map(|t| match t {
            TargetArg::Openai => Provider::OpenAi,
            TargetArg::Deepseek => Provider::DeepSeek,
            TargetArg::Anthropic => Provider::Anthropic,
            TargetArg::Gemini => Provider::Gemini,
            TargetArg::Bedrock => Provider::Bedrock,
        }),
        skip_detections: false,
        count_only: false,
    })
}

/// The replay model's tool sets from flags (the replay model's defaults applied).
pub(crate) fn tool_sets(a: &HitlArgs) -> toolmend::simulate::ToolSets {
    toolmend::simulate::SetOptions {
        mode: a.mode.map(|m| match m {
            ModeArg::Legacy => toolmend::simulate::Mode::Legacy,
            ModeArg::EventDriven => toolmend::simulate::Mode::EventDriven,
        }),
        direct: a.direct.clone(),
        interrupting: a.interrupting.clone(),
        guard: a.guard.clone(),
        approval: a.approval.clone(),
    }
    .resolve()
}

/// Print errors collected along the way (file names and messages from the system are escaped:
/// a hostile file name cannot drive the terminal).
pub(crate) fn report_errors(errors: &[anyhow::Error]) {
    for e in errors {
        print_error(e);
    }
}

/// Print one error to standard error, escaped.
pub(crate) fn print_error(e: &anyhow::Error) {
    say(format_args!(
        "toolmend: error: {}",
        toolmend::render::escape_control(&format!("{e:#}"))
    ));
}

/// Write one line to standard error. Unlike `eprintln!`, a closed standard error (`2>&1 |
/// head`) is not a panic: the line is dropped.
pub(crate) fn say(line: std::fmt::Arguments<'_>) {
    work::suspended(|| {
        let _ = writeln!(std::io::stderr(), "{line}");
    });
}

fn rules() -> Result<Status> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{:<6} {:<28} {:<8} fix", "code", "name", "severity")?;
    for r in toolmend::RULES {
        writeln!(
            out,
            "{:<6} {:<28} {:<8} {:<11} {}",
            r.code,
            r.name,
            format!("{:?}", r.severity).to_lowercase(),
            r.fixes.label(),
            r.summary
        )?;
    }
    Ok(Status::Clean)
}
