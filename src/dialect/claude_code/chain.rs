//! The history Claude Code resumes: the `parentUuid` chain from the end of the file, as the
//! real client (2.1.332) walks it (docs/claude-code.md):
//! - the walk starts at the last non-sidechain line of the file, or, when lines hanging from it
//!   are newer (a late write, such as a parallel result), at its newest such descendant;
//!   not at the newest leaf of the tree;
//! - of two lines with one `uuid`, the later one is the line;
//! - a `parentUuid` that names no line, or a line already on the history (a cycle, a
//!   self-parent), continues at the newest line written at most 5 s before it, by timestamp
//!   (see [`Joins`]); with none, the history starts there;
//! - a `compact_boundary` has no parent: the history starts there (its `logicalParentUuid`
//!   links to the lines before, which the model no longer sees).
//!
//! [`ChainReader`] takes every line of a file and gives the lines of that path, the findings
//! about the tree (TM010–TM014) and, for each result on the path whose call is not, where that
//! call is.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use memchr::memmem::Finder;

mod draft;

use super::fields::text_is;
use super::intern::{Names, OptSym, Stamps, Sym};
use crate::chunked::Chunked;
use crate::edit::Edit;
use crate::json::{J, NodeId, Style, Tree, line_col};
use crate::rules::Rule;

pub use draft::LinkDrafts;

/// One line of the file that carries a `uuid`. Strings are interned (see [`Interner`]), so a
/// link costs a few words whatever the file holds (40 bytes). What few links need is kept
/// beside them (see [`Rare`]); the timestamp of link `i` is timestamp `i` of
/// [`ChainReader::stamps`].
#[derive(Debug, Clone)]
struct Link {
    /// The line number (`u32::MAX` past it: a file of 4 billion lines is not read).
    line: u32,
    /// Where the line's text starts in the file: the low 32 bits here, the next 16 in
    /// `start_high` (a file under 256 TiB).
    start: u32,
    /// The line's length (line ending excluded), when under [`LONG`] (else see [`Rare::len`]).
    len: u16,
    /// Where the `parentUuid` value starts within the line, when under [`LONG`] (else see
    /// [`Rare::parent_at`]); [`NOT_STRING`]: the value is not a string.
    parent_at: u16,
    uuid: Sym,
    parent: OptSym,
    /// `message.id` of an assistant line: the lines of one API message share it.
    group: OptSym,
    /// Where the line's ids start in [`ChainReader::ids`] (they end where the next link's
    /// start): the `tool_use` / `server_tool_use` ids of an assistant line, the `tool_result`
    /// ids of a user line.
    ids: u32,
    /// The line's bytes, to tell identical copies from conflicting ones (a 64-bit hash in two
    /// halves, so that the link is aligned to 4 bytes).
    digest: [u32; 2],
    start_high: u16,
    /// The length of the `parentUuid` string (`u8::MAX`: see [`Rare::parent_len`]).
    parent_len: u8,
    /// [`SIDECHAIN`], [`MESSAGE`], [`ASSISTANT`], [`BOUNDARY`], [`ONLY_BLOCK`], [`RARE`],
    /// [`UNJOINABLE`].
    flags: u8,
}

/// A [`Link::len`] or [`Link::parent_at`] too large for its field: kept in [`Rare`].
const LONG: u16 = u16::MAX - 1;
/// The [`Link::parent_at`] of a `parentUuid` that is not a string.
const NOT_STRING: u16 = u16::MAX;

/// A sidechain line.
const SIDECHAIN: u8 = 1;
/// A `user` or `assistant` line.
const MESSAGE: u8 = 2;
/// An `assistant` line (its ids are calls).
const ASSISTANT: u8 = 4;
/// A `compact_boundary`.
const BOUNDARY: u8 = 8;
/// The line's content is one server tool result.
const ONLY_BLOCK: u8 = 16;
/// The line has a [`Rare`] part.
const RARE: u8 = 32;
/// A line the client never goes on at past a broken parent: a `progress` line, or a `system`
/// line of subtype `file_snapshot` (see [`Joins`]).
const UNJOINABLE: u8 = 64;

/// What few links have, kept beside them: a `logicalParentUuid` (a compact boundary's), the
/// length of a `parentUuid` string of [`u8::MAX`] bytes or more, the column of a `parentUuid`
/// value that is not its byte offset plus one (text before it that is not ASCII), the length
/// of a line and the offset of its `parentUuid` of [`LONG`] bytes or more.
#[derive(Debug, Clone, Copy)]
struct Rare {
    logical_parent: OptSym,
    parent_len: u32,
    len: u32,
    parent_at: u32,
    /// 0: the value's offset in the line plus one.
    parent_column: u32,
}

impl Link {
    fn sidechain(&self) -> bool {
        self.flags & SIDECHAIN != 0
    }

    fn message(&self) -> bool {
        self.flags & MESSAGE != 0
    }

    fn boundary(&self) -> bool {
        self.flags & BOUNDARY != 0
    }

    fn joinable(&self) -> bool {
        self.flags & UNJOINABLE == 0
    }

    fn only_block(&self) -> bool {
        self.flags & ONLY_BLOCK != 0
    }

    /// The line number.
    fn line(&self) -> usize {
        self.line as usize
    }

    /// Where the line's text starts in the file.
    fn start(&self) -> usize {
        (u64::from(self.start_high) << 32 | u64::from(self.start)) as usize
    }

    fn digest(&self) -> u64 {
        u64::from(self.digest[0]) << 32 | u64::from(self.digest[1])
    }
}

/// A server tool result block of an assistant line.
#[derive(Debug, Clone)]
struct ServerResult {
    id: Sym,
    kind: String,
    column: usize,
    /// Byte span of the block in the file.
    span: (usize, usize),
    /// What it holds, as text (for a note).
    text: String,
}

/// What a server tool result holds, as plain text: `title — url` per search result, the text
/// of a string, or the JSON of anything else.
fn server_text(tree: &Tree<'_>, block: NodeId) -> String {
    let Some(content) = tree.get(block, "content") else {
        return String::new();
    };
    if let Some(s) = tree.str(content) {
        return s.into_owned();
    }
    let found: Vec<String> = tree
        .children(content)
        .filter_map(|r| {
            let url = tree.get_str(r, "url")?;
            let title = tree.get_str(r, "title").unwrap_or_default();
            Some(format!("{title} — {url}"))
        })
        .collect();
    if found.is_empty() {
        tree.raw_str(content).into_owned()
    } else {
        found.join("\n")
    }
}

/// A finding about the tree of lines (not about the pairing walk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFinding {
    /// The rule.
    pub rule: Rule,
    /// Reported as a warning rather than the rule's severity.
    pub warning: bool,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong, and what Claude Code and other readers do with it.
    pub message: String,
    /// The fix, if there is one.
    pub fix: Option<TreeFix>,
}

