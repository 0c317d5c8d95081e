//! A line's link read on any thread: everything [`ChainReader`] keeps of a line but the
//! numbers of its strings, which depend on the lines before it. A big session's lines are
//! parsed and their links drafted on every thread, a chunk of lines at a time; the drafts are
//! then taken in file order ([`ChainReader::take`]), which only numbers their strings.

use super::super::fields::{self, inside, text_is};
use super::super::intern::{OptSym, pack, uuid_bits};
use super::{
    ASSISTANT, BOUNDARY, ChainReader, LONG, Link, MESSAGE, NOT_STRING, ONLY_BLOCK, RARE, RESULT,
    Rare, SIDECHAIN, ServerResult, Type, UNJOINABLE, column, digest, names_a_link, server_text,
};
use crate::json::{Kind, NodeId, Tree};
use crate::locate::members_by;

/// A string of a draft, before it is numbered: a uuid in Claude Code's spelling as its bits,
/// any other as its text in [`LinkDrafts::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
    None,
    Uuid(u128),
    Text(u32, u32),
}

/// A timestamp of a draft: packed as [`pack`] packs it, or its text in [`LinkDrafts::text`].
#[derive(Debug, Clone, Copy)]
pub(super) enum StampDraft {
    None,
    Packed(u64),
    Text(u32, u32),
}

/// One line's link, its strings not yet numbered (see [`LinkDrafts`]).
#[derive(Debug)]
pub(super) struct Draft {
    /// The link, its strings still to be numbered; `ids` is where its ids start in
    /// [`LinkDrafts::ids`].
    pub(super) link: Link,
    pub(super) uuid: Key,
    pub(super) parent: Key,
    pub(super) logical_parent: Key,
    pub(super) group: Key,
    pub(super) stamp: StampDraft,
    /// Its rare part, when it has one (its logical parent still to be numbered).
    pub(super) rare: Option<Rare>,
}

/// The links of some consecutive lines, drafted where the lines were parsed, to be taken in
/// file order by [`ChainReader::take`].
#[derive(Debug, Default)]
pub struct LinkDrafts {
    pub(super) drafts: Vec<Draft>,
    /// The texts of the keys and timestamps.
    pub(super) text: String,
    /// The ids of the drafts' lines, in block order: call and result ids, and (`true`) the
    /// ids of server tool results.
    pub(super) ids: Vec<(Key, bool)>,
    /// The server tool results of the drafts that have some, by draft index (their ids are
    /// the server ids of that draft's ids, in order).
    pub(super) servers: Vec<(u32, Box<[ServerResult]>)>,
    /// A main-chain message line without a `uuid` was read.
    pub(super) untracked: bool,
    /// Where the first of these lines whose message is one `tool_result` block starts.
    pub(super) first_result: Option<usize>,
    /// The uuid of the last link drafted, as written and as bits, when written as Claude
    /// Code writes one (kept when emptied: the next line drafted is the one after it).
    last_uuid: Option<([u8; 36], u128)>,
}

impl LinkDrafts {
    /// Draft the link of line `number`, which the caller has parsed: `text` (without its line
    /// ending or a leading byte order mark, starting at byte `start`) parsed into `tree`.
    pub fn parsed(&mut self, number: usize, start: usize, text: &[u8], tree: &Tree<'_>) {
        // The tree is asked first: its root's few keys rule most lines of other logs out
        // sooner than a scan of the whole line.
        if self.first_result.is_none()
            && super::super::is_result_line(tree)
            && RESULT.find(text).is_some()
        {
            self.first_result = Some(start);
        }
        self.link(number, start, text, tree);
    }

    /// Empty, keeping the room.
    pub(super) fn clear(&mut self) {
        self.drafts.clear();
        self.text.clear();
        self.ids.clear();
        self.servers.clear();
        self.untracked = false;
        self.first_result = None;
    }

    /// The text of a key or timestamp.
    pub(super) fn text(&self, start: u32, end: u32) -> &str {
        &self.text[start as usize..end as usize]
    }

