//! The parsed tree: a flat arena of nodes that point back into the source bytes.

use std::borrow::Cow;

/// The kind of a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `{…}`
    Object,
    /// `[…]`
    Array,
    /// `"…"`
    String,
    /// A number, including the non-standard `NaN`, `Infinity` and `-Infinity`.
    Number,
    /// `true` or `false`
    Bool,
    /// `null`
    Null,
}

/// Index of a node in a [`Tree`].
pub type NodeId = u32;

/// One value of a parsed text: 20 bytes. What can be read back from the source is not stored:
/// the kind is the value's first byte, a string's escapes are found when it is decoded, the
/// first child of a container is the next node (nodes are in document order) and the next
/// sibling of a node follows its descendants.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Node {
    // Offsets are u32 (a parsed text is under 4 GiB): nodes stay small on big documents.
    pub start: u32,
    pub end: u32,
    /// Span of the member key token (with quotes) when this node is an object member;
    /// `key_end` is 0 otherwise.
    pub key_start: u32,
    pub key_end: u32,
    /// The number of nodes inside a container (all depths; 0 for scalars), and
    /// [`KEY_ESCAPED`] when the member key has escapes.
    pub tail: u32,
}

/// The bit of [`Node::tail`] saying that the member key has escapes. The count never reaches
/// it: a text under 4 GiB holds fewer than 2^31 values (every value but the first comes with
/// a separator or a bracket).
pub(crate) const KEY_ESCAPED: u32 = 1 << 31;

impl Node {
    /// The number of nodes inside a container (all depths); 0 for scalars.
    pub fn descendants(&self) -> u32 {
        self.tail & !KEY_ESCAPED
    }

    fn key_escaped(&self) -> bool {
        self.tail & KEY_ESCAPED != 0
    }
}

/// A reusable node buffer, so that reading many lines does not allocate per line.
#[derive(Debug, Default)]
pub struct NodeBuf(pub(crate) Vec<Node>);

/// A parsed JSON value whose nodes refer to byte spans of the source.
#[derive(Debug, Default)]
pub struct Tree<'a> {
    pub(crate) src: &'a [u8],
    pub(crate) nodes: Vec<Node>,
}

impl<'a> Tree<'a> {
    /// Give back the node buffer for reuse by [`super::parse_into`].
    pub fn into_buf(self) -> NodeBuf {
        NodeBuf(self.nodes)
    }

