//! Dialects: how each log format writes tool calls and results. One file per dialect, all
//! behind the [`Dialect`] trait; everything else works on the neutral model.

mod anthropic;
mod bedrock;
mod claude_code;
mod claude_stream;
mod cline;
mod codex;
mod codex_legacy;
mod common;
pub mod gate;
mod gemini;
mod gemini_cli;
mod gemini_cli_jsonl;
mod kimi_code;
mod langchain;
mod layout;
mod openai_chat;
mod openai_functions;
mod openai_responses;
mod opencode;
mod openhands;
mod pydantic_ai;
mod swe_agent;
pub mod tool_keys;
mod vercel_ai;

use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, NodeId, Tree};
use crate::model::{Conversation, Message, Pos, Span};

pub use anthropic::Anthropic;
pub use bedrock::Bedrock;
pub(crate) use claude_code::chain::UUIDS_NOT_IDENTIFIERS;
pub use claude_code::chain::{Chain, ChainReader, DropLine, LinkDrafts, TreeFinding, TreeFix};
pub use claude_code::{Brief, ClaudeCode, Held, resumed};
pub(crate) use claude_code::{derive_uuid, is_result_line, next_line_of, parent_link};
pub use claude_stream::ClaudeStream;
pub use cline::{Cline, TaskFile};
pub use codex::CodexRollout;
pub use codex_legacy::CodexLegacy;
pub use gemini::Gemini;
pub use gemini_cli::GeminiCli;
pub use gemini_cli_jsonl::GeminiCliJsonl;
pub use kimi_code::KimiCode;
pub use langchain::LangChain;
pub use openai_chat::OpenAiChat;
pub use openai_functions::OpenAiFunctions;
pub use openai_responses::OpenAiResponses;
pub use opencode::OpenCode;
pub use openhands::OpenHands;
pub use pydantic_ai::PydanticAi;
pub use swe_agent::SweAgent;
pub use vercel_ai::VercelAi;

/// A log format's way of writing tool calls and results.
pub trait Dialect: Sync {
    /// The stable name used by `--dialect` and in reports.
    fn name(&self) -> &'static str;

    /// Where this dialect's own provider wants results (its answer window); `--target` may
    /// judge by another provider's window (see [`crate::target::judge`]).
    fn window(&self) -> Window;

    /// The provider (or owning application) whose rules judge this dialect by default.
    fn provider(&self) -> crate::provider::Provider;

    /// Whether this dialect reads the tool key named `sign` of [`tool_keys::TOOL_KEYS`] (a dialect that
    /// reads, say, `tool_call_ids` claims such messages before the others and says so here).
    fn reads(&self, sign: &str) -> bool {
        let _ = sign;
        false
    }

    /// Why the message (or line) `node` is unmistakably this dialect, or `None`.
    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str>;

