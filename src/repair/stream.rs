//! Streaming repair of JSON Lines: the file is read twice and never held whole.
//!
//! The first pass is the streaming lint (`lint_lines`): it finds every defect of every thread,
//! so the second pass knows in advance which messages each fix needs. The second pass reads the
//! lines again and writes the output as it goes. It keeps only the lines from the oldest
//! message a pending fix still needs, and plans each group of fixes (fixes whose messages
//! overlap) with the same planner as a whole-document repair, over a small buffer holding just
//! those lines, once their answer windows have closed. So memory follows the longest line and
//! the span of messages between a broken call and the end of its answer window, not the file,
//! and the output is byte for byte what the whole-document repair writes.
//!
//! The second pass parses only the lines the fixes need: the first pass tells where each fix's
//! first message is (the offset of a call or result in it, and its index in its thread), so the
//! lines before it are copied to the output unread, and the numbering of the thread's messages
//! resumes there. Where the first pass cannot tell (a thread whose messages have group keys, a
//! call or result remembered without its position), every line is read, as before.
//!
//! What cannot be done one window at a time is refused with the reason ([`NotStreamed::Whole`])
//! before anything is promised: the caller then repairs the file whole, and says so.

use std::collections::VecDeque;
use std::io::{self, BufRead, IoSlice, Write};

use crate::analysis::{Defect, WalkOptions, Window};
use crate::dialect::Dialect;
use crate::edit::{EditSet, RepairOptions};
use crate::fix::fix_for;
use crate::lint::{LintOptions, dialect_of, sent};
use crate::model::{Container, Conversation, Foreign, Message, Unread};
use crate::read::{LineSink, LinesReader, Numbering, Problem, TORN_FINAL_LINE};
use crate::rules::{Applicability, Rule};
use crate::stream::ThreadScan;
use crate::target;

use super::window::{Rebase, placed, reach, read_again_as_placed};
use super::{Edit, OrphanPolicy, Shape, plan, scan_from};

/// What a streaming repair did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Streamed {
    /// Findings of the file (what `lint` reports), fixed or not.
    pub findings: usize,
    /// Findings fixed (the torn final line dropped counts as one).
    pub fixed: usize,
    /// Placeholder results inserted.
    pub placeholders: usize,
    /// Whether anything changed.
    pub changed: bool,
    /// The torn final line removed (`--truncated drop`): its number and length in bytes.
    pub torn_tail: Option<(usize, usize)>,
    /// Why toolmend did not repair the file at all (it could not read it: TM009).
    pub refused: Option<String>,
    /// Nothing in the file looked like a log (a directory walk skips it).
    pub skippable: bool,
    /// Lines the second reading parsed; the others, which no fix needs, were copied unread
    /// (0 when the file was read once).
    pub lines_reread: usize,
}

/// Why a file was not repaired as a stream.
#[derive(Debug, thiserror::Error)]
pub enum NotStreamed {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The repair needs the whole file, for this reason: repair it whole.
    #[error("{0}")]
    Whole(String),
}

/// A fresh reader of a file from its start.
pub type OpenLines<'o, 'r> = &'o dyn Fn() -> io::Result<Box<dyn BufRead + 'r>>;

/// Repair a JSON Lines file as a stream, writing the repaired bytes to `out`. `open` gives a
/// fresh reader of the file from its start (it is called twice).
///
/// On [`NotStreamed::Whole`] part of the output may already have been written: the caller
/// discards it (write to a temporary file) and repairs the file whole.
pub fn stream_lines(
    name: &str,
    open: OpenLines<'_, '_>,
    lint: &LintOptions,
    options: &RepairOptions,
    out: &mut dyn Write,
) -> Result<Streamed, NotStreamed> {
    repair_lines(name, open, lint, options, Some(out))
}

/// What [`stream_lines`] would do to a JSON Lines file, without writing the output
/// (`repair --check`): a file with nothing to repair is read once.
pub fn check_lines(
    name: &str,
    open: OpenLines<'_, '_>,
    lint: &LintOptions,
    options: &RepairOptions,
) -> Result<Streamed, NotStreamed> {
    repair_lines(name, open, lint, options, None)
}