    /// The key of a string's text.
    fn key(&mut self, s: &str) -> Key {
        match uuid_bits(s.as_bytes()) {
            Some(bits) => Key::Uuid(bits),
            None => {
                let start = self.text.len() as u32;
                self.text.push_str(s);
                Key::Text(start, self.text.len() as u32)
            }
        }
    }

    /// The key of the string `node` ([`Key::None`]: it is not a string).
    fn key_of(&mut self, tree: &Tree<'_>, node: NodeId) -> Key {
        match inside(tree, node).and_then(uuid_bits) {
            Some(bits) => Key::Uuid(bits),
            None => match tree.str(node) {
                Some(s) => self.key(&s),
                None => Key::None,
            },
        }
    }

    /// The key of the text of `node` as [`fields::text`] reads it ([`Key::None`]: not a string).
    fn label_of(&mut self, tree: &Tree<'_>, node: NodeId) -> Key {
        match fields::text(tree, node) {
            Some(s) => self.key(&s),
            None => Key::None,
        }
    }

    /// Draft the link of the parsed line `tree`.
    fn link(&mut self, number: usize, start: usize, text: &[u8], tree: &Tree<'_>) {
        let root = tree.root();
        if tree.kind(root) != Kind::Object {
            return;
        }
        let [
            ty,
            sidechain,
            uuid,
            parent_node,
            timestamp,
            subtype,
            logical,
            message,
        ] = members_by(tree, root, |key| match key {
            b"type" => Some(0),
            b"isSidechain" => Some(1),
            b"uuid" => Some(2),
            b"parentUuid" => Some(3),
            b"timestamp" => Some(4),
            b"subtype" => Some(5),
            b"logicalParentUuid" => Some(6),
            b"message" => Some(7),
            _ => None,
        });
        let progress = ty.is_some_and(|t| text_is(tree, t, "progress"));
        let ty = ty.map_or(Type::Other, |t| Type::of(tree, t));
        let is_message = matches!(ty, Type::User | Type::Assistant);
        let sidechain = sidechain.and_then(|v| tree.bool(v)) == Some(true);
        // A uuid is a string, and not an empty one (an escape never decodes to nothing).
        let uuid = uuid.filter(|&u| tree.kind(u) == Kind::String && tree.raw(u) != b"\"\"");
        // Only a line that names a link is read as one; the scan comes after the tree has
        // shown it would matter.
        let main_message = is_message && !sidechain;
        if (uuid.is_none() && !main_message) || !names_a_link(text) {
            return;
        }
        let Some(uuid) = uuid else {
            self.untracked = true;
            return;
        };
        let logical_parent = logical.map_or(Key::None, |p| self.key_of(tree, p));
        let written = inside(tree, uuid);
        let bits = written.and_then(uuid_bits);
        let uuid = match bits {
            Some(bits) => Key::Uuid(bits),
            None => self.key(&tree.str(uuid).unwrap_or_default()),
        };
        let before = std::mem::replace(
            &mut self.last_uuid,
            written
                .zip(bits)
                .and_then(|(w, b)| Some((<[u8; 36]>::try_from(w).ok()?, b))),
        );
        let [group, content] = match message {
            Some(m) => members_by(tree, m, |key| match key {
                b"id" => Some(0),
                b"content" => Some(1),
                _ => None,
            }),
            None => [None, None],
        };
        let (parent_at, parent_len) = parent_node
            .filter(|&p| tree.kind(p) == Kind::String)
            .map_or((u32::MAX, 0), |p| {
                let (a, b) = tree.span(p);
                (a as u32, (b - a) as u32)
            });
        // Only a string's column is reported (a parent that is not one names no line).
        let parent_column = match parent_node.filter(|_| parent_at != u32::MAX) {
            Some(p) if column(tree, p) != parent_at as usize + 1 => column(tree, p) as u32,
            _ => 0,
        };
        let len = text.len() as u32;
        let long = |n: u32| n >= u32::from(LONG);
        let is_rare = logical_parent != Key::None
            || parent_len >= u32::from(u8::MAX)
            || parent_column != 0
            || long(len)
            || (parent_at != u32::MAX && long(parent_at));
        let rare = is_rare.then_some(Rare {
            logical_parent: OptSym::new(None),
            parent_len,
            parent_column,
            len,
            parent_at,
        });
        // The parent is most often the line before: its uuid is then known without reading it.
        let parent = match parent_node.map(|p| (p, inside(tree, p))) {
            None => Key::None,
            Some((_, Some(w))) if before.is_some_and(|(last, _)| w == last.as_slice()) => {
                Key::Uuid(before.map_or(0, |(_, bits)| bits))
            }
            Some((p, _)) => self.key_of(tree, p),
        };
        let is = |on: bool, flag: u8| if on { flag } else { 0 };
        let assistant = ty == Type::Assistant;
        let group = match group.filter(|_| assistant) {
            Some(g) => self.label_of(tree, g),
            None => Key::None,
        };
        let digest = digest(text);
        let start_high = u16::try_from(start >> 32).expect("a file under 256 TiB");
        let mut link = Link {
            line: u32::try_from(number).unwrap_or(u32::MAX),
            start: start as u32,
            len: len.min(u32::from(LONG)) as u16,
            parent_at: match parent_at {
                u32::MAX => NOT_STRING,
                at => at.min(u32::from(LONG)) as u16,
            },
            uuid: 0,
            parent: OptSym::new(None),
            group: OptSym::new(None),
            ids: self.ids.len() as u32,
            digest: [(digest >> 32) as u32, digest as u32],
            start_high,
            parent_len: parent_len.min(u32::from(u8::MAX)) as u8,
            flags: is(sidechain, SIDECHAIN)
                | is(is_message, MESSAGE)
                | is(assistant, ASSISTANT)
                | is(
                    ty == Type::System
                        && subtype.is_some_and(|s| text_is(tree, s, "compact_boundary")),
                    BOUNDARY,
                )
                | is(is_rare, RARE)
                | is(
                    progress
                        || ty == Type::System
                            && subtype.is_some_and(|s| text_is(tree, s, "file_snapshot")),
                    UNJOINABLE,
                ),
        };
        let stamp = match timestamp {
            Some(t) => self.stamp(tree, t),
            None => StampDraft::None,
        };
        if matches!(ty, Type::User | Type::Assistant) {
            self.blocks(tree, content, start, assistant, ty, &mut link);
        }
        self.drafts.push(Draft {
            link,
            uuid,
            parent,
            logical_parent,
            group,
            stamp,
            rare,
        });
    }

