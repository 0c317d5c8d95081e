//! OpenCode's file storage (`~/.local/share/opencode/storage/`, the versions before its SQLite
//! database; current versions migrate it on start): one session is spread over many small
//! JSON files, `session/<project>/<session>.json`, `message/<session>/<message>.json` (`{id,
//! sessionID, role, time, …}`) and `part/<message>/<part>.json` (`{id, sessionID, messageID,
//! type, …}`). `toolmend::io` assembles a session into one JSON array in the order OpenCode
//! reads it (messages by id, each followed by its parts by id); this dialect reads that array.
//!
//! A tool part (`{type: "tool", callID, tool, state}`) is a call and its result in one:
//! `state.status` `completed` or `error` carries the result (never dangling); `pending` and
//! `running` mean the tool has not finished (any other status is taken as finished: only
//! these two are ever repaired). Left so in a session that moved on (a later
//! message exists), the run died with the tool in flight and nothing will ever finish it:
//! dangling (TM001). In the session's last message it may still be running: no finding.
//! OpenCode never sends such a part as an unanswered call (the file-storage versions leave it
//! out of the history they send, later ones send it as an error "[Tool execution was
//! interrupted]"), so no provider rejects it; what breaks is the record (a tool spinning
//! forever, a call the model never learns about).
//!
//! Repair does what OpenCode's own abort path does to a tool part that has not finished
//! (`session/processor.ts`: `state: {...part.state, status: "error", error: "Tool execution
//! aborted", time: {start, end}}`), in the part's own file: every member of `state` stays in
//! its place, `status` becomes `"error"`, `time` gets an `end`, and `error` is added. The error
//! text is the placeholder text (OpenCode writes "Tool execution aborted"); `time.start` is
//! the running state's own start, else the message's `time.created`, and `time.end` the
//! message's `time.completed`, else the start: no clock is read, so a repair is
//! deterministic.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, Kind, NodeId, Style, Tree};
use crate::model::{Call, Conversation, Message, Role};
use crate::provider::Provider;

use super::common::{object_at, string};
use super::{Dialect, ReadCx};

/// The OpenCode file-storage dialect.
pub struct OpenCode;

/// The `state` of a tool part (`type: "tool"`, `state` with a `status`).
fn tool_state(tree: &Tree<'_>, node: NodeId) -> Option<NodeId> {
    if tree.kind(node) != Kind::Object || !tree.str_is(node, "type", "tool") {
        return None;
    }
    object_at(tree, node, "state").filter(|&s| tree.get_str(s, "status").is_some())
}

/// Statuses of a tool that has not finished.
const UNFINISHED: &[&str] = &["pending", "running"];

/// Is `node` a message info (`id`, `sessionID`, `role`, `time`)?
fn is_info(tree: &Tree<'_>, node: NodeId) -> bool {
    tree.kind(node) == Kind::Object
        && tree.get_str(node, "id").is_some()
        && tree.get_str(node, "sessionID").is_some()
        && tree.get_str(node, "role").is_some()
        && object_at(tree, node, "time").is_some()
}

impl Dialect for OpenCode {
    fn streams(&self) -> bool {
        // Not one window at a time: the app settles running tools, judged on the whole session.
        false
    }