/// [`stream_lines`], with the output written to `out` when there is one.
fn repair_lines(
    name: &str,
    open: OpenLines<'_, '_>,
    lint: &LintOptions,
    options: &RepairOptions,
    out: Option<&mut dyn Write>,
) -> Result<Streamed, NotStreamed> {
    let whole = |why: &str| Err(NotStreamed::Whole(why.to_string()));
    if lint.tail.is_some() || lint.deerflow || options.before_results {
        return whole("--tail and --profile deerflow judge the file as a whole");
    }
    if options.reid {
        return whole("--reid renames calls across the whole conversation");
    }
    if let Some(d) = first_dialect(&mut *open()?, lint)?
        && !d.streams()
        && !claude(d)
    {
        // Known from the first lines: spare the first reading.
        return Err(NotStreamed::Whole(format!(
            "{} logs are judged on the whole file",
            d.name()
        )));
    }
    let scan = LintOptions {
        skip_detections: true,
        count_only: true,
        ..lint.clone()
    };
    let report = crate::stream::lint_lines(name, open()?, &scan)?;
    if !report.lines {
        return whole("the file is one JSON document, not JSON Lines");
    }
    if report.dialect.is_some_and(claude) {
        return super::claude_stream::repair(report, open, lint, options, out);
    }
    if let Some(d) = report.dialect
        && !d.streams()
    {
        return Err(NotStreamed::Whole(format!(
            "{} logs are judged on the whole file",
            d.name()
        )));
    }
    let refused = report
        .findings
        .iter()
        .find(|f| f.rule == Rule::UnrecognizedLog)
        .map(|f| f.message.clone());
    let done = Streamed {
        findings: report.findings.len() + report.counted,
        refused,
        skippable: report.skippable,
        ..Streamed::default()
    };
    let thread_count = match report.dialect {
        Some(_) => report.threads.len().max(1),
        None => 0,
    };
    let keys = report.threads.iter().map(|t| t.key.clone()).collect();
    let threads: Vec<Thread> = match report.dialect {
        Some(d) => report
            .threads
            .into_iter()
            .map(|scan| thread(d, scan, lint, options))
            .collect(),
        None => Vec::new(),
    };
    let fixes = threads.iter().any(|t| !t.pending.is_empty());
    let torn = options.drop_torn_tail
        && report
            .findings
            .iter()
            .any(|f| f.message.starts_with(TORN_FINAL_LINE));
    // A conversation toolmend cannot read (TM009) is read-only; the others are repaired, as
    // in the whole-file repair.
    if !(fixes || !report.line_fixes.is_empty() || torn) {
        // Nothing to change: the output is the input.
        if let Some(out) = out {
            io::copy(&mut open()?, out)?;
        }
        return Ok(done);
    }
    let mut skips = Skips::plan(&threads, &report.line_fixes);
    let mut nowhere = io::sink();
    let out = match out {
        Some(out) => out,
        None => &mut nowhere,
    };
    let mut writer = Writer {
        lint,
        options,
        dialect: report.dialect,
        threads,
        thread_count,
        line_conversations: 0,
        out,
        written: 0,
        edits: Vec::new(),
        sequence: 0,
        waiting: report.dialect.is_some(),
        failed: None,
        done,
        line_fixes: skips.enabled.then(|| report.line_fixes.into()),
        gap: false,
    };
    let mut arrivals = Arrivals {
        dialect: report.dialect,
        known: keys,
        ..Arrivals::default()
    };
    let mut kept = Kept::default();
    let mut lines = LinesReader::new(&lint.read);
    let mut input = open()?;
    let mut number = 0;
    let mut at = 0;
    let mut eof = false;
    let mut torn = None;
    loop {
        // The next line: up to its newline, reading more as needed.
        let found = memchr::memchr(b'\n', kept.from(at));
        let Some(k) = found.or_else(|| eof.then_some(kept.end() - at).filter(|&n| n > 0)) else {
            if eof {
                break;
            }
            eof = kept.fill(&mut *input)?;
            continue;
        };
        let body_end = at + k;
        let line_end = (body_end + 1).min(kept.end());
        if line_end == kept.end() && !eof {
            // Whether this line is the last one: only the end of the input tells.
            eof = kept.fill(&mut *input)?;
            if !eof || found.is_none() {
                continue;
            }
        }
        number += 1;
        let last = eof && line_end == kept.end();
        if !last && !writer.waiting && writer.idle() && !skips.needed(at, line_end) {
            // No fix needs this line: copied as it is, unread.
            writer.gap = true;
            at = line_end;
            if at - writer.written >= COPY_BYTES {
                writer.flush(&mut kept, at, false)?;
            }
            continue;
        }
        writer.resume();
        writer.done.lines_reread += 1;
        let mut text = kept.slice(at, body_end);
        if text.last() == Some(&b'\r') {
            text = &text[..text.len() - 1];
        }
        let max = lint.read.max_line_bytes;
        let long = (max > 0 && text.len() > max).then_some(text.len());
        let text = if long.is_some() { &[][..] } else { text };
        lines.line(number, at, text, long, last, &mut arrivals);
        if let Some(line) = arrivals.torn.take() {
            torn = Some((at, line));
        }
        writer.arrived(&mut arrivals, &kept, line_end);
        writer.plan_ready(&kept, line_end, false);
        writer.flush(&mut kept, at, false)?;
        at = line_end;
        if let Some(why) = writer.failed.take() {
            return Err(NotStreamed::Whole(why));
        }
    }
    lines.finish(&mut arrivals);
    let end = kept.end();
    writer.arrived(&mut arrivals, &kept, end);
    writer.plan_ready(&kept, end, true);
    if writer.line_fixes.as_ref().is_some_and(|f| !f.is_empty()) {
        writer.fail("a conversation with a fix is not where the first reading saw it");
    }
    if let Some((start, line)) = torn.filter(|_| options.drop_torn_tail) {
        writer.done.torn_tail = Some((line, end - start));
        writer.done.fixed += 1;
        writer.push_edit(Edit::delete(start, end));
    }
    if let Some(why) = writer.failed.take() {
        return Err(NotStreamed::Whole(why));
    }
    writer.flush(&mut kept, end, true)?;
    writer.out.flush()?;
    Ok(writer.done)
}

