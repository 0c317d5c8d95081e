//! `toolmend lint`.

use std::io::{BufWriter, Write};

use std::cell::Cell;
use std::collections::BTreeMap;

use std::ffi::OsString;

use anyhow::{Context, Result, anyhow, bail};

use toolmend::render::{self, Totals};
use toolmend::simulate::ToolSets;
use toolmend::{Finding, Format, Options as LintOptions, Rule, ToolStats};

use super::args::{Command, LintArgs};
use super::baseline;
use super::config::Configured;
use toolmend::io::inputs;
use toolmend::io::opencode::Assembled;
use toolmend::render::escape_control as esc;

use super::work::{Meter, Work};
use super::{Status, lint_options, report_errors, stdout_color, tool_sets};

/// What `lint` makes of one command line (with a configuration's settings applied).
struct Setup {
    options: LintOptions,
    selected: Vec<Rule>,
    ignored: Vec<Rule>,
    /// TM008 is on only when interrupting tools are named (plain lint stays quiet).
    hitl: Option<ToolSets>,
}

impl Setup {
    fn new(a: &LintArgs) -> Result<Setup> {
        Ok(Setup {
            options: toolmend::Options {
                // Detection text is only printed with --explain-detection.
                skip_detections: !a.explain_detection,
                ..lint_options(&a.input)?
            },
            selected: if a.select.is_empty() {
                Rule::ALL.to_vec()
            } else {
                toolmend::select_rules(&a.select).map_err(|e| anyhow!(e))?
            },
            ignored: toolmend::select_rules(&a.ignore).map_err(|e| anyhow!(e))?,
            hitl: a.hitl.interrupting.is_some().then(|| tool_sets(&a.hitl)),
        })
    }

    fn reports(&self, rule: Rule, also_ignored: &[Rule]) -> bool {
        self.selected.contains(&rule)
            && !self.ignored.contains(&rule)
            && !also_ignored.contains(&rule)
    }
}

pub fn run(a: LintArgs, argv: &[OsString]) -> Result<Status> {
    // Flags are checked before anything is read.
    Setup::new(&a)?;
    let (mut inputs, mut errors) = super::expand(&a.input.paths)?;
    let (configured, config_errors) =
        Configured::resolve(argv, &a.input.config, &inputs, |cli| match cli.command {
            Command::Lint(l) => Setup::new(&l),
            _ => bail!("not a lint command line"),
        })?;
    errors.extend(config_errors);
    inputs.retain(|i| configured.covers(i));
    // The baseline is not a log, even when a directory walk finds it.
    if let Some(file) = a
        .baseline
        .baseline
        .as_ref()
        .or(a.baseline.write_baseline.as_ref())
    {
        inputs.retain(|i| !baseline::is(file, i));
    }
    let mut findings = Vec::new();
    let mut totals = Totals::default();
    let mut stats: BTreeMap<String, ToolStats> = Default::default();
    // A file's result is its findings, not its bytes.
    let work = Work::new(a.input.threads, !a.input.no_progress)?.light_results();
    let statistics = a.statistics;
    work.each(
        &inputs,
        |input, meter| {
            let group = configured.of(input);
            let setup = &group.settings;
            let mut one = check(input, &setup.options, setup.hitl.as_ref(), meter)?;
            // What the calling thread would only drop or filter out is dropped here, on the
            // thread that made it: memory freed by another thread costs the allocator more,
            // and the calling thread is one for all the workers.
            if !statistics {
                one.stats = BTreeMap::new();
            }
            let per_file = group.ignored_for(input);
            one.findings.retain(|f| setup.reports(f.rule, &per_file));
            Ok(one)
        },
        |input, one| {
            let one = match one {
                Ok(one) => one,
                Err(e) => {
                    errors.push(e);
                    return Ok(());
                }
            };
            // A directory walk passes over JSON that is not a log at all (a package.json).
            if input.walked && one.skippable {
                totals.skipped += 1;
                return Ok(());
            }
            totals.files += 1;
            totals.conversations += one.conversations;
            totals.calls += one.calls;
            if a.explain_detection {
                let name = esc(&input.name);
                for line in &one.detections {
                    super::say(format_args!("{name}: {}", esc(line)));
                }
            }
            for (tool, s) in one.stats {
                let e = stats.entry(tool).or_default();
                e.calls += s.calls;
                e.dangling += s.dangling;
            }
            findings.extend(one.findings);
            Ok(())
        },
    )?;
    if let Some(file) = &a.baseline.write_baseline {
        if errors.is_empty() {
            baseline::write(file, &findings)?;
            super::say(format_args!(
                "toolmend: recorded {} finding(s) in {}",
                findings.len(),
                esc(&file.display().to_string())
            ));
        }
        report_errors(&errors);
        return Ok(if errors.is_empty() {
            Status::Clean
        } else {
            Status::Failure
        });
    }
    let mut known = None;
    if let Some(file) = &a.baseline.baseline {
        let (new, matched) = baseline::filter(file, findings)?;
        findings = new;
        known = Some(matched);
    }
    let color = stdout_color(a.color);
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.statistics {
        render::statistics(a.format.into(), &stats, &mut out)?;
    } else {
        render::findings(
            a.format.into(),
            &findings,
            &totals,
            color,
            a.quiet,
            &mut out,
        )?;
    }
    out.flush()?;
    drop(out);
    if let (Some(matched), Some(file), false) = (known, &a.baseline.baseline, a.quiet) {
        let file = esc(&file.display().to_string());
        super::say(format_args!(
            "toolmend: {} finding(s) not shown: already in the baseline {file}",
            matched.hidden
        ));
        if matched.gone > 0 {
            super::say(format_args!(
                "toolmend: {} baseline entry(ies) no longer found (fixed?); --write-baseline {file} records the findings of now",
                matched.gone
            ));
        }
    }
    report_errors(&errors);
    Ok(if !errors.is_empty() {
        Status::Failure
    } else if !findings.is_empty() && !a.exit_zero {
        Status::Findings
    } else {
        Status::Clean
    })
}

