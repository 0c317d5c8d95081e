//! Dialects: how each log format writes tool calls and results. One file per dialect, all
//! behind the [`Dialect`] trait; everything else works on the neutral model.

mod gemini;
mod gemini_cli;
mod langchain;
mod openai_chat;
mod vercel_ai;

use crate::analysis::{CallAt, Defect, Window};
use crate::json::{J, NodeId, Tree};
use crate::model::{Message, Pos, Span, pointer_token};
use crate::repair::{Edit, RepairCx};

pub use gemini::Gemini;
pub use gemini_cli::GeminiCli;
pub use langchain::LangChain;
pub use openai_chat::OpenAiChat;
pub use vercel_ai::VercelAi;

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
    &[&LangChain, &Gemini, &GeminiCli, &VercelAi, &OpenAiChat]
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
    /// Line index of the document, when the tree is the whole document.
    pub lines: Option<&'a LineIndex>,
    /// The 1-based line of the tree's source, when it is one line of a JSON Lines file.
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
            Some(index) => index.locate(tree.src(), start),
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

/// Byte offsets of line starts, for turning offsets into lines fast.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Index the lines of `src`.
    pub fn new(src: &[u8]) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', src).map(|i| i + 1));
        LineIndex { starts }
    }

    /// 1-based line and column (in characters) of `offset` in `src`.
    pub fn locate(&self, src: &[u8], offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let col = src[start..offset.min(src.len())]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count()
            + 1;
        (line, col)
    }
}