/// Claude Code sessions are repaired as a stream of their own (see `claude_stream`).
fn claude(d: &'static dyn Dialect) -> bool {
    d.name() == crate::dialect::ClaudeCode.name()
}

/// The dialect the first lines of `input` (its first MiB at most) are read as, if one claims
/// them. The dialect of a file is the one the first message line claims, so the reading stops
/// there, or at the first line that holds whole conversations: such a file has no dialect of
/// its own for this look to find (the first pass reads it anyway).
fn first_dialect(
    input: &mut dyn BufRead,
    lint: &LintOptions,
) -> io::Result<Option<&'static dyn Dialect>> {
    let mut head = io::Read::take(input, 1 << 20);
    let mut lines = LinesReader::new(&lint.read);
    let mut sink = Arrivals::default();
    let mut line = Vec::new();
    let mut start = 0;
    let mut number = 0;
    loop {
        line.clear();
        let n = head.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        number += 1;
        // Only whole lines: a cut one would read as invalid.
        if let Some(text) = line.strip_suffix(b"\n") {
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            lines.line(number, start, text, None, false, &mut sink);
        }
        start += n;
        if (lint.read.dialect.is_none() && lines.known().dialect.is_some())
            || lines.conversations_taken() > 0
        {
            break;
        }
    }
    Ok(lines.finish(&mut sink).map(|(d, _)| d))
}

/// The second pass's state of one thread the first pass walked.
fn thread(
    d: &'static dyn Dialect,
    scan: ThreadScan,
    lint: &LintOptions,
    options: &RepairOptions,
) -> Thread {
    let judge = target::judge(d, lint.target);
    let mut pending: Vec<Pending> = if scan.read_only {
        Vec::new()
    } else {
        scan.defects
            .into_iter()
            .filter(|defect| acts(d, defect, options))
            .map(|defect| {
                let (lo, hi, window_from) = reach(&defect);
                let anchor = placed(&defect)
                    .into_iter()
                    .find(|&(i, _)| i == lo)
                    .map(|(_, offset)| offset);
                Pending {
                    defect,
                    lo,
                    hi,
                    window_from,
                    anchor,
                }
            })
            .collect()
    };
    // The planner takes a conversation's defects in walk order; a stable sort keeps it
    // within a group.
    pending.sort_by_key(|p| p.lo);
    let mut anchors: Vec<(usize, usize)> = pending
        .iter()
        .filter_map(|p| p.anchor.map(|offset| (offset, p.lo)))
        .collect();
    if !pending.is_empty() {
        anchors.extend(scan.sample.map(|(index, offset)| (offset, index)));
    }
    anchors.sort_unstable();
    Thread {
        window: judge.window,
        numbering: Numbering::default(),
        shift: 0,
        synced: true,
        grouped: scan.grouped,
        anchors: anchors.into(),
        kept: VecDeque::new(),
        lines: VecDeque::new(),
        first: 0,
        pending: pending.into(),
        sample_at: scan.sample.map(|(index, _)| index),
        sample: None,
        previous: Vec::new(),
    }
}

/// Skipped lines are written once this many bytes of them have gathered.
const COPY_BYTES: usize = 1 << 16;

/// Where the lines the second pass reads are: those holding the first message of a fix (or of
/// a fix's thread's sample result), or a conversation held by one line that has a fix; and
/// every line up to the last message of the fixes whose first message the first pass does not
/// place (a call it remembered without its position).
#[derive(Debug)]
struct Skips {
    /// The first pass told where every fix starts, or ends, so some lines may be skipped.
    enabled: bool,
    /// Every line starting before this offset is read.
    read_to: usize,
    /// Offsets in the needed lines, in file order.
    needs: Vec<usize>,
    /// The first of `needs` not yet passed.
    next: usize,
}

