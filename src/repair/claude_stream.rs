//! Streaming repair of Claude Code sessions: the file is read twice and never held whole.
//!
//! The first reading is the streaming lint, which walks the resumed chain (known only at the
//! end of the file) and keeps, for each message of each thread, a [`Brief`]: where the
//! message starts, its role, whether it continues an API message and whether it calls. From
//! the defects and the briefs, each fix knows beforehand the lines it reads: for placeholders,
//! the lines from the calling message to the last line of its API message (after which they
//! go); for the other fixes, the lines of their messages. The second reading copies every other
//! line unread and writes while it reads. When a fix's last line has been read, the fix is
//! planned by the whole-file planner over a buffer holding just its lines (from the line
//! before the first), with the file's first line whose message is one `tool_result` block in
//! front (what a placeholder mirrors). A placeholder's child (the first later line whose
//! `parentUuid` names the line the placeholders follow, or the line the first reading's chain
//! names) may be anywhere after: it is relinked when the second reading meets it; a child
//! written before that line sends the file to the whole-file repair. The fixes of the tree
//! findings (repeated lines, server
//! tool results without their call) are spans the first reading found.
//!
//! Every message the second reading rebuilds must start where the first placed it, with the
//! same role and calls; edits that overlap (a whole-file repair would make them in rounds),
//! too many placeholders waiting for their child, and conversations held by one line send
//! the file to the whole-file repair, with the reason.

use std::collections::VecDeque;
use std::io::{self, BufRead, IoSlice, Write};

use memchr::memmem;

use crate::analysis::{CallAt, Defect};
use crate::dialect::{Brief, ClaudeCode, Dialect, ReadCx, TreeFix};

use crate::dialect::{
    Cursor, UUIDS_NOT_IDENTIFIERS, derive_uuid, is_result_line, next_line_of, parent_link,
};
use crate::edit::{EditSet, RepairOptions};
use crate::json::{J, Style, parse};
use crate::lint::LintOptions;
use crate::model::{Container, Conversation, Message};
use crate::read::TORN_FINAL_LINE;
use crate::rules::Rule;
use crate::stream::StreamReport;
use crate::target;

use super::stream::{Kept, NotStreamed, OpenLines, Streamed, acts, write_pieces};
use super::window::{Rebase, placed, reach};
use super::{Edit, OrphanPolicy, last_copy_drop, plan, tree_fix_with};

/// More placeholders than this waiting at once for the line that hangs from their call sends
/// the file to the whole-file repair (each line is searched for every one of them).
const MAX_WAITING: usize = 64;

/// Skipped lines are written once this many bytes of them have gathered.
const COPY_BYTES: usize = 1 << 16;

