//! The history Claude Code resumes: the `parentUuid` chain from the end of the file, as the
//! real client (2.1.332) walks it (docs/claude-code.md):
//! - the walk starts at the last non-sidechain line of the file, or, when lines hanging from it
//!   are newer (a late write, such as a parallel result), at its newest such descendant;
//!   not at the newest leaf of the tree;
//! - of two lines with one `uuid`, the later one is the line;
//! - a `parentUuid` that names no line continues at the line before it in the file;
//! - a cycle (or a self-parent) ends the walk where it repeats;
//! - a `compact_boundary` has no parent: the history starts there (its `logicalParentUuid`
//!   links to the lines before, which the model no longer sees).
//!
//! [`ChainReader`] takes every line of a file and gives the lines of that path, the findings
//! about the tree (TM010–TM014) and, for each result on the path whose call is not, where that
//! call is.

use std::collections::{HashMap, HashSet};

use crate::json::{Kind, NodeId, Tree, line_col, parse};
use crate::rules::Rule;

/// One line of the file that carries a `uuid`.
#[derive(Debug, Clone)]
struct Link {
    line: usize,
    /// Byte span of the line's text in the file (line ending excluded).
    span: (usize, usize),
    /// Byte span of the `parentUuid` value in the file.
    parent_span: Option<(usize, usize)>,
    uuid: String,
    parent: Option<String>,
    /// Column of the `parentUuid` value.
    parent_column: usize,
    sidechain: bool,
    /// A `user` or `assistant` line.
    message: bool,
    /// The `timestamp` (ISO 8601, compared as text).
    timestamp: Option<String>,
    boundary: bool,
    logical_parent: Option<String>,
    /// The line's bytes, to tell identical copies from conflicting ones.
    digest: u64,
    /// `message.id` of an assistant line: the lines of one API message share it.
    group: Option<String>,
    /// `tool_use` / `server_tool_use` ids of the line.
    calls: Vec<String>,
    /// `tool_result` ids (user lines).
    results: Vec<String>,
    /// Server tool results (assistant lines).
    server_results: Vec<ServerResult>,
    /// The line's content is that one server tool result.
    only_block: bool,
}

/// A server tool result block of an assistant line.
#[derive(Debug, Clone)]
struct ServerResult {
    id: String,
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
}

/// Reads the links of a file line by line; [`ChainReader::finish`] walks them.
#[derive(Debug, Default)]
pub struct ChainReader {
    links: Vec<Link>,
    /// A main-chain message line without a `uuid`: the file is then read in file order.
    untracked: bool,
}