impl Skips {
    fn plan(threads: &[Thread], line_fixes: &[(Option<usize>, usize)]) -> Skips {
        let mut enabled = true;
        let mut read_to = 0;
        let mut needs = Vec::new();
        for t in threads.iter().filter(|t| !t.pending.is_empty()) {
            enabled &= !t.grouped;
            for p in t.pending.iter().filter(|p| p.anchor.is_none()) {
                // Read from the start of the file: numbering never resumes before this fix.
                match placed(&p.defect).iter().map(|&(_, offset)| offset).max() {
                    Some(last) => read_to = read_to.max(last + 1),
                    None => enabled = false,
                }
            }
            needs.extend(t.anchors.iter().map(|&(offset, _)| offset));
        }
        for &(at, _) in line_fixes {
            enabled &= at.is_some();
            needs.extend(at);
        }
        needs.sort_unstable();
        Skips {
            enabled,
            read_to,
            needs,
            next: 0,
        }
    }

    /// Must the line from `start` to `end` be read?
    fn needed(&mut self, start: usize, end: usize) -> bool {
        if !self.enabled || start < self.read_to {
            return true;
        }
        while self.needs.get(self.next).is_some_and(|&at| at < start) {
            self.next += 1;
        }
        self.needs.get(self.next).is_some_and(|&at| at < end)
    }
}

/// Does the repair act on `defect` (a safe fix, or an unsafe one its policies ask for)?
pub(super) fn acts(dialect: &dyn Dialect, defect: &Defect, options: &RepairOptions) -> bool {
    match fix_for(dialect, defect, false).map(|f| f.applicability) {
        Some(Applicability::Safe) => true,
        Some(Applicability::Unsafe) => match defect {
            Defect::Orphan { .. } => options.orphans != OrphanPolicy::Keep,
            Defect::DuplicateResult { .. } => options.duplicates.is_some(),
            _ => options.reid,
        },
        _ => false,
    }
}

/// Fixes whose messages overlap are planned together, up to this many; more, and the file is
/// repaired whole (the group would be checked again after every line).
const MAX_GROUP: usize = 10_000;

/// A defect whose fix is still to be planned, with the messages it needs.
#[derive(Debug)]
struct Pending {
    defect: Defect,
    lo: usize,
    hi: usize,
    /// The first message of the answer window whose end the fix needs (see [`reach`]).
    window_from: Option<usize>,
    /// An offset inside message `lo`, when the first pass knows one.
    anchor: Option<usize>,
}

/// One message-per-line thread in the second pass.
#[derive(Debug)]
struct Thread {
    window: Window,
    numbering: Numbering,
    /// Messages of the thread in skipped lines, since the start of the file: an index is the
    /// number the message got plus this.
    shift: usize,
    /// The indices of the messages read are known: no line was skipped since the thread's
    /// last anchor (true from the start of the file).
    synced: bool,
    /// Some message of the thread has a group key (its numbering cannot resume mid-file).
    grouped: bool,
    /// Messages whose place the first pass knows, not yet read: (an offset inside the
    /// message, its index), in file order.
    anchors: VecDeque<(usize, usize)>,
    /// Messages from index `first` on, each with the offset of the start of its line.
    kept: VecDeque<Message>,
    lines: VecDeque<usize>,
    first: usize,
    pending: VecDeque<Pending>,
    /// Index of the thread's first message holding only a result, from the first pass.
    sample_at: Option<usize>,
    /// That message, the bytes of its line (line ending included) and the line's offset.
    sample: Option<(Message, Vec<u8>, usize)>,
    /// The edits of the group planned last (file offsets): the next group may share a message
    /// with it, and its edits must not conflict with them.
    previous: Vec<Edit>,
}

impl Thread {
    /// Messages numbered so far (those in skipped lines included, once synced).
    fn seen(&self) -> usize {
        self.numbering.count() + self.shift
    }

    /// Number `m`, read from the line from `line` to `line_end`; `false` when its index is not
    /// known (a line of the thread was skipped since its last anchor), `Err` when it is not the
    /// index the first pass gave it.
    fn number(&mut self, m: &mut Message, line: usize, line_end: usize) -> Result<bool, String> {
        self.numbering.number(m);
        m.index += self.shift;
        while let Some(&(offset, index)) = self.anchors.front() {
            if offset >= line_end {
                break;
            }
            self.anchors.pop_front();
            if offset < line {
                continue;
            }
            if self.synced && m.index != index {
                return Err("the second reading numbered messages unlike the first".into());
            }
            if index < m.index {
                return Err("the second reading met more messages than the first".into());
            }
            self.shift += index - m.index;
            m.index = index;
            self.synced = true;
        }
        Ok(self.synced)
    }

    /// Are the messages pending fix `p` reads all kept?
    fn holds(&self, p: usize) -> bool {
        let p = &self.pending[p];
        !self.kept.is_empty() && self.first <= p.lo && p.hi < self.first + self.kept.len()
    }

    /// Is `p`'s fix ready to plan: its messages and the thread's sample read, and its answer
    /// window closed (or the file ended)?
    fn ready(&mut self, p: usize, eof: bool) -> bool {
        if eof {
            return true;
        }
        if !self.synced {
            return false;
        }
        let (hi, from) = (self.pending[p].hi, self.pending[p].window_from);
        if hi + 1 >= self.seen() || self.sample_at.is_some_and(|s| s >= self.seen()) {
            return false;
        }
        from.is_none_or(|from| self.window_end(from).1)
    }

