//! Reading a document (JSON or JSON Lines) into conversations of the neutral model, with the
//! reason for each dialect choice and a problem for every line that cannot be read.

use crate::dialect::{self, Dialect, LineIndex, ReadCx};
use crate::json::{Kind, NodeBuf, NodeId, Tree, parse, parse_into};
use crate::locate::{self, Found};
use crate::model::{Container, Conversation, Message, Role};

/// The two document formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON value.
    Json,
    /// One JSON value per line.
    Lines,
}

/// Options of reading.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Read every conversation as this dialect instead of detecting it.
    pub dialect: Option<&'static dyn Dialect>,
    /// `--at`: where the conversations are.
    pub at: Option<String>,
    /// Lines longer than this are reported instead of parsed (0: no limit).
    pub max_line_bytes: usize,
    /// Force the format instead of guessing it from the name and content.
    pub format: Option<Format>,
}

/// A part of the document that could not be read (reported as TM007).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Byte offset.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// What a document holds.
#[derive(Debug, Default)]
pub struct ReadDoc {
    /// The format it was read as.
    pub format: Option<Format>,
    /// The conversations found.
    pub conversations: Vec<Conversation>,
    /// Unreadable parts.
    pub problems: Vec<Problem>,
    /// Remarks for `detect` (e.g. nothing found).
    pub notes: Vec<String>,
}

/// Guess the format: by file name first, then by content.
pub fn guess_format(name: &str, bytes: &[u8]) -> Format {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
        return Format::Lines;
    }
    if lower.ends_with(".json") {
        return Format::Json;
    }
    // Several non-blank lines whose first parses on its own, or a single message: JSON Lines.
    let mut lines = bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()));
    match (lines.next(), lines.next()) {
        (Some(first), Some(_)) if parse(trim_cr(first)).is_ok() => Format::Lines,
        (Some(only), None) => match parse(trim_cr(only)) {
            Ok(t) if locate::looks_like_message(&t, t.root()) => Format::Lines,
            _ => Format::Json,
        },
        _ => Format::Json,
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Read a document.
pub fn read(name: &str, bytes: &[u8], options: &ReadOptions) -> ReadDoc {
    let format = options.format.unwrap_or_else(|| guess_format(name, bytes));
    let mut doc = match format {
        Format::Json => read_json(bytes, options),
        Format::Lines => read_lines(bytes, options),
    };
    doc.format = Some(format);
    if doc.conversations.is_empty() && doc.problems.is_empty() {
        doc.notes.push(match &options.at {
            Some(at) => format!("no conversation found at {at}"),
            None => "no conversation found (give its place with --at POINTER)".into(),
        });
    }
    doc
}

fn problem_at(src: &[u8], offset: usize, message: String) -> Problem {
    let (line, column) = crate::json::line_col(src, offset);
    Problem {
        offset,
        line,
        column,
        message,
    }
}

fn read_json(bytes: &[u8], options: &ReadOptions) -> ReadDoc {
    let mut doc = ReadDoc::default();
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        doc.problems
            .push(problem_at(bytes, 0, "empty document: no JSON value".into()));
        return doc;
    }
    if let Some(p) = overlong_line(bytes, options.max_line_bytes) {
        doc.problems.push(p);
        return doc;
    }
    let tree = match parse(bytes) {
        Ok(t) => t,
        Err(e) => {
            // Several values one after another: most likely JSON Lines under another name.
            let hint = if e.message.contains("after the JSON value") {
                " (several JSON values: if this is JSON Lines, say so with --input-format jsonl)"
            } else {
                ""
            };
            doc.problems.push(problem_at(
                bytes,
                e.offset,
                format!("invalid JSON: {}{hint}", e.message),
            ));
            return doc;
        }
    };
    let index = LineIndex::new(bytes);
    let found = match &options.at {
        Some(at) => match locate::at(&tree, tree.root(), at) {
            Ok(f) => f,
            Err(e) => {
                doc.notes.push(e);
                Vec::new()
            }
        },
        None => locate::auto(&tree, tree.root()),
    };
    for f in found {
        let cx = ReadCx {
            base: 0,
            lines: Some(&index),
            line: 0,
            pointer: String::new(),
        };
        let conv = read_found(&tree, &f, &cx, options, doc.conversations.len());
        doc.conversations.push(conv);
    }
    doc
}

