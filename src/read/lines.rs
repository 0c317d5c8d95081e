//! JSON Lines: one message (or event) per line, or one whole conversation per line. Lines are
//! fed one at a time to a [`LinesReader`], which hands what it reads to a [`LineSink`]: either
//! collected into conversations (for repair), or walked as they stream by (for lint), so memory
//! follows the longest line, not the file.

use std::io::{self, BufRead};

use crate::dialect::{self, Cursor, Dialect, ReadCx, RecordOp, ThreadMemory};
use crate::json::{ErrorKind, Kind, NodeBuf, Tree, parse_into};
use crate::locate;
use crate::model::{Container, Conversation, Foreign, Message, Unread};

use super::{Builder, Problem, ReadDoc, ReadOptions, message_checks, read_found, with_unread};

/// Receives what the lines of one file hold.
pub trait LineSink {
    /// A message of the file's message-per-line conversation, in thread `thread`
    /// (`None`: the main thread), read as `dialect`. Boxed where it is read: it is handed on
    /// (and queued between threads) without being copied.
    fn message(&mut self, dialect: &'static dyn Dialect, thread: Option<String>, m: Box<Message>);
    /// A message line of the file written in another dialect than the file was read as.
    fn foreign(&mut self, dialect: &'static dyn Dialect, thread: Option<String>, foreign: Foreign);
    /// A message line carrying a tool key its dialect does not read.
    fn unread(&mut self, dialect: &'static dyn Dialect, thread: Option<String>, unread: Unread);
    /// A whole conversation held by one line.
    fn conversation(&mut self, conv: Conversation);
    /// A line that could not be read (TM007).
    fn problem(&mut self, problem: Problem);
}

/// Reads JSON Lines one line at a time.
#[derive(Debug)]
pub struct LinesReader<'o> {
    options: &'o ReadOptions,
    buf: NodeBuf,
    /// Message lines that came before any line told the dialect: (number, start, bytes).
    pending: Vec<(usize, usize, Vec<u8>)>,
    chosen: Option<(&'static dyn Dialect, String)>,
    memory: ThreadMemory,
    saw_message_line: bool,
    line_conversations: usize,
    /// Messages read from message lines.
    read_messages: usize,
    /// Some line was message- or tool-shaped.
    log_like: bool,
    /// Some line was not blank.
    saw_value: bool,
    /// Skim one-line conversations (see [`LinesReader::skimming`]).
    skim: bool,
    /// Name the line in each one-line conversation's detection (see
    /// [`LinesReader::unexplained`]).
    explain: bool,
    /// The live records of a record log (see [`Dialect::record_log`]): handed to the sink
    /// only at the end, once later lines can no longer replace or drop them.
    records: Records,
}

/// The records of a record log, in the order the owning app keeps them: (thread, record id,
/// message).
type Records = Vec<(Option<String>, Option<String>, Message)>;

/// Apply one record line to `records`: the newest version of a record replaces the older one
/// in its place (as a JavaScript `Map` keeps first insertion order), or is appended.
fn upsert(records: &mut Records, thread: Option<String>, id: Option<String>, m: Message) {
    let at = id
        .as_ref()
        .and_then(|id| records.iter().position(|r| r.1.as_ref() == Some(id)));
    match at {
        Some(i) => records[i] = (thread, id, m),
        None => records.push((thread, id, m)),
    }
}

impl<'o> LinesReader<'o> {
    /// A reader with the given options.
    pub fn new(options: &'o ReadOptions) -> LinesReader<'o> {
        LinesReader {
            options,
            buf: NodeBuf::default(),
            pending: Vec::new(),
            chosen: options
                .dialect
                .map(|d| (d, "given by --dialect".to_string())),
            memory: ThreadMemory::default(),
            saw_message_line: false,
            line_conversations: 0,
            read_messages: 0,
            log_like: false,
            saw_value: false,
            records: Vec::new(),
            skim: false,
            explain: true,
        }
    }

    /// Leave each one-line conversation's detection as the reading gives it, without the line
    /// it was found on: for a sink that never shows it (a lint without
    /// `--explain-detection`), which then costs no formatting per line.
    pub fn unexplained(mut self) -> Self {
        self.explain = false;
        self
    }

    /// Give the sink a one-line conversation whose pairing is plainly clean as skimmed
    /// ([`crate::model::Conversation::skimmed`], no messages) instead of read: for a sink that
    /// only counts what a clean conversation holds, such as the streaming lint.
    pub fn skimming(mut self) -> Self {
        self.skim = true;
        self
    }

    /// Read line `number`, whose text (line ending removed) starts at byte `start` of the file.
    /// `too_long` is the length of a line that was not kept because it is over the limit;
    /// `last` says no other line follows.
    pub fn line(
        &mut self,
        number: usize,
        start: usize,
        text: &[u8],
        too_long: Option<usize>,
        last: bool,
        sink: &mut dyn LineSink,
    ) {
        let line = Line {
            number,
            start,
            text,
            too_long,
            last,
        };
        self.read(&line, sink, None);
    }

    /// [`LinesReader::line`], also handing the parsed line to `chain` (the Claude Code links
    /// are read from the same parse).
    #[allow(clippy::too_many_arguments)]
    pub fn line_linked(
        &mut self,
        number: usize,
        start: usize,
        text: &[u8],
        too_long: Option<usize>,
        last: bool,
        sink: &mut dyn LineSink,
        chain: &mut dialect::ChainReader,
    ) {
        let line = Line {
            number,
            start,
            text,
            too_long,
            last,
        };
        self.read(&line, sink, Some(chain));
    }

    /// Prepare `line` (handing its parse to `chain`, if any) and take it.
    fn read(
        &mut self,
        line: &Line<'_>,
        sink: &mut dyn LineSink,
        chain: Option<&mut dialect::ChainReader>,
    ) {
        let mut buf = std::mem::take(&mut self.buf);
        let known = self.known();
        let prepared = prepare(self.options, known, line, &mut buf);
        if let Some(chain) = chain.filter(|_| known.needs_links()) {
            prepared.link(chain);
        }
        self.buf = self.take(prepared, sink).unwrap_or(buf);
    }

    /// What is known of the file so far, for [`prepare`] to read the next lines ahead.
    pub fn known(&self) -> Known {
        Known {
            dialect: self.chosen.as_ref().map(|c| c.0),
            log_like: self.log_like,
            skim: self.skim,
            explain: self.explain,
        }
    }

    /// The conversations held by one line taken so far: the number the next one gets.
    pub fn conversations_taken(&self) -> usize {
        self.line_conversations
    }

    /// Take the next line in file order, read as far as [`prepare`] could: everything that
    /// depends on the lines before it (the dialect choice, threads, record logs) happens here.
    /// Gives back the line's node buffer for reuse.
    pub fn take(&mut self, line: Prepared<'_>, sink: &mut dyn LineSink) -> Option<NodeBuf> {
        let Prepared {
            number,
            start,
            text,
            what,
        } = line;
        let (tree, log_like, shape) = match what {
            What::Blank => return None,
            What::Long(problem) => {
                sink.problem(problem);
                return None;
            }
            What::Invalid(problem) => {
                self.saw_value = true;
                sink.problem(problem);
                return None;
            }
            What::Value {
                tree,
                log_like,
                shape,
            } => (tree, log_like, shape),
        };
        self.saw_value = true;
        self.log_like |= log_like;
        match shape {
            Shape::Scalar(problem) => sink.problem(problem),
            Shape::Conversations(problem, convs, taken_out) => {
                if let Some(problem) = problem {
                    sink.problem(problem);
                }
                self.line_conversations += taken_out;
                for mut conv in convs {
                    conv.index = self.line_conversations;
                    self.line_conversations += 1;
                    sink.conversation(conv);
                }
            }
            Shape::Message { claim, ahead } => {
                self.saw_message_line = true;
                if self.chosen.is_none() {
                    self.chosen = claim.map(|(d, why)| (d, format!("line {number} is {why}")));
                }
                match self.chosen {
                    None => self.pending.push((number, start, text.to_vec())),
                    Some((d, _)) => {
                        self.flush_pending(d, sink);
                        match ahead.filter(|a| a.dialect.name() == d.name()) {
                            Some(ahead) => self.message_read(d, &tree, ahead, sink),
                            None => {
                                let cursor = Cursor::default();
                                let cx = ReadCx::new(start, number, &cursor);
                                self.message_line(d, &tree, &cx, sink);
                            }
                        }
                    }
                }
            }
        }
        Some(tree.into_buf())
    }

    /// Hand a message line read ahead as `d` to `sink`, in its thread.
    fn message_read(
        &mut self,
        d: &'static dyn Dialect,
        tree: &Tree<'_>,
        ahead: Ahead,
        sink: &mut dyn LineSink,
    ) {
        let thread = d.thread(tree, tree.root(), &mut self.memory);
        if let Some(f) = ahead.foreign {
            sink.foreign(d, thread.clone(), *f);
        } else if let Some(u) = ahead.unread {
            sink.unread(d, thread.clone(), *u);
        }
        if let Some(m) = ahead.message {
            self.read_messages += 1;
            sink.message(d, thread, m);
        }
    }

    /// Read the lines that waited for the dialect to be known.
    fn flush_pending(&mut self, d: &'static dyn Dialect, sink: &mut dyn LineSink) {
        let mut buf = NodeBuf::default();
        for (number, start, text) in std::mem::take(&mut self.pending) {
            let Ok(tree) = parse_into(&text, &mut buf) else {
                continue;
            };
            let cursor = Cursor::default();
            self.message_line(d, &tree, &ReadCx::new(start, number, &cursor), sink);
            buf = tree.into_buf();
        }
    }

    /// Hand the message line `tree` (read as `d`) to `sink`, in its thread: the message, and
    /// the message as written in another dialect when it is one.
    fn message_line(
        &mut self,
        d: &'static dyn Dialect,
        tree: &Tree<'_>,
        cx: &ReadCx<'_>,
        sink: &mut dyn LineSink,
    ) {
        let root = tree.root();
        let thread = d.thread(tree, root, &mut self.memory);
        match message_checks(tree, root, d, cx) {
            (Some(f), _) => sink.foreign(d, thread.clone(), f),
            (None, Some(u)) => sink.unread(d, thread.clone(), u),
            (None, None) => {}
        }
        if d.record_log() {
            self.record_line(d, tree, cx, thread);
        } else if let Some(m) = d.read(tree, root, cx) {
            self.read_messages += 1;
            sink.message(d, thread, Box::new(m));
        }
    }

    /// Replay one line of a record log onto the records kept so far.
    fn record_line(
        &mut self,
        d: &'static dyn Dialect,
        tree: &Tree<'_>,
        cx: &ReadCx<'_>,
        thread: Option<String>,
    ) {
        let root = tree.root();
        match d.record_op(tree, root) {
            Some(RecordOp::RewindTo(id)) => {
                let at = self.records.iter().position(|r| r.1.as_ref() == Some(&id));
                self.records.truncate(at.unwrap_or(0));
            }
            Some(RecordOp::Checkpoint { list, at }) => {
                self.records.clear();
                for (i, child) in tree.children(list).enumerate() {
                    let ccx = ReadCx {
                        pointer: format!("{}{at}/{i}", cx.pointer),
                        ..cx.clone()
                    };
                    if let Some(m) = d.read(tree, child, &ccx) {
                        self.read_messages += 1;
                        let id = match d.record_op(tree, child) {
                            Some(RecordOp::Upsert(id)) => Some(id),
                            _ => None,
                        };
                        upsert(&mut self.records, thread.clone(), id, m);
                    }
                }
            }
            Some(RecordOp::Upsert(id)) => {
                if let Some(m) = d.read(tree, root, cx) {
                    self.read_messages += 1;
                    upsert(&mut self.records, thread, Some(id), m);
                }
            }
            None => {
                if let Some(m) = d.read(tree, root, cx) {
                    self.read_messages += 1;
                    upsert(&mut self.records, thread, None, m);
                }
            }
        }
    }

    /// Was some line message- or tool-shaped (so the file is a log, read or not)?
    pub fn log_like(&self) -> bool {
        self.log_like
    }

    /// Was some line not blank?
    pub fn saw_value(&self) -> bool {
        self.saw_value
    }

    /// End of file: the dialect of the message lines (if any) and why it was chosen. Lines
    /// that no dialect claims and that the plain-chat fallback cannot read either hold no
    /// conversation.
    pub fn finish(mut self, sink: &mut dyn LineSink) -> Option<(&'static dyn Dialect, String)> {
        if !self.saw_message_line {
            return None;
        }
        let claimed = self.chosen.take();
        let fallback = claimed.is_none();
        let (d, why) = claimed.unwrap_or((dialect::fallback(), super::FALLBACK_WHY.into()));
        self.flush_pending(d, sink);
        for (thread, _, m) in std::mem::take(&mut self.records) {
            sink.message(d, thread, Box::new(m));
        }
        if fallback && self.read_messages == 0 {
            return None;
        }
        Some((d, why))
    }
}

/// One line of a file, as [`each_line_from`] splits it.
#[derive(Debug, Clone, Copy)]
pub struct Line<'t> {
    /// The 1-based line number.
    pub number: usize,
    /// The byte offset of the line in the file.
    pub start: usize,
    /// The text, line ending removed (empty when the line is too long).
    pub text: &'t [u8],
    /// The length of a line over the limit, which was not kept.
    pub too_long: Option<usize>,
    /// No other line follows.
    pub last: bool,
}

/// What the lines before a line have settled, to [`prepare`] it with.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// The dialect of the message lines, once chosen.
    pub dialect: Option<&'static dyn Dialect>,
    /// Some line was already message- or tool-shaped.
    pub log_like: bool,
    /// One-line conversations are skimmed when they can be (see [`LinesReader::skimming`]).
    pub skim: bool,
    /// Their detections name their line (see [`LinesReader::unexplained`]).
    pub explain: bool,
}

impl Known {
    /// Whether the Claude Code links of the lines may still be read (no dialect is chosen
    /// yet, or Claude Code is): no other dialect's file is [`resumable`].
    pub fn needs_links(&self) -> bool {
        self.dialect.is_none_or(is_chained)
    }
}

/// A line read as far as it can be without the lines before it (see [`prepare`]), waiting
/// for [`LinesReader::take`].
#[derive(Debug)]
pub struct Prepared<'t> {
    number: usize,
    start: usize,
    text: &'t [u8],
    what: What<'t>,
}

#[derive(Debug)]
enum What<'t> {
    Blank,
    /// Over `--max-line-bytes`.
    Long(Problem),
    /// Not JSON.
    Invalid(Problem),
    Value {
        tree: Tree<'t>,
        /// The line is message- or tool-shaped (only looked at while no line before was).
        log_like: bool,
        shape: Shape,
    },
}