/// A fix of a tree finding, as byte spans of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeFix {
    /// Delete a line that repeats an earlier one byte for byte (safe: nothing is lost).
    DropCopy {
        /// The line's text span (its line ending goes with it).
        line: (usize, usize),
        /// The copy is the file's last main-chain line, where the reading starts: it goes only
        /// with a repair that puts lines right after it (placeholders), which start the
        /// reading then.
        last: bool,
    },
    /// A server tool result without its call (unsafe): `--orphans note` turns the block into a
    /// text block holding `note`; `--orphans drop` removes its line when it is the line's only
    /// block.
    Orphan {
        /// The block's span.
        block: (usize, usize),
        /// The text that replaces it.
        note: String,
        /// How to remove its line, when the block is all the line holds.
        drop: Option<DropLine>,
    },
}

/// Removing a line and hanging the lines below it from its parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropLine {
    /// The line's text span (its line ending goes with it).
    pub line: (usize, usize),
    /// The `parentUuid` values of the lines that hang from it.
    pub children: Vec<(usize, usize)>,
    /// The line's own `parentUuid` (`None`: null).
    pub parent: Option<String>,
}

impl DropLine {
    /// The edits: the line goes with its line ending (`ending` gives the length of the one
    /// after a text ending at an offset), and the lines below take its parent.
    pub fn edits(&self, ending: &dyn Fn(usize) -> usize) -> Vec<Edit> {
        let value = match &self.parent {
            Some(p) => J::str(p.clone()),
            None => J::Null,
        }
        .render(&Style::default());
        let (start, end) = self.line;
        let mut edits = vec![Edit::delete(start, end + ending(end))];
        edits.extend(
            self.children
                .iter()
                .map(|&(a, b)| Edit::replace(a, b, value.clone())),
        );
        edits
    }
}

/// The resumed history of one Claude Code file.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    /// Line numbers of the resumed path, first line first; `None` when the uuids do not
    /// identify lines and the file is read in file order.
    pub path: Option<Vec<usize>>,
    /// Why this path (for `detect`/`--explain-detection`).
    pub explanation: String,
    /// Findings about the tree.
    pub findings: Vec<TreeFinding>,
    /// Results on the path whose call lies off it, by (line, id): why (reported as TM013).
    pub split: HashMap<(usize, String), String>,
    /// Lines of the path whose next line on it is not the first later line of the file
    /// hanging from them (a `/rewind` fork, where an abandoned reply comes first; a copied
    /// line, whose children come before it): where the line's text starts, and where that
    /// next line's does, in file order. A placeholder put after such a line relinks that next
    /// line (see [`next_line_of`]).
    pub next_lines: Vec<(usize, usize)>,
}

/// Reads the links of a file line by line; [`ChainReader::finish`] walks them.
#[derive(Debug, Default)]
pub struct ChainReader {
    links: Chunked<Link>,
    /// The uuids of the links (their own, parents and logical parents).
    names: Names,
    /// Their message ids and tool ids: numbered apart from the uuids, so that what is kept
    /// per uuid in [`ChainReader::finish`] is not kept per id too.
    labels: Names,
    /// Their timestamps (only read back: kept packed, see [`Stamps`]).
    stamps: Stamps,
    /// The call and result ids of the links (see [`Link::ids`]).
    ids: Vec<Sym>,
    /// The server tool results of the links that have some, by link index (ascending).
    servers: Vec<(u32, Box<[ServerResult]>)>,
    /// The rare parts of the links that have some, by link index (ascending).
    rare: Vec<(u32, Rare)>,
    /// A main-chain message line without a `uuid`: the file is then read in file order.
    untracked: bool,
    /// Where the first line whose message is one `tool_result` block starts (what a
    /// placeholder mirrors when its conversation has no result message of its own).
    first_result: Option<usize>,
    /// The uuid of the last link, when a uuid in Claude Code's spelling, and its number.
    last_uuid: Option<(u128, Sym)>,
    /// Room to draft one line's link in (see [`ChainReader::parsed`]).
    scratch: LinkDrafts,
}

/// The `type` of a line, as far as the chain tells types apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    User,
    Assistant,
    System,
    Other,
}

impl Type {
    fn of(tree: &Tree<'_>, node: NodeId) -> Type {
        if text_is(tree, node, "user") {
            Type::User
        } else if text_is(tree, node, "assistant") {
            Type::Assistant
        } else if text_is(tree, node, "system") {
            Type::System
        } else {
            Type::Other
        }
    }
}

/// Hash of a line's bytes, to tell identical lines from different ones (a fast 64-bit hash
/// with a fixed seed: a collision is as unlikely as any 64-bit one).
fn digest(text: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x746f_6f6c_6d65_6e64).hash_one(text)
}

fn column(tree: &Tree<'_>, node: NodeId) -> usize {
    let at = tree.span(node).0;
    match tree.src().get(..at) {
        // One line of ASCII: a character a byte.
        Some(before) if before.is_ascii() && !before.contains(&b'\n') => at + 1,
        _ => line_col(tree.src(), at).1,
    }
}

/// The test a line must pass before its link is read: it names a `uuid` or a `parentUuid`
/// (both end in `uid"`: most lines of other logs are ruled out by one scan).
static UID: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"uid\""));
static UUID_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"uuid\""));
static PARENT_KEY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"parentUuid\""));
static RESULT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"tool_result"));

/// Whether a line may hold a link.
fn names_a_link(text: &[u8]) -> bool {
    UID.find(text).is_some() && (PARENT_KEY.find(text).is_some() || UUID_KEY.find(text).is_some())
}

impl ChainReader {
    /// Read line `number`, which the caller has parsed: `text` (without its line ending or a
    /// leading byte order mark, starting at byte `start`) parsed into `tree`.
    pub fn parsed(&mut self, number: usize, start: usize, text: &[u8], tree: &Tree<'_>) {
        let mut drafts = std::mem::take(&mut self.scratch);
        // Once a first result line is known, no line is searched for one.
        drafts.first_result = self.first_result;
        drafts.parsed(number, start, text, tree);
        self.take(&mut drafts);
        self.scratch = drafts;
    }

    /// Where the first line whose message is one `tool_result` block starts, if one was read.
    pub fn first_result(&self) -> Option<usize> {
        self.first_result
    }

