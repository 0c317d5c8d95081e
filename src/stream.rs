//! Linting JSON Lines as they stream by: every message is walked as soon as it is read and then
//! dropped, so memory follows the longest line and the open call ids, not the file.

mod blocks;
mod line_conv;

use std::collections::BTreeMap;
use std::io::{self, BufRead, Read};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::analysis::{self, WalkOptions, Walker};
use crate::dialect::{Brief, ChainReader, ClaudeCode, Dialect, Held, LinkDrafts, TreeFix};
use crate::finding::Finding;
use crate::json::NodeBuf;
use crate::lint::{
    ConvInfo, LintOptions, ToolStats, count_calls, count_dangling, describe, foreign_finding,
    no_conversation, sent, tree_finding, unread_finding,
};
use crate::model::{Conversation, Foreign, Message, Unread};
use crate::read::{
    LineSink, LinesReader, Prepared, Problem, ReadOptions, each_line_from, prepare, resumable,
};
use crate::rules::Rule;
use crate::target;
use line_conv::{LineCx, SpareWalker, Walked};

/// What linting a stream found.
#[derive(Debug, Default)]
pub struct StreamReport {
    /// Findings, in reading order.
    pub findings: Vec<Finding>,
    /// Pairing findings counted but not described ([`LintOptions::count_only`]).
    pub counted: usize,
    /// Conversations found.
    pub conversations: usize,
    /// Tool calls checked (server-side ones, whose results are inline, included).
    pub calls_checked: usize,
    /// Calls and dangling calls per tool name.
    pub stats: BTreeMap<String, ToolStats>,
    /// For each conversation: its dialect and why.
    pub detections: Vec<String>,
    /// Nothing was found and nothing looked like a log (a directory walk skips the file).
    pub skippable: bool,
    /// What a streaming repair needs of each message-per-line thread (empty when the stream
    /// was read whole as one document).
    pub(crate) threads: Vec<ThreadScan>,
    /// The stream was read as JSON Lines (not whole, as one pretty-printed document).
    pub(crate) lines: bool,
    /// The dialect the message lines were read as.
    pub(crate) dialect: Option<&'static dyn Dialect>,
    /// The conversations held by one line that a streaming repair must read again (they have
    /// defects, or their dialect is not repaired as a stream): the offset of the conversation
    /// in the file (`None`: not known), and its number among the line conversations.
    pub(crate) line_fixes: Vec<(Option<usize>, usize)>,
    /// The fixes of the Claude Code tree findings (TM012, TM014), for a streaming repair.
    pub(crate) tree_fixes: Vec<TreeFix>,
    /// The Claude Code lines after which the resumed history does not go on with the first
    /// later line hanging from them (`Chain::next_lines`).
    pub(crate) next_lines: Vec<(usize, usize)>,
    /// Where the first line whose message is one `tool_result` block starts (Claude Code;
    /// the lines of a file of another dialect are not looked at once it is chosen).
    pub(crate) first_result: Option<usize>,
}

/// One message-per-line thread as the walk left it, for a streaming repair.
#[derive(Debug)]
pub(crate) struct ThreadScan {
    /// The thread's defects (what lint reports), in walk order.
    pub defects: Vec<analysis::Defect>,
    /// Nothing in the thread may be repaired (foreign or unread messages, or a dialect whose
    /// logs are not repaired).
    pub read_only: bool,
    /// The index of the thread's first message holding only a result (the model a
    /// placeholder copies), if any, and the offset of that message.
    pub sample: Option<(usize, usize)>,
    /// The thread's key (`None`: the main thread).
    pub key: Option<String>,
    /// Some message of the thread has a group key (so continuations depend on messages
    /// before it).
    pub grouped: bool,
    /// Each message of a Claude Code thread, in walk order (empty for other dialects).
    pub briefs: Vec<Brief>,
}

/// Lint a JSON Lines stream. `--tail` and `--profile deerflow` need the whole file and are not
/// supported here (the caller reads the file whole for them).
///
/// Called on a thread of a rayon pool of more than one thread, a stream of more than one block
/// (256 KiB) has its lines parsed and read on the pool's threads, a block at a time, while the
/// lines before are walked; the report is the same as line by line.
///
/// A stream whose first line is not a JSON value on its own may be one pretty-printed document
/// saved as `.jsonl`: it is then read whole, as the document it is (unless the format is
/// forced), and linted as such when it parses as one.
pub fn lint_lines<R: BufRead>(
    path: &str,
    reader: R,
    options: &LintOptions,
) -> io::Result<StreamReport> {
    lint_lines_sized(path, reader, 0, options)
}