#[derive(Debug)]
enum Shape {
    /// A JSON scalar.
    Scalar(Problem),
    /// A line holding whole conversations (numbered when taken), and how many were taken out
    /// before ([`Prepared::take_conversations`]).
    Conversations(Option<Problem>, Vec<Conversation>, usize),
    /// A message line: the dialect claiming it (looked for only while none is chosen), and
    /// the line read as some dialect when one was known or guessed.
    Message {
        claim: Option<(&'static dyn Dialect, &'static str)>,
        ahead: Option<Ahead>,
    },
}

/// A message line read as `dialect`, before its thread is known. What it read is boxed (the
/// rare foreign and unread notes too): the line and its message are moved by pointer.
#[derive(Debug)]
struct Ahead {
    dialect: &'static dyn Dialect,
    foreign: Option<Box<Foreign>>,
    unread: Option<Box<Unread>>,
    message: Option<Box<Message>>,
}

/// Read `line` as far as it can be on its own, on any thread: parse it (into `buf`), read the
/// conversations it holds, and read a message line as the dialect `known` has chosen (or, while
/// none is, note which dialect claims it). [`LinesReader::take`] does the rest, in file order.
pub fn prepare<'t>(
    options: &ReadOptions,
    known: Known,
    line: &Line<'t>,
    buf: &mut NodeBuf,
) -> Prepared<'t> {
    let (text, start) = match line.text.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if line.start == 0 => (rest, 3),
        _ => (line.text, line.start),
    };
    let number = line.number;
    let prepared = |what| Prepared {
        number,
        start,
        text,
        what,
    };
    if let Some(len) = line.too_long {
        return prepared(What::Long(Problem {
            offset: start,
            line: number,
            column: 1,
            message: format!(
                "line is {len} bytes, over the --max-line-bytes limit of {}; not analysed, kept as it is",
                options.max_line_bytes
            ),
        }));
    }
    if text.iter().all(|b| b.is_ascii_whitespace()) {
        return prepared(What::Blank);
    }
    let tree = match parse_into(text, buf) {
        Ok(t) => t,
        Err(e) => {
            let (_, column) = crate::json::line_col(text, e.offset);
            let what = if line.last && e.kind == ErrorKind::Truncated {
                super::TORN_FINAL_LINE
            } else {
                "invalid JSON"
            };
            return prepared(What::Invalid(Problem {
                offset: start + e.offset,
                line: number,
                column,
                message: format!("{what}: {}", e.message),
            }));
        }
    };
    let root = tree.root();
    let log_like = !known.log_like && dialect::tool_keys::log_like(&tree, root);
    let shape = if !matches!(tree.kind(root), Kind::Object | Kind::Array) {
        Shape::Scalar(Problem {
            offset: start,
            line: number,
            column: 1,
            message: format!(
                "line is a JSON {}, not an object: not a message; kept as it is",
                format!("{:?}", tree.kind(root)).to_lowercase()
            ),
        })
    } else if locate::is_conversation(&tree, root) {
        let cursor = Cursor::default();
        let cx = ReadCx::new(start, number, &cursor);
        let found = match &options.at {
            Some(at) => locate::at(&tree, root, at).unwrap_or_default(),
            None => locate::auto(&tree, root),
        };
        let problem = (found.is_empty() && options.at.is_none()).then(|| Problem {
            offset: start,
            line: number,
            column: 1,
            message: "line is a JSON array holding no messages; kept as it is".into(),
        });
        let convs = found
            .iter()
            .map(|f| {
                let mut conv = read_found(&tree, f, &cx, options, 0, known.skim);
                if known.explain {
                    conv.detection = format!("line {number}: {}", conv.detection);
                }
                conv
            })
            .collect();
        Shape::Conversations(problem, convs, 0)
    } else {
        let claim = match known.dialect {
            Some(_) => None,
            None => {
                let keys = dialect::gate::Keys::of(&tree, root);
                dialect::gate::first_claim(dialect::all(), &tree, root, keys)
            }
        };
        Shape::Message { claim, ahead: None }
    };
    let mut prepared = prepared(What::Value {
        tree,
        log_like,
        shape,
    });
    if let Some(d) = known.dialect {
        prepared.read_as(d);
    }
    prepared
}