/// Repair the Claude Code session the first reading (`report`) describes, writing the
/// repaired bytes to `out` (nowhere for `--check`).
pub(super) fn repair(
    report: StreamReport,
    open: OpenLines<'_, '_>,
    lint: &LintOptions,
    options: &RepairOptions,
    out: Option<&mut dyn Write>,
) -> Result<Streamed, NotStreamed> {
    let refused = report
        .findings
        .iter()
        .find(|f| f.rule == Rule::UnrecognizedLog)
        .map(|f| f.message.clone());
    let mut done = Streamed {
        findings: report.findings.len(),
        refused,
        skippable: report.skippable,
        ..Streamed::default()
    };
    if !report.line_fixes.is_empty() {
        return whole("some conversations are held by one line");
    }
    // A uuid shared by three lines or more with different content (TM012): the whole-file
    // repair reads such a file in file order, which decides the line a child hangs from; the
    // stream does not relink them.
    if report
        .findings
        .iter()
        .any(|f| f.rule == Rule::DuplicateUuid && f.message.contains(UUIDS_NOT_IDENTIFIERS))
    {
        return whole("lines of different content share a uuid: read in file order");
    }
    let torn_line = report
        .findings
        .iter()
        .find(|f| f.message.starts_with(TORN_FINAL_LINE))
        .map(|f| f.line)
        .filter(|_| options.drop_torn_tail);
    let fixes = fixes(&report, options)?;
    // The copy that is the last main-chain line goes only with placeholders put after it:
    // decided when they are planned.
    let (last_copy, tree): (Vec<TreeFix>, Vec<TreeFix>) = report
        .tree_fixes
        .into_iter()
        .filter(|f| acts_on_tree(f, options))
        .partition(|f| matches!(f, TreeFix::DropCopy { last: true, .. }));
    let last_copy = last_copy.iter().find_map(|f| match f {
        TreeFix::DropCopy { line, .. } => Some(*line),
        _ => None,
    });
    // A conversation toolmend cannot read (TM009) is read-only; the others are repaired, as
    // in the whole-file repair.
    if fixes.is_empty() && tree.is_empty() && torn_line.is_none() {
        // (A copy that is the last line goes only with placeholders: none here.)
        // Nothing to change: the output is the input.
        if let Some(out) = out {
            io::copy(&mut open()?, out)?;
        }
        return Ok(done);
    }
    let sample = if fixes.iter().any(|f| f.placeholders) {
        // The whole-file repair looks for the line to mirror in lines too long to analyse too.
        let overlong = report
            .findings
            .iter()
            .filter(|f| f.message.contains(OVERLONG))
            .map(|f| f.line)
            .min();
        match report.first_result {
            Some(at) => Some(sample_line(open, at, overlong)?),
            None if overlong.is_some() => return whole(OVERLONG_FIRST),
            None => None,
        }
    } else {
        None
    };
    let mut nowhere = io::sink();
    let out = match out {
        Some(out) => out,
        None => &mut nowhere,
    };
    let mut second = Second::new(fixes, tree, sample, options, lint, out);
    second.main = report.threads.iter().position(|t| t.key.is_none());
    second.last_copy = last_copy;
    second.next_lines = report.next_lines;
    second.read(&mut *open()?, torn_line)?;
    done.fixed = second.fixed;
    done.placeholders = second.placeholders;
    done.changed = second.changed;
    done.torn_tail = second.torn_tail;
    done.lines_reread = second.reread;
    Ok(done)
}

fn whole<T>(why: &str) -> Result<T, NotStreamed> {
    Err(NotStreamed::Whole(why.to_string()))
}

/// Does the repair act on a tree finding's fix (see `tree_fix`)?
fn acts_on_tree(fix: &TreeFix, options: &RepairOptions) -> bool {
    match fix {
        TreeFix::DropCopy { .. } => true,
        TreeFix::Orphan { drop, .. } => match options.orphans {
            OrphanPolicy::Note => true,
            OrphanPolicy::Drop => drop.is_some(),
            OrphanPolicy::Keep => false,
        },
    }
}

/// The line of a tree fix whose line ending the fix removes, if it removes a line.
fn tree_line(fix: &TreeFix, options: &RepairOptions) -> Option<(usize, usize)> {
    match fix {
        TreeFix::DropCopy { line, .. } => Some(*line),
        TreeFix::Orphan { drop: Some(d), .. } if options.orphans == OrphanPolicy::Drop => {
            Some(d.line)
        }
        TreeFix::Orphan { .. } => None,
    }
}

/// One fix of one thread, planned once the lines of its messages are read.
#[derive(Debug)]
struct Fix {
    thread: usize,
    /// Its messages: the index of the first in the thread, and the brief of each.
    first: usize,
    briefs: Vec<Brief>,
    /// The defects it fixes (placeholders for one calling message, or one other defect).
    defects: Vec<Defect>,
    /// It inserts placeholders (it mirrors the first result line, and relinks a child).
    placeholders: bool,
    /// The lines read so far: (start, end, number), in file order.
    lines: Vec<(usize, usize, usize)>,
}

