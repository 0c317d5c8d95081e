//! `toolmend repair` of a JSON Lines file as a stream: the repaired bytes go to a temporary
//! file (next to the target for `--in-place` and `-o`), never into memory.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};

use toolmend::io::inputs::Input;
use toolmend::io::write::{Staged, Stamp};
use toolmend::{Format, NotStreamed, RepairOptions, Streamed};

use super::work::Meter;

/// Files at least this large get a note when they cannot be repaired as a stream.
pub const NOTE_ABOVE: u64 = 16 << 20;

/// Where a streamed repair's output goes.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// Standard output (through a temporary file: the output is printed in input order).
    Stdout,
    /// This file (`-o`).
    File(&'a Path),
    /// Back over the input (`--in-place`).
    InPlace,
    /// Nowhere (`--check`).
    Nowhere,
}

/// The output of a streamed repair, to be put in place.
#[derive(Debug)]
pub enum Written {
    /// Nothing to put anywhere (`--check`).
    Nothing,
    /// A temporary file holding the output for standard output.
    Stdout(File),
    /// A new version of a file, with the stamp the input had when it was read (a file).
    Staged(Staged, Option<Stamp>),
}

/// What a streaming attempt gave: the repair, or why the input must be read whole (with the
/// copy of standard input it kept, if it read standard input).
pub type Outcome = std::result::Result<(Streamed, Written), (String, Option<File>)>;

/// Whether `input` is JSON Lines that a repair may stream: a `.jsonl` / `.ndjson` file, or
/// any file or standard input given `--input-format jsonl`.
pub fn eligible(input: &Input, lint: &toolmend::Options) -> bool {
    if input.session.is_some() {
        return false;
    }
    match lint.read.format {
        Some(f) => f == Format::Lines,
        None => {
            let name = input.name.to_ascii_lowercase();
            input.path.is_some() && (name.ends_with(".jsonl") || name.ends_with(".ndjson"))
        }
    }
}

/// Repair `input` as a stream into `target`. `Ok(Err(why))`: it needs to be read whole
/// (standard input was then kept in a temporary file, returned to be read from).
pub fn repair(
    input: &Input,
    lint: &toolmend::Options,
    options: &RepairOptions,
    target: Target<'_>,
    meter: &Meter,
) -> Result<Outcome> {
    // Standard input is read twice: from a copy in a temporary file.
    let spooled = match &input.path {
        Some(_) => None,
        None => {
            let mut tmp = tempfile::tempfile().context("cannot create a temporary file")?;
            std::io::copy(&mut std::io::stdin().lock(), &mut tmp)
                .context("cannot keep standard input in a temporary file")?;
            Some(tmp)
        }
    };
    let stamp = match &input.path {
        Some(path) => Some(Stamp::of(path)?),
        None => None,
    };
    let counted = std::sync::atomic::AtomicBool::new(false);
    let open = || -> std::io::Result<Box<dyn BufRead + '_>> {
        let file = match (&spooled, &input.path) {
            (Some(tmp), _) => {
                let mut file = tmp.try_clone()?;
                std::io::Seek::rewind(&mut file)?;
                file
            }
            (None, Some(path)) => File::open(path)?,
            (None, None) => unreachable!("standard input is spooled"),
        };
        // The progress meter counts the first reading only.
        if counted.swap(true, std::sync::atomic::Ordering::Relaxed) {
            Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
        } else {
            Ok(Box::new(BufReader::with_capacity(
                1 << 16,
                meter.reader(file),
            )))
        }
    };
    let name = &input.name;
    let stream = |out: &mut dyn Write| -> Result<std::result::Result<Streamed, String>> {
        let mut out = Failing::new(BufWriter::new(out));
        let mut result = toolmend::stream_lines(name, &open, lint, options, &mut out);
        if let (Ok(_), Err(e)) = (&result, out.flush()) {
            result = Err(NotStreamed::Io(e));
        }
        match result {
            Ok(streamed) => Ok(Ok(streamed)),
            Err(NotStreamed::Whole(why)) => Ok(Err(why)),
            Err(NotStreamed::Io(e)) if out.failed => {
                Err(e).context("cannot write a temporary file in the output's directory")
            }
            Err(NotStreamed::Io(e)) => {
                Err(e).with_context(|| format!("{}: cannot read", toolmend::escape_control(name)))
            }
        }
    };
    let (result, written) = match target {
        Target::Nowhere => (stream(&mut std::io::sink())?, Written::Nothing),
        Target::Stdout => {
            let mut tmp = tempfile::tempfile().context("cannot create a temporary file")?;
            (stream(&mut tmp)?, Written::Stdout(tmp))
        }
        Target::File(_) | Target::InPlace => {
            let to = match (target, &input.path) {
                (Target::File(to), _) => to,
                (_, Some(path)) => path.as_path(),
                (_, None) => unreachable!("--in-place takes files"),
            };
            let mut staged = Staged::next_to(to)?;
            let result = stream(staged.file())?;
            (result, Written::Staged(staged, stamp))
        }
    };
    Ok(match result {
        Ok(streamed) => Ok((streamed, written)),
        Err(why) => Err((why, spooled)),
    })
}

/// A writer that remembers whether a write failed (to tell a failed write from a failed read).
struct Failing<W> {
    inner: W,
    failed: bool,
}

impl<W: Write> Failing<W> {
    fn new(inner: W) -> Failing<W> {
        Failing {
            inner,
            failed: false,
        }
    }
}

impl<W: Write> Write for Failing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.failed |= r.is_err();
        r
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.failed |= r.is_err();
        r
    }
}

/// Repair `input`, read whole as `loaded` and analysed, writing the output into `target`
/// without a second copy in memory.
pub fn whole_into(
    input: &Input,
    loaded: &[u8],
    analysed: &toolmend::Analysed,
    options: &RepairOptions,
    target: Target<'_>,
    stamp: Option<Stamp>,
) -> Result<(toolmend::Repaired, Written)> {
    let cannot_write = || "cannot write a temporary file in the output's directory";
    Ok(match target {
        Target::Nowhere => {
            let repaired = analysed.repair_to(loaded, options, &mut std::io::sink())?;
            (repaired, Written::Nothing)
        }
        Target::Stdout => {
            let mut tmp = tempfile::tempfile().context("cannot create a temporary file")?;
            let repaired = analysed
                .repair_to(loaded, options, &mut BufWriter::new(&mut tmp))
                .context(cannot_write())?;
            (repaired, Written::Stdout(tmp))
        }
        Target::File(_) | Target::InPlace => {
            let to = match (target, &input.path) {
                (Target::File(to), _) => to,
                (_, Some(path)) => path.as_path(),
                (_, None) => unreachable!("--in-place takes files"),
            };
            let mut staged = Staged::next_to(to)?;
            let mut out = BufWriter::new(staged.file());
            let repaired = analysed
                .repair_to(loaded, options, &mut out)
                .and_then(|r| out.flush().map(|()| r))
                .with_context(|| {
                    format!(
                        "{}: cannot write a temporary file in this directory",
                        toolmend::escape_control(
                            &to.parent()
                                .filter(|d| !d.as_os_str().is_empty())
                                .unwrap_or(Path::new("."))
                                .display()
                                .to_string()
                        )
                    )
                })?;
            drop(out);
            (repaired, Written::Staged(staged, stamp))
        }
    })
}