    /// Walk the tree: `None` when the file has no main-chain lines with uuids, or has message
    /// lines without one (then it is read in file order).
    pub fn finish(self) -> Option<Chain> {
        if self.untracked {
            return None;
        }
        let ChainReader {
            links,
            mut names,
            mut labels,
            stamps,
            ids,
            servers,
            rare,
            ..
        } = self;
        // From here on strings are only read back.
        names.forget_lookups();
        labels.forget_lookups();
        let links = &links;
        // The main-chain links (a link's index fits in 32 bits, as in `Groups`).
        let main: Vec<u32> = (0..links.len())
            .filter(|&i| !links[i].sidechain())
            .map(|i| i as u32)
            .collect();
        if !main.iter().any(|&i| links[i as usize].message()) {
            return None;
        }
        // The later of two lines with one uuid is the line (as the client keeps it).
        let mut by_uuid = vec![NO; names.len()];
        for (i, l) in links.iter().enumerate() {
            by_uuid[l.uuid as usize] = i as u32;
        }
        let ls = Links {
            links,
            uuids: names.len(),
            labels: &labels,
            ids: &ids,
            servers: &servers,
            rare: &rare,
            by_uuid,
        };
        let last = *main.last()? as usize;
        let leaf = newest_descendant(&ls, &stamps, &main, last);
        // Where the client goes on past a broken parent, found when one is met.
        let joins = std::cell::OnceCell::new();
        let join = |i: usize, skip: &dyn Fn(usize) -> bool| {
            joins.get_or_init(|| Joins::new(links, &stamps)).from(
                links,
                i,
                stamps.millis(i as Sym),
                skip,
            )
        };
        let mut chain = Chain::default();
        if let Some(f) = shared_uuid(&ls, &names) {
            chain.explanation =
                "read in file order: the uuids do not identify lines (see TM012)".into();
            chain.findings.push(f);
            return Some(chain);
        }
        duplicates(&ls, &names, last, &mut chain.findings);
        parents(&ls, &names, &main, &join, &mut chain.findings);
        // The uuids are written out only in findings from here on: those of the parents a
        // dropped line's children would take (see `server_orphans`).
        let parent_names: HashMap<Sym, String> = ls
            .servers
            .iter()
            .filter(|&&(i, _)| links[i as usize].only_block())
            .filter_map(|&(i, _)| links[i as usize].parent.get())
            .map(|p| (p, names.get(p).into_owned()))
            .collect();
        drop(names);
        let mut seen = vec![false; links.len()];
        // Link indices, in 4 bytes each: room for all of them at once, rather than a buffer
        // that doubles (and holds both copies while it moves).
        let mut path: Vec<u32> = Vec::with_capacity(main.len());
        let mut at = Some(leaf);
        let (mut joined, mut start) = (0, None);
        while let Some(i) = at {
            if std::mem::replace(&mut seen[i], true) {
                break;
            }
            path.push(i as u32);
            at = match links[i].parent.get() {
                None => None,
                // A parent that names no line, or one already on the history (a cycle).
                Some(p) => match ls.line_of(p).filter(|&j| !seen[j]) {
                    Some(j) => Some(j),
                    None => {
                        let to = join(i, &|j| seen[j]);
                        match to {
                            Some(_) => joined += 1,
                            None => start = Some(i),
                        }
                        to
                    }
                },
            };
        }
        drop((seen, main, joins));
        path.reverse();
        chain.next_lines = next_lines(&ls, &path);
        let path = with_parallel_parts(&ls, path);
        let mut on_path = vec![false; links.len()];
        for &i in &path {
            on_path[i as usize] = true;
        }
        let boundary = path.iter().position(|&i| links[i as usize].boundary());
        let abandoned = links
            .iter()
            .zip(&on_path)
            .filter(|&(l, &on)| !l.sidechain() && l.message() && !on)
            .count();
        chain.explanation = format!(
            "resumed history: the parentUuid chain from line {}{}, {} of {} lines{}{}{}{}",
            links[leaf].line(),
            if leaf == last {
                " (the file's last line)".to_string()
            } else {
                format!(
                    " (the newest line below line {}, the file's last line)",
                    links[last].line()
                )
            },
            path.len(),
            links.len(),
            match joined {
                0 => String::new(),
                n => format!(
                    ", {n} broken parent(s) joined to the newest line written at most 5 s before"
                ),
            },
            match start {
                None => String::new(),
                Some(s) => format!(
                    ", starting at line {}: its parent names no line (or one already on it), and no line was written in the 5 s before it",
                    links[s].line()
                ),
            },
            match boundary {
                Some(b) => format!(
                    ", starting at the compact_boundary on line {}",
                    links[path[b] as usize].line()
                ),
                None => String::new(),
            },
            match abandoned {
                0 => String::new(),
                n => format!(
                    "; {n} message line(s) off it (abandoned branches, replaced copies, or before a compaction) are not checked"
                ),
            }
        );
        split_pairs(&ls, &path, &on_path, &mut chain);
        server_orphans(&ls, &parent_names, &path, &mut chain.findings);
        chain.path = Some(path.iter().map(|&i| links[i as usize].line()).collect());
        chain.findings.sort_by_key(|f| (f.line, f.column));
        Some(chain)
    }
}

/// The lines of the single chain `path` (link indices, first first) whose next line on it
/// hangs from them but is not the first later line of the file that does (see
/// [`Chain::next_lines`]).
fn next_lines(ls: &Links<'_>, path: &[u32]) -> Vec<(usize, usize)> {
    let links = ls.links;
    // A next line right after its line in the file is its first later child; the others are
    // looked at (a few in a file: forks, copies, lines written out of order).
    let pairs: Vec<(usize, usize)> = path
        .windows(2)
        .map(|w| (w[0] as usize, w[1] as usize))
        .filter(|&(line, next)| {
            next != line + 1 && links[next].parent.get().and_then(|p| ls.line_of(p)) == Some(line)
        })
        .collect();
    if pairs.is_empty() {
        return Vec::new();
    }
    // The lines hanging from the uuids in question, in file order.
    let asked: HashSet<Sym> = pairs.iter().map(|&(line, _)| links[line].uuid).collect();
    let mut hanging: HashMap<Sym, Vec<usize>> = HashMap::new();
    for (j, l) in links.iter().enumerate() {
        if let Some(p) = l.parent.get().filter(|p| asked.contains(p)) {
            hanging.entry(p).or_default().push(j);
        }
    }
    let mut next: Vec<(usize, usize)> = pairs
        .into_iter()
        .filter(|&(line, next)| {
            let later = &hanging[&links[line].uuid];
            later.get(later.partition_point(|&j| j <= line)) != Some(&next)
        })
        .map(|(line, next)| (links[line].start(), links[next].start()))
        .collect();
    next.sort_unstable();
    next
}

/// Where the line that the resumed history goes on with after the line starting at `line`
/// (its text at or after it, up to `at`, where a message of it starts) starts, when
/// [`Chain::next_lines`] names one.
pub(crate) fn next_line_of(next_lines: &[(usize, usize)], line: usize, at: usize) -> Option<usize> {
    let k = next_lines.partition_point(|&(start, _)| start <= at);
    let (start, next) = *next_lines.get(k.checked_sub(1)?)?;
    (start >= line).then_some(next)
}

/// No line (in the vectors indexed by interned string).
const NO: u32 = u32::MAX;

/// The links of a file with their ids, and the line each uuid names.
struct Links<'r> {
    links: &'r Chunked<Link>,
    /// How many uuids there are (every uuid's number is below this).
    uuids: usize,
    labels: &'r Names,
    ids: &'r [Sym],
    servers: &'r [(u32, Box<[ServerResult]>)],
    rare: &'r [(u32, Rare)],
    /// For each interned string: the index of the later line with that uuid (`NO`: none).
    by_uuid: Vec<u32>,
}