/// What linting one input gave.
struct One {
    findings: Vec<Finding>,
    conversations: usize,
    calls: usize,
    stats: BTreeMap<String, ToolStats>,
    detections: Vec<String>,
    /// Nothing found and nothing log-shaped.
    skippable: bool,
}

/// Lint one input. JSON Lines are streamed (memory follows the longest line) unless an option
/// needs the whole file (`--tail`, `--profile`, TM008).
fn check(
    input: &inputs::Input,
    options: &LintOptions,
    hitl: Option<&ToolSets>,
    meter: &Meter,
) -> Result<One> {
    if let Some(path) = input.path.as_deref()
        && super::db::is_database(input)
    {
        return check_database(path, input, options);
    }
    let lines = match options.read.format {
        Some(f) => f == Format::Lines,
        None => {
            input.path.is_some() && {
                let name = input.name.to_ascii_lowercase();
                name.ends_with(".jsonl") || name.ends_with(".ndjson")
            }
        }
    };
    if lines && hitl.is_none() && options.tail.is_none() && !options.deerflow {
        let report = match &input.path {
            Some(p) => {
                let file = std::fs::File::open(p)
                    .with_context(|| format!("{}: cannot read", esc(&p.display().to_string())))?;
                let size = file.metadata().map_or(0, |m| m.len());
                toolmend::lint_lines_sized(
                    &input.name,
                    std::io::BufReader::with_capacity(1 << 16, meter.reader(file)),
                    size,
                    options,
                )
                .with_context(|| format!("{}: cannot read", esc(&p.display().to_string())))?
            }
            None => toolmend::lint_lines(&input.name, std::io::stdin().lock(), options)
                .context("cannot read standard input")?,
        };
        let mut detections: Vec<String> = report
            .detections
            .iter()
            .enumerate()
            .map(|(i, d)| format!("conversation {i} at {d}"))
            .collect();
        if report.conversations == 0 && report.findings.is_empty() {
            detections.push("no conversation found (give its place with --at POINTER)".into());
        }
        return Ok(One {
            findings: report.findings,
            conversations: report.conversations,
            calls: report.calls_checked,
            stats: report.stats,
            detections,
            skippable: report.skippable,
        });
    }
    // An OpenCode session is read as one document; its findings name the files.
    let assembled = input.session.as_ref().map(|s| s.assemble()).transpose()?;
    if let Some(a) = assembled.as_ref().filter(|a| !a.broken.is_empty()) {
        return Ok(One {
            findings: a.broken.clone(),
            conversations: 0,
            calls: 0,
            stats: Default::default(),
            detections: vec![
                "an OpenCode session with files that do not parse: not analysed".into(),
            ],
            skippable: false,
        });
    }
    let mut room = Vec::new();
    let loaded: &[u8] = match &assembled {
        Some(a) => &a.bytes,
        None => {
            room = ROOM.take();
            let len = inputs::load_into(input, &mut room)?;
            &room[..len]
        }
    };
    meter.add(loaded.len() as u64);
    let one = lint_loaded(input, loaded, assembled.as_ref(), options, hitl);
    if room.capacity() <= inputs::ROOM_ZEROED {
        ROOM.set(room);
    }
    Ok(one)
}