/// [`lint_lines`] of a stream that holds `size` bytes (0: unknown): a pretty-printed document
/// is then read whole into room for exactly its size, rather than into a buffer that doubles
/// as it fills and leaves its old copy behind.
pub fn lint_lines_sized<R: BufRead>(
    path: &str,
    mut reader: R,
    size: u64,
    options: &LintOptions,
) -> io::Result<StreamReport> {
    if options.read.format.is_some() {
        return stream_lines(path, reader, options);
    }
    let limit = match options.read.max_line_bytes {
        0 => u64::MAX,
        n => n as u64 + 1,
    };
    // The first non-blank line, kept (it is streamed with the rest).
    let mut head = Vec::new();
    let first = loop {
        let start = head.len();
        let n = io::Read::take(&mut reader, limit).read_until(b'\n', &mut head)?;
        let line = &head[start..];
        if n == 0 || !line.iter().all(u8::is_ascii_whitespace) {
            break start;
        }
    };
    let line = &head[first..];
    let whole_line = line.ends_with(b"\n") || (line.len() as u64) < limit;
    let text = line.strip_suffix(b"\n").unwrap_or(line);
    if !text.is_empty() && whole_line && !crate::read::first_line_parses(text) {
        let rest = usize::try_from(size)
            .unwrap_or(0)
            .saturating_sub(head.len());
        head.reserve_exact(rest);
        io::Read::read_to_end(&mut reader, &mut head)?;
        if crate::read::one_document(&head) {
            return Ok(whole_document(path, &head, options));
        }
        return stream_lines(path, io::Cursor::new(head), options);
    }
    stream_lines(
        path,
        io::Read::chain(io::Cursor::new(head), reader),
        options,
    )
}

/// The report of a document read whole (a pretty-printed document saved as `.jsonl`): linted
/// as [`crate::lint_document`] walks it (or analysed whole when an option needs that).
fn whole_document(path: &str, bytes: &[u8], options: &LintOptions) -> StreamReport {
    let read = LintOptions {
        read: crate::read::ReadOptions {
            format: Some(crate::read::Format::Json),
            ..options.read.clone()
        },
        ..options.clone()
    };
    let Some(doc) = crate::lint_document(path, bytes, &read) else {
        return analysed_document(path, bytes, options);
    };
    StreamReport {
        findings: doc.findings,
        conversations: doc.conversations.len(),
        calls_checked: doc.calls_checked,
        stats: doc.stats,
        detections: doc
            .conversations
            .iter()
            .map(|c| one_document(&c.pointer, c.dialect, c.messages, &c.detection))
            .collect(),
        skippable: doc.skippable,
        ..StreamReport::default()
    }
}

/// [`whole_document`] of a document analysed whole (`--tail`, `--profile deerflow`).
fn analysed_document(path: &str, bytes: &[u8], options: &LintOptions) -> StreamReport {
    let analysed = crate::lint::analyse(path, bytes, options);
    StreamReport {
        findings: analysed.findings(path),
        conversations: analysed.doc.conversations.len(),
        calls_checked: analysed.calls_checked,
        stats: analysed.tool_stats(),
        detections: analysed
            .doc
            .conversations
            .iter()
            .map(|c| one_document(&c.pointer, c.dialect, c.messages.len(), &c.detection))
            .collect(),
        skippable: analysed.doc.skippable(),
        ..StreamReport::default()
    }
}

/// The detection of a conversation of a document read whole.
fn one_document(pointer: &str, dialect: &str, messages: usize, why: &str) -> String {
    format!("`{pointer}`: {dialect} ({messages} messages) — one JSON document; {why}")
}