impl Links<'_> {
    /// The line whose uuid is `sym` (the later one, of two).
    fn line_of(&self, sym: Sym) -> Option<usize> {
        match self.by_uuid[sym as usize] {
            NO => None,
            i => Some(i as usize),
        }
    }

    /// Message id or tool id `sym`.
    fn label(&self, sym: Sym) -> Cow<'_, str> {
        self.labels.get(sym)
    }

    /// The ids of link `i`.
    fn ids_of(&self, i: usize) -> &[Sym] {
        let end = match i + 1 {
            next if next < self.links.len() => self.links[next].ids as usize,
            _ => self.ids.len(),
        };
        &self.ids[self.links[i].ids as usize..end]
    }

    /// The `tool_use` / `server_tool_use` ids of link `i`.
    fn calls(&self, i: usize) -> &[Sym] {
        match self.links[i].flags & ASSISTANT {
            0 => &[],
            _ => self.ids_of(i),
        }
    }

    /// The `tool_result` ids of link `i`.
    fn results(&self, i: usize) -> &[Sym] {
        match self.links[i].flags & ASSISTANT {
            0 => self.ids_of(i),
            _ => &[],
        }
    }

    /// The rare part of link `i`.
    fn rare(&self, i: usize) -> Option<&Rare> {
        if self.links[i].flags & RARE == 0 {
            return None;
        }
        let k = self.rare.binary_search_by_key(&(i as u32), |(at, _)| *at);
        k.ok().map(|k| &self.rare[k].1)
    }

    /// Byte span of the text of link `i`'s line in the file.
    fn span(&self, i: usize) -> (usize, usize) {
        let l = &self.links[i];
        let len = match l.len {
            LONG => self.rare(i).map_or(0, |r| r.len as usize),
            short => short as usize,
        };
        (l.start(), l.start() + len)
    }

    /// Where the `parentUuid` value of link `i` starts within its line, when it is a string.
    fn parent_at(&self, i: usize) -> Option<usize> {
        match self.links[i].parent_at {
            NOT_STRING => None,
            LONG => self.rare(i).map(|r| r.parent_at as usize),
            short => Some(short as usize),
        }
    }

    /// The column of the `parentUuid` value of link `i` (a string).
    fn parent_column(&self, i: usize) -> usize {
        match self.rare(i).map_or(0, |r| r.parent_column) {
            0 => self.parent_at(i).map_or(0, |at| at + 1),
            c => c as usize,
        }
    }

    /// The `logicalParentUuid` of link `i`.
    fn logical_parent(&self, i: usize) -> Option<Sym> {
        self.rare(i).and_then(|r| r.logical_parent.get())
    }

    /// Byte span of the `parentUuid` value of link `i` in the file, when it is a string.
    fn parent_span(&self, i: usize) -> Option<(usize, usize)> {
        let l = &self.links[i];
        self.parent_at(i).map(|at| {
            let at = l.start() + at;
            let len = match l.parent_len {
                u8::MAX => self.rare(i).map_or(0, |r| r.parent_len as usize),
                short => short as usize,
            };
            (at, at + len)
        })
    }

    /// The server tool results of link `i`.
    fn server_results(&self, i: usize) -> &[ServerResult] {
        match self
            .servers
            .binary_search_by_key(&(i as u32), |(at, _)| *at)
        {
            Ok(k) => &self.servers[k].1,
            Err(_) => &[],
        }
    }

    /// Link indices grouped by a uuid, each group in the order given (`pairs` gives them
    /// twice: once to count, once to place).
    fn group<I: Iterator<Item = (Sym, usize)>>(&self, pairs: impl Fn() -> I) -> Groups {
        Groups::new(self.uuids, pairs)
    }
}

/// Values grouped by a key below a known bound (a multimap as two flat vectors).
struct Groups {
    starts: Vec<u32>,
    values: Vec<u32>,
}

impl Groups {
    fn new<I: Iterator<Item = (Sym, usize)>>(keys: usize, pairs: impl Fn() -> I) -> Groups {
        // Count the values of each key `k` at `k + 1`, then add up: `starts[k]` is where the
        // values of `k` begin.
        let mut starts = vec![0u32; keys + 1];
        for (k, _) in pairs() {
            starts[k as usize + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut values = vec![0u32; starts[keys] as usize];
        for (k, v) in pairs() {
            let next = &mut starts[k as usize];
            values[*next as usize] = v as u32;
            *next += 1;
        }
        // Now `starts[k]` is where the values of `k` end: move each to `k + 1`.
        starts.rotate_right(1);
        starts[0] = 0;
        Groups { starts, values }
    }

    /// The values of `key`, in the order given (empty when none).
    fn get(&self, key: Sym) -> impl Iterator<Item = usize> + '_ {
        let k = key as usize;
        self.values[self.starts[k] as usize..self.starts[k + 1] as usize]
            .iter()
            .map(|&v| v as usize)
    }

    fn len(&self, key: Sym) -> usize {
        let k = key as usize;
        (self.starts[k + 1] - self.starts[k]) as usize
    }
}

/// A set of interned strings that empties in constant time.
struct Marks {
    stamp: Vec<u32>,
    epoch: u32,
}

impl Marks {
    fn new(keys: usize) -> Marks {
        Marks {
            stamp: vec![0; keys],
            epoch: 1,
        }
    }

    fn clear(&mut self) {
        self.epoch += 1;
    }

    fn insert(&mut self, key: Sym) {
        self.stamp[key as usize] = self.epoch;
    }

    fn contains(&self, key: Sym) -> bool {
        self.stamp[key as usize] == self.epoch
    }
}

/// Where the client starts: from `start`, down to the newest child written after it (by
/// timestamp), again and again. The children of a line are found by a scan of the main-chain
/// links: the file's last line seldom has any, so one or two scans are the rule and no table
/// by uuid is built; past [`SCANS`] steps the children are grouped once.
fn newest_descendant(ls: &Links<'_>, stamps: &Stamps, main: &[u32], start: usize) -> usize {
    let links = ls.links;
    let stamp = |i: usize| stamps.get(i as Sym);
    // A main-chain line that is the line of its uuid, with parent `uuid`.
    let child_of = |uuid: Sym, i: usize| {
        links[i].parent.get() == Some(uuid) && ls.line_of(links[i].uuid) == Some(i)
    };
    let newest = |now: &str, children: &mut dyn Iterator<Item = usize>| {
        children
            .filter(|&c| stamp(c).is_some_and(|t| *t > *now))
            .max_by(|&a, &b| stamp(a).cmp(&stamp(b)))
    };
    let mut walked = Vec::new();
    let mut at = start;
    while walked.len() < SCANS {
        if walked.contains(&at) {
            return at;
        }
        walked.push(at);
        let Some(now) = stamp(at) else {
            return at;
        };
        let uuid = links[at].uuid;
        let mut children = main
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| child_of(uuid, i));
        match newest(&now, &mut children) {
            Some(c) => at = c,
            None => return at,
        }
    }
    let children = ls.group(|| {
        main.iter()
            .map(|&i| i as usize)
            .filter(|&i| ls.line_of(links[i].uuid) == Some(i))
            .filter_map(|i| links[i].parent.get().map(|p| (p, i)))
    });
    let mut seen = vec![false; links.len()];
    let mut at = start;
    while !std::mem::replace(&mut seen[at], true) {
        let Some(now) = stamp(at) else {
            break;
        };
        match newest(&now, &mut children.get(links[at].uuid)) {
            Some(c) => at = c,
            None => break,
        }
    }
    at
}