/// The fixes of every thread, from the first reading.
fn fixes(report: &StreamReport, options: &RepairOptions) -> Result<Vec<Fix>, NotStreamed> {
    let d: &dyn Dialect = &ClaudeCode;
    let mut out = Vec::new();
    for (t, scan) in report.threads.iter().enumerate() {
        if scan.read_only {
            continue;
        }
        let acting: Vec<&Defect> = scan
            .defects
            .iter()
            .filter(|x| acts(d, x, options))
            .collect();
        if acting.is_empty() {
            continue;
        }
        if scan.sample.is_some() {
            return whole("a thread holds a result message to mirror");
        }
        let briefs = &scan.briefs;
        let starts = |lo: usize, hi: usize| -> Result<Vec<Brief>, NotStreamed> {
            match briefs.get(lo..=hi) {
                Some(b) => Ok(b.to_vec()),
                None => whole("the first reading kept no place for a message of a fix"),
            }
        };
        // Placeholders: one fix per calling message, as the planner groups them.
        let mut owners: Vec<(usize, Vec<Defect>)> = Vec::new();
        for defect in &acting {
            match defect {
                Defect::Dangling { call, .. } => {
                    match owners.iter_mut().find(|(o, _)| *o == call.message) {
                        Some((_, v)) => v.push((*defect).clone()),
                        None => owners.push((call.message, vec![(*defect).clone()])),
                    }
                }
                Defect::Orphan { .. } if options.orphans == OrphanPolicy::Drop => {
                    return whole(
                        "an orphan result line is dropped, and the lines hanging from it, anywhere after it, are relinked",
                    );
                }
                other => {
                    let (lo, hi, _) = reach(other);
                    out.push(Fix {
                        thread: t,
                        first: lo,
                        briefs: starts(lo, hi)?,
                        defects: vec![(*other).clone()],
                        placeholders: false,
                        lines: Vec::new(),
                    });
                }
            }
        }
        for (owner, defects) in owners {
            let calls: Vec<&CallAt> = defects
                .iter()
                .filter_map(|x| match x {
                    Defect::Dangling { call, .. } => Some(call),
                    _ => None,
                })
                .collect();
            // The placeholders go after the last line of the API message holding the last
            // dangling call (see `placeholder::insert`).
            let mut end = calls.iter().map(|c| c.holder).max().unwrap_or(owner);
            while briefs.get(end + 1).is_some_and(|b| b.continuation()) {
                end += 1;
            }
            out.push(Fix {
                thread: t,
                first: owner,
                briefs: starts(owner, end)?,
                defects,
                placeholders: true,
                lines: Vec::new(),
            });
        }
    }
    Ok(out)
}

/// What the finding of a line too long to analyse says.
const OVERLONG: &str = "over the --max-line-bytes limit";

const OVERLONG_FIRST: &str = "a line too long to analyse comes before the first result line, \
     which a placeholder mirrors (the whole-file repair reads it)";