impl Prepared<'_> {
    /// Give the parsed line to `chain` (a line that did not parse, or was too long, holds no
    /// link).
    pub fn link(&self, chain: &mut dialect::ChainReader) {
        if let What::Value { tree, .. } = &self.what {
            chain.parsed(self.number, self.start, self.text, tree);
        }
    }

    /// Draft the parsed line's link into `drafts`, for a [`dialect::ChainReader`] to take
    /// in file order (a line that did not parse, or was too long, holds no link).
    pub fn draft_link(&self, drafts: &mut dialect::LinkDrafts) {
        if let What::Value { tree, .. } = &self.what {
            drafts.parsed(self.number, self.start, self.text, tree);
        }
    }

    /// Take out the conversations this line holds, to be handled apart from
    /// [`LinesReader::take`] (which still counts them: the first of them is numbered
    /// [`LinesReader::conversations_taken`] before the line is taken).
    pub fn take_conversations(&mut self) -> Vec<Conversation> {
        match &mut self.what {
            What::Value {
                shape: Shape::Conversations(_, convs, taken_out),
                ..
            } => {
                *taken_out += convs.len();
                std::mem::take(convs)
            }
            _ => Vec::new(),
        }
    }

    /// The dialect that claims this message line, when [`prepare`] looked for one.
    pub fn claim(&self) -> Option<&'static dyn Dialect> {
        match &self.what {
            What::Value {
                shape: Shape::Message { claim, .. },
                ..
            } => claim.map(|c| c.0),
            _ => None,
        }
    }

    /// Read a message line as `d` (the dialect its file will be read as, when that is known
    /// or guessed); the lines of a record log are left to [`LinesReader::take`].
    pub fn read_as(&mut self, d: &'static dyn Dialect) {
        let What::Value {
            tree,
            shape: Shape::Message { ahead, .. },
            ..
        } = &mut self.what
        else {
            return;
        };
        if ahead.is_some() || d.record_log() {
            return;
        }
        let root = tree.root();
        let cursor = Cursor::default();
        let cx = ReadCx::new(self.start, self.number, &cursor);
        let (foreign, unread) = message_checks(tree, root, d, &cx);
        *ahead = Some(Ahead {
            dialect: d,
            foreign: foreign.map(Box::new),
            unread: unread.map(Box::new),
            message: d.read(tree, root, &cx).map(Box::new),
        });
    }
}