    /// Sets of keys of which the message `node` must hold one whole set (see [`gate::Keys`])
    /// for [`Dialect::claims`] to be anything but `None`: a necessary condition, so that
    /// [`gate`] asks only the dialects that may claim. No set: it never claims. The default,
    /// the empty set, is no condition.
    fn claim_keys(&self) -> &'static [gate::Keys] {
        &[gate::Keys::NONE]
    }

    /// Whether [`Dialect::claims`] is `Some` for a message whose [`gate::Keys`] are `keys`,
    /// when they alone decide it (its claims only asks whether some members are there);
    /// `None`, the default, when its claims must be asked.
    fn claims_by_keys(&self, keys: gate::Keys) -> Option<bool> {
        let _ = keys;
        None
    }

    /// Read one element of the message list (or one line) into the neutral model; `None` when
    /// it is not a message (it is then passed through untouched).
    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message>;

    /// What the walk of the messages `nodes` (a whole conversation) would count, when their
    /// pairing is plainly clean under this dialect's own rules: every call answered where the
    /// provider wants it, every id and name present, no id twice in a message (nor in the
    /// conversation, with `unique_ids`), nothing a rule looks at twice. `None` (the default)
    /// whenever anything is less plain: the messages are then read and walked. Never `Some`
    /// for a conversation the walk would find a defect in.
    fn skim(
        &self,
        tree: &Tree<'_>,
        nodes: &[NodeId],
        unique_ids: bool,
    ) -> Option<crate::model::Skimmed> {
        let _ = (tree, nodes, unique_ids);
        None
    }

    /// Which thread of a JSON Lines file a line belongs to: message lines of different threads
    /// are analysed as separate conversations (e.g. Claude Code sidechains). `None` is the
    /// main thread. Called for every parsed line in file order, message or not; `memory` lives
    /// for the whole file so a line can join the thread of an earlier one (its parent).
    fn thread(&self, tree: &Tree<'_>, node: NodeId, memory: &mut ThreadMemory) -> Option<String> {
        let _ = (tree, node, memory);
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

    /// Edits moving a result that is a block inside a message into its call's answer window
    /// (TM003, safe: the block's bytes move, nothing is rewritten); `None` when the dialect
    /// cannot do that for this result.
    fn move_block(&self, cx: &RepairCx<'_>, call: &CallAt, result: &ResultAt) -> Option<Vec<Edit>> {
        let _ = (cx, call, result);
        None
    }

    /// Whether [`Dialect::move_block`] can move this result (for the fix shown by `lint`).
    fn can_move_block(&self, call: &CallAt, result: &ResultAt) -> bool {
        let _ = (call, result);
        false
    }

    /// A plain note replacing an orphan result message, keeping its content (orphan policy
    /// `note`); `None` when the dialect cannot express one.
    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        let _ = (cx, msg);
        None
    }

    /// Whether [`Dialect::note`] is written for this dialect (so `--orphans note` is offered).
    fn can_note(&self) -> bool {
        false
    }

    /// Edits turning the orphan result *block* `result` into a plain text block that keeps its
    /// content (orphan policy `note`), for dialects whose results cannot be noted as whole
    /// messages; `None` when it cannot.
    fn note_result(&self, cx: &RepairCx<'_>, result: &ResultAt) -> Option<Vec<Edit>> {
        let _ = (cx, result);
        None
    }

    /// Whether [`Dialect::note_result`] can note this result (for the fix shown by `lint`).
    fn can_note_result(&self, result: &ResultAt) -> bool {
        let _ = result;
        false
    }

    /// Edits removing the orphan result *block* `result` (orphan policy `drop`), for dialects
    /// whose results are not whole messages: `None` (kept) when it cannot be removed alone.
    fn drop_result(&self, cx: &RepairCx<'_>, result: &ResultAt) -> Option<Vec<Edit>> {
        let _ = (cx, result);
        None
    }

    /// Whether [`Dialect::drop_result`] is written for this dialect (for the fix shown by
    /// `lint`).
    fn can_drop_result(&self) -> bool {
        false
    }

    /// Edits removing `result`, a second copy of the response `first` (duplicate policy
    /// `keep-first`), for dialects where `first` is not a message of its own: `None` (kept)
    /// when it cannot be removed alone.
    fn drop_copy(
        &self,
        cx: &RepairCx<'_>,
        first: &ResultAt,
        result: &ResultAt,
    ) -> Option<Vec<Edit>> {
        let _ = (cx, first, result);
        None
    }

    /// Whether [`Dialect::drop_copy`] can remove `result` (for the fix shown by `lint`).
    fn can_drop_copy(&self, first: &ResultAt, result: &ResultAt) -> bool {
        let _ = (first, result);
        false
    }

    /// The provider's own words for a defect (quoted in the finding's message), if known.
    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let _ = defect;
        None
    }

    /// Whether toolmend may repair `conv` (the default). A dialect says no when something in
    /// the conversation makes any fix a guess; its findings then offer no fix, and `repair`
    /// leaves it byte-identical.
    fn repairable(&self, conv: &Conversation) -> bool {
        let _ = conv;
        true
    }

    /// Whether the owning app sends `defect` to the provider as it is (the default). Apps that
    /// rebuild each request from their log (closing open calls, dropping orphans) never send
    /// some defects: those are no findings, and nothing is repaired for them.
    fn sends(&self, defect: &Defect) -> bool {
        let _ = defect;
        true
    }

    /// Whether the owning app settles `defect` itself before anything reaches the provider
    /// (Cline and Roo Code answer a trailing call on resume), or cannot be judged yet (a tool
    /// still running): then it is no finding. `src` is the whole document. Consulted when a
    /// whole document is analysed, so only dialects of JSON documents may rely on it.
    fn settled_by_app(&self, src: &[u8], conv: &Conversation, defect: &Defect) -> bool {
        let _ = (src, conv, defect);
        false
    }

    /// Whether a repair of this format would be read back by the app that owns it. `false`
    /// for a record nothing reads again (a CLI's output stream): findings come without a fix.
    /// It does not depend on the conversation, so `lint` streaming JSON Lines honours it too;
    /// [`Dialect::repairable`] decides per conversation.
    fn repairs(&self) -> bool {
        true
    }

    /// Whether a repair may read this dialect's JSON Lines one answer window at a time,
    /// without holding the file (see `repair::stream_lines`). `false` for a dialect whose
    /// verdict or fix looks at the whole conversation or document ([`Dialect::repairable`],
    /// [`Dialect::settled_by_app`], a chain known only at the end) or whose lines are records
    /// replayed before the walk.
    fn streams(&self) -> bool {
        !self.record_log()
    }

    /// Whether the lines of a JSON Lines file are a log of record updates (Gemini CLI's
    /// recordings), to be replayed with [`Dialect::record_op`] before the walk.
    fn record_log(&self) -> bool {
        false
    }

    /// What the line `node` of a record log does to the records before it.
    fn record_op(&self, tree: &Tree<'_>, node: NodeId) -> Option<RecordOp> {
        let _ = (tree, node);
        None
    }
}