    /// The last message of the answer window starting at message `from`, among the kept
    /// messages (none when it is empty), and whether it closed.
    fn window_end(&mut self, from: usize) -> (Option<usize>, bool) {
        let (first, kept) = (self.first, self.kept.make_contiguous());
        scan_from(first + kept.len(), from, self.window, |k| {
            Shape::of(&kept[k - first])
        })
    }

    /// The message after those a fix of pending `p` reads or edits: the one after its answer
    /// window, which it only reads (past the last message at the end of the file).
    fn after(&mut self, p: usize) -> usize {
        let (hi, from) = (self.pending[p].hi, self.pending[p].window_from);
        let after = match from {
            Some(from) => self.window_end(from).0.map_or(from, |end| end + 1),
            None => hi + 1,
        };
        after.max(hi + 1)
    }

    /// The last message a fix of pending `p` may touch: the one after its answer window, or
    /// the last message read.
    fn last_needed(&mut self, p: usize) -> usize {
        self.after(p).min(self.seen().saturating_sub(1))
    }

    /// How many pending fixes form the next group, when they are all ready: fixes join a
    /// group while their first message is within the reach of those before.
    ///
    /// A fix whose first message is the one right after the group's reach (which the group
    /// only reads, as the message after an answer window) starts a new group: its edits are
    /// checked against the group before's (see `Thread::previous`), so a conflict is still
    /// found. `Err` when more than [`MAX_GROUP`] fixes overlap: the file is repaired whole.
    fn ready_group(&mut self, eof: bool) -> Result<Option<usize>, String> {
        let mut reach = 0;
        for k in 0..self.pending.len() {
            if k > 0 && self.pending[k].lo >= reach {
                return Ok(Some(k));
            }
            if k >= MAX_GROUP {
                return Err(format!("more than {MAX_GROUP} fixes overlap one another"));
            }
            if !self.ready(k, eof) {
                return Ok(None);
            }
            if !self.holds(k) {
                return Err("the second reading did not keep the messages of a fix".into());
            }
            // At the end of the file the message after the window does not exist, so a fix
            // starting at the last message still joins the group (as in the whole-file
            // repair, where placeholders for the calls of one message go into one message,
            // and an orphan's note goes after the placeholders of the window it sits in).
            reach = reach.max(self.after(k));
        }
        Ok((!self.pending.is_empty()).then_some(self.pending.len()))
    }

    /// Keep `m` (read from the line starting at `line`) when a pending fix may need it.
    fn keep(&mut self, m: Message, line: usize) {
        let needed = self.pending.front().is_some_and(|p| p.lo <= m.index);
        if needed || !self.kept.is_empty() {
            if self.kept.is_empty() {
                self.first = m.index;
            }
            self.kept.push_back(m);
            self.lines.push_back(line);
        }
    }

    /// Forget the messages no pending fix needs any more.
    fn forget(&mut self) {
        let keep_from = self.pending.front().map_or(usize::MAX, |p| p.lo);
        while self.first < keep_from && !self.kept.is_empty() {
            self.kept.pop_front();
            self.lines.pop_front();
            self.first += 1;
        }
    }
}

/// The raw bytes read but not yet written (also the Claude Code stream's).
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// File offset of the first byte kept (`bytes[head]`).
    pub(super) base: usize,
    /// The bytes read, then room to read into (already initialised, so that the input is read
    /// straight into it, without a buffer in between).
    bytes: Vec<u8>,
    /// Where the bytes kept start in `bytes`: those before were forgotten.
    head: usize,
    /// Where they end.
    len: usize,
}

/// The least room [`Kept::fill`] reads into at once.
const READ_BYTES: usize = 1 << 18;

impl Kept {
    /// Forget the bytes before file offset `to`. They are moved out of the way only when more
    /// room is needed (see [`Kept::fill`]).
    pub(super) fn forget(&mut self, to: usize) {
        self.head += to - self.base;
        self.base = to;
        if self.head == self.len {
            (self.head, self.len) = (0, 0);
        }
    }

    /// The file offset just past the last byte read.
    pub(super) fn end(&self) -> usize {
        self.base + (self.len - self.head)
    }

    /// The bytes from file offset `start` to `end`.
    pub(super) fn slice(&self, start: usize, end: usize) -> &[u8] {
        &self.bytes[self.head + start - self.base..self.head + end - self.base]
    }

    /// The bytes from file offset `start` to the last read.
    pub(super) fn from(&self, start: usize) -> &[u8] {
        self.slice(start, self.end())
    }