/// The first line of a JSON document longer than `limit` bytes (0: no limit), as a problem:
/// such a document is not parsed at all, to bound memory (a parsed value takes several times
/// its size).
fn overlong_line(bytes: &[u8], limit: usize) -> Option<Problem> {
    if limit == 0 || bytes.len() <= limit {
        return None;
    }
    let mut start = 0;
    for (number, end) in memchr::memchr_iter(b'\n', bytes)
        .chain(std::iter::once(bytes.len()))
        .enumerate()
    {
        if end - start > limit {
            return Some(Problem {
                offset: start,
                line: number + 1,
                column: 1,
                message: format!(
                    "line is {} bytes, over the --max-line-bytes limit of {limit}; the document is not analysed, kept as it is",
                    end - start
                ),
            });
        }
        start = end + 1;
    }
    None
}

/// Choose the dialect of a list of message nodes; returns it and why.
fn detect(
    tree: &Tree<'_>,
    nodes: &[NodeId],
    options: &ReadOptions,
) -> (&'static dyn Dialect, String) {
    if let Some(d) = options.dialect {
        return (d, "given by --dialect".into());
    }
    for (i, &n) in nodes.iter().enumerate() {
        for d in dialect::all() {
            if let Some(why) = d.claims(tree, n) {
                return (*d, format!("message {i} is {why}"));
            }
        }
    }
    (
        dialect::fallback(),
        "no tool calls or results found; read as plain role/content messages".into(),
    )
}

fn read_found(
    tree: &Tree<'_>,
    f: &Found,
    cx: &ReadCx<'_>,
    options: &ReadOptions,
    index: usize,
) -> Conversation {
    let nodes: Vec<(NodeId, String)> = match f.array {
        Some(a) => tree
            .children(a)
            .enumerate()
            .map(|(i, n)| (n, format!("{}{}/{i}", cx.pointer, f.pointer)))
            .collect(),
        None => f
            .messages
            .iter()
            .map(|(n, p)| (*n, format!("{}{p}", cx.pointer)))
            .collect(),
    };
    let just_nodes: Vec<NodeId> = nodes.iter().map(|(n, _)| *n).collect();
    let (dialect, why) = detect(tree, &just_nodes, options);
    let mut builder = Builder::default();
    for (n, pointer) in nodes {
        let mcx = ReadCx {
            pointer,
            ..cx.clone()
        };
        if let Some(m) = dialect.read(tree, n, &mcx) {
            builder.push(m);
        }
    }
    Conversation {
        index,
        dialect: dialect.name(),
        detection: format!("{}; {why}", f.how),
        pointer: format!("{}{}", cx.pointer, f.pointer),
        container: match f.array {
            Some(a) => Container::Array {
                span: cx.span(tree, a),
            },
            None => Container::Scattered,
        },
        messages: builder.messages,
    }
}

/// Numbers messages and marks continuations of a model message split over several entries.
#[derive(Debug, Default)]
struct Builder {
    messages: Vec<Message>,
    last_group: Option<String>,
}

impl Builder {
    fn push(&mut self, mut m: Message) {
        m.index = self.messages.len();
        if m.group.is_some() && m.group == self.last_group {
            m.continuation = true;
        } else if m.role == Role::Assistant {
            self.last_group = m.group.clone();
        }
        self.messages.push(m);
    }
}

/// One line of a JSON Lines file.
struct Line {
    number: usize,
    start: usize,
    end: usize,
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = Line> + '_ {
    let mut start = 0;
    let mut number = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        number += 1;
        let nl = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |k| start + k);
        let mut end = nl;
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        let line = Line { number, start, end };
        start = nl + 1;
        Some(line)
    })
}

