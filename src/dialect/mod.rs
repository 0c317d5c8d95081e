//! Dialects: how each log format writes tool calls and results. One file per dialect, all
//! behind the [`Dialect`] trait; everything else works on the neutral model.

mod langchain;
mod openai_chat;

use crate::analysis::{CallAt, Defect, Window};
use crate::json::{J, NodeId, Tree};
use crate::model::{Message, Pos, Span, pointer_token};
use crate::repair::{Edit, RepairCx};

pub use langchain::LangChain;
pub use openai_chat::OpenAiChat;

/// A log format's way of writing tool calls and results.
pub trait Dialect: Sync {
    /// The stable name used by `--dialect` and in reports.
    fn name(&self) -> &'static str;

    /// Where this dialect wants results (its answer window).
    fn window(&self) -> Window;

    /// Why the message (or line) `node` is unmistakably this dialect, or `None`.
    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str>;

    /// Read one element of the message list (or one line) into the neutral model; `None` when
    /// it is not a message (it is then passed through untouched).
    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message>;

    /// Which thread of a JSON Lines file a message line belongs to: lines of different threads
    /// are analysed as separate conversations (e.g. Claude Code sidechains). `None` is the
    /// main thread.
    fn thread(&self, tree: &Tree<'_>, node: NodeId) -> Option<String> {
        let _ = (tree, node);
        None
    }

    /// The placeholder result message for one dangling call (message-level dialects).
    fn placeholder(&self, cx: &RepairCx<'_>, call: &CallAt) -> Option<J> {
        let _ = (cx, call);
        None
    }

    /// Edits inserting placeholder results for the dangling `calls` of one model message,
    /// right after its existing results. The default inserts one [`Dialect::placeholder`]
    /// message per call after `cx.anchor`.
    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        let items: Option<Vec<J>> = calls.iter().map(|c| self.placeholder(cx, c)).collect();
        Some(vec![cx.insert_after(cx.anchor, &items?)])
    }

    /// A plain note replacing an orphan result message, keeping its content (orphan policy
    /// `note`); `None` when the dialect cannot express one.
    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        let _ = (cx, msg);
        None
    }

    /// The provider's own words for a defect (quoted in the finding's message), if known.
    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let _ = defect;
        None
    }
}

impl std::fmt::Debug for dyn Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every dialect, in detection priority order.
pub fn all() -> &'static [&'static dyn Dialect] {
    &[&LangChain, &OpenAiChat]
}

/// Look a dialect up by name.
pub fn by_name(name: &str) -> Option<&'static dyn Dialect> {
    all().iter().copied().find(|d| d.name() == name)
}

/// The names of all dialects, for help texts and errors.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|d| d.name()).collect()
}

/// The default dialect for messages without any tool keys.
pub fn fallback() -> &'static dyn Dialect {
    &OpenAiChat
}

/// Where the element being read sits: used to compute absolute spans, lines and pointers.
#[derive(Debug, Clone)]
pub struct ReadCx<'a> {
    /// Offset of the tree's source within the document.
    pub base: usize,
    /// Line index of the tree's source (the whole document, or one line of JSON Lines).
    pub lines: Option<&'a LineIndex>,
    /// The 1-based line the tree's source starts on, when it is one line of a JSON Lines file
    /// (0 when the source is the whole document).
    pub line: usize,
    /// JSON Pointer of the element being read.
    pub pointer: String,
}

impl ReadCx<'_> {
    /// Absolute span of a node.
    pub fn span(&self, tree: &Tree<'_>, node: NodeId) -> Span {
        Span::new(tree.span(node)).shift(self.base)
    }

    /// Position of `node`, whose pointer is the element's pointer plus `suffix` (`/a/0`).
    pub fn pos(&self, tree: &Tree<'_>, node: NodeId, suffix: &str) -> Pos {
        let (start, _) = tree.span(node);
        let (line, column) = match self.lines {
            Some(index) => {
                let (line, column) = index.locate(tree.src(), start);
                (line + self.line.saturating_sub(1), column)
            }
            None => {
                let (_, col) = crate::json::line_col(tree.src(), start);
                (self.line, col)
            }
        };
        Pos {
            offset: start + self.base,
            line,
            column,
            pointer: format!("{}{}", self.pointer, suffix),
        }
    }

    /// Pointer suffix for a path of keys and indices.
    pub fn suffix(parts: &[&dyn std::fmt::Display]) -> String {
        parts
            .iter()
            .map(|p| format!("/{}", pointer_token(&p.to_string())))
            .collect()
    }
}

/// Byte offsets of line starts (and character counts at regular byte intervals), for
/// turning offsets into lines and columns fast: a minified document or a JSON Lines line with
/// a million calls on one line must not cost a scan from the line start for each of them.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// `chars[k]`: characters in the first `k * CHUNK` bytes (one more entry for the end).
    chars: Vec<usize>,
}

/// Byte interval of the character-count checkpoints.
const CHUNK: usize = 4096;

fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

impl LineIndex {
    /// Index the lines of `src`. A leading byte order mark is not part of the first line.
    pub fn new(src: &[u8]) -> LineIndex {
        let first = if src.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let mut starts = vec![first];
        starts.extend(memchr::memchr_iter(b'\n', src).map(|i| i + 1));
        let mut chars = Vec::with_capacity(src.len() / CHUNK + 2);
        let mut n = 0;
        for chunk in src.chunks(CHUNK) {
            chars.push(n);
            n += count_chars(chunk);
        }
        chars.push(n);
        LineIndex { starts, chars }
    }

    /// Characters in `src[..offset]`.
    fn chars_before(&self, src: &[u8], offset: usize) -> usize {
        let k = (offset / CHUNK).min(self.chars.len().saturating_sub(1));
        self.chars.get(k).copied().unwrap_or(0) + count_chars(&src[(k * CHUNK).min(offset)..offset])
    }

    /// 1-based line and column (in characters) of `offset` in `src`, the bytes it indexed.
    pub fn locate(&self, src: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(src.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1].min(offset);
        let col = self.chars_before(src, offset) - self.chars_before(src, start) + 1;
        (line, col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_matches_a_plain_count() {
        let mut src = b"\xEF\xBB\xBF[\"\xc3\xa9\", 1,\n  2]\r\n".to_vec();
        src.extend("é".repeat(5000).bytes());
        src.extend(b"\n\n x");
        let index = LineIndex::new(&src);
        for offset in 0..=src.len() {
            if offset < src.len() && (src[offset] & 0xC0) == 0x80 {
                continue;
            }
            assert_eq!(
                index.locate(&src, offset),
                crate::json::line_col(&src, offset),
                "offset {offset}"
            );
        }
        // The byte order mark is not a column.
        assert_eq!(index.locate(&src, 3), (1, 1));
    }
}