/// The most steps [`newest_descendant`] takes by scanning.
const SCANS: usize = 16;

/// The line the client goes on at from a line with a broken parent, past the lines the second
/// argument names (see [`Joins::from`]).
type Join<'a> = dyn Fn(usize, &dyn Fn(usize) -> bool) -> Option<usize> + 'a;

/// How long before a line with a broken parent the client looks for the line it goes on at.
const JOIN_WINDOW_MS: i64 = 5_000;

/// Where the client goes on from a line whose `parentUuid` names no line of the file, or a line
/// already on the history (a cycle): the newest line written at most [`JOIN_WINDOW_MS`] before
/// it (by timestamp; of equal times, the earlier in the file), on its side (sidechain or not),
/// not already on the history, not a `progress` or `file_snapshot` line, with a time it can
/// read. With none, the history starts at the line (checked with the real client, whatever
/// the lines' order in the file: see `docs/claude-code.md`).
struct Joins {
    /// The lines each side may go on at (main chain, sidechain): (time, link), by time, the
    /// later in the file first among equal times.
    sides: [Vec<(i64, u32)>; 2],
}

impl Joins {
    fn new(links: &Chunked<Link>, stamps: &Stamps) -> Joins {
        let mut sides = [Vec::new(), Vec::new()];
        stamps.each_millis(|i, ms| {
            let l = &links[i as usize];
            if let Some(ms) = ms.filter(|_| l.joinable()) {
                sides[usize::from(l.sidechain())].push((ms, i));
            }
        });
        for side in &mut sides {
            side.sort_unstable_by_key(|&(t, i)| (t, std::cmp::Reverse(i)));
        }
        Joins { sides }
    }

    /// The line the client goes on at from line `i`, written at `at`, past the lines `skip`
    /// names (those already on the history).
    fn from(
        &self,
        links: &Chunked<Link>,
        i: usize,
        at: Option<i64>,
        skip: &dyn Fn(usize) -> bool,
    ) -> Option<usize> {
        let at = at?;
        let side = &self.sides[usize::from(links[i].sidechain())];
        let mut k = side.partition_point(|&(t, _)| t <= at);
        while k > 0 {
            k -= 1;
            let (t, j) = side[k];
            if !skip(j as usize) {
                return (at - t <= JOIN_WINDOW_MS).then_some(j as usize);
            }
        }
        None
    }
}

/// The lines of one API message are chained one after another, and parallel results each
/// hang from the line of their own call, so a single parent chain misses some of them; the
/// client adds them back: every line of an API message on the path, then the result lines
/// hanging from those lines (or from such a result line), right after the message. It also
/// finds a call's result by its id anywhere else in the file (another branch, before the call,
/// a line with no parent; not a sidechain): such a line is added there too, when every result
/// it holds answers a call of the message that the history leaves unanswered (checked with the
/// real client: see `docs/claude-code.md`).
fn with_parallel_parts(ls: &Links<'_>, path: Vec<u32>) -> Vec<u32> {
    let links = ls.links;
    let mut on_path = vec![false; links.len()];
    for &i in &path {
        on_path[i as usize] = true;
    }
    let (groups, children, elsewhere) = {
        // Of two main-chain lines with one uuid only the later one exists for the client: the
        // later line of all when it is one, else (a sidechain line took its uuid after it)
        // the later of these.
        let mut shadowed: HashMap<Sym, usize> = HashMap::new();
        for (i, l) in links.iter().enumerate() {
            if !l.sidechain() && ls.line_of(l.uuid).is_some_and(|j| links[j].sidechain()) {
                shadowed.insert(l.uuid, i);
            }
        }
        let is_kept = |i: usize| {
            let (l, later) = (&links[i], ls.line_of(links[i].uuid));
            !l.sidechain() && (later == Some(i) || shadowed.get(&l.uuid) == Some(&i))
        };
        let kept = || (0..links.len()).filter(|&i| is_kept(i));
        (
            Groups::new(ls.labels.len(), || {
                kept().filter_map(|i| links[i].group.get().map(|g| (g, i)))
            }),
            ls.group(|| kept().filter_map(|i| links[i].parent.get().map(|p| (p, i)))),
            Elsewhere::new(ls, &on_path, is_kept),
        )
    };
    let mut done = vec![false; links.len()];
    let mut out = Vec::with_capacity(path.len());
    for i in path.into_iter().map(|i| i as usize) {
        if std::mem::replace(&mut done[i], true) {
            continue;
        }
        let Some(group) = links[i].group.get().filter(|&g| groups.len(g) > 0) else {
            out.push(i as u32);
            if let Some(e) = &elsewhere {
                let mut results = Vec::new();
                e.add(ls, [i].into_iter(), &on_path, &mut done, &mut results);
                out.extend(results.into_iter().map(|c| c as u32));
            }
            continue;
        };
        // The whole API message at its first line, in file order, then the results hanging
        // from its lines that the chain misses.
        let mut results = Vec::new();
        for m in groups.get(group) {
            if m == i || !std::mem::replace(&mut done[m], true) {
                out.push(m as u32);
            }
            for c in children.get(links[m].uuid) {
                if !on_path[c]
                    && !ls.results(c).is_empty()
                    && !std::mem::replace(&mut done[c], true)
                {
                    results.push(c);
                }
            }
        }
        // And the result lines hanging from those, at any depth: the client sends a result
        // that hangs from another result of the message (as placeholders after it do).
        let mut k = 0;
        while let Some(&r) = results.get(k) {
            k += 1;
            for c in children.get(links[r].uuid) {
                if !on_path[c]
                    && !ls.results(c).is_empty()
                    && !std::mem::replace(&mut done[c], true)
                {
                    results.push(c);
                }
            }
        }
        if let Some(e) = &elsewhere {
            e.add(ls, groups.get(group), &on_path, &mut done, &mut results);
        }
        results.sort_unstable();
        out.extend(results.into_iter().map(|c| c as u32));
    }
    out
}

/// The result lines off the path, by the ids they answer: where the client finds a result by
/// its id when the history leaves a call unanswered.
struct Elsewhere {
    /// Kept lines off the path that hold results, by each result id they hold.
    lines: Groups,
    /// The result ids that lines on the path answer.
    answered: Vec<bool>,
}

impl Elsewhere {
    /// `None` when no kept line off the path holds a result (nothing to look up).
    fn new(ls: &Links<'_>, on_path: &[bool], kept: impl Fn(usize) -> bool) -> Option<Elsewhere> {
        // The cheap tests first: most lines are on the path.
        let off =
            || (0..on_path.len()).filter(|&i| !on_path[i] && !ls.results(i).is_empty() && kept(i));
        off().next()?;
        let mut answered = vec![false; ls.labels.len()];
        for (i, _) in on_path.iter().enumerate().filter(|(_, on)| **on) {
            for &r in ls.results(i) {
                answered[r as usize] = true;
            }
        }
        let lines = Groups::new(ls.labels.len(), || {
            off().flat_map(|i| ls.results(i).iter().map(move |&r| (r, i)))
        });
        Some(Elsewhere { lines, answered })
    }

