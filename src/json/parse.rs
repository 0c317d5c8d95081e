//! An iterative (no recursion, so no stack overflow on deep nesting) tolerant JSON parser.

use super::tree::{KEY_ESCAPED, Node, NodeBuf, Tree};

/// Why a JSON text could not be read, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at byte {offset}")]
pub struct ParseError {
    /// Byte offset of the problem in the parsed text.
    pub offset: usize,
    /// Which kind of problem it is (callers branch on this, never on the message).
    pub kind: ErrorKind,
    /// What is wrong, in words.
    pub message: String,
}

/// The kinds of [`ParseError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text ends inside a value or a string: most likely cut off.
    Truncated,
    /// A complete value is followed by more text (several values one after another).
    TrailingCharacters,
    /// The text is too large to index (4 GiB or more).
    TooLarge,
    /// Any other syntax error.
    Syntax,
}

/// Parse `src` into a new [`Tree`].
pub fn parse(src: &[u8]) -> Result<Tree<'_>, ParseError> {
    parse_into(src, &mut NodeBuf::default())
}

/// Parse `src`, reusing the node buffer of an earlier tree (for line-by-line reading).
pub fn parse_into<'a>(src: &'a [u8], buf: &mut NodeBuf) -> Result<Tree<'a>, ParseError> {
    if src.len() >= u32::MAX as usize {
        return Err(ParseError {
            offset: 0,
            kind: ErrorKind::TooLarge,
            message: "a JSON text of 4 GiB or more is not supported".into(),
        });
    }
    let mut nodes = std::mem::take(&mut buf.0);
    nodes.clear();
    let mut p = Parser {
        src,
        pos: 0,
        nodes,
        open: 0,
        in_object: false,
    };
    if src.starts_with(b"\xEF\xBB\xBF") {
        p.pos = 3;
    }
    let result = p.run();
    let Parser { nodes: built, .. } = p;
    match result {
        Ok(()) => Ok(Tree { src, nodes: built }),
        Err(fault) => Err(*fault),
    }
}

/// The bytes looked at eight at a time before a vector search takes over.
const NEAR: usize = 16;

/// The offset of the first `"` or `\` in `bytes`. The end of most strings (keys, ids, names)
/// and the next escape in escaped text (JSON inside a string) are near: the first [`NEAR`]
/// bytes are looked at eight at a time, which answers before a vector search has started.
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at < NEAR
        && let Some(word) = bytes.get(at..at + 8)
    {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if let Some(k) = first_quote_or_backslash(word) {
            return Some(at + k);
        }
        at += 8;
    }
    memchr::memchr2(b'"', b'\\', &bytes[at..]).map(|k| at + k)
}

/// The index of the first byte of `word` (little-endian: its first byte lowest) that is a
/// `"` or a `\`. A byte is found as a zero of `word` XOR the byte repeated; the borrow of the
/// subtraction can mark bytes above the first zero, never below, so the lowest mark is exact.
fn first_quote_or_backslash(word: u64) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let marks = zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')));
    (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize)
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    nodes: Vec<Node>,
    /// The innermost open container's node id plus one (0: none). An open container's `end`
    /// holds the same for the container around it until it is closed: the open containers
    /// need no stack of their own (which cost an allocation per parse).
    open: u32,
    /// The innermost open container is an object.
    in_object: bool,
}

/// A [`ParseError`] on its way out of the parser: boxed, so that the values the parser's
/// steps return fit in registers (a result the size of the error went through memory on
/// every member name).
type Fault = Box<ParseError>;

/// A member name read, waiting for its value (offsets fit in 32 bits: see [`parse_into`]).
struct Key {
    start: u32,
    end: u32,
    escaped: bool,
}