    /// The source bytes the tree was parsed from.
    pub fn src(&self) -> &'a [u8] {
        self.src
    }

    /// The root value.
    pub fn root(&self) -> NodeId {
        0
    }

    /// The kind of a node.
    pub fn kind(&self, id: NodeId) -> Kind {
        kind_of(self.src[self.nodes[id as usize].start as usize])
    }

    /// Byte range of the value in the source (for strings, quotes included).
    pub fn span(&self, id: NodeId) -> (usize, usize) {
        let n = &self.nodes[id as usize];
        (n.start as usize, n.end as usize)
    }

    /// The raw source bytes of the value.
    pub fn raw(&self, id: NodeId) -> &'a [u8] {
        let (s, e) = self.span(id);
        &self.src[s..e]
    }

    /// The raw source text of the value (lossy when the bytes are not UTF-8).
    pub fn raw_str(&self, id: NodeId) -> Cow<'a, str> {
        String::from_utf8_lossy(self.raw(id))
    }

    /// Number of elements or members of a container (0 for scalars).
    pub fn len(&self, id: NodeId) -> usize {
        self.children(id).count()
    }

    /// True when a container has no elements or members, or the node is a scalar.
    pub fn is_empty(&self, id: NodeId) -> bool {
        self.nodes[id as usize].descendants() == 0
    }

    /// Elements of an array or member values of an object, in source order.
    pub fn children(&self, id: NodeId) -> Children<'_, 'a> {
        Children {
            tree: self,
            next: id + 1,
            end: id + 1 + self.nodes[id as usize].descendants(),
        }
    }

    /// The `i`-th element of an array.
    pub fn index(&self, id: NodeId, i: usize) -> Option<NodeId> {
        if self.kind(id) != Kind::Array {
            return None;
        }
        self.children(id).nth(i)
    }

    /// The value of the member `key` of an object (the first one, when a key repeats).
    pub fn get(&self, id: NodeId, key: &str) -> Option<NodeId> {
        // Only the nodes are read until a key of the right length turns up. An object is a
        // container whose first child has a key (an empty one has no member to find); most
        // lookups miss, so lengths are compared first, and a key token with escapes is decoded.
        let want = key.as_bytes();
        let first = id as usize + 1;
        let inside = &self.nodes[first..first + self.nodes[id as usize].descendants() as usize];
        if inside.first().is_none_or(|m| m.key_end == 0) {
            return None;
        }
        let mut at = 0;
        while let Some(n) = inside.get(at) {
            let (start, end) = (n.key_start as usize, n.key_end as usize);
            let hit = if n.key_escaped() {
                decode_string(&self.src[start + 1..end - 1], true) == key
            } else {
                end - start == want.len() + 2 && same(&self.src[start + 1..end - 1], want)
            };
            if hit {
                return Some((first + at) as NodeId);
            }
            at += 1 + n.descendants() as usize;
        }
        None
    }

    /// Follow a path of object keys.
    pub fn path(&self, id: NodeId, keys: &[&str]) -> Option<NodeId> {
        keys.iter().try_fold(id, |at, k| self.get(at, k))
    }

    /// The member key of an object member node, decoded.
    pub fn key(&self, id: NodeId) -> Option<Cow<'a, str>> {
        let n = &self.nodes[id as usize];
        if n.key_end == 0 {
            return None;
        }
        Some(decode_string(
            &self.src[n.key_start as usize + 1..n.key_end as usize - 1],
            n.key_escaped(),
        ))
    }

    /// The raw bytes of a member key (inside the quotes) and whether they hold escapes.
    pub(crate) fn key_raw(&self, id: NodeId) -> Option<(&'a [u8], bool)> {
        let n = &self.nodes[id as usize];
        (n.key_end != 0).then(|| {
            (
                &self.src[n.key_start as usize + 1..n.key_end as usize - 1],
                n.key_escaped(),
            )
        })
    }

    /// Byte span of the member key token (quotes included).
    pub fn key_span(&self, id: NodeId) -> Option<(usize, usize)> {
        let n = &self.nodes[id as usize];
        (n.key_end != 0).then_some((n.key_start as usize, n.key_end as usize))
    }

    /// Member (key, value) pairs of an object, in source order.
    pub fn members(&self, id: NodeId) -> impl Iterator<Item = (Cow<'a, str>, NodeId)> + '_ {
        self.children(id)
            .filter_map(move |c| self.key(c).map(|k| (k, c)))
    }

    /// The decoded value of a string node; `None` for other kinds.
    pub fn str(&self, id: NodeId) -> Option<Cow<'a, str>> {
        if self.kind(id) != Kind::String {
            return None;
        }
        let n = &self.nodes[id as usize];
        Some(decode(&self.src[n.start as usize + 1..n.end as usize - 1]))
    }

    /// The inside of the string `id` as written, when it has no escapes (`None`: not a string,
    /// or one with escapes): to compare with known words without decoding it.
    pub fn plain_bytes(&self, id: NodeId) -> Option<&'a [u8]> {
        if self.kind(id) != Kind::String {
            return None;
        }
        let n = &self.nodes[id as usize];
        let inside = &self.src[n.start as usize + 1..n.end as usize - 1];
        (!has_escapes(inside)).then_some(inside)
    }

    /// The string value of member `key`, if it is a string.
    pub fn get_str(&self, id: NodeId, key: &str) -> Option<Cow<'a, str>> {
        self.get(id, key).and_then(|v| self.str(v))
    }

    /// True when member `key` exists and is a string equal to `value`.
    pub fn str_is(&self, id: NodeId, key: &str, value: &str) -> bool {
        self.get_str(id, key).is_some_and(|s| s == value)
    }

    /// The boolean value of a node.
    pub fn bool(&self, id: NodeId) -> Option<bool> {
        (self.kind(id) == Kind::Bool).then(|| self.raw(id) == b"true")
    }

    /// 1-based line and column (in characters) of a byte offset of the source.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(self.src, offset)
    }
}

/// 1-based line and column (in characters) of `offset` within `src`.
pub fn line_col(src: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    // A byte order mark is not part of the first line's text.
    let line_start = memchr::memrchr(b'\n', before).map_or(
        if before.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        },
        |i| i + 1,
    );
    (line, char_count(&before[line_start..]) + 1)
}

/// The number of characters in `bytes`: the bytes that do not continue a UTF-8 sequence
/// (`0b10xx_xxxx`, below -64 as a signed byte). Counted in blocks of 128 bytes whose count
/// fits a byte, which the compiler turns into vector compares and adds.
pub fn char_count(bytes: &[u8]) -> usize {
    let continuing: usize = bytes
        .chunks(128)
        .map(|block| {
            let n = block
                .iter()
                .fold(0u8, |n, &b| n + u8::from((b as i8) < -64));
            usize::from(n)
        })
        .sum();
    bytes.len() - continuing
}