    /// Add to `results` (the message's result lines so far) the lines off the path that answer
    /// calls of the message's `lines` left unanswered, when every result such a line holds
    /// does.
    fn add(
        &self,
        ls: &Links<'_>,
        lines: impl Iterator<Item = usize>,
        on_path: &[bool],
        done: &mut [bool],
        results: &mut Vec<usize>,
    ) {
        let answered_here = |id: Sym, results: &[usize]| {
            self.answered[id as usize] || results.iter().any(|&r| ls.results(r).contains(&id))
        };
        let open: Vec<Sym> = lines
            .flat_map(|m| ls.calls(m).iter().copied())
            .filter(|&c| !answered_here(c, results))
            .collect();
        for &c in &open {
            for j in self.lines.get(c) {
                if !on_path[j]
                    && !done[j]
                    && ls.results(j).iter().all(|r| open.contains(r))
                    && !ls.results(j).iter().any(|&r| answered_here(r, results))
                {
                    done[j] = true;
                    results.push(j);
                }
            }
        }
    }
}

/// What the TM012 finding of [`shared_uuid`] says: the file is read in file order, not as a
/// tree (a streamed repair leaves such a file to the whole-file repair).
pub(crate) const UUIDS_NOT_IDENTIFIERS: &str = "the uuids do not identify lines";

/// One uuid shared by three lines or more with different content: the uuids are not
/// identifiers (trimmed or redacted), so the tree cannot be read with confidence.
fn shared_uuid(ls: &Links<'_>, names: &Names) -> Option<TreeFinding> {
    let links = ls.links;
    // The lines of each uuid that more than one line has (the later line of each is the one
    // `line_of` gives, so the earlier ones are the few that are not).
    let mut shared: HashMap<Sym, Vec<usize>> = HashMap::new();
    for (i, l) in links.iter().enumerate() {
        if ls.line_of(l.uuid) != Some(i) {
            shared.entry(l.uuid).or_default().push(i);
        }
    }
    let (uuid, shared) = shared
        .into_iter()
        .map(|(k, mut lines)| {
            lines.extend(ls.line_of(k));
            (k, lines)
        })
        .filter(|(_, ls)| ls.len() >= 3)
        .filter(|(_, ls)| {
            ls.iter()
                .any(|&l| links[l].digest() != links[ls[0]].digest())
        })
        .min_by_key(|(_, ls)| links[ls[0]].line)?;
    Some(TreeFinding {
        rule: Rule::DuplicateUuid,
        warning: false,
        line: links[shared[1]].line(),
        column: 1,
        fix: None,
        message: format!(
            "uuid `{}` is shared by {} lines with different content (first on line {}): {UUIDS_NOT_IDENTIFIERS} (trimmed or redacted?), so Claude Code cannot rebuild this history; toolmend reads the file in file order and does not check its tree",
            names.get(uuid),
            shared.len(),
            links[shared[0]].line()
        ),
    })
}

/// TM012: lines sharing a uuid. Identical copies collapse (a warning); different content is an
/// error, since the client keeps only the later line.
///
/// A copy that is the file's last main-chain line (`last`, where the reading starts) is not
/// dropped on its own: the reading would then start at another line, and could resume another
/// branch. It goes when placeholders are put right after it (they are the last lines then).
fn duplicates(ls: &Links<'_>, names: &Names, last: usize, out: &mut Vec<TreeFinding>) {
    let links = ls.links;
    let mut first = vec![NO; ls.uuids];
    for (i, l) in links.iter().enumerate() {
        let f = first[l.uuid as usize];
        if f == NO {
            first[l.uuid as usize] = i as u32;
            continue;
        }
        let earlier = &links[f as usize];
        let identical = earlier.digest() == l.digest();
        let uuid = names.get(l.uuid);
        out.push(TreeFinding {
            rule: Rule::DuplicateUuid,
            warning: identical,
            line: l.line(),
            column: 1,
            fix: identical.then_some(TreeFix::DropCopy {
                line: ls.span(i),
                last: i == last,
            }),
            message: if identical {
                format!(
                    "line repeats line {} byte for byte (uuid `{uuid}`): Claude Code reads it once; readers that count lines see it twice",
                    earlier.line()
                )
            } else {
                format!(
                    "uuid `{uuid}` is also the uuid of line {}, with different content: Claude Code 2.1.332 keeps this later line and silently drops line {} from the history; other readers disagree on which one is meant",
                    earlier.line(), earlier.line()
                )
            },
        });
    }
}

/// TM010 (a parent that names no line) and TM011 (cycles and self-parents).
fn parents(
    ls: &Links<'_>,
    names: &Names,
    main: &[u32],
    join: &Join<'_>,
    out: &mut Vec<TreeFinding>,
) {
    let links = ls.links;
    // Where the client goes on from line `i` (see `Joins`), in words.
    let goes_on = |i: usize| match join(i, &|j| j == i) {
        Some(j) => format!(
            "continues at line {}, the newest line written at most 5 s before it",
            links[j].line()
        ),
        None => "starts the history here (no line was written in the 5 s before it)".into(),
    };
    for &i in main {
        let l = &links[i as usize];
        let Some(parent) = l.parent.get() else {
            continue;
        };
        let p = || names.get(parent);
        if parent == l.uuid {
            out.push(TreeFinding {
                rule: Rule::ParentCycle,
                warning: true,
                line: l.line(),
                column: ls.parent_column(i as usize),
                fix: None,
                message: format!(
                    "line is its own parent (parentUuid `{}`): Claude Code 2.1.332 {}; readers that follow the chain loop or fail",
                    p(),
                    goes_on(i as usize)
                ),
            });
        } else if ls.line_of(parent).is_none() {
            out.push(TreeFinding {
                rule: Rule::MissingParent,
                warning: true,
                line: l.line(),
                column: ls.parent_column(i as usize),
                fix: None,
                message: format!(
                    "parentUuid `{}` names no line of this file: Claude Code 2.1.332 {}; viewers and exporters that follow the chain lose everything before this line",
                    p(),
                    goes_on(i as usize)
                ),
            });
        }
    }
    // Cycles of two lines or more: follow parents from each line, colouring as we go.
    let mut state = vec![0u8; links.len()];
    for start in 0..links.len() {
        let mut trail = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            if state[i] == 2 {
                break;
            }
            if state[i] == 1 {
                let cycle = &trail[trail.iter().position(|&t| t == i).unwrap_or(0)..];
                if cycle.len() > 1 {
                    let &first = cycle.iter().min().unwrap_or(&i);
                    let l = &links[first];
                    // A line on a cycle has a parent that names a line.
                    let back = l.parent.get().and_then(|p| ls.line_of(p)).unwrap_or(first);
                    out.push(TreeFinding {
                        rule: Rule::ParentCycle,
                        warning: true,
                        line: l.line(),
                        column: ls.parent_column(first),
                        fix: None,
                        message: format!(
                            "parentUuid `{}` closes a cycle of {} lines (back to line {}): where its walk would repeat, Claude Code 2.1.332 goes on at the newest line written at most 5 s before, or starts the history there when there is none; readers that follow the chain loop or fail",
                            l.parent.get().map(|p| names.get(p)).unwrap_or_default(),
                            cycle.len(),
                            links[back].line()
                        ),
                    });
                }
                break;
            }
            state[i] = 1;
            trail.push(i);
            at = links[i]
                .parent
                .get()
                .filter(|&p| p != links[i].uuid)
                .and_then(|p| ls.line_of(p));
        }
        for t in trail {
            state[t] = 2;
        }
    }
}

