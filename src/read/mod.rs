//! Reading a document (JSON or JSON Lines) into conversations of the neutral model, with the
//! reason for each dialect choice and a problem for every line that cannot be read.

mod lines;

#[cfg(test)]
mod gate_tests;

use crate::dialect::gate::{self, Keys};
use crate::dialect::{self, Cursor, Dialect, ReadCx, TaskFile};
use crate::json::{ErrorKind, NodeBuf, NodeId, Tree, parse, parse_into};
use crate::locate::{self, Found};
use crate::model::{Container, Conversation, Message, Role};

/// The 16 bytes every SQLite 3 database file starts with (here, below the stores, so that an
/// SQLite file read as a log can be named as one).
pub(crate) const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

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

/// How the problem of a JSON Lines file's torn final line (a write cut short) begins.
pub const TORN_FINAL_LINE: &str = "truncated final line";

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
    /// Findings about the `parentUuid` tree of a Claude Code file, with the index of the
    /// conversation they belong to.
    pub tree: Vec<(usize, crate::dialect::TreeFinding)>,
    /// Something message- or tool-shaped was seen (a file without is not a log at all).
    pub log_like: bool,
    /// The document is blank: an empty JSON Lines file is a log with nothing in it yet.
    pub blank: bool,
    /// Recognised as a file that holds no conversation the model sees (e.g. Cline's
    /// `ui_messages.json`), and why: not read, not repaired, not a finding.
    pub skipped: Option<&'static str>,
}

impl ReadDoc {
    /// Nothing was found and nothing looks like a log, or the file is known to hold no
    /// conversation (`skipped`): a directory walk skips such a file (a `package.json`, a
    /// Cline `ui_messages.json`) instead of reporting it.
    pub fn skippable(&self) -> bool {
        (self.unrecognized() && !self.log_like) || self.skipped.is_some()
    }

    /// No conversation was found in a document that is not blank, and nothing in it failed
    /// to parse: toolmend did not understand it (TM009).
    pub fn unrecognized(&self) -> bool {
        self.conversations.is_empty()
            && self.problems.is_empty()
            && !self.blank
            && self.skipped.is_none()
    }
}

/// Guess the format: by file name first, then by content.
pub fn guess_format(name: &str, bytes: &[u8]) -> Format {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
        return if one_document(bytes) {
            Format::Json
        } else {
            Format::Lines
        };
    }
    // SWE-agent trajectories (`*.traj`) are one pretty-printed JSON document.
    if lower.ends_with(".json") || lower.ends_with(".traj") {
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

/// Is `bytes` one JSON document spread over several lines (a pretty-printed file saved as
/// `.jsonl`)? Its first non-blank line is not a value on its own, but the whole is.
pub(crate) fn one_document(bytes: &[u8]) -> bool {
    let first = bytes
        .split(|&b| b == b'\n')
        .find(|l| l.iter().any(|b| !b.is_ascii_whitespace()));
    first.is_some_and(|line| !first_line_parses(line)) && parse_whole(bytes).is_ok()
}

/// Parse a whole document into room reserved once for all its nodes: a buffer grown by
/// doubling holds its old and its new copy at each step, the last one as large as the tree.
fn parse_whole(bytes: &[u8]) -> Result<Tree<'_>, crate::json::ParseError> {
    let mut room = Vec::new();
    // When the address space is short, the buffer grows as it goes.
    let _ = room.try_reserve_exact(node_bound(bytes));
    parse_into(bytes, &mut NodeBuf(room))
}