/// Collects messages per thread and line conversations into a [`ReadDoc`].
#[derive(Debug, Default)]
struct Collect {
    threads: Vec<Thread>,
    doc: ReadDoc,
}

/// What one thread of a message-per-line file gathered.
#[derive(Debug, Default)]
struct Thread {
    key: Option<String>,
    builder: Builder,
    foreign: Vec<Foreign>,
    unread: Vec<Unread>,
}

impl Collect {
    fn thread(&mut self, key: Option<String>) -> &mut Thread {
        let at = match self.threads.iter().position(|t| t.key == key) {
            Some(i) => i,
            None => {
                self.threads.push(Thread {
                    key,
                    ..Thread::default()
                });
                self.threads.len() - 1
            }
        };
        &mut self.threads[at]
    }
}

impl LineSink for Collect {
    fn message(&mut self, _: &'static dyn Dialect, thread: Option<String>, m: Box<Message>) {
        self.thread(thread).builder.push(*m);
    }

    fn foreign(&mut self, _: &'static dyn Dialect, thread: Option<String>, foreign: Foreign) {
        self.thread(thread).foreign.push(foreign);
    }

    fn unread(&mut self, _: &'static dyn Dialect, thread: Option<String>, unread: Unread) {
        self.thread(thread).unread.push(unread);
    }

