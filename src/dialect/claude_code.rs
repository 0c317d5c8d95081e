//! Claude Code session logs (`~/.claude/projects/<slug>/<session>.jsonl`): one event per line,
//! chained by `uuid` / `parentUuid`. An API message is split over several assistant lines (one
//! content block each) that share `message.id`; `tool_use` blocks are calls, answered by
//! `tool_result` blocks of user lines before the next assistant turn. Other lines (`summary`,
//! `system`, snapshots, queue operations, progress, attachments…) are passed through. Sidechain
//! lines (Task subagents) are analysed as their own conversations, one per subagent.
//!
//! Repair of dangling calls: all placeholders of one API message go right after the last line
//! of that message holding a dangling call (extended over the message's directly following
//! lines), one new user line per call, chained by `parentUuid`; the line the resumed history
//! goes on with from that line (the first later line hanging from it, unless the chain says
//! otherwise: `Chain::next_lines`) is re-parented to the last placeholder. Nothing is ever inserted
//! between two lines of one API message, which would split it in two when Claude Code rebuilds
//! the history. Result lines are never moved or dropped (they are links of the chain).

pub mod chain;
mod chunked;
mod fields;
mod held;
mod intern;
mod placeholder;

use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

pub(crate) use chain::next_line_of;
pub use held::Held;
pub(crate) use placeholder::{derive_uuid, is_result_line, parent_link};

use super::common::string;
use super::{Dialect, ReadCx, ThreadMemory};

/// The Claude Code session transcript dialect.
pub struct ClaudeCode;

/// Line types of a Claude Code session file.
const LINE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "summary",
    "system",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "attachment",
];

/// The Claude Code release whose resume behaviour the findings describe (docs/claude-code.md).
pub const CLIENT: &str = "2.1.332";

/// Block types of calls whose result comes back inline (never dangling).
const SERVER_CALLS: &[&str] = &["server_tool_use", "mcp_tool_use"];

impl Dialect for ClaudeCode {
    fn streams(&self) -> bool {
        // Not one window at a time: resume sends a chain known only at the end of the file.
        false
    }