fn read_lines(bytes: &[u8], options: &ReadOptions) -> ReadDoc {
    let mut doc = ReadDoc::default();
    let mut buf = NodeBuf::default();
    // Message lines wait here until a line tells which dialect the file is.
    let mut pending: Vec<Line> = Vec::new();
    let mut chosen: Option<(&'static dyn Dialect, String)> = options
        .dialect
        .map(|d| (d, "given by --dialect".to_string()));
    let mut threads = Threads::default();
    let mut saw_message_line = false;
    let total = bytes.len();
    for line in lines(bytes) {
        let mut text = &bytes[line.start..line.end];
        if line.start == 0 && text.starts_with(b"\xEF\xBB\xBF") {
            text = &text[3..];
        }
        let text_start = line.end - text.len();
        if text.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        if options.max_line_bytes > 0 && text.len() > options.max_line_bytes {
            doc.problems.push(Problem {
                offset: text_start,
                line: line.number,
                column: 1,
                message: format!(
                    "line is {} bytes, over the --max-line-bytes limit of {}; not analysed, kept as it is",
                    text.len(),
                    options.max_line_bytes
                ),
            });
            continue;
        }
        let tree = match parse_into(text, &mut buf) {
            Ok(t) => t,
            Err(e) => {
                let (_, column) = crate::json::line_col(text, e.offset);
                let last =
                    line.end >= total || bytes[line.end..].iter().all(|b| b.is_ascii_whitespace());
                let what = if last && e.message.contains("truncated") {
                    "truncated final line"
                } else {
                    "invalid JSON"
                };
                doc.problems.push(Problem {
                    offset: text_start + e.offset,
                    line: line.number,
                    column,
                    message: format!("{what}: {}", e.message),
                });
                continue;
            }
        };
        let root = tree.root();
        let index = LineIndex::new(text);
        let cx = ReadCx {
            base: text_start,
            lines: Some(&index),
            line: line.number,
            pointer: String::new(),
        };
        if !matches!(tree.kind(root), Kind::Object | Kind::Array) {
            doc.problems.push(Problem {
                offset: text_start,
                line: line.number,
                column: 1,
                message: format!(
                    "line is a JSON {}, not an object: not a message; kept as it is",
                    format!("{:?}", tree.kind(root)).to_lowercase()
                ),
            });
            buf = tree.into_buf();
            continue;
        }
        if locate::is_conversation(&tree, root) {
            let found = match &options.at {
                Some(at) => locate::at(&tree, root, at).unwrap_or_default(),
                None => locate::auto(&tree, root),
            };
            if found.is_empty() && options.at.is_none() {
                doc.problems.push(Problem {
                    offset: text_start,
                    line: line.number,
                    column: 1,
                    message: "line is a JSON array holding no messages; kept as it is".into(),
                });
            }
            for f in found {
                let mut conv = read_found(&tree, &f, &cx, options, doc.conversations.len());
                conv.detection = format!("line {}: {}", line.number, conv.detection);
                doc.conversations.push(conv);
            }
            buf = tree.into_buf();
            continue;
        }
        saw_message_line = true;
        if chosen.is_none() {
            for d in dialect::all() {
                if let Some(why) = d.claims(&tree, root) {
                    chosen = Some((*d, format!("line {} is {why}", line.number)));
                    break;
                }
            }
        }
        match chosen {
            None => {
                buf = tree.into_buf();
                pending.push(Line {
                    number: line.number,
                    start: text_start,
                    end: line.end,
                });
            }
            Some((d, _)) => {
                buf = tree.into_buf();
                for p in pending.drain(..) {
                    read_line(bytes, &p, d, &mut threads, &mut buf);
                }
                read_line(
                    bytes,
                    &Line {
                        number: line.number,
                        start: text_start,
                        end: line.end,
                    },
                    d,
                    &mut threads,
                    &mut buf,
                );
            }
        }
    }
    if saw_message_line {
        let (d, why) = chosen.unwrap_or((
            dialect::fallback(),
            "no tool calls or results found; read as plain role/content messages".into(),
        ));
        for p in pending.drain(..) {
            read_line(bytes, &p, d, &mut threads, &mut buf);
        }
        if threads.0.is_empty() {
            threads.0.push((None, Builder::default()));
        }
        for (k, (thread, builder)) in threads.0.into_iter().enumerate() {
            let which = match thread {
                Some(t) => format!("one message per line, thread {t}"),
                None => "one message per line".into(),
            };
            doc.conversations.insert(
                k,
                Conversation {
                    index: 0,
                    dialect: d.name(),
                    detection: format!("{which}; {why}"),
                    pointer: String::new(),
                    container: Container::Lines,
                    messages: builder.messages,
                },
            );
        }
        for (i, c) in doc.conversations.iter_mut().enumerate() {
            c.index = i;
        }
    }
    doc
}

/// The message lines of a file, per thread (see [`Dialect::thread`]), in order of appearance.
#[derive(Debug, Default)]
struct Threads(Vec<(Option<String>, Builder)>);

impl Threads {
    fn get(&mut self, key: Option<String>) -> &mut Builder {
        let at = match self.0.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.0.push((key, Builder::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }
}

fn read_line(
    bytes: &[u8],
    line: &Line,
    d: &'static dyn Dialect,
    threads: &mut Threads,
    buf: &mut NodeBuf,
) {
    let text = &bytes[line.start..line.end];
    let Ok(tree) = parse_into(text, buf) else {
        return;
    };
    let index = LineIndex::new(text);
    let cx = ReadCx {
        base: line.start,
        lines: Some(&index),
        line: line.number,
        pointer: String::new(),
    };
    if let Some(m) = d.read(&tree, tree.root(), &cx) {
        threads.get(d.thread(&tree, tree.root())).push(m);
    }
    *buf = tree.into_buf();
}