    /// Read more of `input` onto the end; `true` at the end of the input.
    ///
    /// The input is read straight into the room after the bytes kept (a `BufReader` hands a
    /// read at least as large as its buffer to the file directly): one copy out of the kernel
    /// rather than two. Room is made by moving the bytes kept to the front once the forgotten
    /// ones outweigh them (so the cost stays linear), else by growing.
    pub(super) fn fill(&mut self, input: &mut dyn BufRead) -> io::Result<bool> {
        if self.bytes.len() - self.len < READ_BYTES {
            if self.head > 0 && self.head >= self.len - self.head {
                self.bytes.copy_within(self.head..self.len, 0);
                (self.head, self.len) = (0, self.len - self.head);
            }
            if self.bytes.len() - self.len < READ_BYTES {
                self.bytes.resize(self.len + READ_BYTES, 0);
            }
        }
        loop {
            match input.read(&mut self.bytes[self.len..]) {
                Ok(0) => return Ok(true),
                Ok(n) => {
                    self.len += n;
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The start of the line holding `offset`.
    fn line_start(&self, offset: usize) -> usize {
        memchr::memrchr(b'\n', self.slice(self.base, offset))
            .map_or(self.base, |i| self.base + i + 1)
    }

    /// The start of the line before the one starting at `line` (itself for the first kept).
    fn line_before(&self, line: usize) -> usize {
        if line == self.base {
            return line;
        }
        self.line_start(line - 1)
    }
}

/// What the lines reader hands over while one line is read; taken right after.
#[derive(Default)]
struct Arrivals {
    /// Thread keys in the order the threads were met (as the first pass met them).
    known: Vec<Option<String>>,
    messages: Vec<(usize, Message)>,
    conversations: Vec<Conversation>,
    dialect: Option<&'static dyn Dialect>,
    torn: Option<usize>,
    unexpected: Option<String>,
}

impl Arrivals {
    fn thread_at(&mut self, key: Option<String>) -> usize {
        match self.known.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                self.known.push(key);
                self.known.len() - 1
            }
        }
    }
}

impl LineSink for Arrivals {
    fn message(&mut self, d: &'static dyn Dialect, thread: Option<String>, m: Box<Message>) {
        if self.dialect.is_some_and(|x| x.name() != d.name()) {
            self.unexpected = Some("the second reading chose another dialect".into());
        }
        let t = self.thread_at(thread);
        self.messages.push((t, *m));
    }

    fn foreign(&mut self, _: &'static dyn Dialect, _: Option<String>, _: Foreign) {}

    fn unread(&mut self, _: &'static dyn Dialect, thread: Option<String>, _: Unread) {
        self.thread_at(thread);
    }

    fn conversation(&mut self, conv: Conversation) {
        self.conversations.push(conv);
    }

    fn problem(&mut self, p: Problem) {
        if p.message.starts_with(TORN_FINAL_LINE) {
            self.torn = Some(p.line);
        }
    }
}

/// The second pass: plans fixes as their messages arrive and writes the output.
struct Writer<'a> {
    lint: &'a LintOptions,
    options: &'a RepairOptions,
    dialect: Option<&'static dyn Dialect>,
    threads: Vec<Thread>,
    thread_count: usize,
    line_conversations: usize,
    out: &'a mut dyn Write,
    /// File offset written up to.
    written: usize,
    /// Planned edits not yet written, with the order they were planned in.
    edits: Vec<(Edit, usize)>,
    sequence: usize,
    /// No message line has been read yet: lines read before the dialect is known are handed
    /// over late, so nothing is written before the first message arrives.
    waiting: bool,
    failed: Option<String>,
    done: Streamed,
    /// The conversations held by one line that have fixes, from the first pass (offset,
    /// number), when lines are skipped; `None`: every line is read, and every conversation
    /// looked at.
    line_fixes: Option<VecDeque<(Option<usize>, usize)>>,
    /// A line was skipped since the last line read.
    gap: bool,
}

impl Writer<'_> {
    /// No thread keeps messages for a fix (so a line may be skipped).
    fn idle(&self) -> bool {
        self.threads.iter().all(|t| t.kept.is_empty())
    }

    /// A line is read after skipped ones: message indices are known again only from each
    /// thread's next anchor on.
    fn resume(&mut self) {
        if std::mem::take(&mut self.gap) {
            self.threads.iter_mut().for_each(|t| t.synced = false);
        }
    }

    fn push_edit(&mut self, e: Edit) {
        self.done.changed = true;
        self.edits.push((e, self.sequence));
        self.sequence += 1;
    }

    fn fail(&mut self, why: impl Into<String>) {
        if self.failed.is_none() {
            self.failed = Some(why.into());
        }
    }

    /// Take what the line (read up to `line_end`) handed over.
    fn arrived(&mut self, arrivals: &mut Arrivals, kept: &Kept, line_end: usize) {
        if let Some(why) = arrivals.unexpected.take() {
            self.fail(why);
        }
        if arrivals.known.len() > self.threads.len() {
            self.fail("the second reading met a thread the first did not");
            return;
        }
        for (t, mut m) in std::mem::take(&mut arrivals.messages) {
            self.waiting = false;
            if m.span.start < self.written {
                self.fail("a message arrived after its line was written");
                return;
            }
            let line = kept.line_start(m.span.start);
            let end = memchr::memchr(b'\n', kept.slice(m.span.end, line_end))
                .map_or(line_end, |k| m.span.end + k + 1);
            let thread = &mut self.threads[t];
            match thread.number(&mut m, line, end) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(why) => {
                    self.fail(why);
                    return;
                }
            }
            if thread.sample_at == Some(m.index) {
                thread.sample = Some((m.clone(), kept.slice(line, end).to_vec(), line));
            }
            thread.keep(m, line);
        }
        for conv in std::mem::take(&mut arrivals.conversations) {
            self.line_conversation(conv, kept, line_end);
        }
    }

