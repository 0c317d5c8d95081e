//! Work over many inputs: on every core, results taken in input order, and a progress bar on
//! standard error when a person is watching a long run.
//!
//! Inputs are worked in parallel, a few small batches ahead, and their results handed over one
//! by one in input order, so what is printed or written is the same as a single-threaded run,
//! and memory holds the results of the batches in flight, not all of them.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use toolmend::io::inputs::Input;

/// Bytes of input in the batches in flight, at most (each batch holds one input at least),
/// when the results hold the inputs' bytes.
const IN_FLIGHT_BYTES: u64 = 64 << 20;
/// Inputs per batch, at most, when the results are small (findings).
const LIGHT_BATCH: usize = 64;
/// Inputs per batch, at most, when the results hold the inputs' bytes.
const HEAVY_BATCH: usize = 16;
/// Batches per thread at least, so that a few inputs are still spread over every thread.
const BATCHES_PER_THREAD: usize = 8;
/// Batches in flight per thread when the results are small: worked or waiting to be, or done
/// and waiting to be taken. Results that hold the inputs' bytes have two batches in flight
/// beyond one per thread.
const AHEAD_PER_THREAD: usize = 2;
/// A bar appears only once the work has run this long.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// How many threads, and whether a bar may be shown.
pub struct Work {
    pool: rayon::ThreadPool,
    progress: bool,
    /// The results hold the inputs' bytes: batches are cut by bytes too (see [`IN_FLIGHT_BYTES`]).
    heavy: bool,
}

impl Work {
    /// `threads` 0 means one per core; `progress` is whether the user allows a bar (it is
    /// still only drawn on a terminal, outside CI, after a second).
    pub fn new(threads: usize, progress: bool) -> Result<Work> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("cannot start worker threads")?;
        let progress = progress
            && std::io::stderr().is_terminal()
            && std::env::var_os("CI").is_none_or(|v| v.is_empty());
        Ok(Work {
            pool,
            progress,
            heavy: true,
        })
    }

    /// The results are small (findings, not the inputs' bytes): batches are cut by count, and
    /// no input's size is looked up before it is worked (unless a bar may be drawn).
    pub fn light_results(self) -> Work {
        Work {
            heavy: false,
            ..self
        }
    }

    /// Run `work` on every input in parallel (counting what it reads on the [`Meter`]), then
    /// `take` each result in input order, on the calling thread. What `take` writes to a
    /// terminal goes through [`suspended`].
    ///
    /// With one thread, each input is worked and taken in turn on the calling thread. With
    /// more, the inputs are cut into small batches, each worked in turn by one thread of the
    /// pool, a few batches ahead of the one whose results the calling thread takes, in order:
    /// the pool does not wait for the taking, and memory holds the results of the batches in
    /// flight only. A batch is one job, not split further: splitting a batch of small files
    /// over the threads cost a wait for the other half at the end of each (the waiting thread
    /// spins, yields, sleeps and is woken), and many more wake-ups of the calling thread.
    pub fn each<R: Send>(
        &self,
        inputs: &[Input],
        work: impl Fn(&Input, &Meter) -> R + Sync,
        mut take: impl FnMut(&Input, R) -> Result<()>,
    ) -> Result<()> {
        let threads = self.pool.current_num_threads().max(1);
        // Sizes are looked up only where they are used: for the bar's total, and to cut the
        // batches of heavy results by bytes.
        let sized = self.progress || (self.heavy && threads > 1);
        let sizes: Vec<u64> = match (sized, threads) {
            (false, _) => Vec::new(),
            (true, 1) => inputs.iter().map(size).collect(),
            (true, _) => self.pool.install(|| inputs.par_iter().map(size).collect()),
        };
        let meter = Meter::start(self.progress, inputs.len(), sizes.iter().sum());
        if threads == 1 {
            for input in inputs {
                let result = work(input, &meter);
                take(input, result)?;
                meter.file_done();
            }
        } else {
            let most = if self.heavy { HEAVY_BATCH } else { LIGHT_BATCH };
            let per_batch = (inputs.len() / (threads * BATCHES_PER_THREAD)).clamp(1, most);
            let ahead = if self.heavy {
                threads + 2
            } else {
                threads * AHEAD_PER_THREAD + 1
            };
            let batches = batches(
                inputs.len(),
                &sizes,
                per_batch,
                IN_FLIGHT_BYTES / ahead as u64,
            );
            let (work, meter) = (&work, &meter);
            self.pool.in_place_scope(|scope| -> Result<()> {
                type Done<R> = std::thread::Result<Vec<R>>;
                let (done, results) = mpsc::channel::<(usize, Done<R>)>();
                let mut ready: BTreeMap<usize, Vec<R>> = BTreeMap::new();
                let mut next = 0;
                for (at, batch) in batches.iter().enumerate() {
                    while next < batches.len() && next < at + ahead {
                        let (i, done) = (next, done.clone());
                        let batch = &inputs[batches[i].clone()];
                        scope.spawn(move |_| {
                            let result = panic::catch_unwind(AssertUnwindSafe(|| {
                                batch.iter().map(|input| work(input, meter)).collect()
                            }));
                            // The taker has stopped on an error when this fails.
                            let _ = done.send((i, result));
                        });
                        next += 1;
                    }
                    let taken = loop {
                        if let Some(r) = ready.remove(&at) {
                            break r;
                        }
                        let (i, r) = results.recv().context("a worker thread failed")?;
                        ready.insert(i, r.unwrap_or_else(|e| panic::resume_unwind(e)));
                    };
                    for (input, result) in inputs[batch.clone()].iter().zip(taken) {
                        take(input, result)?;
                        meter.file_done();
                    }
                }
                Ok(())
            })?;
        }
        meter.finish();
        Ok(())
    }
}

