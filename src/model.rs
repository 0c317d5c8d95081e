//! The neutral model every dialect is read into: conversations of messages holding tool calls
//! and tool results, each remembering where it sits in the original bytes.

/// A byte range `[start, end)` of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from a `(start, end)` pair.
    pub fn new((start, end): (usize, usize)) -> Span {
        Span { start, end }
    }

    /// The same span moved by `by` bytes (from line-relative to document offsets).
    pub fn shift(self, by: usize) -> Span {
        Span {
            start: self.start + by,
            end: self.end + by,
        }
    }
}

/// A place in the document: byte offset, 1-based line and column, and JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pos {
    /// Byte offset in the document.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// JSON Pointer (RFC 6901) of the value; for JSON Lines it is relative to its line.
    pub pointer: String,
}

/// What a message is, as far as pairing is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Model output: may carry tool calls.
    Assistant,
    /// A message that only carries tool results (OpenAI `role:"tool"`, LangChain ToolMessage).
    Tool,
    /// A user turn (it may carry results at its front, as Anthropic's do).
    User,
    /// System or developer instructions.
    System,
    /// Anything else kept in the list (reasoning items, notes…).
    Other,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Call {
    /// The call id (`None` when missing).
    pub id: Option<String>,
    /// The tool name (`None` when missing).
    pub name: Option<String>,
    /// Where the call is.
    pub pos: Pos,
    /// The id token exactly as written (quotes included), for copying and re-id.
    pub id_span: Option<Span>,
    /// The dialect's own kind of call (e.g. `function_call`, `tool_use`), for its placeholder.
    pub kind: String,
    /// A server-side tool whose result is inline: never dangling.
    pub server: bool,
}

/// One tool result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolResult {
    /// The id of the call it answers (`None` when missing).
    pub id: Option<String>,
    /// The tool name, when the result carries one.
    pub name: Option<String>,
    /// Where the result is.
    pub pos: Pos,
    /// The id token exactly as written.
    pub id_span: Option<Span>,
    /// The bytes of the result (the whole message when it is the message).
    pub span: Span,
    /// The result sits where the dialect wants results in its message (e.g. Anthropic's
    /// leading `tool_result` blocks). Always true for dialects without such a rule.
    pub leading: bool,
    /// The result is the whole message, so it can be moved or dropped as one.
    pub whole_message: bool,
    /// Why the call of this result is off the history the owning app resumes (a Claude Code
    /// result whose call is on an abandoned branch or before a compact boundary): the result
    /// is then reported as TM013 rather than TM002.
    pub split: Option<String>,
}

/// One message (or item, or event line) of a conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Index within the conversation.
    pub index: usize,
    /// What the message is.
    pub role: Role,
    /// Where the message is (its start).
    pub pos: Pos,
    /// The bytes of the message.
    pub span: Span,
    /// Tool calls, in order.
    pub calls: Vec<Call>,
    /// Tool results, in order.
    pub results: Vec<ToolResult>,
    /// Messages with the same group key form one model message (Claude Code writes one content
    /// block per line; Responses writes one item per call).
    pub group: Option<String>,
    /// Set by the reader: this message continues the previous model message of its group.
    pub continuation: bool,
}

impl Message {
    /// An empty message of `role` at `pos` spanning `span`.
    pub fn new(role: Role, pos: Pos, span: Span) -> Message {
        Message {
            index: 0,
            role,
            pos,
            span,
            calls: Vec::new(),
            results: Vec::new(),
            group: None,
            continuation: false,
        }
    }
}

/// How the messages of a conversation are stored in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Container {
    /// Elements of a JSON array whose bytes are `span`.
    Array {
        /// The array, brackets included.
        span: Span,
    },
    /// One message per line of a JSON Lines file.
    Lines,
    /// Messages gathered from several places by `--at`: analysed, never repaired.
    Scattered,
}

/// One conversation found in a document.
#[derive(Debug, Clone)]
pub struct Conversation {
    /// Index of the conversation within its document.
    pub index: usize,
    /// The dialect it was read as.
    pub dialect: &'static str,
    /// Why that dialect, and where the conversation was found.
    pub detection: String,
    /// JSON Pointer of the message list (empty for a JSON Lines file of messages).
    pub pointer: String,
    /// Where the messages are stored.
    pub container: Container,
    /// The messages, in order.
    pub messages: Vec<Message>,
    /// Messages written in another dialect than the conversation was read as: they were not
    /// analysed, and the conversation is not repaired (a guess could corrupt it).
    pub foreign: Vec<Foreign>,
    /// Messages carrying tool keys the conversation's dialect does not read: the conversation
    /// is reported (TM009) instead of judged, and never repaired.
    pub unread: Vec<Unread>,
    /// Claude Code: lines whose next line on the resumed history is not the first later line
    /// hanging from them, and where that next line starts (see `Chain::next_lines`).
    pub next_lines: Vec<(usize, usize)>,
    /// Set, with `messages` left empty, when the conversation was only skimmed (for a reader
    /// that asks for it, such as the streaming lint's): its pairing is plainly clean, and this
    /// is what a walk counts.
    pub skimmed: Option<Skimmed>,
}

/// What the walk of a conversation whose pairing is plainly clean would count, found without
/// reading its messages into the model (see [`crate::dialect::Dialect::skim`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skimmed {
    /// Its messages.
    pub messages: usize,
    /// Its tool calls.
    pub calls: usize,
    /// The calls per tool name, in the order the names first occur.
    pub names: Vec<(String, usize)>,
}

/// A message carrying a tool key (see `dialect::tool_keys`) that its dialect does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// Where the message is.
    pub pos: Pos,
    /// The key.
    pub key: &'static str,
    /// What the key is.
    pub what: &'static str,
}

/// A message that another dialect recognises while the conversation's dialect does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    /// Where the message is.
    pub pos: Pos,
    /// The dialect that recognises it.
    pub dialect: &'static str,
    /// Why.
    pub why: &'static str,
}

impl Conversation {
    /// All tool calls, with the index of their message.
    pub fn calls(&self) -> impl Iterator<Item = (usize, &Call)> {
        self.messages
            .iter()
            .flat_map(|m| m.calls.iter().map(move |c| (m.index, c)))
    }
}

/// Escape one JSON Pointer reference token.
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `prefix` followed by the decimal digits of `index` (a pointer to an element of a list whose
/// pointer plus `/` is `prefix`), without going through the formatting machinery.
pub fn indexed(prefix: &str, index: usize) -> String {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut out = String::with_capacity(prefix.len() + digits.len() - at);
    out.push_str(prefix);
    out.extend(digits[at..].iter().map(|&d| d as char));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn indexed_writes_the_index_in_decimal() {
        for i in [0, 7, 10, 99, 100, 12345, usize::MAX] {
            assert_eq!(super::indexed("/messages/", i), format!("/messages/{i}"));
        }
    }
}