    /// Plan every group of fixes whose messages have all been read (up to `line_end`).
    fn plan_ready(&mut self, kept: &Kept, line_end: usize, eof: bool) {
        for t in 0..self.threads.len() {
            while self.failed.is_none() {
                match self.threads[t].ready_group(eof) {
                    Ok(Some(count)) => self.plan_group(t, count, kept, line_end),
                    Ok(None) => break,
                    Err(why) => self.fail(why),
                }
            }
        }
    }

    /// Plan the first `count` pending fixes of thread `t` over a buffer of just their lines
    /// (and the line before, and the sample's line when it came earlier).
    fn plan_group(&mut self, t: usize, count: usize, kept: &Kept, line_end: usize) {
        let d = self.dialect.expect("threads come with a dialect");
        let thread = &mut self.threads[t];
        // Each message the first pass placed is where the second reading found it, and holds
        // the calls and results the fix reads where the first reading saw them.
        let message = |index: usize| {
            index
                .checked_sub(thread.first)
                .and_then(|k| thread.kept.get(k))
        };
        let agrees = thread.pending.range(..count).all(|p| {
            placed(&p.defect).into_iter().all(|(index, offset)| {
                kept.line_start(offset) == thread.lines[index - thread.first]
            }) && read_again_as_placed(&p.defect, message)
        });
        if !agrees {
            self.fail("the second reading numbered messages unlike the first");
            return;
        }
        let mut last = 0;
        for k in 0..count {
            last = last.max(thread.last_needed(k));
        }
        let group: Vec<Pending> = thread.pending.drain(..count).collect();
        let lo = group.iter().map(|p| p.lo).min().unwrap_or(0);
        let context = kept.line_before(thread.lines[lo - thread.first]);
        let mut buffer = Vec::new();
        let mut sample = None;
        if let Some((m, line, start)) = &thread.sample
            && thread.sample_at.is_some_and(|s| s < lo)
        {
            buffer.extend_from_slice(line);
            let rebase = Rebase {
                from: *start,
                to: 0,
                first: m.index,
            };
            sample = Some(rebase.message(m));
        }
        let prefix = buffer.len();
        buffer.extend_from_slice(kept.slice(context, line_end));
        let rebase = Rebase {
            from: context,
            to: prefix,
            first: lo,
        };
        let messages: Vec<Message> = thread
            .kept
            .range(lo - thread.first..=last - thread.first)
            .map(|m| rebase.message(m))
            .collect();
        if sample.is_none() {
            sample = thread
                .sample_at
                .filter(|s| (lo..=last).contains(s))
                .map(|s| messages[s - lo].clone());
        }
        let conv = Conversation {
            index: t,
            dialect: d.name(),
            detection: String::new(),
            pointer: String::new(),
            container: Container::Lines,
            messages,
            foreign: Vec::new(),
            unread: Vec::new(),
            next_lines: Vec::new(),
            skimmed: None,
        };
        let defects: Vec<Defect> = group.iter().map(|p| rebase.defect(&p.defect)).collect();
        thread.forget();
        let window = thread.window;
        let mut edits = EditSet::default();
        let before: Vec<Edit> = thread
            .previous
            .iter()
            .filter(|e| e.start >= context)
            .map(|e| Edit {
                start: e.start - context + prefix,
                end: e.end - context + prefix,
                text: Vec::new(),
            })
            .collect();
        // They were accepted together: no conflict among themselves.
        edits.try_add(before);
        let p = plan(
            &buffer,
            &conv,
            d,
            window,
            &defects,
            self.options,
            sample.as_ref(),
            &mut edits,
        );
        let planned = self.take_plan(p, prefix, context);
        self.threads[t].previous = planned;
    }