/// TM013: results on the path whose call is elsewhere in the file (an abandoned branch, or
/// before a compact boundary): Claude Code drops them; the walk does not see them.
fn split_pairs(ls: &Links<'_>, path: &[u32], on_path: &[bool], chain: &mut Chain) {
    let links = ls.links;
    let mut first_call = vec![NO; ls.labels.len()];
    for i in 0..links.len() {
        for &c in ls.calls(i) {
            if first_call[c as usize] == NO {
                first_call[c as usize] = i as u32;
            }
        }
    }
    // The lines before each compact boundary, found once per boundary.
    let mut before: HashMap<usize, HashSet<usize>> = HashMap::new();
    let mut calls_on_path = Marks::new(ls.labels.len());
    let mut boundary: Option<usize> = None;
    for i in path.iter().map(|&i| i as usize) {
        let l = &links[i];
        if l.boundary() {
            boundary = Some(i);
            calls_on_path.clear();
        }
        for &c in ls.calls(i) {
            calls_on_path.insert(c);
        }
        for &id in ls.results(i) {
            if calls_on_path.contains(id) {
                continue;
            }
            // A call on the path after its result is the walk's business (TM002).
            let call = match first_call[id as usize] {
                NO => continue,
                c => c as usize,
            };
            if on_path[call] {
                continue;
            }
            let replaced = ls.line_of(links[call].uuid) != Some(call);
            let why = match boundary {
                _ if replaced => format!(
                    "its call (line {}) is in a line whose uuid a later line reuses, so that line is not part of the history (TM012)",
                    links[call].line()
                ),
                Some(b)
                    if before
                        .entry(b)
                        .or_insert_with(|| lineage(ls, b))
                        .contains(&call) =>
                {
                    format!(
                        "its call (line {}) is before the compact_boundary on line {}: after compaction the model sees the summary, not the call",
                        links[call].line(),
                        links[b].line()
                    )
                }
                _ => format!(
                    "its call (line {}) is on another branch of the parentUuid tree (a /rewind fork or retry), which resume does not send",
                    links[call].line()
                ),
            };
            chain
                .split
                .insert((l.line(), ls.label(id).to_string()), why);
        }
    }
}

/// The lines before compact boundary `b`: its `logicalParentUuid` and their ancestors.
fn lineage(ls: &Links<'_>, b: usize) -> HashSet<usize> {
    let links = ls.links;
    let mut seen = HashSet::new();
    let mut at = ls.logical_parent(b).and_then(|p| ls.line_of(p));
    while let Some(i) = at {
        if !seen.insert(i) {
            break;
        }
        let l = &links[i];
        at = l
            .parent
            .get()
            .or(ls.logical_parent(i))
            .and_then(|p| ls.line_of(p));
    }
    seen
}