    fn conversation(&mut self, conv: Conversation) {
        self.doc.conversations.push(conv);
    }

    fn problem(&mut self, problem: Problem) {
        self.doc.problems.push(problem);
    }
}

/// Read a whole JSON Lines document held in memory.
pub(super) fn read_lines(bytes: &[u8], options: &ReadOptions) -> ReadDoc {
    let mut reader = LinesReader::new(options);
    let mut sink = Collect::default();
    let mut chain = dialect::ChainReader::default();
    let mut start = 0;
    let mut number = 0;
    while start < bytes.len() {
        number += 1;
        let nl = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |k| start + k);
        let end = if nl > start && bytes[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        let last = bytes[nl.min(bytes.len())..]
            .iter()
            .all(|b| b.is_ascii_whitespace());
        let text = &bytes[start..end];
        let too_long = (options.max_line_bytes > 0 && text.len() > options.max_line_bytes)
            .then_some(text.len());
        reader.line_linked(number, start, text, too_long, last, &mut sink, &mut chain);
        start = nl + 1;
    }
    sink.doc.log_like = reader.log_like();
    if let Some((d, why)) = reader.finish(&mut sink) {
        let mut threads = std::mem::take(&mut sink.threads);
        if threads.is_empty() {
            threads.push(Thread::default());
        }
        let chain = resumable(d, chain);
        for (k, mut t) in threads.into_iter().enumerate() {
            let mut which = match &t.key {
                Some(t) => format!("one message per line, thread {t}"),
                None => "one message per line".into(),
            };
            let mut next_lines = Vec::new();
            if let (None, Some(chain)) = (&t.key, &chain) {
                next_lines.clone_from(&chain.next_lines);
                let mut numbering = super::Numbering::default();
                t.builder.messages = dialect::resumed(t.builder.messages, chain);
                for m in &mut t.builder.messages {
                    numbering.number(m);
                }
                which = format!("{which}; {}", chain.explanation);
                let found = chain.findings.iter().map(|f| (k, f.clone()));
                sink.doc.tree.extend(found);
            }
            let shown = super::shown_dialect(d, &why, &t.unread);
            let why = with_unread(why.clone(), &t.unread, d);
            sink.doc.conversations.insert(
                k,
                Conversation {
                    index: 0,
                    dialect: shown,
                    detection: format!("{which}; {why}"),
                    pointer: String::new(),
                    container: Container::Lines,
                    messages: t.builder.messages,
                    foreign: t.foreign,
                    unread: t.unread,
                    next_lines,
                    skimmed: None,
                },
            );
        }
    }
    for (i, c) in sink.doc.conversations.iter_mut().enumerate() {
        c.index = i;
    }
    sink.doc
}