thread_local! {
    /// The room a thread reads its files into, kept from one file to the next (see
    /// [`inputs::load_into`]) unless a big file made it bigger than [`inputs::ROOM_ZEROED`].
    static ROOM: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Lint the bytes of a document read whole (`assembled`: from an OpenCode session's files).
fn lint_loaded(
    input: &inputs::Input,
    loaded: &[u8],
    assembled: Option<&Assembled>,
    options: &LintOptions,
    hitl: Option<&ToolSets>,
) -> One {
    // A JSON document is walked as it is read, without a model of every message.
    if assembled.is_none()
        && hitl.is_none()
        && let Some(report) = toolmend::lint_document(&input.name, loaded, options)
    {
        let mut detections = report.notes;
        let described = (!options.skip_detections).then_some(&report.conversations);
        detections.extend(described.into_iter().flatten().map(|c| {
            format!(
                "conversation {} at `{}`: {} ({} messages) — {}",
                c.index, c.pointer, c.dialect, c.messages, c.detection
            )
        }));
        return One {
            findings: report.findings,
            conversations: report.conversations.len(),
            calls: report.calls_checked,
            stats: report.stats,
            detections,
            skippable: report.skippable,
        };
    }
    let analysed = toolmend::analyse(&input.name, loaded, options);
    let mut detections = analysed.doc.notes.clone();
    let described = (!options.skip_detections).then_some(&analysed.doc.conversations);
    detections.extend(described.into_iter().flatten().map(|c| {
        format!(
            "conversation {} at `{}`: {} ({} messages) — {}",
            c.index,
            c.pointer,
            c.dialect,
            c.messages.len(),
            c.detection
        )
    }));
    let mut findings = analysed.findings(&input.name);
    if let Some(sets) = hitl {
        findings.extend(toolmend::hitl_findings(&input.name, &analysed, sets));
        findings.sort_by_key(|f| (f.line, f.column, f.rule));
    }
    if let Some(a) = assembled {
        a.relocate(&mut findings);
    }
    One {
        findings,
        conversations: analysed.doc.conversations.len(),
        calls: analysed.calls_checked,
        stats: analysed.tool_stats(),
        detections,
        skippable: analysed.doc.skippable(),
    }
}

/// Lint a database: each conversation of its store, read-only. A database found by a directory
/// walk that holds no store toolmend knows (another app's SQLite file) is skipped.
fn check_database(
    path: &std::path::Path,
    input: &inputs::Input,
    options: &LintOptions,
) -> Result<One> {
    let report = if input.walked {
        match super::db::read(path, &input.name, options)? {
            Some(report) => report,
            None => {
                return Ok(One {
                    findings: Vec::new(),
                    conversations: 0,
                    calls: 0,
                    stats: BTreeMap::new(),
                    detections: vec![
                        "an SQLite database with no session store toolmend knows".into(),
                    ],
                    skippable: true,
                });
            }
        }
    } else {
        super::db::lint(path, &input.name, options)?
    };
    let mut stats: BTreeMap<String, ToolStats> = BTreeMap::new();
    for a in report
        .conversations
        .iter()
        .filter_map(|c| c.analysed.as_ref())
    {
        for (tool, s) in a.tool_stats() {
            let e = stats.entry(tool).or_default();
            e.calls += s.calls;
            e.dangling += s.dangling;
        }
    }
    let mut detections = vec![format!("{} — {}", report.store, report.why)];
    detections.extend(
        report
            .conversations
            .iter()
            .map(|c| format!("conversation at {}", c.stored.location)),
    );
    Ok(One {
        findings: report.findings().cloned().collect(),
        conversations: report.conversations.len(),
        calls: report.calls_checked(),
        stats,
        detections,
        skippable: false,
    })
}