    /// Repair a conversation held by one line, as the whole-document repair would.
    fn line_conversation(&mut self, mut conv: Conversation, kept: &Kept, line_end: usize) {
        let number = match &mut self.line_fixes {
            None => {
                self.line_conversations += 1;
                self.line_conversations - 1
            }
            Some(fixes) => {
                // Only the conversations the first pass found fixes in.
                let at = crate::stream::conversation_offset(&conv);
                if fixes.front().is_some_and(|f| f.0 < at) {
                    // Passed without being met: the file changed between the readings.
                    self.fail("a conversation with a fix is not where the first reading saw it");
                    return;
                }
                match fixes.front() {
                    Some(&(offset, number)) if offset == at => {
                        fixes.pop_front();
                        number
                    }
                    _ => return,
                }
            }
        };
        conv.index = self.thread_count + number;
        let d = dialect_of(&conv);
        if !d.streams() {
            self.fail(format!("{} logs are judged on the whole file", d.name()));
            return;
        }
        let judge = target::judge(d, self.lint.target);
        let walk = WalkOptions {
            tail: false,
            unique_ids: judge.unique_ids,
        };
        let defects = sent(
            d,
            crate::analysis::walk(&conv.messages, judge.window, walk).0,
        );
        if defects.is_empty() || !conv.unread.is_empty() {
            return;
        }
        let Some(first) = conv.messages.first() else {
            return;
        };
        let context = kept.line_before(kept.line_start(first.span.start));
        let rebase = Rebase {
            from: context,
            to: 0,
            first: 0,
        };
        rebase.conversation(&mut conv);
        let buffer = kept.slice(context, line_end);
        let defects: Vec<Defect> = defects.iter().map(|x| rebase.defect(x)).collect();
        let sample = crate::edit::first_result(&conv);
        let mut edits = EditSet::default();
        let p = plan(
            buffer,
            &conv,
            d,
            judge.window,
            &defects,
            self.options,
            sample,
            &mut edits,
        );
        self.take_plan(p, 0, context);
    }

    /// Take the edits of a plan made over a buffer whose byte `prefix` is the file's byte
    /// `context`; gives back where the edits fall in the file (without their text).
    fn take_plan(&mut self, p: super::Plan, prefix: usize, context: usize) -> Vec<Edit> {
        let mut planned = Vec::new();
        if p.deferred {
            self.fail("fixes in one answer window got in each other's way; they are made in rounds over the whole file");
            return planned;
        }
        self.done.fixed += p.fixed.len();
        self.done.placeholders += p.placeholders;
        for (_, group) in p.made {
            for e in group {
                if e.start < prefix {
                    self.fail("a fix reached outside its lines");
                    return planned;
                }
                let (start, end) = (e.start - prefix + context, e.end - prefix + context);
                planned.push(Edit::replace(start, end, Vec::new()));
                self.push_edit(Edit {
                    start,
                    end,
                    text: e.text,
                });
            }
        }
        planned
    }

    /// Write everything before `limit` that no pending fix may still change: bytes from the
    /// line before the oldest kept message on stay. At the end (`eof`), write everything.
    fn flush(&mut self, kept: &mut Kept, limit: usize, eof: bool) -> io::Result<()> {
        if self.failed.is_some() || (self.waiting && !eof) {
            return Ok(());
        }
        let mut limit = limit;
        for t in &self.threads {
            if let Some(&line) = t.lines.front() {
                limit = limit.min(kept.line_before(line));
            }
        }
        // Written in runs of at least `COPY_BYTES` (a run that large goes past the output's
        // buffer, uncopied).
        if limit < self.written + COPY_BYTES && !eof {
            return Ok(());
        }
        self.edits
            .sort_by_key(|(e, seq)| (e.start, e.end != e.start, *seq));
        let mut written = self.written;
        let (now, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.edits)
            .into_iter()
            .partition(|(e, _)| e.start < limit || (e.start == limit && eof));
        let mut pieces = Vec::with_capacity(2 * now.len() + 1);
        for (e, _) in &now {
            if e.start < written {
                // Never the case (edits lie after the bytes kept for them); if it were, the
                // file is repaired whole rather than an edit lost.
                self.fail("an edit fell before the bytes already written");
                return Ok(());
            }
            pieces.push(IoSlice::new(kept.slice(written, e.start)));
            pieces.push(IoSlice::new(&e.text));
            written = e.end;
        }
        if written < limit {
            pieces.push(IoSlice::new(kept.slice(written, limit)));
            written = limit;
        }
        pieces.retain(|p| !p.is_empty());
        write_pieces(self.out, &mut pieces)?;
        self.edits = rest;
        kept.forget(written.min(kept.end()));
        self.written = written;
        Ok(())
    }
}

/// Write `pieces` (runs of the input and the edits' text between them, none empty) in one go
/// where the output takes them so: a run large enough goes past the output's buffer uncopied,
/// and the pieces around an edit are not written one by one.
pub(super) fn write_pieces(out: &mut dyn Write, mut pieces: &mut [IoSlice<'_>]) -> io::Result<()> {
    while !pieces.is_empty() {
        match out.write_vectored(pieces) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut pieces, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