    /// Draft the ids and server tool results of the content blocks of a message line.
    fn blocks(
        &mut self,
        tree: &Tree<'_>,
        content: Option<NodeId>,
        start: usize,
        assistant: bool,
        ty: Type,
        link: &mut Link,
    ) {
        let mut server_results = Vec::new();
        let blocks = content.map_or(0, |c| tree.len(c));
        for block in content.into_iter().flat_map(|c| tree.children(c)) {
            let [kind, id, use_id] = members_by(tree, block, |key| match key {
                b"type" => Some(0),
                b"id" => Some(1),
                b"tool_use_id" => Some(2),
                _ => None,
            });
            let is = |want: &str| kind.is_some_and(|k| text_is(tree, k, want));
            if assistant && (is("tool_use") || is("server_tool_use")) {
                if let Some(i) = id.and_then(|i| fields::text(tree, i)) {
                    let key = self.key(&i);
                    self.ids.push((key, false));
                }
            } else if assistant {
                let Some(kind) = kind
                    .and_then(|k| fields::text(tree, k))
                    .filter(|k| k.ends_with("_tool_result"))
                else {
                    continue;
                };
                if let Some(i) = use_id.and_then(|i| fields::text(tree, i)) {
                    let key = self.key(&i);
                    self.ids.push((key, true));
                    let (a, b) = tree.span(block);
                    server_results.push(ServerResult {
                        id: 0,
                        kind: kind.into_owned(),
                        column: column(tree, block),
                        span: (start + a, start + b),
                        text: server_text(tree, block),
                    });
                    if blocks == 1 {
                        link.flags |= ONLY_BLOCK;
                    }
                }
            } else if ty == Type::User
                && is("tool_result")
                && let Some(i) = use_id.and_then(|i| fields::text(tree, i))
            {
                let key = self.key(&i);
                self.ids.push((key, false));
            }
        }
        if !server_results.is_empty() {
            let at = self.drafts.len() as u32;
            self.servers.push((at, server_results.into_boxed_slice()));
        }
    }