/// Hash of a line's bytes (FNV-1a: stable, no dependency).
fn digest(text: &[u8]) -> u64 {
    text.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn column(tree: &Tree<'_>, node: NodeId) -> usize {
    line_col(tree.src(), tree.span(node).0).1
}

impl ChainReader {
    /// Read line `number` (its text without the line ending), which starts at byte `start`.
    pub fn line(&mut self, number: usize, start: usize, text: &[u8]) {
        let (text, start) = match text.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) if start == 0 => (rest, 3),
            _ => (text, start),
        };
        if memchr::memmem::find(text, b"\"parentUuid\"").is_none()
            && memchr::memmem::find(text, b"\"uuid\"").is_none()
        {
            return;
        }
        let Ok(tree) = parse(text) else { return };
        let root = tree.root();
        if tree.kind(root) != Kind::Object {
            return;
        }
        let ty = tree.get_str(root, "type").unwrap_or_default();
        let message = ty == "user" || ty == "assistant";
        let sidechain = tree.get(root, "isSidechain").and_then(|v| tree.bool(v)) == Some(true);
        let Some(uuid) = tree.get_str(root, "uuid").filter(|u| !u.is_empty()) else {
            if message && !sidechain {
                self.untracked = true;
            }
            return;
        };
        let parent_node = tree.get(root, "parentUuid");
        let mut link = Link {
            line: number,
            span: (start, start + text.len()),
            parent_span: parent_node
                .filter(|&p| tree.kind(p) == Kind::String)
                .map(|p| {
                    let (a, b) = tree.span(p);
                    (start + a, start + b)
                }),
            uuid: uuid.into_owned(),
            parent: parent_node
                .and_then(|p| tree.str(p))
                .map(|p| p.into_owned()),
            parent_column: parent_node.map_or(1, |p| column(&tree, p)),
            sidechain,
            message,
            timestamp: tree.get_str(root, "timestamp").map(|t| t.into_owned()),
            boundary: ty == "system" && tree.str_is(root, "subtype", "compact_boundary"),
            logical_parent: tree
                .get_str(root, "logicalParentUuid")
                .map(|p| p.into_owned()),
            digest: digest(text),
            group: (ty == "assistant")
                .then(|| {
                    tree.path(root, &["message", "id"])
                        .and_then(|i| tree.str(i))
                })
                .flatten()
                .map(|g| g.into_owned()),
            calls: Vec::new(),
            results: Vec::new(),
            server_results: Vec::new(),
            only_block: false,
        };
        let content = tree.path(root, &["message", "content"]);
        let blocks = content.map_or(0, |c| tree.len(c));
        for block in content.into_iter().flat_map(|c| tree.children(c)) {
            let kind = tree.get_str(block, "type").unwrap_or_default();
            let id = |key| tree.get_str(block, key).map(|s| s.into_owned());
            if ty == "assistant" && (kind == "tool_use" || kind == "server_tool_use") {
                link.calls.extend(id("id"));
            } else if ty == "assistant" && kind.ends_with("_tool_result") {
                if let Some(i) = id("tool_use_id") {
                    let (a, b) = tree.span(block);
                    link.server_results.push(ServerResult {
                        id: i,
                        kind: kind.into_owned(),
                        column: column(&tree, block),
                        span: (start + a, start + b),
                        text: server_text(&tree, block),
                    });
                    link.only_block = blocks == 1;
                }
            } else if ty == "user" && kind == "tool_result" {
                link.results.extend(id("tool_use_id"));
            }
        }
        self.links.push(link);
    }

    /// Add the links `later` read from the lines after this reader's (a file read in blocks).
    pub fn append(&mut self, later: ChainReader) {
        self.links.extend(later.links);
        self.untracked |= later.untracked;
    }

    /// Walk the tree: `None` when the file has no main-chain lines with uuids, or has message
    /// lines without one (then it is read in file order).
    pub fn finish(self) -> Option<Chain> {
        if self.untracked {
            return None;
        }
        let links = self.links;
        let main: Vec<usize> = (0..links.len()).filter(|&i| !links[i].sidechain).collect();
        if !main.iter().any(|&i| links[i].message) {
            return None;
        }
        // The later of two lines with one uuid is the line (as the client keeps it).
        let mut by_uuid: HashMap<&str, usize> = HashMap::new();
        for (i, l) in links.iter().enumerate() {
            by_uuid.insert(&l.uuid, i);
        }
        let last = *main.last()?;
        let leaf = newest_descendant(&links, &main, &by_uuid, last);
        let mut chain = Chain::default();
        if let Some(f) = shared_uuid(&links) {
            chain.explanation =
                "read in file order: the uuids do not identify lines (see TM012)".into();
            chain.findings.push(f);
            return Some(chain);
        }
        duplicates(&links, &mut chain.findings);
        parents(&links, &main, &by_uuid, &mut chain.findings);
        let mut seen = HashSet::new();
        let mut path = Vec::new();
        let mut at = Some(leaf);
        let mut gaps = 0;
        while let Some(i) = at {
            if !seen.insert(i) {
                break;
            }
            path.push(i);
            at = match links[i].parent.as_deref() {
                None => None,
                Some(p) => match by_uuid.get(p) {
                    Some(&j) => Some(j),
                    None => {
                        gaps += 1;
                        // `main` is in file order: the main-chain line just before.
                        main.partition_point(|&j| j < i)
                            .checked_sub(1)
                            .map(|k| main[k])
                    }
                },
            };
        }
        path.reverse();
        let path = with_parallel_parts(&links, &main, path);
        let on_path: HashSet<usize> = path.iter().copied().collect();
        let boundary = path.iter().position(|&i| links[i].boundary);
        let abandoned = main
            .iter()
            .filter(|&&i| links[i].message && !on_path.contains(&i))
            .count();
        chain.explanation = format!(
            "resumed history: the parentUuid chain from line {}{}, {} of {} lines{}{}{}",
            links[leaf].line,
            if leaf == last {
                " (the file's last line)".to_string()
            } else {
                format!(
                    " (the newest line below line {}, the file's last line)",
                    links[last].line
                )
            },
            path.len(),
            links.len(),
            if gaps > 0 {
                format!(", {gaps} missing parent(s) bridged to the line before")
            } else {
                String::new()
            },
            match boundary {
                Some(b) => format!(
                    ", starting at the compact_boundary on line {}",
                    links[path[b]].line
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
        split_pairs(&links, &path, &on_path, &by_uuid, &mut chain);
        server_orphans(&links, &path, &mut chain.findings);
        chain.path = Some(path.iter().map(|&i| links[i].line).collect());
        chain.findings.sort_by_key(|f| (f.line, f.column));
        Some(chain)
    }
}

/// Where the client starts: from `start`, down to the newest child written after it (by
/// timestamp), again and again.
fn newest_descendant(
    links: &[Link],
    main: &[usize],
    by_uuid: &HashMap<&str, usize>,
    start: usize,
) -> usize {
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in main {
        if by_uuid.get(links[i].uuid.as_str()) == Some(&i)
            && let Some(p) = links[i].parent.as_deref()
        {
            children.entry(p).or_default().push(i);
        }
    }
    let mut seen = HashSet::new();
    let mut at = start;
    while seen.insert(at) {
        let Some(now) = links[at].timestamp.as_deref() else {
            break;
        };
        let newer = children
            .get(links[at].uuid.as_str())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&c| links[c].timestamp.as_deref().is_some_and(|t| t > now))
            .max_by(|&a, &b| links[a].timestamp.cmp(&links[b].timestamp));
        match newer {
            Some(c) => at = c,
            None => break,
        }
    }
    at
}

/// The lines of one API message are chained one after another, and parallel results each
/// hang from the line of their own call, so a single parent chain misses some of them; the
/// client adds them back: every line of an API message on the path, then the result lines
/// hanging from those lines, right after the message.
fn with_parallel_parts(links: &[Link], main: &[usize], path: Vec<usize>) -> Vec<usize> {
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    // Of two lines with one uuid only the later one exists for the client.
    let mut canonical: HashMap<&str, usize> = HashMap::new();
    for &i in main {
        canonical.insert(&links[i].uuid, i);
    }
    for &i in main
        .iter()
        .filter(|&&i| canonical[links[i].uuid.as_str()] == i)
    {
        if let Some(g) = links[i].group.as_deref() {
            groups.entry(g).or_default().push(i);
        }
        if let Some(p) = links[i].parent.as_deref() {
            children.entry(p).or_default().push(i);
        }
    }
    let on_path: HashSet<usize> = path.iter().copied().collect();
    let mut done: HashSet<usize> = HashSet::new();
    let mut out = Vec::with_capacity(path.len());
    for i in path {
        if !done.insert(i) {
            continue;
        }
        let Some(group) = links[i].group.as_deref().and_then(|g| groups.get(g)) else {
            out.push(i);
            continue;
        };
        // The whole API message at its first line, in file order, then the results hanging
        // from its lines that the chain misses.
        let mut results = Vec::new();
        for &m in group {
            if m == i || done.insert(m) {
                out.push(m);
            }
            for &c in children.get(links[m].uuid.as_str()).into_iter().flatten() {
                if !on_path.contains(&c) && !links[c].results.is_empty() && done.insert(c) {
                    results.push(c);
                }
            }
        }
        results.sort_unstable();
        out.extend(results);
    }
    out
}

/// One uuid shared by three lines or more with different content: the uuids are not
/// identifiers (trimmed or redacted), so the tree cannot be read with confidence.
fn shared_uuid(links: &[Link]) -> Option<TreeFinding> {
    let mut lines: HashMap<&str, Vec<&Link>> = HashMap::new();
    for l in links {
        lines.entry(&l.uuid).or_default().push(l);
    }
    let (uuid, shared) = lines
        .into_iter()
        .filter(|(_, ls)| ls.len() >= 3 && ls.iter().any(|l| l.digest != ls[0].digest))
        .min_by_key(|(_, ls)| ls[0].line)?;
    Some(TreeFinding {
        rule: Rule::DuplicateUuid,
        warning: false,
        line: shared[1].line,
        column: 1,
        fix: None,
        message: format!(
            "uuid `{uuid}` is shared by {} lines with different content (first on line {}): the uuids do not identify lines (trimmed or redacted?), so Claude Code cannot rebuild this history; toolmend reads the file in file order and does not check its tree",
            shared.len(),
            shared[0].line
        ),
    })
}

/// TM012: lines sharing a uuid. Identical copies collapse (a warning); different content is an
/// error, since the client keeps only the later line.
fn duplicates(links: &[Link], out: &mut Vec<TreeFinding>) {
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, l) in links.iter().enumerate() {
        let Some(&f) = first.get(l.uuid.as_str()) else {
            first.insert(&l.uuid, i);
            continue;
        };
        let earlier = &links[f];
        let identical = earlier.digest == l.digest;
        out.push(TreeFinding {
            rule: Rule::DuplicateUuid,
            warning: identical,
            line: l.line,
            column: 1,
            fix: identical.then_some(TreeFix::DropCopy { line: l.span }),
            message: if identical {
                format!(
                    "line repeats line {} byte for byte (uuid `{}`): Claude Code reads it once; readers that count lines see it twice",
                    earlier.line, l.uuid
                )
            } else {
                format!(
                    "uuid `{}` is also the uuid of line {}, with different content: Claude Code 2.1.332 keeps this later line and silently drops line {} from the history; other readers disagree on which one is meant",
                    l.uuid, earlier.line, earlier.line
                )
            },
        });
    }
}