/// Cut `count` inputs into batches of at most `per_batch` inputs and, when their `sizes` are
/// given (empty: not looked up), `most_bytes` (one input at least).
fn batches(
    count: usize,
    sizes: &[u64],
    per_batch: usize,
    most_bytes: u64,
) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < count {
        let (mut end, mut bytes) = (start, 0);
        while end < count && end - start < per_batch && (end == start || bytes < most_bytes) {
            bytes += sizes.get(end).copied().unwrap_or(0);
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// The size of a file input (0 for standard input or what cannot be looked at).
fn size(input: &Input) -> u64 {
    input
        .path
        .as_deref()
        .and_then(|p| std::fs::metadata(p).ok())
        .filter(|m| m.is_file())
        .map_or(0, |m| m.len())
}

/// The bar being drawn, if any: lines written to standard error meanwhile go through it.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Run `f` (which writes to standard error) with the bar, if one is drawn, out of the way.
pub fn suspended<T>(f: impl FnOnce() -> T) -> T {
    let shown = SHOWN.lock().ok().and_then(|s| s.clone());
    match shown {
        Some(bar) => bar.suspend(f),
        None => f(),
    }
}

/// Progress over files and bytes, drawn once the work has run for a second. Shared by the
/// worker threads: bytes are counted as they are read.
pub struct Meter {
    bar: Option<ProgressBar>,
    started: Instant,
    files: usize,
    done: AtomicUsize,
}

impl Meter {
    fn start(allowed: bool, files: usize, bytes: u64) -> Meter {
        let bar = (allowed && files > 0).then(|| {
            let bar = ProgressBar::with_draw_target(Some(bytes), ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta} {msg}",
                )
                .expect("a valid template"),
            );
            bar
        });
        Meter {
            bar,
            started: Instant::now(),
            files,
            done: AtomicUsize::new(0),
        }
    }

    /// Count `bytes` of input as read.
    pub fn add(&self, bytes: u64) {
        let Some(bar) = &self.bar else { return };
        bar.inc(bytes);
        if bar.is_hidden()
            && self.started.elapsed() >= SHOW_AFTER
            && let Ok(mut shown) = SHOWN.lock()
            && shown.is_none()
        {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            *shown = Some(bar.clone());
        }
    }

    /// `reader`, counting what is read from it.
    pub fn reader<R: Read>(&self, reader: R) -> Counted<'_, R> {
        Counted {
            meter: self,
            reader,
        }
    }

    fn file_done(&self) {
        if let Some(bar) = &self.bar {
            let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            bar.set_message(format!("{done}/{} files", self.files));
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
            if let Ok(mut shown) = SHOWN.lock() {
                *shown = None;
            }
        }
    }
}

/// A reader that counts its bytes on a [`Meter`].
pub struct Counted<'m, R> {
    meter: &'m Meter,
    reader: R,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.reader.read(buf)?;
        self.meter.add(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::{Meter, batches};

    #[test]
    fn batches_are_cut_by_count_and_by_bytes_when_sizes_are_known() {
        let big = 1000;
        assert_eq!(batches(5, &[], 2, big), vec![0..2, 2..4, 4..5]);
        assert!(batches(0, &[], 2, big).is_empty());
        assert_eq!(
            batches(5, &[1, big, 1, 1, big + 1], 3, big),
            vec![0..2, 2..5],
            "a batch ends once it holds the limit, and holds one input at least"
        );
        assert_eq!(batches(3, &[big * 2, 1, 1], 3, big), vec![0..1, 1..3]);
    }

    #[test]
    fn a_streamed_file_moves_the_bar_by_the_bytes_read() {
        let meter = Meter::start(true, 1, 10);
        let mut text = String::new();
        meter
            .reader(&b"0123456789"[..])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "0123456789");
        assert_eq!(meter.bar.as_ref().map(|b| b.position()), Some(10));
        meter.file_done();
        assert_eq!(
            meter.bar.as_ref().map(|b| b.message()).as_deref(),
            Some("1/1 files")
        );
        meter.finish();
    }

    #[test]
    fn no_bar_is_made_when_it_is_not_allowed() {
        let meter = Meter::start(false, 3, 100);
        meter.add(100);
        assert!(meter.bar.is_none());
    }
}