fn stream_lines<R: BufRead>(
    path: &str,
    reader: R,
    options: &LintOptions,
) -> io::Result<StreamReport> {
    let mut lines = LinesReader::new(&options.read);
    // A provider's rules other than the dialect's own are for the walk to apply.
    if options.target.is_none() {
        lines = lines.skimming();
    }
    if options.skip_detections {
        lines = lines.unexplained();
    }
    let mut chain = ChainReader::default();
    let mut sink = Streamer {
        cx: LineCx {
            path,
            target: options.target,
            count_only: options.count_only,
            keep_detections: !options.skip_detections,
        },
        threads: Vec::new(),
        line_findings: Vec::new(),
        line_conversations: Vec::new(),
        line_count: 0,
        foreign_threads: Vec::new(),
        report: StreamReport::default(),
        spare_walker: SpareWalker::default(),
    };
    if rayon::current_thread_index().is_some() && rayon::current_num_threads() > 1 {
        in_blocks(reader, &options.read, &mut lines, &mut chain, &mut sink)?;
    } else {
        each_line_from(
            reader,
            options.read.max_line_bytes,
            |number, start, text, long, last| {
                lines.line_linked(number, start, text, long, last, &mut sink, &mut chain);
            },
        )?;
    }
    let (log_like, blank) = (lines.log_like(), !lines.saw_value());
    let chosen = lines.finish(&mut sink);
    let mut report = sink.finish(chosen, log_like, blank, chain);
    report.lines = true;
    Ok(report)
}

/// The bytes of a big file read at once: its lines are parsed and read on every thread of the
/// current rayon pool while the lines before them are walked.
const BLOCK_BYTES: usize = 256 << 10;

/// Read the lines of `reader` in blocks: each block's lines are prepared in parallel and taken in
/// order (the dialect choice, threads, record logs), while the walks take the block before and
/// this thread reads the block after, so reading the file is not a step of its own. A stream of
/// one block is read line by line. Memory holds three blocks and what two of them read.
fn in_blocks<R: Read>(
    reader: R,
    options: &ReadOptions,
    lines: &mut LinesReader<'_>,
    chain: &mut ChainReader,
    sink: &mut Streamer<'_>,
) -> io::Result<()> {
    let mut blocks = blocks::Blocks::new(reader, options.max_line_bytes, BLOCK_BYTES);
    let Some(first) = blocks.next_block()? else {
        return Ok(());
    };
    if first.last {
        each_line(&first, lines, chain, sink);
        return Ok(());
    }
    let mut spare = Spare::default();
    let cx = sink.cx;
    // What the block before gave, to walk; and an emptied list to take the next block into
    // (the two lists take turns, so their room is not grown again for every block).
    let (mut taken, mut emptied) = (Taken::default(), Taken::default());
    let mut block = first;
    loop {
        let (walked, into) = (std::mem::take(&mut taken), std::mem::take(&mut emptied));
        let (now, next, spent) = (&block, &mut taken, &mut emptied);
        let (taker, linker, spare, walker) = (&mut *lines, &mut *chain, &mut spare, &mut *sink);
        // The stream is read on this thread (it need not be `Send`), while the pool walks the
        // lines taken before and prepares and takes this block's.
        let read = rayon::in_place_scope(|scope| {
            scope.spawn(move |_| *spent = walked.replay(walker));
            scope.spawn(move |_| {
                *next = take_block(now, options, &cx, taker, linker, spare, into);
            });
            blocks.next_block()
        });
        blocks.recycle(block);
        match read? {
            Some(after) => block = after,
            None => break,
        }
    }
    taken.replay(sink);
    Ok(())
}

/// Read and walk the lines of `block` one by one on this thread.
fn each_line(
    block: &blocks::Block,
    lines: &mut LinesReader<'_>,
    chain: &mut ChainReader,
    sink: &mut Streamer<'_>,
) {
    for line in block.lines() {
        lines.line_linked(
            line.number,
            line.start,
            line.text,
            line.too_long,
            line.last,
            sink,
            chain,
        );
    }
}

/// The most lines prepared (and their links read) together, then taken together: a block is
/// prepared a chunk at a time, on every thread, and taken in chunks as soon as they are ready.
const CHUNK_LINES: usize = 64;

/// The lines of a chunk, prepared, the Claude Code links they hold (drafted: their strings are
/// numbered when the chunk is taken, in file order), and the walks of the conversations each
/// line holds.
type Part<'t> = (Vec<Prepared<'t>>, LinkDrafts, Vec<Vec<Walked>>);