/// Does the first line of a JSON Lines file parse on its own? (When it does not, the file may
/// be one pretty-printed document, read whole.)
pub(crate) fn first_line_parses(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    parse(trim_cr(line)).is_ok()
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

pub use lines::{Line, LineSink, LinesReader, Prepared, each_line_from, prepare, resumable};

/// Read a document. A file known by its name (a Cline / Roo Code task's
/// `api_conversation_history.json` or `ui_messages.json`) is read as that file, unless
/// `--dialect` or `--at` says otherwise.
pub fn read(name: &str, bytes: &[u8], options: &ReadOptions) -> ReadDoc {
    read_with(name, bytes, options, None)
}

/// Where the messages of a JSON document's conversations go as they are read, instead of into
/// the model (see [`read_with`]).
pub(crate) trait Walk {
    /// A conversation read as `dialect` begins: `true` when its messages are to be given to
    /// [`Walk::message`], `false` when they are to be kept in the model.
    fn begin(&mut self, dialect: &'static dyn Dialect) -> bool;

    /// The next message of the conversation begun last; `at` is its element's position in
    /// the conversation's list of message values.
    fn message(&mut self, at: usize, m: Message);

    /// The conversation begun last has been read (`repairable`: it holds no foreign or
    /// unread message and sits in an array): the positions of the elements to read once more,
    /// in order, each given to [`Walk::again`] while the tree is still there.
    fn reread(&mut self, repairable: bool) -> Vec<usize>;

    /// The next message read once more (see [`Walk::reread`]).
    fn again(&mut self, m: Message);

    /// Whether a conversation whose pairing is plainly clean may be skimmed (see
    /// [`Dialect::skim`]): given to [`Walk::skimmed`] instead of being begun and read.
    fn skims(&self) -> bool {
        false
    }

    /// A conversation read as `dialect` was skimmed: what its walk would have counted.
    fn skimmed(&mut self, dialect: &'static dyn Dialect, skimmed: crate::model::Skimmed) {
        let _ = (dialect, skimmed);
    }
}

/// [`read`], giving the messages of a JSON document's conversations to `walk` as they are read
/// instead of keeping them (for the conversations whose dialect [`Walk::begin`] takes).
pub(crate) fn read_with(
    name: &str,
    bytes: &[u8],
    options: &ReadOptions,
    walk: Option<&mut dyn Walk>,
) -> ReadDoc {
    let task = TaskFile::of(name).filter(|_| options.dialect.is_none() && options.at.is_none());
    if task == Some(TaskFile::UiMessages) {
        return ReadDoc {
            format: Some(Format::Json),
            notes: vec![TaskFile::UiMessages.why().into()],
            skipped: Some(TaskFile::UiMessages.why()),
            ..ReadDoc::default()
        };
    }
    let named;
    let options = match task {
        Some(TaskFile::ApiHistory) => {
            named = ReadOptions {
                dialect: Some(&dialect::Cline),
                ..options.clone()
            };
            &named
        }
        _ => options,
    };
    let format = options.format.unwrap_or_else(|| guess_format(name, bytes));
    let mut doc = match format {
        Format::Json => read_json(bytes, options, walk),
        Format::Lines => lines::read_lines(bytes, options),
    };
    if let Some(task) = task {
        for c in &mut doc.conversations {
            c.detection = c.detection.replace(GIVEN, task.why());
        }
    }
    doc.format = Some(format);
    doc.blank = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(bytes)
        .iter()
        .all(u8::is_ascii_whitespace);
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

fn read_json(bytes: &[u8], options: &ReadOptions, mut walk: Option<&mut dyn Walk>) -> ReadDoc {
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
    let tree = match parse_whole(bytes) {
        Ok(t) => t,
        Err(e) => {
            // Several values one after another: most likely JSON Lines under another name.
            let hint = if e.kind == ErrorKind::TrailingCharacters {
                " (several JSON values: if this is JSON Lines, say so with --input-format jsonl)"
            } else if bytes.starts_with(SQLITE_HEADER) {
                // A directory walk reads files named like logs as logs, unsniffed.
                " (an SQLite database named like a log: name it *.db, *.sqlite or *.sqlite3, or \
                 give it on the command line)"
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
    doc.log_like = dialect::tool_keys::log_like(&tree, tree.root());
    let cursor = Cursor::default();
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
        let cx = ReadCx::new(0, 1, &cursor);
        let index = doc.conversations.len();
        let walk = walk.as_mut().map(|w| &mut **w as &mut dyn Walk);
        let conv = read_found_with(&tree, &f, &cx, options, index, walk, false);
        doc.conversations.push(conv);
    }
    doc
}

/// At least the number of nodes a parse of `bytes` builds: every value but the root follows a
/// `,`, a `:` or a `[` (the same bytes inside strings only make the bound looser). Reserved and
/// never written, the rest of the room costs address space, not memory.
fn node_bound(bytes: &[u8]) -> usize {
    let separators = bytes
        .iter()
        .map(|&b| usize::from(matches!(b, b',' | b':' | b'[')))
        .sum::<usize>();
    separators + 1
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

/// Why a dialect was chosen when `--dialect` gave it.
const GIVEN: &str = "given by --dialect";

/// Why a conversation no dialect claims is read as plain role/content messages.
pub const FALLBACK_WHY: &str =
    "no tool calls or results found; read as plain role/content messages";

/// The dialect name shown for a conversation no dialect claimed whose messages carry tool
/// keys: it is not plain chat, and toolmend does not read it.
pub const UNRECOGNIZED: &str = "unrecognized";

/// The name a conversation read as `dialect` (chosen because of `why`) is shown under:
/// [`UNRECOGNIZED`] when no dialect claimed it and some messages carry tool keys.
pub fn shown_dialect(
    dialect: &dyn Dialect,
    why: &str,
    unread: &[crate::model::Unread],
) -> &'static str {
    if why.ends_with(FALLBACK_WHY) && !unread.is_empty() {
        UNRECOGNIZED
    } else {
        dialect.name()
    }
}

/// Choose the dialect of a list of message nodes; returns it and why.
fn detect(
    tree: &Tree<'_>,
    nodes: &[NodeId],
    options: &ReadOptions,
) -> (&'static dyn Dialect, String) {
    if let Some(d) = options.dialect {
        return (d, GIVEN.into());
    }
    for (i, &n) in nodes.iter().enumerate() {
        let keys = Keys::of(tree, n);
        if let Some((d, why)) = gate::first_claim(dialect::all(), tree, n, keys) {
            return (
                d,
                [&crate::model::indexed("message ", i), " is ", why].concat(),
            );
        }
    }
    (dialect::fallback(), FALLBACK_WHY.into())
}

pub(crate) fn read_found(
    tree: &Tree<'_>,
    f: &Found,
    cx: &ReadCx<'_>,
    options: &ReadOptions,
    index: usize,
    skim: bool,
) -> Conversation {
    read_found_with(tree, f, cx, options, index, None, skim)
}

/// [`read_found`], giving the messages to `walk` instead of keeping them when it takes the
/// conversation's dialect. Each message's pointer is made when the message is read, not all
/// of them beforehand.
fn read_found_with(
    tree: &Tree<'_>,
    f: &Found,
    cx: &ReadCx<'_>,
    options: &ReadOptions,
    index: usize,
    walk: Option<&mut dyn Walk>,
    skim: bool,
) -> Conversation {
    let nodes: Vec<NodeId> = match f.array {
        Some(a) => tree.children(a).collect(),
        None => f.messages.iter().map(|(n, _)| *n).collect(),
    };
    let list = [cx.pointer.as_str(), f.pointer.as_str(), "/"].concat();
    // The reading context of message `i`: the conversation's, at the message's pointer.
    let message_cx = |i: usize| ReadCx {
        pointer: match f.array {
            Some(_) => crate::model::indexed(&list, i),
            None => [cx.pointer.as_str(), &f.messages[i].1].concat(),
        },
        base: cx.base,
        line: cx.line,
        cursor: cx.cursor,
    };
    let (dialect, why) = detect(tree, &nodes, options);
    // A plainly clean conversation is skimmed (counted for `walk`, or kept as counts) when
    // the caller asks for it; any other is read, message by message.
    let skim = (skim || walk.as_ref().is_some_and(|w| w.skims())) && f.array.is_some();
    let counts = skim.then(|| skimmed(tree, &nodes, dialect, cx)).flatten();
    let mut builder = Builder::default();
    let mut foreign = Vec::new();
    let mut unread = Vec::new();
    let skimmed = match (counts, walk) {
        (Some(counts), Some(w)) => {
            w.skimmed(dialect, counts);
            None
        }
        (Some(counts), None) => Some(counts),
        (None, walk) => {
            let mut walk = walk.and_then(|w| w.begin(dialect).then_some(w));
            if walk.is_none() {
                builder.messages.reserve_exact(nodes.len());
            }
            for (i, &n) in nodes.iter().enumerate() {
                let mcx = message_cx(i);
                let (f, u) = message_checks(tree, n, dialect, &mcx);
                foreign.extend(f);
                unread.extend(u);
                if let Some(m) = dialect.read(tree, n, &mcx) {
                    match walk.as_deref_mut() {
                        Some(w) => w.message(i, m),
                        None => builder.push(m),
                    }
                }
            }
            if let Some(w) = walk {
                let repairable = foreign.is_empty() && unread.is_empty() && f.array.is_some();
                for i in w.reread(repairable) {
                    if let Some(m) = dialect.read(tree, nodes[i], &message_cx(i)) {
                        w.again(m);
                    }
                }
            }
            None
        }
    };
    let shown = shown_dialect(dialect, &why, &unread);
    let why = with_unread(why, &unread, dialect);
    Conversation {
        index,
        dialect: shown,
        // Joined, not formatted: this runs for every conversation.
        detection: [f.how.as_str(), "; ", &why].concat(),
        pointer: [cx.pointer.as_str(), &f.pointer].concat(),
        container: match f.array {
            Some(a) => Container::Array {
                span: cx.span(tree, a),
            },
            None => Container::Scattered,
        },
        messages: builder.messages,
        foreign,
        unread,
        next_lines: Vec::new(),
        skimmed,
    }
}

/// What a walk of the messages `nodes` would count, when `dialect` finds their pairing plainly
/// clean ([`Dialect::skim`]) and no message is written in another dialect or carries a tool
/// key `dialect` does not read; `None` otherwise (they are then read and walked).
fn skimmed(
    tree: &Tree<'_>,
    nodes: &[NodeId],
    dialect: &dyn Dialect,
    cx: &ReadCx<'_>,
) -> Option<crate::model::Skimmed> {
    // Under the dialect's own rules: a skim is asked only without `--target`.
    let unique_ids = crate::target::judge(dialect, None).unique_ids;
    let skimmed = dialect.skim(tree, nodes, unique_ids)?;
    // A message that these checks flag is read again with its pointer, which is all `cx` lacks.
    let plain = nodes
        .iter()
        .all(|&n| message_checks(tree, n, dialect, cx) == (None, None));
    plain.then_some(skimmed)
}

/// The finding of a message carrying the tool key `key`, which its dialect does not read.
fn unread_at(
    tree: &Tree<'_>,
    node: NodeId,
    cx: &ReadCx<'_>,
    key: &'static dialect::tool_keys::ToolKey,
) -> crate::model::Unread {
    crate::model::Unread {
        pos: cx.pos(tree, node, ""),
        key: key.key,
        what: key.what,
    }
}

/// What the message `node` read as `dialect` is besides its message: written in another
/// dialect (`foreign_with`), else carrying a tool key `dialect` does not read
/// (`dialect::tool_keys::unread`). The same answers, with one pass over its member names for both.
pub(crate) fn message_checks(
    tree: &Tree<'_>,
    node: NodeId,
    dialect: &dyn Dialect,
    cx: &ReadCx<'_>,
) -> (Option<crate::model::Foreign>, Option<crate::model::Unread>) {
    let mut keys = None;
    if let Some(f) = foreign_with(tree, node, dialect, cx, &mut keys) {
        return (Some(f), None);
    }
    // Keys not gathered (the dialect claimed before any were needed) rule nothing out.
    let key = match keys {
        Some(keys) => dialect::tool_keys::unread_with(tree, node, dialect, keys),
        None => dialect::tool_keys::unread(tree, node, dialect),
    };
    (None, key.map(|k| unread_at(tree, node, cx, k)))
}

/// The detection note `why`, told that some messages carry tool keys the dialect does not read.
pub fn with_unread(why: String, unread: &[crate::model::Unread], dialect: &dyn Dialect) -> String {
    let Some(u) = unread.first() else {
        return why;
    };
    let n = unread.len();
    let (what, key) = (u.what, u.key);
    if shown_dialect(dialect, &why, unread) == UNRECOGNIZED {
        format!(
            "no dialect toolmend knows claims these messages, and {n} message(s) carry {what} \
             (key `{key}`): not read as plain chat, not analysed"
        )
    } else {
        format!(
            "{why}; but {n} message(s) carry {what} (key `{key}`), which {} does not read: \
             not analysed",
            dialect.name()
        )
    }
}

/// `Some` when `node` carries tool calls or results that another dialect reads while `dialect`
/// reads none (mixed content: they would go unchecked, and a repair would guess), keeping in
/// `keys` the message's [`Keys`] when it gathered them.
fn foreign_with(
    tree: &Tree<'_>,
    node: NodeId,
    dialect: &dyn Dialect,
    cx: &ReadCx<'_>,
    keys: &mut Option<Keys>,
) -> Option<crate::model::Foreign> {
    // Only the dialects whose claim keys the message has can claim it (see `dialect::gate`).
    // The keys are gathered first for a dialect they settle alone (`claims_by_keys`); any
    // other is asked directly, and as the file is read as it, it nearly always claims.
    if dialect.claims_by_keys(Keys::NONE).is_some() {
        *keys = Some(Keys::of(tree, node));
    }
    let claimed = match *keys {
        Some(k) if !gate::may_claim(dialect, k) => false,
        Some(k) => dialect
            .claims_by_keys(k)
            .unwrap_or_else(|| dialect.claims(tree, node).is_some()),
        None => dialect.claims(tree, node).is_some(),
    };
    if claimed {
        return None;
    }
    let keys = *keys.get_or_insert_with(|| Keys::of(tree, node));
    let tools =
        |m: Option<Message>| m.is_some_and(|m| !m.calls.is_empty() || !m.results.is_empty());
    let (other, why) = gate::claimants(keys).find_map(|d| {
        let why = d.claims(tree, node)?;
        tools(d.read(tree, node, cx)).then_some((d, why))
    })?;
    if tools(dialect.read(tree, node, cx)) {
        return None;
    }
    Some(crate::model::Foreign {
        pos: cx.pos(tree, node, ""),
        dialect: other.name(),
        why,
    })
}

/// From this many messages on, a conversation's messages are kept with their lists of calls
/// and results trimmed to length: a list grown by pushes holds room for four, which a long
/// conversation pays for every message until it is analysed (a short one, read and dropped
/// line by line, would only pay for the trimming).
const TRIM_AFTER: usize = 256;

/// Numbers messages and marks continuations of a model message split over several entries.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    messages: Vec<Message>,
    numbering: Numbering,
}

impl Builder {
    fn push(&mut self, mut m: Message) {
        self.numbering.number(&mut m);
        if self.messages.len() >= TRIM_AFTER {
            m.calls.shrink_to_fit();
            m.results.shrink_to_fit();
        }
        self.messages.push(m);
    }
}

/// Gives messages their index and marks continuations (a model message whose group equals the
/// previous model message's group), without keeping the messages.
#[derive(Debug, Default)]
pub struct Numbering {
    next: usize,
    last_group: Option<String>,
}

impl Numbering {
    /// Number `m` and mark it as a continuation when it is one.
    pub fn number(&mut self, m: &mut Message) {
        m.index = self.next;
        self.next += 1;
        if m.group.is_some() && m.group == self.last_group {
            m.continuation = true;
        } else if m.role == Role::Assistant {
            self.last_group = m.group.clone();
        }
    }

    /// How many messages were numbered.
    pub fn count(&self) -> usize {
        self.next
    }

    /// A numbering that has counted `n` messages without numbering them (a skimmed
    /// conversation's).
    pub fn skipping(n: usize) -> Numbering {
        Numbering {
            next: n,
            last_group: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::node_bound;

    #[test]
    fn the_node_bound_is_never_below_the_nodes_a_parse_builds() {
        let docs: [&[u8]; 8] = [
            b"1",
            b"[]",
            b"[[[[]]]]",
            b"[1,2,[3,[4,{}]],{\"a\":[]}]",
            b"{\"a\":{\"b\":{\"c\":[null,true,\"x\"]}}}",
            b"\xEF\xBB\xBF [ {\"k\" : \"v\" } , 0 ]",
            br#"{"messages":[{"role":"user","content":"a, b: [c]"},{"role":"tool","content":""}]}"#,
            br#"[{"s":"\"\\,"},[[],[{}]],-1.5e3]"#,
        ];
        for doc in docs {
            let tree = crate::json::parse(doc).unwrap();
            assert!(
                node_bound(doc) >= tree.nodes.len(),
                "{}",
                String::from_utf8_lossy(doc)
            );
        }
    }
}