    /// The timestamp `node` (none when it is not a string): packed straight from the line
    /// when written as Claude Code writes one (no escapes then), else decoded first.
    fn stamp(&mut self, tree: &Tree<'_>, node: NodeId) -> StampDraft {
        if let Some(n) = inside(tree, node).and_then(pack) {
            return StampDraft::Packed(n);
        }
        match fields::text(tree, node) {
            Some(t) => {
                let start = self.text.len() as u32;
                self.text.push_str(&t);
                StampDraft::Text(start, self.text.len() as u32)
            }
            None => StampDraft::None,
        }
    }
}

impl ChainReader {
    /// Take the links `drafts` drafted from the lines after those read so far, in file order:
    /// their strings are numbered here. Leaves `drafts` empty, to be drafted into again.
    pub fn take(&mut self, drafts: &mut LinkDrafts) {
        self.untracked |= drafts.untracked;
        self.first_result = self.first_result.or(drafts.first_result);
        let mut servers = std::mem::take(&mut drafts.servers).into_iter().peekable();
        let count = drafts.drafts.len();
        for k in 0..count {
            let d = &drafts.drafts[k];
            let mut link = d.link.clone();
            let logical_parent = self.name(drafts, d.logical_parent);
            let uuid = self.name(drafts, d.uuid).unwrap_or(0);
            if let Some(mut rare) = d.rare {
                rare.logical_parent = OptSym::new(logical_parent);
                self.rare.push((self.links.len() as u32, rare));
            }
            // The parent is most often the line before: its uuid is then known without a
            // lookup.
            let before = std::mem::replace(
                &mut self.last_uuid,
                match d.uuid {
                    Key::Uuid(bits) => Some((bits, uuid)),
                    _ => None,
                },
            );
            let parent = match (d.parent, before) {
                (Key::Uuid(bits), Some((last, sym))) if bits == last => Some(sym),
                (key, _) => self.name(drafts, key),
            };
            link.uuid = uuid;
            link.parent = OptSym::new(parent);
            link.group = OptSym::new(self.label(drafts, d.group));
            match d.stamp {
                StampDraft::None => self.stamps.push_none(),
                StampDraft::Packed(n) => self.stamps.push_number(n),
                StampDraft::Text(a, b) => self.stamps.push(drafts.text(a, b)),
            };
            let end = match drafts.drafts.get(k + 1) {
                Some(next) => next.link.ids as usize,
                None => drafts.ids.len(),
            };
            link.ids = self.ids.len() as u32;
            let mut server_ids = Vec::new();
            for &(key, server) in &drafts.ids[d.link.ids as usize..end] {
                let sym = self.label(drafts, key).unwrap_or(0);
                if server {
                    server_ids.push(sym);
                } else {
                    self.ids.push(sym);
                }
            }
            if let Some((_, results)) = servers.next_if(|(at, _)| *at as usize == k) {
                let mut results = results;
                for (r, sym) in results.iter_mut().zip(server_ids) {
                    r.id = sym;
                }
                self.servers.push((self.links.len() as u32, results));
            }
            self.links.push(link);
        }
        drafts.clear();
    }

    /// The number of the uuid (or other string of the chain) `key`.
    fn name(&mut self, drafts: &LinkDrafts, key: Key) -> Option<u32> {
        match key {
            Key::None => None,
            Key::Uuid(bits) => Some(self.names.intern_uuid(bits)),
            Key::Text(a, b) => Some(self.names.intern_text(drafts.text(a, b))),
        }
    }

    /// The number of the message or tool id `key`.
    fn label(&mut self, drafts: &LinkDrafts, key: Key) -> Option<u32> {
        match key {
            Key::None => None,
            Key::Uuid(bits) => Some(self.labels.intern_uuid(bits)),
            Key::Text(a, b) => Some(self.labels.intern_text(drafts.text(a, b))),
        }
    }
}