/// Iterator over the children of a container node.
pub struct Children<'t, 'a> {
    tree: &'t Tree<'a>,
    next: u32,
    /// One past the last descendant of the container.
    end: u32,
}

impl Iterator for Children<'_, '_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        self.next = id + 1 + self.tree.nodes[id as usize].descendants();
        Some(id)
    }
}

/// Byte equality of two slices of the same length, without a call for the short keys of
/// most lookups: words are compared, the last one overlapping the one before.
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len().min(b.len());
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or_default());
    let half = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap_or_default());
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word(a, i) != word(b, i) {
                return false;
            }
            i += 8;
        }
        word(a, n - 8) == word(b, n - 8)
    } else if n >= 4 {
        half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4)
    } else {
        a.iter().zip(b).all(|(x, y)| x == y)
    }
}

/// The kind of the value whose first byte is `first` (the parser only makes nodes of values).
pub(crate) fn kind_of(first: u8) -> Kind {
    match first {
        b'{' => Kind::Object,
        b'[' => Kind::Array,
        b'"' => Kind::String,
        b't' | b'f' => Kind::Bool,
        b'n' => Kind::Null,
        _ => Kind::Number,
    }
}

/// Decode the inside of a string token, finding out whether it has escapes.
fn decode(raw: &[u8]) -> Cow<'_, str> {
    decode_string(raw, has_escapes(raw))
}

/// Whether the inside of a string token has escapes. Most strings read are short (roles,
/// ids, names): a plain loop answers before a vector search has started.
fn has_escapes(raw: &[u8]) -> bool {
    if raw.len() <= 32 {
        raw.contains(&b'\\')
    } else {
        memchr::memchr(b'\\', raw).is_some()
    }
}

/// Decode the inside of a JSON string token. Lone surrogates and invalid UTF-8 become U+FFFD.
pub(crate) fn decode_string(raw: &[u8], escaped: bool) -> Cow<'_, str> {
    if !escaped {
        // The validation of `from_utf8` is quicker than the lossy one; the answer is the same.
        return match std::str::from_utf8(raw) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(raw),
        };
    }
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    let mut plain_start = 0;
    while i < raw.len() {
        if raw[i] != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&String::from_utf8_lossy(&raw[plain_start..i]));
        let esc = raw.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        match esc {
            b'n' => out.push('\n'),
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'u' => {
                let hi = hex4(raw, i);
                i += 4;
                match hi {
                    Some(h @ 0xD800..=0xDBFF) => {
                        let lo = (raw.get(i) == Some(&b'\\') && raw.get(i + 1) == Some(&b'u'))
                            .then(|| hex4(raw, i + 2))
                            .flatten()
                            .filter(|l| (0xDC00..=0xDFFF).contains(l));
                        if let Some(l) = lo {
                            i += 6;
                            let c = 0x10000 + ((h - 0xD800) << 10) + (l - 0xDC00);
                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        } else {
                            out.push('\u{FFFD}');
                        }
                    }
                    Some(c) => out.push(char::from_u32(c).unwrap_or('\u{FFFD}')),
                    None => out.push('\u{FFFD}'),
                }
            }
            other => out.push(other as char),
        }
        plain_start = i.min(raw.len());
    }
    out.push_str(&String::from_utf8_lossy(&raw[plain_start.min(raw.len())..]));
    Cow::Owned(out)
}

fn hex4(raw: &[u8], at: usize) -> Option<u32> {
    let s = raw.get(at..at + 4)?;
    let s = std::str::from_utf8(s).ok()?;
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::char_count;

    #[test]
    fn char_count_matches_a_byte_by_byte_count() {
        let text = "aé€😀\u{7f}\u{80}x".repeat(7);
        let mut bytes = text.into_bytes();
        bytes.extend([0x80, 0xBF, 0xC0, 0xFF, 0x7F, 0x40]);
        for start in 0..9 {
            for end in start..bytes.len() {
                let slice = &bytes[start..end];
                let plain = slice.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
                assert_eq!(char_count(slice), plain, "{start}..{end}");
            }
        }
    }

    #[test]
    fn same_compares_every_byte_of_keys_of_any_length() {
        let a: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for len in 0..a.len() {
            let key = &a[..len];
            assert!(super::same(key, &a[..len]), "{len}");
            for at in 0..len {
                let mut other = key.to_vec();
                other[at] ^= 0x20;
                assert!(!super::same(key, &other), "{len} {at}");
            }
        }
    }
}