/// Prepare the lines of `block` on every thread (a block read before the dialect is chosen is
/// read as the dialect its first claimed line names), and take them in order, into `taken`
/// (empty). Once the dialect is known, the chunks are taken as soon as they are ready, so that
/// taking overlaps preparing: the taking thread prepares a chunk itself while the one it waits
/// for is not ready.
fn take_block(
    block: &blocks::Block,
    options: &ReadOptions,
    cx: &LineCx<'_>,
    lines: &mut LinesReader<'_>,
    chain: &mut ChainReader,
    spare: &mut Spare,
    mut taken: Taken,
) -> Taken {
    let known = lines.known();
    let mut bufs = spare.lend(block);
    // Chunks small enough that each thread has several of them (a block of long lines holds
    // few).
    let chunk_lines = (bufs.len() / (rayon::current_num_threads() * 8)).clamp(1, CHUNK_LINES);
    spare.clear();
    // Prepare the lines `first..` whose node buffers are `bufs`.
    let prepare_part = |first: usize, bufs: &mut [NodeBuf]| -> Part<'_> {
        let mut links = LinkDrafts::default();
        let mut walked = Vec::with_capacity(bufs.len());
        let mut spare_walker = SpareWalker::default();
        let prepared = bufs
            .iter_mut()
            .enumerate()
            .map(|(k, buf)| {
                let mut prepared = prepare(options, known, &block.line(first + k), buf);
                if known.needs_links() {
                    prepared.draft_link(&mut links);
                }
                let convs = prepared.take_conversations();
                walked.push(
                    convs
                        .into_iter()
                        .map(|conv| Walked::of(cx, conv, BTreeMap::new(), &mut spare_walker))
                        .collect(),
                );
                prepared
            })
            .collect();
        (prepared, links, walked)
    };
    let mut line = 0;
    let mut take_part = |(prepared, mut links, walked): Part<'_>, taken: &mut Taken| {
        for (p, walked) in prepared.into_iter().zip(walked) {
            let first = lines.conversations_taken();
            if let Some(buf) = lines.take(p, taken) {
                spare.keep(block.line(line).text.len(), buf);
            }
            for (k, w) in walked.into_iter().enumerate() {
                taken.0.push(Event::Walked(first + k, w));
            }
            line += 1;
        }
        chain.take(&mut links);
    };
    if known.dialect.is_none() {
        let mut parts: Vec<Part<'_>> = bufs
            .par_chunks_mut(chunk_lines)
            .enumerate()
            .map(|(c, bufs)| prepare_part(c * chunk_lines, bufs))
            .collect();
        if let Some(d) = parts.iter().flat_map(|p| &p.0).find_map(Prepared::claim) {
            parts
                .par_iter_mut()
                .for_each(|p| p.0.iter_mut().for_each(|p| p.read_as(d)));
        }
        for part in parts {
            take_part(part, &mut taken);
        }
        return taken;
    }
    let chunks: Vec<Chunk<'_, '_>> = bufs
        .chunks_mut(chunk_lines)
        .map(|bufs| Chunk {
            bufs: Mutex::new(bufs),
            part: Mutex::new(None),
        })
        .collect();
    let next = AtomicUsize::new(0);
    // Prepare the next chunk no thread has claimed; false when none is left.
    let prepare_next = || {
        let c = next.fetch_add(1, Ordering::Relaxed);
        let Some(chunk) = chunks.get(c) else {
            return false;
        };
        let mut bufs = chunk.bufs.lock().unwrap_or_else(|e| e.into_inner());
        let part = prepare_part(c * chunk_lines, &mut bufs);
        *chunk.part.lock().unwrap_or_else(|e| e.into_inner()) = Some(part);
        true
    };
    rayon::scope(|scope| {
        for _ in 1..rayon::current_num_threads() {
            scope.spawn(|_| while prepare_next() {});
        }
        for chunk in &chunks {
            let part = loop {
                if let Some(part) = chunk.part.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    break part;
                }
                // The chunk is being prepared on another thread: prepare a later one meanwhile,
                // or let that thread finish.
                if !prepare_next() {
                    std::thread::yield_now();
                }
            };
            take_part(part, &mut taken);
        }
    });
    taken
}