/// What one line of a record log (see [`Dialect::record_log`]) does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordOp {
    /// The line is the newest version of record `id`: it replaces an earlier line with that
    /// id in its place, or is appended.
    Upsert(String),
    /// Record `id` and every record after it are dropped (all of them when `id` is unknown).
    RewindTo(String),
    /// Every record so far is dropped; the records in the array `list` of this line (at
    /// pointer `at` within the line) replace them.
    Checkpoint {
        /// The array of records.
        list: NodeId,
        /// Its JSON Pointer within the line.
        at: &'static str,
    },
}

impl std::fmt::Debug for dyn Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What [`Dialect::thread`] remembers about earlier lines of one JSON Lines file (e.g. the
/// thread of each line id).
pub type ThreadMemory = std::collections::HashMap<String, String>;

/// Every dialect, in detection priority order. The agent logs' own envelopes, markers and
/// events come first (Codex rollouts old and new, Claude Code sessions and stream-json output,
/// Kimi Code, OpenHands, OpenCode parts, Gemini CLI recording lines), so that their data is
/// never taken for plain chat; Responses items (typed call/output items without a `role`)
/// before the role-based dialects; pydantic-ai's `kind`/`parts` messages before Gemini's
/// `parts`; Bedrock's camelCase `toolUse`/`toolResult` blocks are tested before Anthropic's
/// `tool_use`/`tool_result`; SWE-agent history entries and legacy `function_call` messages
/// before plain OpenAI chat, which comes last. `cline` is chosen by file name only.
pub fn all() -> &'static [&'static dyn Dialect] {
    &[
        &CodexRollout,
        &CodexLegacy,
        &ClaudeCode,
        &ClaudeStream,
        &KimiCode,
        &OpenHands,
        &OpenCode,
        &GeminiCliJsonl,
        &LangChain,
        &OpenAiResponses,
        &PydanticAi,
        &Gemini,
        &GeminiCli,
        &VercelAi,
        &Bedrock,
        &Anthropic,
        &Cline,
        &SweAgent,
        &OpenAiFunctions,
        &OpenAiChat,
    ]
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
    /// The 1-based line on which the tree's source starts.
    pub line: usize,
    /// JSON Pointer of the element being read.
    pub pointer: String,
    /// The last position computed, so that positions visited in order cost amortised O(1).
    pub cursor: &'a Cursor,
}

