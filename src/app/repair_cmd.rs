//! `toolmend repair`.

use std::io::{BufWriter, Write};

use anyhow::{Result, bail};

use toolmend::{RepairOptions, Repaired, SEED_PLACEHOLDER};

use std::ffi::OsString;

use super::args::{Command, DuplicateArg, Profile, RepairArgs, RepairFormat, TruncatedArg};
use super::audit::FileRecord;
use super::config::Configured;
use toolmend::io::write;

use super::repair_stream::{Target, Written};
use super::work::{Meter, Work};
use super::{Status, lint_options, report_errors, stdout_color};

/// The options one command line (with a configuration's settings applied) gives a repair.
struct Setup {
    lint: toolmend::Options,
    repair: RepairOptions,
}

impl Setup {
    fn new(a: &RepairArgs) -> Result<Setup> {
        Ok(Setup {
            lint: lint_options(&a.input)?,
            repair: repair_options(a),
        })
    }
}

pub fn run(a: RepairArgs, argv: &[OsString]) -> Result<Status> {
    Setup::new(&a)?;
    let json = a.format == RepairFormat::Json;
    let (mut inputs, mut errors) = super::expand(&a.input.paths)?;
    let to_stdout = !(a.in_place || a.diff || a.check || a.output.is_some());
    if json && (to_stdout || a.diff) {
        bail!(
            "--format json prints the audit record on standard output: use it with --in-place, -o FILE or --check"
        );
    }
    if (to_stdout || a.output.is_some()) && inputs.len() + errors.len() > 1 {
        bail!("several inputs: use --in-place, --diff or --check (stdout and -o take one input)");
    }
    if a.in_place
        && inputs
            .iter()
            .any(|i| i.path.is_none() && i.session.is_none())
    {
        bail!("--in-place cannot rewrite standard input; use -o FILE or stdout");
    }
    let (configured, config_errors) =
        Configured::resolve(argv, &a.input.config, &inputs, |cli| match cli.command {
            Command::Repair(r) => Setup::new(&r),
            _ => bail!("not a repair command line"),
        })?;
    errors.extend(config_errors);
    inputs.retain(|i| configured.covers(i));
    let color = stdout_color(a.color);
    let mut changed_any = false;
    let mut tally = Tally::default();
    let mut records = Vec::new();
    // Databases first, one after the other: each is written in its own transaction.
    let (databases, inputs): (Vec<_>, Vec<_>) =
        inputs.into_iter().partition(super::db::is_database);
    for input in &databases {
        let setup = &configured.of(input).settings;
        match repair_database(&a, input, &setup.lint, &setup.repair) {
            Ok(changed) => changed_any |= changed,
            Err(e) => errors.push(e),
        }
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut said = Said::new();
    // OpenCode sessions (several files each) first, one by one; then the documents.
    let (sessions, inputs): (Vec<_>, Vec<_>) =
        inputs.into_iter().partition(|i| i.session.is_some());
    for input in &sessions {
        let session = input.session.as_ref().expect("partitioned on it");
        let setup = &configured.of(input).settings;
        let Some((counts, repaired, changed)) = repair_session(
            &mut said,
            session,
            &a,
            &setup.lint,
            &setup.repair,
            &mut errors,
        ) else {
            continue;
        };
        said.flush();
        tally.add(counts, &repaired);
        changed_any |= !changed.is_empty();
        if to_stdout || a.output.is_some() {
            errors.push(anyhow::anyhow!(
                "{}: an OpenCode session is several files: use --in-place, --diff or --check",
                input.name
            ));
        }
        for (path, original, bytes) in changed {
            if a.in_place {
                if let Err(e) = write::in_place(&path, &original, &bytes, a.backup.as_deref()) {
                    errors.push(e.into());
                }
            } else if a.diff {
                let name = path.display().to_string();
                write_diff(&name, &original, &bytes, color, &mut out)?;
            }
        }
    }
    // `--check` without the audit record keeps no bytes: only what is said of each file.
    let light = a.check && !json;
    let work = Work::new(a.input.threads, !a.input.no_progress)?;
    let work = if light { work.light_results() } else { work };
    // Where a repair streamed as it reads goes; the diff and the audit record need both
    // versions whole.
    let target = if json || a.diff {
        None
    } else if let Some(path) = &a.output {
        Some(Target::File(path))
    } else if a.in_place {
        Some(Target::InPlace)
    } else if a.check {
        Some(Target::Nowhere)
    } else {
        Some(Target::Stdout)
    };
    work.each(
        &inputs,
        |input, meter| {
            let setup = &configured.of(input).settings;
            let mut done = mend(input, &setup.lint, &setup.repair, target, meter);
            // Freed here, on the thread that made them, when the calling thread has no use
            // for them: memory freed by another thread costs the allocator more.
            if light && let Ok(done) = &mut done {
                done.loaded = Vec::new();
                done.repaired.output = Vec::new();
                done.repaired.edits = Vec::new();
                done.repaired.fixed = Vec::new();
            }
            done
        },
        |input, done| {
            let Done {
                loaded,
                repaired,
                counts,
                skipped,
                refused,
                streamed,
                note,
                whole,
            } = match done {
                Ok(done) => done,
                Err(e) => {
                    errors.push(e);
                    return Ok(());
                }
            };
            if skipped {
                return Ok(());
            }
            if let Some(why) = note
                && !a.quiet
            {
                said.line(format_args!(
                    "{}: {why}",
                    toolmend::escape_control(&input.name)
                ));
            }
            changed_any |= repaired.changed;
            if !a.quiet && !json {
                report(
                    &mut said,
                    &input.name,
                    counts,
                    refused.as_deref(),
                    &repaired,
                    inputs.len() == 1,
                );
            }
            // What is said of a file comes before what is printed of it, as line by line.
            if to_stdout || a.diff {
                said.flush();
            } else {
                said.file_done();
            }
            if json {
                let written = a.in_place || a.output.is_some();
                records.push(FileRecord::new(
                    &input.name,
                    &loaded,
                    &repaired,
                    written,
                    refused,
                ));
            }
            tally.add(counts, &repaired);
            if let Some(written) = streamed {
                let put = match written {
                    Written::Nothing | Written::Direct(_) => Ok(()),
                    Written::Stdout(mut file) => {
                        use std::io::Seek;
                        use std::os::fd::AsFd;
                        file.rewind()?;
                        // Past the line buffer of standard output, which would cut the copy
                        // into small writes.
                        out.flush()?;
                        let stdout = std::io::stdout();
                        let mut raw = std::fs::File::from(stdout.as_fd().try_clone_to_owned()?);
                        write::copy_file(&mut file, &mut raw)?;
                        Ok(())
                    }
                    Written::Staged(staged, _) if a.output.is_some() => staged.commit(),
                    Written::Staged(_, _) if !repaired.changed => Ok(()),
                    Written::Staged(staged, stamp) => staged.replace(
                        input.path.as_deref().expect("checked above"),
                        &stamp.expect("a file has a stamp"),
                        whole.then_some(loaded.as_slice()),
                        a.backup.as_deref(),
                    ),
                };
                if let Err(e) = put {
                    errors.push(e.into());
                }
            } else if to_stdout {
                out.write_all(&repaired.output)?;
            } else if let Some(path) = &a.output {
                if let Err(e) = write::atomic_write(path, &repaired.output) {
                    errors.push(e.into());
                }
            } else if a.in_place {
                if repaired.changed
                    && let Err(e) = write::in_place(
                        input.path.as_deref().expect("checked above"),
                        &loaded,
                        &repaired.output,
                        a.backup.as_deref(),
                    )
                {
                    errors.push(e.into());
                }
            } else if a.diff && repaired.changed {
                super::work::suspended(|| {
                    write_diff(&input.name, &loaded, &repaired.output, color, &mut out)
                })?;
            }
            Ok(())
        },
    )?;
    if json {
        serde_json::to_writer_pretty(&mut out, &records)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    said.flush();
    if !a.quiet && !json && tally.files > 1 {
        let verb = if a.in_place {
            "repaired"
        } else {
            "need a repair"
        };
        super::say(format_args!(
            "{} of {} files {verb}: {} placeholder(s), {} other fix(es), {} finding(s) left as they are",
            tally.changed,
            tally.files,
            tally.placeholders,
            tally.fixed - tally.placeholders.min(tally.fixed),
            tally.left
        ));
    }
    report_errors(&errors);
    Ok(if !errors.is_empty() {
        Status::Failure
    } else if (a.check || a.diff) && changed_any {
        Status::Findings
    } else {
        Status::Clean
    })
}

/// The repair options from the flags.
fn repair_options(a: &RepairArgs) -> RepairOptions {
    RepairOptions {
        placeholder: a
            .placeholder
            .clone()
            .unwrap_or_else(|| SEED_PLACEHOLDER.into()),
        mark_synthetic: a.mark_synthetic,
        orphans: a.orphans.policy(),
        duplicates: a.duplicates.map(DuplicateArg::policy),
        reid: a.duplicate_ids.is_some(),
        before_results: a.input.profile == Some(Profile::Deerflow),
        drop_torn_tail: a.truncated == TruncatedArg::Drop,
    }
}

/// One input read, analysed and repaired (on a worker thread).
struct Done {
    /// The input (empty when it was repaired as a stream).
    loaded: Vec<u8>,
    /// What the repair did (its output empty when it was streamed into `streamed`).
    repaired: Repaired,
    /// The output of a repair streamed as it read.
    streamed: Option<Written>,
    /// What to say of a large file repaired in memory that grows with it, and why.
    note: Option<String>,
    /// The input was read whole (`loaded` holds it).
    whole: bool,
    counts: Counts,
    /// Found by a directory walk and nothing in it is log-shaped (a package.json): passed over.
    skipped: bool,
    /// Why toolmend refuses to repair it (TM009), if it does.
    refused: Option<String>,
}

/// `repair --in-place` (or `--check`) of one database; whether it changed (or would).
fn repair_database(
    a: &RepairArgs,
    input: &toolmend::io::inputs::Input,
    lint_opts: &toolmend::Options,
    options: &RepairOptions,
) -> Result<bool> {
    let path = input.path.as_deref().expect("a database is a path");
    if !(a.in_place || a.check) {
        bail!(
            "{}: a database is repaired in place: use --in-place (or --check)",
            toolmend::escape_control(&input.name)
        );
    }
    let write = toolmend::store::pipeline::WriteOptions {
        force: a.force,
        dry_run: a.check,
        backup: a.backup.as_ref().map(|suffix| {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            p.into()
        }),
    };
    super::db::repair(path, &input.name, lint_opts, options, &write, a.quiet)
}

/// What `repair` says of each file on standard error, written a file at a time to a terminal
/// and in batches elsewhere: a line written as it is formatted cost a system call per piece
/// (6,768 for 1,352 lines over a directory of 13,500 files). Written out when dropped.
struct Said {
    text: String,
    each_file: bool,
}

/// Lines gathered for standard error are written once they are this long.
const SAID_BYTES: usize = 16 << 10;

impl Said {
    fn new() -> Said {
        use std::io::IsTerminal;
        Said {
            text: String::new(),
            each_file: std::io::stderr().is_terminal(),
        }
    }

    /// One line (a newline is added).
    fn line(&mut self, line: std::fmt::Arguments<'_>) {
        use std::fmt::Write as _;
        let _ = writeln!(self.text, "{line}");
    }

    /// The lines of one file are complete: written now to a terminal, elsewhere once enough
    /// have gathered.
    fn file_done(&mut self) {
        if self.each_file || self.text.len() >= SAID_BYTES {
            self.flush();
        }
    }

    /// Write what has gathered, in one write. Like [`super::say`], a closed standard error
    /// drops it.
    fn flush(&mut self) {
        if !self.text.is_empty() {
            super::work::suspended(|| {
                let _ = std::io::stderr().write_all(self.text.as_bytes());
            });
            self.text.clear();
        }
    }
}

impl Drop for Said {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The note on a JSON Lines file read whole, not streamed, because of `why`.
fn whole_note(why: &str) -> String {
    format!("read whole, not as a stream ({why}): memory grows with the file")
}

/// Findings of a document, and how many of them the repair fixed.
#[derive(Clone, Copy)]
struct Counts {
    total: usize,
    fixed: usize,
}

/// Read, analyse and repair one input: a JSON Lines file as a stream into `target` when it
/// can be, else whole.
fn mend(
    input: &toolmend::io::inputs::Input,
    lint_opts: &toolmend::Options,
    options: &RepairOptions,
    target: Option<Target<'_>>,
    meter: &Meter,
) -> Result<Done> {
    let mut note = None;
    let mut spooled = None;
    let eligible = super::repair_stream::eligible(input, lint_opts);
    if target.is_none() && eligible {
        let size = input
            .path
            .as_deref()
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len());
        note = (size >= super::repair_stream::NOTE_ABOVE)
            .then(|| whole_note("--diff and --format json need both versions whole"));
    }
    if let Some(target) = target
        && eligible
    {
        match super::repair_stream::repair(input, lint_opts, options, target, meter)? {
            Ok((streamed, written)) => return Ok(streamed_done(input, streamed, written)),
            Err((why, kept)) => {
                let size = match (&kept, input.path.as_deref()) {
                    (Some(file), _) => file.metadata().map_or(0, |m| m.len()),
                    (None, Some(p)) => std::fs::metadata(p).map_or(0, |m| m.len()),
                    (None, None) => 0,
                };
                note = (size >= super::repair_stream::NOTE_ABOVE).then(|| whole_note(&why));
                spooled = kept;
            }
        }
    }
    // What the file was before reading, to refuse an in-place rewrite if it changes.
    let stamp = match (target, input.path.as_deref()) {
        (Some(Target::InPlace), Some(path)) => Some(write::Stamp::of(path)?),
        _ => None,
    };
    let loaded = match spooled {
        // Standard input was kept in a temporary file for the streaming attempt.
        Some(mut file) => {
            use std::io::{Read, Seek};
            let mut bytes = Vec::new();
            file.rewind()
                .and_then(|_| file.read_to_end(&mut bytes))
                .map_err(|e| anyhow::anyhow!("cannot read standard input again: {e}"))?;
            bytes
        }
        None => toolmend::io::inputs::load(input)?,
    };
    meter.add(loaded.len() as u64);
    if let Some(target) = target {
        // A JSON document: planned without a model of every message when it can be.
        match toolmend::plan_document(&input.name, &loaded, lint_opts, options) {
            Ok(planned) => return planned_done(input, loaded, planned, target, stamp, note),
            Err(toolmend::NotPlanned::Whole(why))
                if note.is_none() && loaded.len() as u64 >= super::repair_stream::NOTE_ABOVE =>
            {
                note = Some(format!(
                    "repaired with a model of every message ({why}): memory grows with the file"
                ));
            }
            Err(_) => {}
        }
    }
    let analysed = toolmend::analyse(&input.name, &loaded, lint_opts);
    let (repaired, streamed) = match target {
        Some(target) => {
            let (repaired, written) =
                super::repair_stream::whole_into(input, target, stamp, |out| {
                    analysed.repair_to(&loaded, options, out)
                })?;
            (repaired, Some(written))
        }
        None => (analysed.repair(&loaded, options), None),
    };
    let findings = analysed.findings("");
    let counts = counts(findings.len(), &repaired);
    let refused = refusal(findings);
    Ok(Done {
        loaded,
        repaired,
        counts,
        skipped: input.walked && analysed.doc.skippable(),
        refused,
        streamed,
        note,
        whole: true,
    })
}

/// Why nothing was repaired, when the input could not be read with confidence: what toolmend
/// cannot read is never repaired, and it says so.
fn refusal(findings: Vec<toolmend::Finding>) -> Option<String> {
    findings
        .into_iter()
        .find(|f| f.rule == toolmend::Rule::UnrecognizedLog)
        .map(|f| f.message)
}

/// The [`Done`] of a JSON document whose repair was planned without a model of every
/// message: the output is written into `target`.
fn planned_done(
    input: &toolmend::io::inputs::Input,
    loaded: Vec<u8>,
    mut planned: toolmend::PlannedDocument,
    target: Target<'_>,
    stamp: Option<write::Stamp>,
    note: Option<String>,
) -> Result<Done> {
    let lint = std::mem::take(&mut planned.lint);
    let (repaired, written) = super::repair_stream::whole_into(input, target, stamp, |out| {
        planned.write_to(&loaded, out)?;
        Ok(planned.repaired)
    })?;
    let counts = counts(lint.findings.len(), &repaired);
    let refused = refusal(lint.findings);
    Ok(Done {
        loaded,
        repaired,
        counts,
        skipped: input.walked && lint.skippable,
        refused,
        streamed: Some(written),
        note,
        whole: true,
    })
}

/// The [`Done`] of a repair streamed as it read.
fn streamed_done(
    input: &toolmend::io::inputs::Input,
    streamed: toolmend::Streamed,
    written: Written,
) -> Done {
    let repaired = Repaired {
        output: Vec::new(),
        placeholders: streamed.placeholders,
        fixed: Vec::new(),
        fixed_later: 0,
        changed: streamed.changed,
        edits: Vec::new(),
        torn_tail: streamed.torn_tail,
    };
    Done {
        loaded: Vec::new(),
        repaired,
        counts: Counts {
            total: streamed.findings,
            fixed: streamed.fixed,
        },
        skipped: input.walked && streamed.skippable,
        refused: streamed.refused,
        streamed: Some(written),
        note: None,
        whole: false,
    }
}

/// `total` findings, and how many of them `repaired` fixed.
fn counts(total: usize, repaired: &Repaired) -> Counts {
    let fixed: usize = repaired.fixed.iter().map(Vec::len).sum::<usize>()
        + repaired.fixed_later
        + usize::from(repaired.torn_tail.is_some());
    Counts { total, fixed }
}

/// Totals over all inputs, for the closing line when there are several.
#[derive(Default)]
struct Tally {
    files: usize,
    changed: usize,
    placeholders: usize,
    fixed: usize,
    left: usize,
}

impl Tally {
    fn add(&mut self, Counts { total, fixed }: Counts, repaired: &Repaired) {
        self.files += 1;
        self.changed += usize::from(repaired.changed);
        self.placeholders += repaired.placeholders;
        self.fixed += fixed;
        self.left += total.saturating_sub(fixed);
    }
}

/// What was done to one document (a clean one is only mentioned when it is the only input), and
/// why it was not repaired when toolmend `refused` to.
fn report(
    said: &mut Said,
    name: &str,
    Counts { total, fixed }: Counts,
    refused: Option<&str>,
    repaired: &Repaired,
    alone: bool,
) {
    let name = toolmend::render::escape_control(name);
    if let Some(why) = refused {
        // Other conversations of the file may still have been repaired.
        let what = if repaired.changed {
            "partly repaired; what toolmend cannot read is left byte for byte as it is"
        } else {
            "not repaired (left byte for byte as it is)"
        };
        said.line(format_args!(
            "{name}: {what}: {}",
            toolmend::render::escape_control(why)
        ));
    }
    if total == 0 {
        if alone {
            said.line(format_args!("{name}: clean; left untouched"));
        }
        return;
    }
    if let Some((line, bytes)) = repaired.torn_tail {
        said.line(format_args!(
            "{name}: dropped the torn final line {line} ({bytes} bytes; --truncated drop)"
        ));
    }
    if repaired.placeholders > 0 {
        said.line(format_args!(
            "{name}: Injecting {} placeholder tool result(s) for dangling tool calls",
            repaired.placeholders
        ));
    }
    let other = fixed - repaired.placeholders.min(fixed);
    if other > 0 {
        said.line(format_args!("{name}: fixed {other} other finding(s)"));
    }
    if total > fixed {
        said.line(format_args!(
            "{name}: {} finding(s) left as they are (no fix, or an unsafe fix not asked for; see `toolmend lint`)",
            total.saturating_sub(fixed)
        ));
    }
}

fn write_diff(name: &str, old: &[u8], new: &[u8], color: bool, out: &mut dyn Write) -> Result<()> {
    use colored::Colorize;
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string();
    for line in text.split_inclusive('\n') {
        let painted = if !color {
            line.to_string()
        } else if line.starts_with("+++") || line.starts_with("---") {
            line.bold().to_string()
        } else if line.starts_with('+') {
            line.green().to_string()
        } else if line.starts_with('-') {
            line.red().to_string()
        } else if line.starts_with("@@") {
            line.cyan().to_string()
        } else {
            line.to_string()
        };
        out.write_all(painted.as_bytes())?;
    }
    Ok(())
}

/// Repair an OpenCode session read as one document: its counts, the repair of the whole, and
/// the files it changes with their original and repaired bytes (`None` when it could not be
/// read or split back; the error is added to `errors`).
fn repair_session(
    said: &mut Said,
    session: &toolmend::io::opencode::Session,
    a: &RepairArgs,
    lint_opts: &toolmend::Options,
    options: &RepairOptions,
    errors: &mut Vec<anyhow::Error>,
) -> Option<(Counts, Repaired, Vec<toolmend::io::opencode::ChangedFile>)> {
    let assembled = session.assemble().map_err(|e| errors.push(e.into())).ok()?;
    let name = session.name();
    if let Some(f) = assembled.broken.first() {
        errors.push(anyhow::anyhow!(
            "{name}: not repaired: {}:{}:{}: {}",
            f.path,
            f.line,
            f.column,
            f.message
        ));
        return None;
    }
    let analysed = toolmend::analyse(&name, &assembled.bytes, lint_opts);
    let repaired = analysed.repair(&assembled.bytes, options);
    let findings = analysed.findings("");
    let counts = counts(findings.len(), &repaired);
    let refused = refusal(findings);
    if !a.quiet {
        report(said, &name, counts, refused.as_deref(), &repaired, true);
    }
    let changed = assembled
        .split(&repaired.output)
        .map_err(|e| errors.push(anyhow::anyhow!("{name}: {e}")))
        .ok()?;
    Some((counts, repaired, changed))
}