/// A chunk of a block's lines: the node buffers to parse them into, and once prepared, what
/// they gave.
struct Chunk<'t, 'b> {
    bufs: Mutex<&'b mut [NodeBuf]>,
    part: Mutex<Option<Part<'t>>>,
}

/// The node buffers of the last block's lines, by the size class of the line each held, so
/// that the next block parses into them instead of allocating: memory stays at about one
/// block's trees.
#[derive(Default)]
struct Spare(Vec<Vec<NodeBuf>>);

/// The size class of a line of `len` bytes.
fn class(len: usize) -> usize {
    (usize::BITS - len.leading_zeros()) as usize
}

impl Spare {
    /// A buffer for each line of `block`, kept from a line of its size when there is one.
    fn lend(&mut self, block: &blocks::Block) -> Vec<NodeBuf> {
        block
            .lines()
            .map(|line| {
                self.0
                    .get_mut(class(line.text.len()))
                    .and_then(Vec::pop)
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Drop the buffers no line of the last block took.
    fn clear(&mut self) {
        self.0.iter_mut().for_each(Vec::clear);
    }

    /// Keep the buffer of a line of `len` bytes.
    fn keep(&mut self, len: usize, buf: NodeBuf) {
        let class = class(len);
        if self.0.len() <= class {
            self.0.resize_with(class + 1, Vec::new);
        }
        self.0[class].push(buf);
    }
}

/// What the lines of a block gave, in order, for the walks.
#[derive(Default)]
struct Taken(Vec<Event>);

enum Event {
    Message(&'static dyn Dialect, Option<String>, Box<Message>),
    Foreign(&'static dyn Dialect, Option<String>, Foreign),
    Unread(&'static dyn Dialect, Option<String>, Unread),
    Conversation(Conversation),
    /// A conversation held by one line, walked when it was read, and its number.
    Walked(usize, Walked),
    Problem(Problem),
}

impl Taken {
    /// Hand the events to `sink`, in order; gives back the emptied list.
    fn replay(mut self, sink: &mut Streamer<'_>) -> Taken {
        for event in self.0.drain(..) {
            match event {
                Event::Message(d, t, m) => sink.message(d, t, m),
                Event::Foreign(d, t, f) => sink.foreign(d, t, f),
                Event::Unread(d, t, u) => sink.unread(d, t, u),
                Event::Conversation(c) => sink.conversation(c),
                Event::Walked(index, w) => sink.walked(index, w),
                Event::Problem(p) => sink.problem(p),
            }
        }
        self
    }
}

impl LineSink for Taken {
    fn message(&mut self, d: &'static dyn Dialect, thread: Option<String>, m: Box<Message>) {
        self.0.push(Event::Message(d, thread, m));
    }

    fn foreign(&mut self, d: &'static dyn Dialect, thread: Option<String>, f: Foreign) {
        self.0.push(Event::Foreign(d, thread, f));
    }

    fn unread(&mut self, d: &'static dyn Dialect, thread: Option<String>, u: Unread) {
        self.0.push(Event::Unread(d, thread, u));
    }

    fn conversation(&mut self, conv: Conversation) {
        self.0.push(Event::Conversation(conv));
    }

    fn problem(&mut self, p: Problem) {
        self.0.push(Event::Problem(p));
    }
}

struct ThreadWalk {
    key: Option<String>,
    walker: Walker,
    unread: Vec<Unread>,
    numbering: crate::read::Numbering,
    last_turn: usize,
    /// The main thread of a Claude Code file, held until its resumed chain is known.
    held: Option<Held>,
    /// The index and offset of the first message holding only a result.
    sample: Option<(usize, usize)>,
    /// Some message had a group key.
    grouped: bool,
    /// Each message, when the thread is a Claude Code one.
    briefs: Option<Vec<Brief>>,
}

impl ThreadWalk {
    fn push(&mut self, mut m: Box<Message>) {
        self.numbering.number(&mut m);
        if !m.continuation {
            self.last_turn = m.index;
        }
        if self.sample.is_none() && crate::edit::is_sample_result(&m) {
            self.sample = Some((m.index, m.span.start));
        }
        self.grouped |= m.group.is_some();
        if let Some(briefs) = &mut self.briefs {
            briefs.push(Brief::of(&m));
        }
        self.walker.push_taking(&mut m);
    }
}

struct Streamer<'p> {
    cx: LineCx<'p>,
    threads: Vec<ThreadWalk>,
    /// Findings of one-conversation-per-line lines, with their conversation numbered from 0.
    line_findings: Vec<Finding>,
    line_conversations: Vec<String>,
    /// Conversations held one per line.
    line_count: usize,
    /// Threads holding messages of another dialect: reported, not offered fixes.
    foreign_threads: Vec<Option<String>>,
    report: StreamReport,
    /// The room of the last line conversation's walk.
    spare_walker: SpareWalker,
}

/// Whether the pairing findings of dialect `d` are counted, not described, when `count_only`
/// asks for it (a Claude Code session's streaming repair reads its findings).
fn counts_only(count_only: bool, d: &dyn Dialect) -> bool {
    count_only && d.name() != ClaudeCode.name()
}

/// Where a conversation held by one line is in its file: the start of its message list (or
/// of its first message), if known.
pub(crate) fn conversation_offset(conv: &Conversation) -> Option<usize> {
    match &conv.container {
        crate::model::Container::Array { span } => Some(span.start),
        _ => conv.messages.first().map(|m| m.span.start),
    }
}

impl LineSink for Streamer<'_> {
    fn message(&mut self, d: &'static dyn Dialect, thread: Option<String>, m: Box<Message>) {
        let at = self.thread_at(d, thread);
        let t = &mut self.threads[at];
        match &mut t.held {
            Some(held) => held.push(*m),
            None => {
                count_calls(&mut self.report.stats, &m);
                t.push(m);
            }
        }
    }

    fn foreign(&mut self, d: &'static dyn Dialect, thread: Option<String>, f: Foreign) {
        let index = match self.threads.iter().position(|t| t.key == thread) {
            Some(i) => i,
            None => self.threads.len(),
        };
        self.report
            .findings
            .push(foreign_finding(self.cx.path, index, &f, d.name()));
        if !self.foreign_threads.contains(&thread) {
            self.foreign_threads.push(thread);
        }
    }

    fn unread(&mut self, d: &'static dyn Dialect, thread: Option<String>, u: Unread) {
        self.thread(d, thread).unread.push(u);
    }

    fn conversation(&mut self, conv: Conversation) {
        // Counted into the report's own statistics, given back by `walked`.
        let stats = std::mem::take(&mut self.report.stats);
        let index = conv.index;
        let walked = Walked::of(&self.cx, conv, stats, &mut self.spare_walker);
        self.walked(index, walked);
    }

    fn problem(&mut self, p: Problem) {
        let mut f = Finding::new(Rule::InvalidJson, self.cx.path, p.message);
        f.line = p.line;
        f.column = p.column;
        self.report.findings.push(f);
    }
}

impl Streamer<'_> {
    /// Take the walk of the conversation numbered `index` among those held by one line.
    fn walked(&mut self, index: usize, walked: Walked) {
        let walked = walked.numbered(index);
        if self.report.stats.is_empty() {
            self.report.stats = walked.stats;
        } else {
            for (name, counts) in walked.stats {
                let into = match self.report.stats.get_mut(&name) {
                    Some(into) => into,
                    None => self.report.stats.entry(name).or_default(),
                };
                into.calls += counts.calls;
                into.dangling += counts.dangling;
            }
        }
        self.report.calls_checked += walked.calls_checked;
        self.report.counted += walked.counted;
        self.line_findings.extend(walked.findings);
        if let Some(offset) = walked.fix {
            self.report.line_fixes.push((offset, index));
        }
        self.line_count += 1;
        self.line_conversations.extend(walked.detection);
    }

    /// The walk of `thread`, started with the rules for `d` when it is new.
    fn thread(&mut self, d: &'static dyn Dialect, thread: Option<String>) -> &mut ThreadWalk {
        let at = self.thread_at(d, thread);
        &mut self.threads[at]
    }

    /// The index of the walk of `thread`, started with the rules for `d` when it is new (the
    /// main thread of a Claude Code file is held until its resumed chain is known).
    fn thread_at(&mut self, d: &'static dyn Dialect, thread: Option<String>) -> usize {
        match self.threads.iter().position(|t| t.key == thread) {
            Some(i) => i,
            None => {
                let judge = target::judge(d, self.cx.target);
                let walk = WalkOptions {
                    tail: false,
                    unique_ids: judge.unique_ids,
                };
                self.threads.push(ThreadWalk {
                    held: (thread.is_none() && d.name() == ClaudeCode.name()).then(Held::default),
                    key: thread,
                    walker: Walker::new(judge.window, walk),
                    unread: Vec::new(),
                    numbering: Default::default(),
                    last_turn: 0,
                    sample: None,
                    grouped: false,
                    briefs: (d.name() == ClaudeCode.name()).then(Vec::new),
                });
                self.threads.len() - 1
            }
        }
    }

    fn finish(
        mut self,
        chosen: Option<(&'static dyn Dialect, String)>,
        log_like: bool,
        blank: bool,
        chain: ChainReader,
    ) -> StreamReport {
        let threads = std::mem::take(&mut self.threads);
        let mut report = self.report;
        if let Some((d, why)) = chosen {
            report.dialect = Some(d);
            let judge = target::judge(d, self.cx.target);
            let count = threads.len().max(1);
            report.first_result = chain.first_result();
            let chain = resumable(d, chain);
            report.tree_fixes = chain
                .iter()
                .flat_map(|c| c.findings.iter().filter_map(|f| f.fix.clone()))
                .collect();
            report.next_lines = chain
                .as_ref()
                .map_or_else(Vec::new, |c| c.next_lines.clone());
            for (index, mut t) in threads.into_iter().enumerate() {
                let mut which = match &t.key {
                    Some(k) => format!("one message per line, thread {k}"),
                    None => "one message per line".into(),
                };
                if let Some(held) = t.held.take() {
                    if let Some(chain) = &chain {
                        which = format!("{which}; {}", chain.explanation);
                        report.findings.extend(
                            chain
                                .findings
                                .iter()
                                .map(|f| tree_finding(self.cx.path, index, f)),
                        );
                    }
                    // Only the resumed history counts, as when the file is read whole.
                    for m in held.resumed(chain.as_ref()) {
                        count_calls(&mut report.stats, &m);
                        t.push(Box::new(m));
                    }
                }
                report.calls_checked += t.walker.calls_checked();
                let shown = crate::read::shown_dialect(d, &why, &t.unread);
                let why = crate::read::with_unread(why.clone(), &t.unread, d);
                report.detections.push(format!(
                    "``: {shown} ({} messages) — {which}; {why}",
                    t.numbering.count()
                ));
                let info = ConvInfo {
                    index,
                    last_turn: t.last_turn,
                    read_only: self.foreign_threads.contains(&t.key)
                        || !t.unread.is_empty()
                        || !d.repairs(),
                };
                report
                    .findings
                    .extend(unread_finding(self.cx.path, index, &t.unread, shown));
                if !t.unread.is_empty() {
                    report.threads.push(ThreadScan {
                        defects: Vec::new(),
                        read_only: true,
                        sample: t.sample,
                        key: t.key,
                        grouped: t.grouped,
                        briefs: t.briefs.unwrap_or_default(),
                    });
                    continue;
                }
                let defects = sent(d, t.walker.finish());
                let count_only = counts_only(self.cx.count_only, d);
                for defect in &defects {
                    count_dangling(&mut report.stats, defect);
                    if count_only {
                        report.counted += 1;
                    } else {
                        report
                            .findings
                            .push(describe(self.cx.path, &info, d, &judge, defect));
                    }
                }
                report.threads.push(ThreadScan {
                    defects,
                    read_only: info.read_only,
                    sample: t.sample,
                    key: t.key,
                    grouped: t.grouped,
                    briefs: t.briefs.unwrap_or_default(),
                });
            }
            report.conversations += count;
            for f in &mut self.line_findings {
                f.conversation = f.conversation.map(|c| c + count);
            }
        }
        report.conversations += self.line_count;
        report.detections.extend(self.line_conversations);
        report.findings.extend(self.line_findings);
        if report.conversations == 0 && report.findings.is_empty() && !blank {
            report
                .findings
                .push(no_conversation(self.cx.path, log_like));
            report.skippable = !log_like;
        }
        report.findings.sort_by_key(|f| (f.line, f.column, f.rule));
        report
    }
}
