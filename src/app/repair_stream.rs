//! `toolmend repair` of a JSON Lines file as a stream: the repaired bytes go to a temporary
//! file (next to the target for `--in-place` and `-o`), never into memory.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender, SyncSender};

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
    /// Standard output: directly when it can take output back (see [`Direct`]), else
    /// through a temporary file printed once the repair is complete.
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
    /// Standard output itself, written as the repair went (see [`Direct`]).
    Direct(Direct),
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
    let opened = std::sync::atomic::AtomicUsize::new(0);
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
        // The progress meter counts the first reading only: the second opening (the first
        // reads the head of the file for its dialect).
        match opened.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
            1 => Ok(Box::new(BufReader::with_capacity(
                1 << 16,
                meter.reader(file),
            ))),
            0 => Ok(Box::new(BufReader::with_capacity(1 << 16, file))),
            _ => Ok(ReadAhead::of(file)),
        }
    };
    let name = &input.name;
    let mut written = Written::for_target(target, input, stamp)?;
    let mut out = Failing::new(BufWriter::with_capacity(1 << 16, written.writer()));
    let mut result = match target {
        // Nothing to write: a file with nothing to repair is read once.
        Target::Nowhere => toolmend::check_lines(name, &open, lint, options),
        _ => toolmend::stream_lines(name, &open, lint, options, &mut out),
    };
    if let (Ok(_), Err(e)) = (&result, out.flush()) {
        result = Err(NotStreamed::Io(e));
    }
    let failed_write = out.failed;
    drop(out);
    if result.is_err() {
        // Whatever went to standard output is taken back: a whole reading writes it again.
        written
            .abandon()
            .context("cannot take back the output written to standard output")?;
    }
    Ok(match result {
        Ok(streamed) => Ok((streamed, written)),
        Err(NotStreamed::Whole(why)) => Err((why, spooled)),
        Err(NotStreamed::Io(e)) if failed_write => {
            return Err(e).with_context(|| cannot_write(target, input));
        }
        Err(NotStreamed::Io(e)) => {
            return Err(e)
                .with_context(|| format!("{}: cannot read", toolmend::escape_control(name)));
        }
    })
}

impl Written {
    /// A place for `target`'s output: a temporary file next to the file it will replace, a
    /// temporary file for standard output, or nowhere.
    fn for_target(target: Target<'_>, input: &Input, stamp: Option<Stamp>) -> Result<Written> {
        Ok(match target {
            Target::Nowhere => Written::Nothing,
            Target::Stdout => match Direct::stdout() {
                Some(direct) => Written::Direct(direct),
                None => {
                    Written::Stdout(tempfile::tempfile().context("cannot create a temporary file")?)
                }
            },
            Target::File(_) | Target::InPlace => {
                Written::Staged(Staged::next_to(destination(target, input))?, stamp)
            }
        })
    }

    /// Where to write the output.
    fn writer(&mut self) -> Box<dyn Write + '_> {
        match self {
            Written::Nothing => Box::new(std::io::sink()),
            Written::Stdout(file) => Box::new(file),
            Written::Direct(direct) => Box::new(&direct.file),
            Written::Staged(staged, _) => Box::new(staged.file()),
        }
    }

    /// Take back what went to standard output directly; the rest is dropped unused.
    fn abandon(&mut self) -> std::io::Result<()> {
        match self {
            Written::Direct(direct) => direct.rewind(),
            _ => Ok(()),
        }
    }
}

/// Standard output written directly, without a temporary copy: a regular file whose offset is
/// at its end (as after `>`), whose output can be taken back by truncating it to where it
/// began, or `/dev/null`. A pipe or a terminal cannot take output back, so the repair goes
/// through a temporary file and is printed once it is complete.
#[derive(Debug)]
pub struct Direct {
    /// A duplicate of standard output's descriptor (it shares its offset).
    file: File,
    /// Where the output began, for a regular file.
    start: Option<u64>,
}

impl Direct {
    /// Standard output, if it can take back what was written to it.
    fn stdout() -> Option<Direct> {
        use std::io::Seek;
        use std::os::fd::AsFd;
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let mut file = File::from(std::io::stdout().as_fd().try_clone_to_owned().ok()?);
        let meta = file.metadata().ok()?;
        if meta.is_file() {
            let at = file.stream_position().ok()?;
            return (at == meta.len()).then_some(Direct {
                file,
                start: Some(at),
            });
        }
        let null = std::fs::metadata("/dev/null").ok()?;
        (meta.file_type().is_char_device() && null.file_type().is_char_device())
            .then_some(())
            .filter(|()| meta.rdev() == null.rdev())
            .map(|()| Direct { file, start: None })
    }

    /// Truncate the file back to where the output began, and write from there again.
    fn rewind(&mut self) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        if let Some(start) = self.start {
            self.file.set_len(start)?;
            self.file.seek(SeekFrom::Start(start))?;
        }
        Ok(())
    }
}

/// The file `target` replaces: `-o FILE`, or the input itself.
fn destination<'a>(target: Target<'a>, input: &'a Input) -> &'a Path {
    match (target, &input.path) {
        (Target::File(to), _) => to,
        (_, Some(path)) => path,
        (_, None) => unreachable!("--in-place takes files"),
    }
}