    fn name(&self) -> &'static str {
        "opencode"
    }

    fn window(&self) -> Window {
        Window::BeforeNextAssistant
    }

    /// OpenCode builds every request with the Vercel AI SDK (`convertToModelMessages`),
    /// whatever the provider.
    fn provider(&self) -> Provider {
        Provider::VercelAi
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        if tool_state(tree, node).is_some() && tree.get(node, "messageID").is_some() {
            Some(
                "an OpenCode tool part (`messageID`, `callID`, `state.status`; step, snapshot and \
                 patch parts are bookkeeping the model never sees)",
            )
        } else if is_info(tree, node) {
            Some(
                "an OpenCode message (`id`, `sessionID`, `role`, `time`; its step, snapshot and \
                 patch parts are bookkeeping the model never sees)",
            )
        } else {
            None
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // A tool part (`type`, `state`, `messageID`) or a message info (`id`, `sessionID`, `role`, `time`).
        const NEEDS: &[Keys] = &[
            Keys::TYPE.and(Keys::STATE).and(Keys::MESSAGE_ID),
            Keys::ID
                .and(Keys::SESSION_ID_UPPER)
                .and(Keys::ROLE)
                .and(Keys::TIME),
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        if is_info(tree, node) {
            let role = match tree.get_str(node, "role")?.as_ref() {
                "assistant" => Role::Assistant,
                "user" => Role::User,
                _ => Role::Other,
            };
            let mut msg = cx.message(tree, node, role);
            msg.group = string(tree, tree.get(node, "id"));
            return Some(msg);
        }
        let group = string(tree, tree.get(node, "messageID"));
        let Some(state) = tool_state(tree, node) else {
            let mut msg = cx.message(tree, node, Role::Other);
            msg.group = group;
            return Some(msg);
        };
        let status = tree.get_str(state, "status").unwrap_or_default();
        let mut msg = cx.message(tree, node, Role::Assistant);
        msg.group = group;
        msg.calls.push(Call {
            name: string(tree, tree.get(node, "tool")),
            server: !UNFINISHED.contains(&status.as_ref()),
            ..cx.call(tree, node, "", tree.get(node, "callID"), status.as_ref())
        });
        Some(msg)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        calls.iter().map(|c| abort_part(cx, c)).collect()
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        match defect {
            Defect::Dangling { call, .. } => Some(format!(
                "the tool part is still `{}` although the session went on: the run ended with it in flight. \
                 No provider rejects it (OpenCode leaves it out of the history it sends, or sends it as an error), \
                 but the model never learns what became of the call; OpenCode itself marks such a part `status: \"error\"` when a run is aborted",
                call.call.kind
            )),
            _ => None,
        }
    }

    /// A part still running in the session's last message may be running right now.
    fn settled_by_app(&self, _: &[u8], conv: &Conversation, defect: &Defect) -> bool {
        let Defect::Dangling { call, .. } = defect else {
            return false;
        };
        let group = conv.messages[call.holder].group.as_deref();
        !conv.messages[call.holder + 1..].iter().any(|m| {
            !m.continuation
                && m.group.as_deref() != group
                && matches!(m.role, Role::User | Role::Assistant)
        })
    }
}

/// The indentation of the line `at` is on.
fn line_lead(src: &[u8], at: usize) -> String {
    let start = memchr::memrchr(b'\n', &src[..at]).map_or(0, |i| i + 1);
    let lead = &src[start..at];
    let end = lead
        .iter()
        .position(|b| *b != b' ' && *b != b'\t')
        .unwrap_or(lead.len());
    String::from_utf8_lossy(&lead[..end]).into_owned()
}

/// The raw text of member `key` of `node`, if any.
fn raw(tree: &Tree<'_>, node: NodeId, key: &str) -> Option<String> {
    tree.get(node, key).map(|v| tree.raw_str(v).into_owned())
}

/// The raw `time.<key>` of message `msg`.
fn message_time(cx: &RepairCx<'_>, msg: &Message, key: &str) -> Option<String> {
    let t = cx.reparse(msg)?;
    let time = object_at(&t, t.root(), "time")?;
    raw(&t, time, key)
}

/// The edit turning the unfinished tool part of `call` into an aborted one, in place.
fn abort_part(cx: &RepairCx<'_>, call: &CallAt) -> Option<Edit> {
    let part = &cx.conv.messages[call.holder];
    let tree = cx.reparse(part)?;
    let state = object_at(&tree, tree.root(), "state")?;
    let start = object_at(&tree, state, "time")
        .and_then(|t| raw(&tree, t, "start"))
        .or_else(|| message_time(cx, cx.owner, "created"))?;
    let end = message_time(cx, cx.owner, "completed").unwrap_or_else(|| start.clone());
    // As OpenCode's abort path writes it (`{...part.state, status, error, time}`): every
    // member kept in its place, `status` and `time` replaced, `error` (and a missing `time`)
    // added at the end. Nothing is removed.
    let time = J::obj([("start", J::Raw(start)), ("end", J::Raw(end))]);
    let mut fields: Vec<(String, J)> = tree
        .members(state)
        .map(|(k, v)| {
            let value = match k.as_ref() {
                "status" => J::str("error"),
                "time" => time.clone(),
                _ => J::Raw(tree.raw_str(v).into_owned()),
            };
            (k.into_owned(), value)
        })
        .collect();
    if !fields.iter().any(|(k, _)| k == "error") {
        fields.push(("error".into(), J::str(cx.text(&call.call))));
    }
    if !fields.iter().any(|(k, _)| k == "time") {
        fields.push(("time".into(), time));
    }
    // Members one level deeper than the line holding `"state":`, as the file has them.
    let mut style = Style::like(&tree, state);
    if let Some(key) = tree.key_span(state) {
        style.base = line_lead(tree.src(), key.0);
    }
    if let Some(first) = tree.children(state).next() {
        let at = tree.key_span(first).map_or(tree.span(first).0, |k| k.0);
        let lead = line_lead(tree.src(), at);
        if let Some(unit) = lead
            .strip_prefix(style.base.as_str())
            .filter(|u| !u.is_empty())
        {
            style.indent = Some(unit.to_string());
        }
    }
    let (s, e) = tree.span(state);
    let base = part.span.start;
    Some(Edit::replace(
        base + s,
        base + e,
        J::Obj(fields).render(&style),
    ))
}