/// TM010 (a parent that names no line) and TM011 (cycles and self-parents).
fn parents(
    links: &[Link],
    main: &[usize],
    by_uuid: &HashMap<&str, usize>,
    out: &mut Vec<TreeFinding>,
) {
    for (k, &i) in main.iter().enumerate() {
        let l = &links[i];
        let Some(p) = l.parent.as_deref() else {
            continue;
        };
        if p == l.uuid {
            out.push(TreeFinding {
                rule: Rule::ParentCycle,
                warning: true,
                line: l.line,
                column: l.parent_column,
                fix: None,
                message: format!(
                    "line is its own parent (parentUuid `{p}`): Claude Code 2.1.332 ends the history here; readers that follow the chain loop or fail"
                ),
            });
        } else if !by_uuid.contains_key(p) {
            let before = k.checked_sub(1).map(|b| links[main[b]].line);
            out.push(TreeFinding {
                rule: Rule::MissingParent,
                warning: true,
                line: l.line,
                column: l.parent_column,
                fix: None,
                message: format!(
                    "parentUuid `{p}` names no line of this file: Claude Code 2.1.332 continues at {}; viewers and exporters that follow the chain lose everything before this line",
                    before.map_or("nothing (the history starts here)".into(), |b| format!("the line before (line {b})"))
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
                    out.push(TreeFinding {
                        rule: Rule::ParentCycle,
                        warning: true,
                        line: l.line,
                        column: l.parent_column,
                        fix: None,
                        message: format!(
                            "parentUuid `{}` closes a cycle of {} lines (back to line {}): Claude Code 2.1.332 ends the history where it repeats; readers that follow the chain loop or fail",
                            l.parent.as_deref().unwrap_or(""),
                            cycle.len(),
                            links[by_uuid[l.parent.as_deref().unwrap_or("")]].line
                        ),
                    });
                }
                break;
            }
            state[i] = 1;
            trail.push(i);
            at = links[i]
                .parent
                .as_deref()
                .filter(|p| *p != links[i].uuid)
                .and_then(|p| by_uuid.get(p).copied());
        }
        for t in trail {
            state[t] = 2;
        }
    }
}

/// TM013: results on the path whose call is elsewhere in the file (an abandoned branch, or
/// before a compact boundary): Claude Code drops them; the walk does not see them.
fn split_pairs(
    links: &[Link],
    path: &[usize],
    on_path: &HashSet<usize>,
    by_uuid: &HashMap<&str, usize>,
    chain: &mut Chain,
) {
    let mut first_call: HashMap<&str, usize> = HashMap::new();
    for (i, l) in links.iter().enumerate() {
        for c in &l.calls {
            first_call.entry(c).or_insert(i);
        }
    }
    // The lines before each compact boundary, found once per boundary.
    let mut before: HashMap<usize, HashSet<usize>> = HashMap::new();
    let mut calls_on_path: HashSet<&str> = HashSet::new();
    let mut boundary: Option<usize> = None;
    for &i in path {
        let l = &links[i];
        if l.boundary {
            boundary = Some(i);
            calls_on_path.clear();
        }
        calls_on_path.extend(l.calls.iter().map(String::as_str));
        for id in &l.results {
            if calls_on_path.contains(id.as_str()) {
                continue;
            }
            // A call on the path after its result is the walk's business (TM002).
            let Some(&call) = first_call.get(id.as_str()) else {
                continue;
            };
            if on_path.contains(&call) {
                continue;
            }
            let replaced = by_uuid.get(links[call].uuid.as_str()) != Some(&call);
            let why = match boundary {
                _ if replaced => format!(
                    "its call (line {}) is in a line whose uuid a later line reuses, so that line is not part of the history (TM012)",
                    links[call].line
                ),
                Some(b)
                    if before
                        .entry(b)
                        .or_insert_with(|| lineage(links, by_uuid, b))
                        .contains(&call) =>
                {
                    format!(
                        "its call (line {}) is before the compact_boundary on line {}: after compaction the model sees the summary, not the call",
                        links[call].line, links[b].line
                    )
                }
                _ => format!(
                    "its call (line {}) is on another branch of the parentUuid tree (a /rewind fork or retry), which resume does not send",
                    links[call].line
                ),
            };
            chain.split.insert((l.line, id.clone()), why);
        }
    }
}

/// The lines before compact boundary `b`: its `logicalParentUuid` and their ancestors.
fn lineage(links: &[Link], by_uuid: &HashMap<&str, usize>, b: usize) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut at = links[b]
        .logical_parent
        .as_deref()
        .and_then(|p| by_uuid.get(p).copied());
    while let Some(i) = at {
        if !seen.insert(i) {
            break;
        }
        let l = &links[i];
        at = l
            .parent
            .as_deref()
            .or(l.logical_parent.as_deref())
            .and_then(|p| by_uuid.get(p).copied());
    }
    seen
}