    fn name(&self) -> &'static str {
        "claude-code"
    }

    fn window(&self) -> Window {
        Window::BeforeNextAssistant
    }

    fn claim_keys(&self) -> &'static [super::gate::Keys] {
        // `sessionId` and `type` are looked up and must be there (with `uuid` and
        // `parentUuid`, which have no bit).
        use super::gate::Keys;
        const NEEDS: &[Keys] = &[Keys::SESSION_ID_CAMEL.and(Keys::TYPE)];
        NEEDS
    }

    fn provider(&self) -> Provider {
        Provider::Anthropic
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        let [uuid, parent, session, ty] = crate::locate::members_by(tree, node, |key| match key {
            b"uuid" => Some(0),
            b"parentUuid" => Some(1),
            b"sessionId" => Some(2),
            b"type" => Some(3),
            _ => None,
        });
        uuid?;
        parent?;
        session?;
        let ty = ty?;
        LINE_TYPES
            .iter()
            .any(|t| fields::text_is(tree, ty, t))
            .then_some("a Claude Code session line (`uuid`, `parentUuid`, `sessionId`, `type`)")
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        let [ty, message] = crate::locate::members_by(tree, node, |key| match key {
            b"type" => Some(0),
            b"message" => Some(1),
            _ => None,
        });
        let ty = ty?;
        let role = if fields::text_is(tree, ty, "assistant") {
            Role::Assistant
        } else if fields::text_is(tree, ty, "user") {
            Role::User
        } else {
            return None;
        };
        let message = message.filter(|&m| tree.kind(m) == Kind::Object)?;
        let [group, content] = crate::locate::members_by(tree, message, |key| match key {
            b"id" => Some(0),
            b"content" => Some(1),
            _ => None,
        });
        let mut msg = cx.message(tree, node, role);
        if role == Role::Assistant {
            msg.group = group
                .and_then(|g| fields::text(tree, g))
                .map(|s| s.into_owned());
        }
        let Some(content) = content.filter(|&c| tree.kind(c) == Kind::Array) else {
            return Some(msg);
        };
        let blocks = tree.len(content);
        let mut leading = true;
        for (i, block) in tree.children(content).enumerate() {
            let [ty, id, name, use_id] = crate::locate::members_by(tree, block, |key| match key {
                b"type" => Some(0),
                b"id" => Some(1),
                b"name" => Some(2),
                b"tool_use_id" => Some(3),
                _ => None,
            });
            let is = |want: &str| ty.is_some_and(|t| fields::text_is(tree, t, want));
            let suffix = || crate::model::indexed("/message/content/", i);
            let call = match role {
                Role::Assistant => ["tool_use"].iter().chain(SERVER_CALLS).find(|&&k| is(k)),
                _ => None,
            };
            let result = is("tool_result");
            if let Some(&kind) = call {
                msg.calls.push(Call {
                    name: string(tree, name),
                    server: kind != "tool_use",
                    ..cx.call(tree, block, &suffix(), id, kind)
                });
            } else if role == Role::User && result {
                // Never the whole message: a result line is a link of the `parentUuid` chain,
                // and Claude Code rebuilds the history from that chain, not from file order:
                // moving the line would change nothing and deleting it would cut the chain.
                msg.results.push(ToolResult {
                    leading,
                    ..cx.result(tree, block, &suffix(), use_id)
                });
            }
            leading &= result;
        }
        if role == Role::User && blocks > 0 && msg.results.len() == blocks {
            msg.role = Role::Tool;
        }
        Some(msg)
    }

    fn thread(&self, tree: &Tree<'_>, node: NodeId, memory: &mut ThreadMemory) -> Option<String> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        let sidechain = tree.get(node, "isSidechain").and_then(|v| tree.bool(v));
        if sidechain != Some(true) {
            return None;
        }
        // A subagent is named by its `agentId`; without one, a line joins the thread of its
        // parent, and a line whose parent is not a sidechain line starts a thread of its own.
        let uuid = tree.get_str(node, "uuid");
        let key = match tree.get_str(node, "agentId").filter(|a| !a.is_empty()) {
            Some(agent) => format!("agent {agent}"),
            None => match tree
                .get_str(node, "parentUuid")
                .and_then(|p| memory.get(p.as_ref()))
            {
                Some(key) => key.clone(),
                None => match &uuid {
                    Some(u) => format!("sidechain from {u}"),
                    None => "sidechain".into(),
                },
            },
        };
        if let Some(u) = uuid {
            memory.insert(u.into_owned(), key.clone());
        }
        Some(key)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        placeholder::insert(cx, calls)
    }

    fn note_result(&self, cx: &RepairCx<'_>, result: &ResultAt) -> Option<Vec<Edit>> {
        placeholder::note_result(cx, result)
    }

    fn can_note_result(&self, result: &ResultAt) -> bool {
        result.result.span.end > result.result.span.start
    }

    fn drop_result(&self, cx: &RepairCx<'_>, result: &ResultAt) -> Option<Vec<Edit>> {
        placeholder::drop_result(cx, result)
    }

    fn can_drop_result(&self) -> bool {
        true
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        Some(match defect {
            Defect::Dangling { call, .. } => format!(
                "On resume Claude Code {CLIENT} drops the assistant message that made this call when more history follows it (the model forgets it ran the tool), or answers a final call with its own \"[Tool call interrupted…]\" result; other readers get the API's 400: \"messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.\"",
                call.call.id.as_deref().unwrap_or("")
            ),
            Defect::Orphan { result, .. } => format!(
                "On resume Claude Code {CLIENT} silently drops this result; other readers get the API's 400: \"messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: {}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.\"",
                result.result.id.as_deref().unwrap_or("")
            ),
            Defect::Misplaced { .. } => "the result comes after the next assistant turn, so the Anthropic API sees the call unanswered (`tool_use` ids were found without `tool_result` blocks immediately after)".into(),
            Defect::DuplicateCallId { .. } | Defect::ReusedCallId { .. } => {
                "Anthropic would reject this on resume: \"`tool_use` ids must be unique\"".into()
            }
            _ => return None,
        })
    }
}