/// The line at offset `at` (the first whose message is one `tool_result` block), with its
/// line ending, read from a fresh reader; refused when the line too long to analyse numbered
/// `overlong` (the first) comes before it.
fn sample_line(
    open: OpenLines<'_, '_>,
    at: usize,
    overlong: Option<usize>,
) -> Result<Vec<u8>, NotStreamed> {
    let mut input = open()?;
    let mut before = LineCount(0);
    io::copy(&mut io::Read::take(&mut input, at as u64), &mut before)?;
    if overlong.is_some_and(|n| n <= before.0) {
        return whole(OVERLONG_FIRST);
    }
    let mut line = Vec::new();
    input.read_until(b'\n', &mut line)?;
    let text = line.strip_suffix(b"\n").unwrap_or(&line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    match parse(text) {
        Ok(tree) if is_result_line(&tree) => Ok(line),
        _ => whole("the result line a placeholder mirrors is not where the first reading saw it"),
    }
}

/// A writer that only counts the line endings written to it.
struct LineCount(usize);

impl Write for LineCount {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += memchr::memchr_iter(b'\n', buf).count();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A placeholder's child still to be found: the first line from `from` whose `parentUuid` is
/// `parent` (the line starting at `line`, when known) gets `token` instead.
#[derive(Debug)]
struct Waiting {
    parent: String,
    token: String,
    from: usize,
    line: Option<usize>,
}

/// The second reading.
struct Second<'a> {
    options: &'a RepairOptions,
    window: crate::analysis::Window,
    out: &'a mut dyn Write,
    fixes: Vec<Fix>,
    /// Fixes' message starts, in file order: (offset, fix).
    needs: VecDeque<(usize, usize)>,
    /// Fixes with some line read, not yet planned: how many of their messages are still to
    /// be read, by fix.
    missing: Vec<usize>,
    started: Vec<usize>,
    /// Tree fixes that remove a line, by the line's start, in file order.
    tree_lines: VecDeque<(usize, usize, TreeFix)>,
    sample: Option<Vec<u8>>,
    waiting: Vec<Waiting>,
    /// The main thread (the resumed history), and its lines whose child on that history is
    /// not the first later line hanging from them (see `Chain::next_lines`).
    main: Option<usize>,
    next_lines: Vec<(usize, usize)>,
    /// The copy that is the file's last main-chain line (its text span): deleted with the
    /// placeholders put right after it, if any are.
    last_copy: Option<(usize, usize)>,
    edits: Vec<Edit>,
    written: usize,
    fixed: usize,
    placeholders: usize,
    changed: bool,
    torn_tail: Option<(usize, usize)>,
    reread: usize,
}

impl<'a> Second<'a> {
    fn new(
        fixes: Vec<Fix>,
        tree: Vec<TreeFix>,
        sample: Option<Vec<u8>>,
        options: &'a RepairOptions,
        lint: &LintOptions,
        out: &'a mut dyn Write,
    ) -> Second<'a> {
        let mut needs: Vec<(usize, usize)> = fixes
            .iter()
            .enumerate()
            .flat_map(|(k, f)| f.briefs.iter().map(move |b| (b.offset(), k)))
            .collect();
        needs.sort_unstable();
        let missing = fixes.iter().map(|f| f.briefs.len()).collect();
        let mut second = Second {
            options,
            window: target::judge(&ClaudeCode, lint.target).window,
            out,
            fixes,
            needs: needs.into(),
            missing,
            started: Vec::new(),
            tree_lines: VecDeque::new(),
            sample,
            waiting: Vec::new(),
            main: None,
            next_lines: Vec::new(),
            last_copy: None,
            edits: Vec::new(),
            written: 0,
            fixed: 0,
            placeholders: 0,
            changed: false,
            torn_tail: None,
            reread: 0,
        };
        let mut lines = Vec::new();
        for fix in tree {
            match tree_line(&fix, options) {
                Some(line) => lines.push((line.0, line.1, fix)),
                // Spans only: made now.
                None => second.tree_fix(&fix, &|_| 0),
            }
        }
        lines.sort_by_key(|l| l.0);
        second.tree_lines = lines.into();
        second
    }

    fn push_edit(&mut self, e: Edit) {
        self.changed = true;
        self.edits.push(e);
    }

    fn tree_fix(&mut self, fix: &TreeFix, ending: &dyn Fn(usize) -> usize) {
        if let Some(group) = tree_fix_with(ending, fix, self.options) {
            self.fixed += 1;
            for e in group {
                self.push_edit(e);
            }
        }
    }

    /// Read `input` line by line, copying the lines no fix needs and planning each fix once
    /// its lines are read.
    fn read(
        &mut self,
        input: &mut dyn BufRead,
        torn_line: Option<usize>,
    ) -> Result<(), NotStreamed> {
        let mut kept = Kept::default();
        let (mut at, mut number, mut eof) = (0, 0, false);
        let mut torn: Option<(usize, usize)> = None;
        loop {
            let found = memchr::memchr(b'\n', kept.from(at));
            let Some(k) = found.or_else(|| eof.then_some(kept.end() - at).filter(|&n| n > 0))
            else {
                if eof {
                    break;
                }
                eof = kept.fill(input)?;
                continue;
            };
            let body_end = at + k;
            let line_end = (body_end + 1).min(kept.end());
            number += 1;
            let body = kept.slice(at, body_end);
            let text = body.strip_suffix(b"\r").unwrap_or(body);
            let text_end = at + text.len();
            if Some(number) == torn_line {
                torn = Some((at, number));
            } else if torn.is_some() && !text.iter().all(u8::is_ascii_whitespace) {
                torn = None;
            }
            if !self.waiting.is_empty() {
                self.relink(&kept, at, text_end);
            }
            while let Some(&(start, end, _)) = self.tree_lines.front() {
                if start >= line_end {
                    break;
                }
                let (_, _, fix) = self.tree_lines.pop_front().expect("a tree fix");
                if start < at || end != text_end {
                    return whole(
                        "a line a tree fix removes is not where the first reading saw it",
                    );
                }
                let ending = |e: usize| crate::edit::line_ending(kept.from(e), 0);
                self.tree_fix(&fix, &ending);
            }
            while let Some(&(start, k)) = self.needs.front() {
                if start >= line_end {
                    break;
                }
                self.needs.pop_front();
                if start < at {
                    return whole("a message of a fix is not where the first reading saw it");
                }
                let fix = &mut self.fixes[k];
                if fix.lines.last().is_none_or(|l| l.0 != at) {
                    fix.lines.push((at, line_end, number));
                }
                if self.missing[k] == self.fixes[k].briefs.len() {
                    self.started.push(k);
                }
                self.missing[k] -= 1;
                if self.missing[k] == 0 {
                    self.started.retain(|&s| s != k);
                    self.plan(k, &kept)?;
                }
            }
            // The line just read is the one before the next: kept for a fix starting there.
            let before = at;
            at = line_end;
            // Bytes from the line before the first line of a fix still to plan stay.
            let mut limit = before;
            for &k in &self.started {
                limit = limit.min(self.fixes[k].lines[0].0);
            }
            if limit >= self.written + COPY_BYTES {
                self.flush(&mut kept, limit, false)?;
            }
        }
        if !self.needs.is_empty() || !self.tree_lines.is_empty() || !self.started.is_empty() {
            return whole("a message of a fix is not where the first reading saw it");
        }
        let end = kept.end();
        if let Some((start, line)) = torn {
            self.torn_tail = Some((line, end - start));
            self.fixed += 1;
            self.push_edit(Edit::delete(start, end));
        }
        self.flush(&mut kept, end, true)?;
        self.out.flush()?;
        Ok(())
    }

    /// Check the line from `at` (its text ending at `text_end`) for the children the waiting
    /// placeholders relink.
    fn relink(&mut self, kept: &Kept, at: usize, text_end: usize) {
        let text = kept.slice(at, text_end);
        let mut parsed = false;
        let mut found = None;
        for (i, w) in self.waiting.iter().enumerate() {
            if w.from > at || w.line.is_some_and(|line| line != at) {
                continue;
            }
            let plain = !w.parent.contains(['\\', '"']) && !w.parent.chars().any(char::is_control);
            if plain && memmem::find(text, w.parent.as_bytes()).is_none() {
                continue;
            }
            parsed = true;
            if let Some(span) = parent_link(text, &w.parent) {
                found = Some((i, span));
                break;
            }
        }
        self.reread += usize::from(parsed);
        if let Some((i, span)) = found {
            let w = self.waiting.remove(i);
            let span = span.shift(at);
            self.push_edit(Edit::replace(span.start, span.end, w.token));
        }
    }

    /// Plan fix `k`, whose lines are all read.
    fn plan(&mut self, k: usize, kept: &Kept) -> Result<(), NotStreamed> {
        let fix = std::mem::replace(
            &mut self.fixes[k],
            Fix {
                thread: 0,
                first: 0,
                briefs: Vec::new(),
                defects: Vec::new(),
                placeholders: false,
                lines: Vec::new(),
            },
        );
        let &(first_line, _, _) = fix.lines.first().expect("a line read");
        let &(_, last_end, _) = fix.lines.last().expect("a line read");
        // From the line before the first (its line ending is what a line at the end of the
        // file without one takes).
        let context = if first_line == kept.base {
            first_line
        } else {
            let k = memchr::memrchr(b'\n', kept.slice(kept.base, first_line - 1));
            k.map_or(kept.base, |k| kept.base + k + 1)
        };
        let mut buffer = Vec::new();
        if fix.placeholders
            && let Some(sample) = &self.sample
        {
            buffer.extend_from_slice(sample);
            if !sample.ends_with(b"\n") {
                buffer.push(b'\n');
            }
        }
        let prefix = buffer.len();
        buffer.extend_from_slice(kept.slice(context, last_end));
        self.reread += fix.lines.len();
        // The fix's messages, read again from their lines.
        let cursor = Cursor::default();
        let mut messages = Vec::with_capacity(fix.briefs.len());
        for (i, brief) in fix.briefs.iter().enumerate() {
            let start = brief.offset();
            let Some(&(line, end, number)) = fix.lines.iter().find(|l| l.0 <= start && start < l.1)
            else {
                return whole("a message of a fix is not where the first reading saw it");
            };
            let body = kept.slice(line, end);
            let body = body.strip_suffix(b"\n").unwrap_or(body);
            let text = body.strip_suffix(b"\r").unwrap_or(body);
            let message = parse(text).ok().and_then(|tree| {
                ClaudeCode.read(&tree, tree.root(), &ReadCx::new(line, number, &cursor))
            });
            let Some(mut m) = message else {
                return whole("a message of a fix did not read again as it did");
            };
            m.index = fix.first + i;
            m.continuation = brief.continuation();
            messages.push(m);
        }
        if !self.agrees(&fix, &messages) {
            return whole("a message of a fix did not read again as it did");
        }
        // Where the fix's last message starts, and its line (placeholders go after it).
        let after = messages.last().and_then(|m| {
            let at = m.span.start;
            let &(line, _, _) = fix.lines.iter().find(|l| l.0 <= at && at < l.1)?;
            Some((line, at))
        });
        // The line the history goes on with after it, when it is not the first later line
        // hanging from it.
        let next = after
            .filter(|_| self.main == Some(fix.thread))
            .and_then(|(line, at)| next_line_of(&self.next_lines, line, at));
        if fix.placeholders && next.is_some_and(|next| next < last_end) {
            return whole(
                "the history goes on after a dangling call with a line written before it (a copied line)",
            );
        }
        let rebase = Rebase {
            from: context,
            to: prefix,
            first: fix.first,
        };
        let conv = Conversation {
            index: fix.thread,
            dialect: ClaudeCode.name(),
            detection: String::new(),
            pointer: String::new(),
            container: Container::Lines,
            messages: messages.iter().map(|m| rebase.message(m)).collect(),
            foreign: Vec::new(),
            unread: Vec::new(),
            next_lines: Vec::new(),
            skimmed: None,
        };
        let defects: Vec<Defect> = fix.defects.iter().map(|x| rebase.defect(x)).collect();
        let mut set = EditSet::default();
        let p = plan(
            &buffer,
            &conv,
            &ClaudeCode,
            self.window,
            &defects,
            self.options,
            None,
            &mut set,
        );
        if p.deferred {
            return whole(
                "fixes in one answer window got in each other's way; they are made in rounds over the whole file",
            );
        }
        self.fixed += p.fixed.len();
        self.placeholders += p.placeholders;
        let mut relinked = false;
        for (_, group) in p.made {
            relinked |= fix.placeholders && group.len() > 1;
            for e in group {
                if e.start < prefix {
                    return whole("a fix reached outside its lines");
                }
                let (start, end) = (e.start - prefix + context, e.end - prefix + context);
                self.push_edit(Edit {
                    start,
                    end,
                    text: e.text,
                });
            }
        }
        // The copy that is the last main-chain line goes with the placeholders put after it.
        if fix.placeholders
            && p.placeholders > 0
            && let Some(line) = self
                .last_copy
                .filter(|&(start, end)| after.is_some_and(|(_, a)| start <= a && a < end))
        {
            self.last_copy = None;
            let before = kept.slice(line.0.saturating_sub(2).max(kept.base), line.0);
            if before.len() < line.0.min(2) {
                return whole("the line before a copied last line was already written");
            }
            if let Some(e) = last_copy_drop(before, kept.from(line.1), line) {
                self.fixed += 1;
                self.push_edit(e);
            }
        }
        if fix.placeholders && p.placeholders > 0 && !relinked {
            self.wait_for_child(&fix, &messages, kept, last_end, next)?;
        }
        Ok(())
    }

    /// Does every message read again agree with its brief, and every call and result of the
    /// fix's defects sit in the message the first reading placed it in?
    fn agrees(&self, fix: &Fix, messages: &[Message]) -> bool {
        let at = |index: usize| index.checked_sub(fix.first).and_then(|i| messages.get(i));
        let same = messages
            .iter()
            .zip(&fix.briefs)
            .all(|(m, b)| Brief::of(m).continuing(b.continuation()) == *b);
        let placed = fix.defects.iter().all(|d| {
            placed(d).into_iter().all(|(index, offset)| {
                at(index).is_some_and(|m| m.span.start <= offset && offset < m.span.end)
            })
        });
        let calls = fix.defects.iter().all(|d| match d {
            Defect::Dangling { call, .. } => at(call.holder)
                .and_then(|m| m.calls.get(call.slot))
                .is_some_and(|c| c.id == call.call.id && c.pos.offset == call.call.pos.offset),
            _ => true,
        });
        same && placed && calls
    }

    /// Wait for the child of the line the placeholders of `fix` follow: the first line after
    /// it (after `from`) that names it as parent, or the line starting at `next` when the
    /// history goes on there, is relinked to the last placeholder.
    fn wait_for_child(
        &mut self,
        fix: &Fix,
        messages: &[Message],
        kept: &Kept,
        from: usize,
        next: Option<usize>,
    ) -> Result<(), NotStreamed> {
        let calls: Vec<&CallAt> = fix
            .defects
            .iter()
            .filter_map(|x| match x {
                Defect::Dangling { call, .. } => Some(call),
                _ => None,
            })
            .collect();
        let Some(last) = calls.iter().max_by_key(|c| (c.holder, c.slot)) else {
            return Ok(());
        };
        let after = messages.last().expect("a message");
        let holder = &messages[last.holder - fix.first];
        let tree_of = |m: &Message| parse(kept.slice(m.span.start, m.span.end)).ok();
        let (Some(after_tree), Some(holder_tree)) = (tree_of(after), tree_of(holder)) else {
            return Ok(());
        };
        let Some(parent) = after_tree
            .get_str(after_tree.root(), "uuid")
            .map(|s| s.into_owned())
        else {
            return Ok(());
        };
        if self.waiting.len() >= MAX_WAITING {
            return whole("too many placeholders wait for the line that follows their call");
        }
        let uuid = derive_uuid(&holder_tree, last);
        self.waiting.push(Waiting {
            parent,
            token: J::str(uuid).render(&Style::default()),
            from,
            line: next,
        });
        Ok(())
    }

    /// Write everything before `limit` (all of it at the end, `eof`), with the edits that fall
    /// there; edits that overlap send the file to the whole-file repair.
    fn flush(&mut self, kept: &mut Kept, limit: usize, eof: bool) -> Result<(), NotStreamed> {
        self.edits.sort_by_key(|e| (e.start, e.end != e.start));
        let mut written = self.written;
        let (now, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut self.edits)
            .into_iter()
            .partition(|e| e.start < limit || (e.start == limit && eof));
        let mut last_insert = None;
        let mut pieces = Vec::with_capacity(2 * now.len() + 1);
        for e in &now {
            let insert = e.start == e.end;
            if e.start < written || (insert && last_insert == Some(e.start)) {
                return whole(
                    "fixes got in each other's way; they are made in rounds over the whole file",
                );
            }
            if insert {
                last_insert = Some(e.start);
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