/// TM014: a server tool result (`web_search_tool_result`, `advisor_tool_result`, …) on the
/// path whose `server_tool_use` is not on it.
fn server_orphans(links: &[Link], path: &[usize], out: &mut Vec<TreeFinding>) {
    let mut calls: HashSet<&str> = HashSet::new();
    let mut below: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for c in links {
        if let (Some(p), Some(span)) = (c.parent.as_deref(), c.parent_span) {
            below.entry(p).or_default().push(span);
        }
    }
    let children = |uuid: &str| below.get(uuid).cloned().unwrap_or_default();
    for &i in path {
        let l = &links[i];
        if l.boundary {
            calls.clear();
        }
        calls.extend(l.calls.iter().map(String::as_str));
        for r in &l.server_results {
            let (id, kind) = (&r.id, &r.kind);
            if calls.contains(id.as_str()) {
                continue;
            }
            out.push(TreeFinding {
                rule: Rule::OrphanServerToolResult,
                warning: false,
                line: l.line,
                column: r.column,
                fix: Some(TreeFix::Orphan {
                    block: r.span,
                    note: format!(
                        "[Result of server tool call {id} ({kind}), whose call is not in this history:]\n{}",
                        r.text
                    ),
                    drop: l.only_block.then(|| DropLine {
                        line: l.span,
                        children: children(&l.uuid),
                        parent: l.parent.clone(),
                    }),
                }),
                message: format!(
                    "`{kind}` for `{id}` has no `server_tool_use` with that id before it on the resumed history: Claude Code 2.1.332 sends it as it is and the API rejects the request with a 400"
                ),
            });
        }
    }
}