/// The resumed chain of a Claude Code file (`None` for other dialects, or when the file is to
/// be read in file order).
pub fn resumable(d: &'static dyn Dialect, chain: dialect::ChainReader) -> Option<dialect::Chain> {
    is_chained(d).then(|| chain.finish()).flatten()
}

/// Is `d` the dialect whose files are resumed along a chain of links (Claude Code)?
fn is_chained(d: &dyn Dialect) -> bool {
    d.name() == dialect::ClaudeCode.name()
}

/// Split a stream into lines without keeping more than `max` bytes of any line (0: no limit):
/// calls `f(number, start, text, too_long, last)` for each line, its line ending removed.
pub fn each_line_from<R: BufRead>(
    mut reader: R,
    max: usize,
    mut f: impl FnMut(usize, usize, &[u8], Option<usize>, bool),
) -> io::Result<()> {
    let mut line: Vec<u8> = Vec::new();
    let mut len = 0usize;
    let mut start = 0usize;
    let mut offset = 0usize;
    let mut number = 0usize;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            if len > 0 {
                number += 1;
                emit(&mut f, number, start, &line, len, max, true);
            }
            return Ok(());
        }
        let (take, ends) = match memchr::memchr(b'\n', chunk) {
            Some(k) => (k + 1, true),
            None => (chunk.len(), false),
        };
        let body = if ends {
            &chunk[..take - 1]
        } else {
            &chunk[..take]
        };
        if max == 0 || line.len() < max + 1 {
            let room = if max == 0 {
                body.len()
            } else {
                (max + 1 - line.len()).min(body.len())
            };
            line.extend_from_slice(&body[..room]);
        }
        len += body.len();
        reader.consume(take);
        offset += take;
        if ends {
            number += 1;
            let at_end = reader.fill_buf()?.is_empty();
            emit(&mut f, number, start, &line, len, max, at_end);
            line.clear();
            len = 0;
            start = offset;
        }
    }
}