/// What a streaming repair remembers of each message of a Claude Code thread, in the thread's
/// order (the resumed chain's, for the main thread): where the message starts in the file and
/// what its answer window depends on (its role, whether it continues the API message before
/// it, whether it carries calls: a message read again must agree), packed in 8 bytes a
/// message: the offset above five bits of role and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Brief(u64);

/// The roles, numbered in a [`Brief`] and in a held message's record.
const ROLES: [Role; 5] = [
    Role::Assistant,
    Role::Tool,
    Role::User,
    Role::System,
    Role::Other,
];

/// The number of `role` in [`ROLES`].
fn role_number(role: Role) -> u64 {
    ROLES.iter().position(|&r| r == role).unwrap_or(0) as u64
}

/// The flag `flag` when `on`.
fn flag(on: bool, flag: u64) -> u64 {
    if on { flag } else { 0 }
}

/// A [`Brief`]'s flags, below its role.
const CONTINUATION: u64 = 2;
const CALLS: u64 = 1;

impl Brief {
    /// The brief of the numbered message `m`.
    pub fn of(m: &Message) -> Brief {
        Brief(
            (m.span.start as u64) << 5
                | role_number(m.role) << 2
                | flag(m.continuation, CONTINUATION)
                | flag(!m.calls.is_empty(), CALLS),
        )
    }

    /// Where the message starts in the file (its span's start).
    pub fn offset(self) -> usize {
        (self.0 >> 5) as usize
    }

    /// It continues the API message of the assistant message before it.
    pub fn continuation(self) -> bool {
        self.0 & CONTINUATION != 0
    }

    /// The same brief, continuing the API message before it or not.
    pub fn continuing(self, on: bool) -> Brief {
        Brief(self.0 & !CONTINUATION | if on { CONTINUATION } else { 0 })
    }
}

/// The messages of the main thread that Claude Code resumes, in the order of its chain
/// (`chain.path`), to be numbered afresh (continuations are marked again then). Results whose call lies off the chain say why (TM013);
/// message lines off the chain (abandoned branches) are not part of it.
pub fn resumed(messages: Vec<Message>, chain: &chain::Chain) -> Vec<Message> {
    if chain.path.is_none() {
        return messages;
    }
    let lines: Vec<u32> = messages.iter().map(|m| line_number(m.pos.line)).collect();
    let order = path_order(&lines, chain);
    let mut slots: Vec<Option<Message>> = messages.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|i| slots[i as usize].take())
        .map(|mut m| {
            mark_split(&mut m, chain);
            m
        })
        .collect()
}

/// Line `line` as the chain numbers lines, in 4 bytes (`u32::MAX` past it: a file of 4
/// billion lines is not read).
fn line_number(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// The indices of the messages on lines `lines` (in file order) that lie on the path of
/// `chain`, in the path's order (all of them, in file order, without a path). Four bytes a
/// line of the path and eight a message, while it works.
fn path_order(lines: &[u32], chain: &chain::Chain) -> Vec<u32> {
    let Some(path) = &chain.path else {
        return (0..lines.len() as u32).collect();
    };
    // The place of each line on the path, by line number.
    let mut place = vec![u32::MAX; path.iter().max().map_or(0, |&l| l + 1)];
    for (k, &l) in path.iter().enumerate() {
        place[l] = k as u32;
    }
    // The place above the message's index: in the order of places, messages of one line keep
    // their order.
    let mut kept: Vec<u64> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, &l)| {
            let k = *place.get(l as usize)?;
            (k != u32::MAX).then_some(u64::from(k) << 32 | i as u64)
        })
        .collect();
    drop(place);
    kept.sort_unstable();
    kept.into_iter().map(|k| k as u32).collect()
}

/// A message on the resumed path: its results say why their call is off the path (TM013),
/// and it is numbered afresh (continuations are marked again).
fn mark_split(m: &mut Message, chain: &chain::Chain) {
    let line = m.pos.line;
    if !chain.split.is_empty() {
        for r in &mut m.results {
            if let Some(id) = &r.id {
                r.split = chain.split.get(&(line, id.clone())).cloned();
            }
        }
    }
    m.continuation = false;
}