/// TM014: a server tool result (`web_search_tool_result`, `advisor_tool_result`, …) on the
/// path whose `server_tool_use` is not on it.
/// `parent_names`: the uuid of the parent of each link whose line is one server tool result.
fn server_orphans(
    ls: &Links<'_>,
    parent_names: &HashMap<Sym, String>,
    path: &[u32],
    out: &mut Vec<TreeFinding>,
) {
    let links = ls.links;
    if ls.servers.is_empty() {
        return;
    }
    let mut calls = Marks::new(ls.labels.len());
    let below = ls.group(|| {
        links
            .iter()
            .enumerate()
            .filter(|&(i, _)| ls.parent_span(i).is_some())
            .filter_map(|(i, c)| c.parent.get().map(|p| (p, i)))
    });
    let children = |uuid: Sym| -> Vec<(usize, usize)> {
        below.get(uuid).filter_map(|c| ls.parent_span(c)).collect()
    };
    for i in path.iter().map(|&i| i as usize) {
        let l = &links[i];
        if l.boundary() {
            calls.clear();
        }
        for &c in ls.calls(i) {
            calls.insert(c);
        }
        for r in ls.server_results(i) {
            if calls.contains(r.id) {
                continue;
            }
            let (id, kind) = (ls.label(r.id), &r.kind);
            out.push(TreeFinding {
                rule: Rule::OrphanServerToolResult,
                warning: false,
                line: l.line(),
                column: r.column,
                fix: Some(TreeFix::Orphan {
                    block: r.span,
                    note: format!(
                        "[Result of server tool call {id} ({kind}), whose call is not in this history:]\n{}",
                        r.text
                    ),
                    drop: l.only_block().then(|| DropLine {
                        line: ls.span(i),
                        children: children(l.uuid),
                        parent: l.parent.get().and_then(|p| parent_names.get(&p).cloned()),
                    }),
                }),
                message: format!(
                    "`{kind}` for `{id}` has no `server_tool_use` with that id before it on the resumed history: Claude Code 2.1.332 sends it as it is and the API rejects the request with a 400"
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session with a fork, a duplicate uuid and a result whose call is on the other branch.
    const SESSION: &[&str] = &[
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T10:00:01.000Z","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T10:00:02.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{}}]}}"#,
        r#"{"type":"assistant","uuid":"a2","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T10:00:03.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"c2","name":"Bash","input":{}}]}}"#,
        r#"{"type":"user","uuid":"r1","parentUuid":"a2","sessionId":"s","timestamp":"2026-01-01T10:00:04.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"x"},{"type":"tool_result","tool_use_id":"c2","content":"y"}]}}"#,
        r#"{"type":"user","uuid":"r1","parentUuid":"a2","sessionId":"s","timestamp":"2026-01-01T10:00:04.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"x"},{"type":"tool_result","tool_use_id":"c2","content":"y"}]}}"#,
        r#"{"type":"user","uuid":"u2","parentUuid":"gone","sessionId":"s","timestamp":"2026-01-01T10:00:05.000Z","message":{"role":"user","content":"next"}}"#,
    ];

    /// Takes one parsed line: its number, start, text and tree.
    type Take<'r> = &'r mut dyn FnMut(usize, usize, &[u8], &Tree<'_>);

    fn read(reader: Take<'_>, lines: std::ops::Range<usize>) {
        let mut start = 0;
        for (i, line) in SESSION.iter().enumerate() {
            if lines.contains(&i) {
                let tree = crate::json::parse(line.as_bytes()).expect("a JSON line");
                reader(i + 1, start, line.as_bytes(), &tree);
            }
            start += line.len() + 1;
        }
    }

    #[test]
    fn a_long_parent_and_a_logical_parent_are_kept_beside_their_link() {
        let long = "p".repeat(70_000);
        let lines = [
            r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"u0","sessionId":"s"}"#.to_string(),
            format!(r#"{{"type":"user","uuid":"u1","parentUuid":"{long}","sessionId":"s"}}"#),
            r#"{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s"}"#.to_string(),
        ];
        let (mut first, mut second) = (ChainReader::default(), LinkDrafts::default());
        let mut start = 0;
        for (i, line) in lines.iter().enumerate() {
            let tree = crate::json::parse(line.as_bytes()).expect("a JSON line");
            if i == 0 {
                first.parsed(i + 1, start, line.as_bytes(), &tree);
            } else {
                second.parsed(i + 1, start, line.as_bytes(), &tree);
            }
            start += line.len() + 1;
        }
        first.take(&mut second);
        let r = &first;
        let ls = Links {
            links: &r.links,
            uuids: r.names.len(),
            labels: &r.labels,
            ids: &r.ids,
            servers: &r.servers,
            rare: &r.rare,
            by_uuid: Vec::new(),
        };
        assert_eq!(
            ls.logical_parent(0).map(|p| r.names.get(p)),
            Some("u0".into())
        );
        let at = lines[0].len()
            + 1
            + lines[1].find('"').unwrap()
            + r#""type":"user","uuid":"u1","parentUuid":"#.len();
        assert_eq!(ls.parent_span(1), Some((at, at + long.len() + 2)));
        assert_eq!(ls.logical_parent(1), None);
        let at = lines[0].len() + lines[1].len() + 2 + lines[2].find("\"u1\"").unwrap();
        assert_eq!(ls.parent_span(2), Some((at, at + 4)));
        assert_eq!(ls.parent_span(0), None);
    }

    #[test]
    fn a_link_costs_ten_words_of_four_bytes() {
        assert!(std::mem::size_of::<Link>() <= 40);
    }

    #[test]
    fn a_line_past_4_gib_a_mid_length_parent_a_column_after_other_text_and_a_long_line_read_back() {
        let mid = "q".repeat(300);
        let lines = [
            format!(r#"{{"type":"user","uuid":"u1","parentUuid":"{mid}","sessionId":"s"}}"#),
            r#"{"type":"user","note":"é","uuid":"u2","parentUuid":"gone","sessionId":"s"}"#
                .to_string(),
            r#"{"type":"user","uuid":"u3","parentUuid":"gone","sessionId":"s"}"#.to_string(),
            format!(
                r#"{{"type":"user","pad":"{}","uuid":"u4","parentUuid":"u3","sessionId":"s"}}"#,
                "p".repeat(70_000)
            ),
        ];
        let mut reader = ChainReader::default();
        let base = (5usize << 32) + 17;
        let mut start = base;
        for (i, line) in lines.iter().enumerate() {
            let tree = crate::json::parse(line.as_bytes()).expect("a JSON line");
            reader.parsed(i + 1, start, line.as_bytes(), &tree);
            start += line.len() + 1;
        }
        let ls = Links {
            links: &reader.links,
            uuids: reader.names.len(),
            labels: &reader.labels,
            ids: &reader.ids,
            servers: &reader.servers,
            rare: &reader.rare,
            by_uuid: Vec::new(),
        };
        assert_eq!(ls.span(0), (base, base + lines[0].len()));
        let at = base + r#"{"type":"user","uuid":"u1","parentUuid":"#.len();
        assert_eq!(ls.parent_span(0), Some((at, at + mid.len() + 2)));
        // The column counts characters; the byte offset does not.
        let byte = lines[1].find("\"gone").unwrap();
        assert_eq!(ls.parent_column(1), byte);
        assert_eq!(ls.parent_column(2), lines[2].find("\"gone").unwrap() + 1);
        // A line and an offset past 64 KiB.
        let at = lines[3].find("\"u3").unwrap();
        let start = base + lines[..3].iter().map(|l| l.len() + 1).sum::<usize>();
        assert_eq!(ls.span(3), (start, start + lines[3].len()));
        assert_eq!(ls.parent_span(3), Some((start + at, start + at + 4)));
        assert_eq!(ls.parent_column(3), at + 1);
        // Only the first two and the last need a part beside their link.
        assert_eq!(reader.rare.len(), 3);
    }

    /// A root written last, below which `depth` lines were written later, each the child of
    /// the one before: the client starts at the deepest.
    fn late_descendants(depth: usize) -> Chain {
        let stamp = |k: usize| format!("2026-01-01T00:00:{k:02}.000Z");
        let mut lines: Vec<String> = (1..=depth)
            .map(|k| {
                let parent = if k == 1 { "r".to_string() } else { format!("c{}", k - 1) };
                format!(
                    r#"{{"type":"user","uuid":"c{k}","parentUuid":"{parent}","sessionId":"s","timestamp":"{}","message":{{"role":"user","content":"x"}}}}"#,
                    stamp(k + 1)
                )
            })
            .collect();
        lines.push(format!(
            r#"{{"type":"user","uuid":"r","parentUuid":null,"sessionId":"s","timestamp":"{}","message":{{"role":"user","content":"x"}}}}"#,
            stamp(1)
        ));
        let mut reader = ChainReader::default();
        let mut start = 0;
        for (i, line) in lines.iter().enumerate() {
            let tree = crate::json::parse(line.as_bytes()).expect("a JSON line");
            reader.parsed(i + 1, start, line.as_bytes(), &tree);
            start += line.len() + 1;
        }
        reader.finish().expect("a chain")
    }

    #[test]
    fn the_newest_descendant_is_found_near_and_far_below_the_last_line() {
        for depth in [1, 3, SCANS - 1, SCANS, SCANS + 1, 3 * SCANS] {
            let chain = late_descendants(depth);
            let mut path: Vec<usize> = (1..=depth).collect();
            path.insert(0, depth + 1);
            assert_eq!(chain.path, Some(path), "depth {depth}");
            assert!(
                chain.explanation.starts_with(&format!(
                    "resumed history: the parentUuid chain from line {depth} (the newest line below line {}",
                    depth + 1
                )),
                "{}",
                chain.explanation
            );
        }
    }

    #[test]
    fn a_file_read_in_blocks_gives_the_chain_of_one_reading() {
        let mut whole = ChainReader::default();
        read(
            &mut |n, s, t, tree| whole.parsed(n, s, t, tree),
            0..SESSION.len(),
        );
        let whole = whole.finish().expect("a chain");
        assert!(!whole.findings.is_empty() && !whole.split.is_empty());
        for cut in 1..SESSION.len() {
            // The lines after the cut drafted apart (as on another thread), then taken.
            let (mut first, mut second) = (ChainReader::default(), LinkDrafts::default());
            read(&mut |n, s, t, tree| first.parsed(n, s, t, tree), 0..cut);
            read(
                &mut |n, s, t, tree| second.parsed(n, s, t, tree),
                cut..SESSION.len(),
            );
            first.take(&mut second);
            let joined = first.finish().expect("a chain");
            assert_eq!(joined.path, whole.path, "cut at {cut}");
            assert_eq!(joined.explanation, whole.explanation, "cut at {cut}");
            assert_eq!(joined.findings, whole.findings, "cut at {cut}");
            assert_eq!(joined.split, whole.split, "cut at {cut}");
        }
    }
}