fn emit(
    f: &mut impl FnMut(usize, usize, &[u8], Option<usize>, bool),
    number: usize,
    start: usize,
    line: &[u8],
    len: usize,
    max: usize,
    last: bool,
) {
    let cr = line.last() == Some(&b'\r') && len <= line.len();
    let len = if cr { len - 1 } else { len };
    if max > 0 && len > max {
        f(number, start, &[], Some(len), last);
    } else {
        let text = if cr { &line[..line.len() - 1] } else { line };
        f(number, start, text, None, last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Split = Vec<(usize, usize, String, Option<usize>, bool)>;

    fn split_by(src: &[u8], max: usize, capacity: usize) -> Split {
        let mut out = Vec::new();
        each_line_from(
            io::BufReader::with_capacity(capacity, src),
            max,
            |n, s, t, long, last| {
                out.push((n, s, String::from_utf8_lossy(t).into_owned(), long, last))
            },
        )
        .unwrap();
        out
    }

    /// The lines of `src`, the same whatever the size of the reader's buffer.
    fn split(src: &[u8], max: usize) -> Split {
        let lines = split_by(src, max, 4);
        for capacity in [1, 2, 3, 5, 7, 11, 64] {
            assert_eq!(split_by(src, max, capacity), lines, "buffer of {capacity}");
        }
        lines
    }

    #[test]
    fn splits_streams_like_files() {
        assert_eq!(
            split(b"ab\r\ncdefgh\n\nxyz", 0),
            vec![
                (1, 0, "ab".into(), None, false),
                (2, 4, "cdefgh".into(), None, false),
                (3, 11, "".into(), None, false),
                (4, 12, "xyz".into(), None, true),
            ]
        );
    }

    #[test]
    fn lines_split_alike_whatever_the_buffer() {
        assert_eq!(
            split(b"a\n\nbc\r\n0123456789\nd\r\n\n", 6),
            vec![
                (1, 0, "a".into(), None, false),
                (2, 2, "".into(), None, false),
                (3, 3, "bc".into(), None, false),
                (4, 7, "".into(), Some(10), false),
                (5, 18, "d".into(), None, false),
                (6, 21, "".into(), None, true),
            ]
        );
    }

    #[test]
    fn long_lines_are_measured_not_kept() {
        assert_eq!(
            split(b"0123456789\nok\n", 4),
            vec![
                (1, 0, "".into(), Some(10), false),
                (2, 11, "ok".into(), None, true)
            ]
        );
    }
}