impl Parser<'_> {
    #[cold]
    fn err<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, Fault> {
        self.fail(offset, ErrorKind::Syntax, message)
    }

    #[cold]
    fn fail<T>(
        &self,
        offset: usize,
        kind: ErrorKind,
        message: impl Into<String>,
    ) -> Result<T, Fault> {
        Err(Box::new(ParseError {
            offset,
            kind,
            message: message.into(),
        }))
    }

    fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn run(&mut self) -> Result<(), Fault> {
        let mut key: Option<Key> = None;
        'value: loop {
            self.skip_ws();
            let start = self.pos;
            let Some(&b) = self.src.get(start) else {
                return self.fail(
                    start,
                    ErrorKind::Truncated,
                    "unexpected end of input (truncated JSON?)",
                );
            };
            let end = match b {
                b'{' | b'[' => {
                    let is_obj = b == b'{';
                    self.open_container(start, is_obj, key.take());
                    self.pos += 1;
                    self.skip_ws();
                    let close = if is_obj { b'}' } else { b']' };
                    if self.src.get(self.pos) == Some(&close) {
                        self.pos += 1;
                        self.close();
                    } else {
                        if is_obj {
                            key = Some(self.member_key()?);
                        }
                        continue 'value;
                    }
                    if !self.after_value(&mut key)? {
                        return Ok(());
                    }
                    continue 'value;
                }
                b'"' => self.string(start)?.0,
                b't' | b'f' | b'n' => {
                    let word: &[u8] = match b {
                        b't' => b"true",
                        b'f' => b"false",
                        _ => b"null",
                    };
                    if !self.src[start..].starts_with(word) {
                        return self.err(start, self.unexpected(start));
                    }
                    start + word.len()
                }
                b'N' if self.src[start..].starts_with(b"NaN") => start + 3,
                b'I' if self.src[start..].starts_with(b"Infinity") => start + 8,
                b'-' if self.src[start..].starts_with(b"-Infinity") => start + 9,
                b'-' | b'0'..=b'9' => self.number(start)?,
                _ => return self.err(start, self.unexpected(start)),
            };
            self.push(start, end, key.take());
            self.pos = end;
            if !self.after_value(&mut key)? {
                return Ok(());
            }
        }
    }

    /// After a value: close containers and read separators. Returns false when the document ended.
    fn after_value(&mut self, key: &mut Option<Key>) -> Result<bool, Fault> {
        loop {
            self.skip_ws();
            if self.open == 0 {
                if self.pos < self.src.len() {
                    return self.fail(
                        self.pos,
                        ErrorKind::TrailingCharacters,
                        "unexpected characters after the JSON value",
                    );
                }
                return Ok(false);
            }
            let is_obj = self.in_object;
            match self.src.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    if is_obj {
                        self.skip_ws();
                        *key = Some(self.member_key()?);
                    }
                    return Ok(true);
                }
                Some(b'}') if is_obj => {}
                Some(b']') if !is_obj => {}
                None => {
                    return self.fail(
                        self.pos,
                        ErrorKind::Truncated,
                        "unexpected end of input (truncated JSON?)",
                    );
                }
                Some(_) => {
                    let want = if is_obj { "',' or '}'" } else { "',' or ']'" };
                    return self.err(
                        self.pos,
                        format!("expected {want}, found {}", self.describe(self.pos)),
                    );
                }
            }
            self.pos += 1;
            self.close();
        }
    }

    fn member_key(&mut self) -> Result<Key, Fault> {
        self.skip_ws();
        let start = self.pos;
        if self.src.get(start) != Some(&b'"') {
            return self.err(
                start,
                format!(
                    "expected a member name in double quotes, found {}",
                    self.describe(start)
                ),
            );
        }
        let (end, escaped) = self.string(start)?;
        self.pos = end;
        self.skip_ws();
        if self.src.get(self.pos) != Some(&b':') {
            return self.err(
                self.pos,
                format!(
                    "expected ':' after a member name, found {}",
                    self.describe(self.pos)
                ),
            );
        }
        self.pos += 1;
        Ok(Key {
            start: start as u32,
            end: end as u32,
            escaped,
        })
    }

    /// Scan a string token starting at the opening quote; returns (end, has_escapes).
    fn string(&self, start: usize) -> Result<(usize, bool), Fault> {
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            match quote_or_backslash(&self.src[i..]) {
                None => {
                    return self.fail(
                        start,
                        ErrorKind::Truncated,
                        "unterminated string (truncated JSON?)",
                    );
                }
                Some(k) => {
                    i += k;
                    if self.src[i] == b'"' {
                        return Ok((i + 1, escaped));
                    }
                    escaped = true;
                    i += 2;
                    if i > self.src.len() {
                        return self.fail(
                            start,
                            ErrorKind::Truncated,
                            "unterminated string (truncated JSON?)",
                        );
                    }
                }
            }
        }
    }

    fn number(&self, start: usize) -> Result<usize, Fault> {
        let mut i = start;
        let mut digits = 0;
        while let Some(&b) = self.src.get(i) {
            match b {
                b'0'..=b'9' => digits += 1,
                b'-' | b'+' | b'.' | b'e' | b'E' => {}
                _ => break,
            }
            i += 1;
        }
        if digits == 0 {
            return self.err(start, "a number without digits");
        }
        Ok(i)
    }

    fn push(&mut self, start: usize, end: usize, key: Option<Key>) -> u32 {
        let id = self.nodes.len() as u32;
        let (key_start, key_end, tail) = key.map_or((0, 0, 0), |k| {
            let tail = if k.escaped { KEY_ESCAPED } else { 0 };
            (k.start, k.end, tail)
        });
        self.nodes.push(Node {
            start: start as u32,
            end: end as u32,
            key_start,
            key_end,
            tail,
        });
        id
    }

    /// A container starts at `start`: it is the innermost open one until [`Parser::close`].
    fn open_container(&mut self, start: usize, is_obj: bool, key: Option<Key>) {
        self.open = self.push(start, self.open as usize, key) + 1;
        self.in_object = is_obj;
    }

    /// The innermost open container ends at the current position: everything since it is
    /// inside, and the one around it is the innermost open one again.
    fn close(&mut self) {
        let id = self.open - 1;
        let inside = self.nodes.len() as u32 - id - 1;
        let n = &mut self.nodes[id as usize];
        self.open = n.end;
        n.end = self.pos as u32;
        n.tail |= inside;
        if let Some(around) = self.open.checked_sub(1) {
            self.in_object = self.src[self.nodes[around as usize].start as usize] == b'{';
        }
    }

    fn describe(&self, at: usize) -> String {
        match self.src.get(at) {
            None => "the end of input".to_string(),
            Some(&b) if b.is_ascii_graphic() => format!("'{}'", b as char),
            Some(&b) => format!("byte 0x{b:02x}"),
        }
    }

    fn unexpected(&self, at: usize) -> String {
        format!("expected a JSON value, found {}", self.describe(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Kind;

    #[test]
    fn a_node_takes_twenty_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 20);
    }

    #[test]
    fn siblings_skip_over_nested_values() {
        let t = parse(br#"{"a": [1, [2, {"x": 3}]], "b\u0041": {}, "c": "s"}"#).unwrap();
        let keys: Vec<_> = t.members(0).map(|(k, _)| k.into_owned()).collect();
        assert_eq!(keys, ["a", "bA", "c"]);
        assert_eq!(t.len(0), 3);
        let a = t.get(0, "a").unwrap();
        assert_eq!(t.len(a), 2);
        assert_eq!(t.raw(t.index(a, 1).unwrap()), br#"[2, {"x": 3}]"#);
        assert!(t.get(0, "b\\u0041").is_none());
        let b = t.get(0, "bA").unwrap();
        assert!(t.is_empty(b) && t.kind(b) == Kind::Object);
        assert_eq!(t.get_str(0, "c").unwrap(), "s");
        assert!(t.is_empty(t.get(0, "c").unwrap()));
        assert_eq!(t.index(a, 2), None);
    }

    #[test]
    fn spans_and_lookup() {
        let src = br#" {"a": [1, 2.50, "x\u00e9"], "b": {"c": null}, "d": NaN} "#;
        let t = parse(src).unwrap();
        let root = t.root();
        assert_eq!(t.kind(root), Kind::Object);
        let a = t.get(root, "a").unwrap();
        assert_eq!(t.len(a), 3);
        let two = t.index(a, 1).unwrap();
        assert_eq!(t.raw(two), b"2.50");
        assert_eq!(t.str(t.index(a, 2).unwrap()).unwrap(), "x\u{e9}");
        assert_eq!(t.kind(t.path(root, &["b", "c"]).unwrap()), Kind::Null);
        assert_eq!(t.raw(t.get(root, "d").unwrap()), b"NaN");
        assert_eq!(t.key(a).unwrap(), "a");
    }

    #[test]
    fn lone_surrogate_is_replaced_not_rejected() {
        let t = parse(br#"{"s": "cut \ud83d", "ok": "\ud83d\ude00"}"#).unwrap();
        assert_eq!(t.get_str(0, "s").unwrap(), "cut \u{FFFD}");
        assert_eq!(t.get_str(0, "ok").unwrap(), "\u{1F600}");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 100_000;
        let mut s = "[".repeat(depth);
        s.push_str(&"]".repeat(depth));
        let t = parse(s.as_bytes()).unwrap();
        assert_eq!(t.span(0), (0, s.len()));
    }

    #[test]
    fn errors_name_the_offset() {
        let e = parse(br#"{"a": [1, 2"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
        let e = parse(br#"{"a" 1}"#).unwrap_err();
        assert_eq!(e.offset, 5);
        let e = parse(br#"{"a": 1} x"#).unwrap_err();
        assert_eq!(e.kind, ErrorKind::TrailingCharacters, "{e}");
        assert!(parse(b"").is_err());
        assert!(parse(b"   ").is_err());
        assert!(parse(b"-").is_err());
    }

    #[test]
    fn strings_end_at_the_first_unescaped_quote_whatever_their_length() {
        for len in [0, 1, 15, 16, 17, 31, 32, 100] {
            let body = "x".repeat(len);
            for text in [format!(r#"["{body}"]"#), format!(r#"["{body}\"", 1]"#)] {
                let t = parse(text.as_bytes()).unwrap();
                let s = t.index(0, 0).unwrap();
                assert_eq!(t.span(s), (1, text.rfind('"').unwrap() + 1), "{text}");
            }
            let cut = format!(r#"["{body}"#);
            let e = parse(cut.as_bytes()).unwrap_err();
            assert_eq!((e.offset, e.kind), (1, ErrorKind::Truncated), "{cut}");
        }
    }

    #[test]
    fn the_first_quote_or_backslash_is_found_exactly() {
        // Bytes next to the two searched for, and ones whose borrow could mark a neighbour.
        let bytes = [
            0u8, 1, b'!', b'"', b'#', b'[', b'\\', b']', 0x7F, 0x80, 0xA2, 0xDC, 0xFF,
        ];
        for seed in 0..20_000u32 {
            let mut x = seed.wrapping_mul(2_654_435_761);
            let len = (seed % 40) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.rotate_left(5) ^ seed;
                    // Mostly plain bytes, so that the first hit falls anywhere.
                    match x % 7 {
                        0 => bytes[(x / 7 % bytes.len() as u32) as usize],
                        _ => b'a',
                    }
                })
                .collect();
            let plain = text.iter().position(|&b| b == b'"' || b == b'\\');
            assert_eq!(quote_or_backslash(&text), plain, "{text:?}");
            if let Ok(word) = <[u8; 8]>::try_from(text.get(..8).unwrap_or_default()) {
                let first = word.iter().position(|&b| b == b'"' || b == b'\\');
                assert_eq!(first_quote_or_backslash(u64::from_le_bytes(word)), first);
            }
        }
    }

    #[test]
    fn key_spans_are_found_across_blanks_and_the_colon() {
        let src = b"{\"a\" \r\n :\t 1, \"b\\\"c\":[], \"\":{\"d\"  :  null}}";
        let t = parse(src).unwrap();
        let spans: Vec<_> = t.children(0).map(|c| t.key_span(c).unwrap()).collect();
        assert_eq!(spans, [(1, 4), (14, 20), (25, 27)]);
        assert_eq!(t.key(t.children(0).next().unwrap()).unwrap(), "a");
        assert_eq!(t.get(0, "b\"c").map(|c| t.raw(c)), Some(&b"[]"[..]));
        let inner = t.get(0, "").unwrap();
        assert_eq!(t.key_span(t.get(inner, "d").unwrap()), Some((29, 32)));
        assert_eq!(t.key_span(0), None);
    }

    #[test]
    fn bom_is_skipped() {
        let t = parse(b"\xEF\xBB\xBF[1]").unwrap();
        assert_eq!(t.span(0), (3, 6));
    }
}