/// The length from which a source is first looked at whole (see [`Cursor`]).
const PLAIN_LOOK: usize = 2048;

/// A remembered (offset, line, column) within a tree's source, and whether that source is
/// one line of ASCII (then a column is the offset plus one, with nothing to count).
#[derive(Debug, Default)]
pub struct Cursor(
    std::cell::Cell<(usize, usize, usize)>,
    std::cell::OnceCell<bool>,
);

impl ReadCx<'_> {
    /// Absolute span of a node.
    pub fn span(&self, tree: &Tree<'_>, node: NodeId) -> Span {
        Span::new(tree.span(node)).shift(self.base)
    }

    /// Position of `node`, whose pointer is the element's pointer plus `suffix` (`/a/0`).
    pub fn pos(&self, tree: &Tree<'_>, node: NodeId, suffix: &str) -> Pos {
        let (start, _) = tree.span(node);
        let (line, column) = self.line_col(tree.src(), start);
        let mut pointer = String::with_capacity(self.pointer.len() + suffix.len());
        pointer.push_str(&self.pointer);
        pointer.push_str(suffix);
        Pos {
            offset: start + self.base,
            line,
            column,
            pointer,
        }
    }

    /// Whether `src`, the source of every position asked for, is one line of ASCII.
    #[inline(never)]
    fn plain(&self, src: &[u8]) -> bool {
        *self
            .cursor
            .1
            .get_or_init(|| memchr::memchr(b'\n', src).is_none() && src.is_ascii())
    }

    /// 1-based line and column (in characters) of `offset` within `src`, counted from the
    /// cursor when moving forward (positions are mostly asked for in order).
    fn line_col(&self, src: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(src.len());
        // A long source is looked at once; a short one costs less counted as it goes.
        if src.len() >= PLAIN_LOOK && self.plain(src) {
            return (self.line, offset + 1);
        }
        let (mut at, mut line, mut col) = self.cursor.0.get();
        if at > offset || line == 0 {
            // A byte order mark before the first line is not a column.
            let bom = if src.starts_with(b"\xEF\xBB\xBF") && offset >= 3 {
                3
            } else {
                0
            };
            (at, line, col) = (bom, self.line, 1);
        }
        let seg = &src[at..offset];
        let chars = crate::json::char_count;
        match memchr::memrchr(b'\n', seg) {
            Some(last) => {
                line += memchr::memchr_iter(b'\n', seg).count();
                col = 1 + chars(&seg[last + 1..]);
            }
            None => col += chars(seg),
        }
        at = offset;
        self.cursor.0.set((at, line, col));
        (line, col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_positions_match_a_plain_count() {
        let mut src = b"\xEF\xBB\xBF[\"\xc3\xa9\", 1,\n  2]\r\n".to_vec();
        src.extend("é".repeat(5000).bytes());
        src.extend(b"\n\n x");
        let cursor = Cursor::default();
        let cx = ReadCx::new(0, 1, &cursor);
        // Forwards (the cursor advances) and backwards (it restarts) give the plain count, in
        // which the byte order mark is not a column.
        let offsets: Vec<usize> = (3..=src.len())
            .filter(|&o| o == src.len() || (src[o] & 0xC0) != 0x80)
            .collect();
        for &offset in offsets.iter().chain(offsets.iter().rev().step_by(97)) {
            assert_eq!(
                cx.line_col(&src, offset),
                crate::json::line_col(&src, offset),
                "offset {offset}"
            );
        }
        // One line of ASCII, which is not counted, on a later line of its file.
        let line = format!(
            r#"{{"a": [1, "xy\u00e9", {{"b": "{}"}}]}}"#,
            "z".repeat(PLAIN_LOOK)
        );
        let line = line.as_bytes();
        let cursor = Cursor::default();
        let cx = ReadCx::new(0, 7, &cursor);
        for offset in (0..=line.len()).chain([3, 0]) {
            let (l, c) = crate::json::line_col(line, offset);
            assert_eq!(cx.line_col(line, offset), (l + 6, c), "offset {offset}");
        }
    }
}