/// What failed when writing `target`'s output did.
fn cannot_write(target: Target<'_>, input: &Input) -> String {
    match target {
        Target::File(_) | Target::InPlace => {
            let dir = destination(target, input)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            format!(
                "{}: cannot write a temporary file in this directory",
                toolmend::escape_control(&dir.display().to_string())
            )
        }
        _ => "cannot write the repaired output".to_string(),
    }
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

    fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
        let r = self.inner.write_vectored(bufs);
        self.failed |= r.is_err();
        r
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.failed |= r.is_err();
        r
    }
}

/// Repair `input`, read whole, writing the output into `target` without a second copy in
/// memory: `repair` writes it to the writer it is given.
pub fn whole_into(
    input: &Input,
    target: Target<'_>,
    stamp: Option<Stamp>,
    repair: impl FnOnce(&mut dyn Write) -> std::io::Result<toolmend::Repaired>,
) -> Result<(toolmend::Repaired, Written)> {
    let mut written = Written::for_target(target, input, stamp)?;
    let mut out = BufWriter::new(written.writer());
    let repaired = repair(&mut out).and_then(|r| out.flush().map(|()| r));
    drop(out);
    if repaired.is_err() {
        let _ = written.abandon();
    }
    Ok((
        repaired.with_context(|| cannot_write(target, input))?,
        written,
    ))
}

/// The second reading of a big file, read ahead on a thread of its own when the repair may use
/// more than one: the copying out of the kernel overlaps the second reading's work (finding
/// lines, parsing those the fixes need, writing the output).
struct ReadAhead {
    /// Blocks read, in order; an error ends them.
    blocks: Option<Receiver<Block>>,
    /// Blocks given back to be read into again.
    spare: Sender<Vec<u8>>,
    /// The block being handed out, its length and how much of it was consumed.
    block: Vec<u8>,
    len: usize,
    at: usize,
    reader: Option<std::thread::JoinHandle<()>>,
}

/// A block read ahead and how much of it holds the file, or why the reading stopped.
type Block = std::io::Result<(Vec<u8>, usize)>;

/// The size of a block read ahead.
const AHEAD_BYTES: usize = 256 << 10;
/// Files smaller than this are read in place: a thread would cost more than it saves.
const AHEAD_ABOVE: u64 = 4 << 20;
/// Blocks read ahead at most.
const AHEAD_BLOCKS: usize = 4;

impl ReadAhead {
    /// A reader of `file` from where it is: read ahead on a thread when the file is big and
    /// the repair runs on a pool of more than one thread, else buffered in place.
    fn of(file: File) -> Box<dyn BufRead> {
        let big = file.metadata().is_ok_and(|m| m.len() >= AHEAD_ABOVE);
        let threads = rayon::current_thread_index().is_some() && rayon::current_num_threads() > 1;
        if !(big && threads) {
            return Box::new(BufReader::with_capacity(1 << 16, file));
        }
        // The thread reads a duplicate (which shares the offset); without a thread, the file
        // is read in place.
        let Ok(ahead) = file.try_clone() else {
            return Box::new(BufReader::with_capacity(1 << 16, file));
        };
        let (full, blocks) = std::sync::mpsc::sync_channel(AHEAD_BLOCKS);
        let (spare, spares) = std::sync::mpsc::channel();
        let reader = std::thread::Builder::new()
            .name("read-ahead".into())
            .spawn(move || read_ahead(ahead, &full, &spares));
        match reader {
            Ok(reader) => Box::new(ReadAhead {
                blocks: Some(blocks),
                spare,
                block: Vec::new(),
                len: 0,
                at: 0,
                reader: Some(reader),
            }),
            Err(_) => Box::new(BufReader::with_capacity(1 << 16, file)),
        }
    }
}

/// Read `file` to its end in blocks (reusing those given back), until the reader is dropped.
fn read_ahead(mut file: File, full: &SyncSender<Block>, spares: &Receiver<Vec<u8>>) {
    loop {
        let mut block = spares.try_recv().unwrap_or_else(|_| vec![0; AHEAD_BYTES]);
        let mut len = 0;
        while len < block.len() {
            match file.read(&mut block[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = full.send(Err(e));
                    return;
                }
            }
        }
        if full.send(Ok((block, len))).is_err() || len == 0 {
            return;
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let chunk = self.fill_buf()?;
            let n = chunk.len().min(buf.len());
            buf[..n].copy_from_slice(&chunk[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ReadAhead {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at == self.len
            && let Some(blocks) = &self.blocks
        {
            // The thread gone without a word: it panicked; the repair reads the file whole.
            let next = blocks
                .recv()
                .unwrap_or_else(|_| Err(std::io::Error::other("the read-ahead thread stopped")));
            let used = std::mem::take(&mut self.block);
            if !used.is_empty() {
                let _ = self.spare.send(used);
            }
            let (block, len) = next?;
            if len == 0 {
                self.blocks = None;
            }
            (self.block, self.len, self.at) = (block, len, 0);
        }
        Ok(&self.block[self.at..self.len])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.len);
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        // Without its receiver the thread stops at its next block.
        self.blocks = None;
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}
