//! SWE-agent trajectories (`*.traj`): the `history` list of a trajectory file. Entries are
//! OpenAI-style messages with SWE-agent's own fields (`message_type`, `agent`, `thought`,
//! `action`…); an assistant entry carries `tool_calls`, and the observation that answers it is a
//! `role:"tool"` entry naming the call in `tool_call_ids`, a list.
//!
//! What the model sees is what SWE-agent sends (`sweagent/agent/models.py`,
//! `_history_to_messages`): every entry becomes one chat message, and a tool entry becomes one
//! `tool` message whose `tool_call_id` is `tool_call_ids[0]` (SWE-agent's function-calling parser
//! accepts exactly one call per step, so the list has one id). Pairing is therefore judged as
//! OpenAI chat judges it, with the first listed id as the result's id; an empty or missing list
//! cannot be sent at all (SWE-agent fails on `tool_call_ids[0]`).
//!
//! SWE-agent appends the action and its observation together, so its own trajectories are never
//! left with an open call; one is broken by hand editing or trimming. The placeholder is a tool
//! entry as SWE-agent writes one (`message_type: "observation"`, the calling entry's `agent`
//! copied, `tool_call_ids: [id]`), which SWE-agent reads back as a normal observation when the
//! trajectory is used as a demonstration.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::RepairCx;
use crate::json::{J, Kind, NodeId, Tree};
use crate::model::{Conversation, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::role_message;
use super::layout::{member_names, order_keys};
use super::openai_chat::{OpenAiChat, orphan_note, read_call};
use super::{Dialect, ReadCx};

/// The SWE-agent trajectory history dialect.
pub struct SweAgent;

/// The keys of a tool entry as SWE-agent writes them, in its order.
const TOOL_ENTRY_KEYS: &[&str] = &["message_type", "role", "content", "agent", "tool_call_ids"];

impl Dialect for SweAgent {
    fn streams(&self) -> bool {
        // Not one window at a time: its repairability looks at every result of the conversation.
        false
    }

    fn name(&self) -> &'static str {
        "swe-agent"
    }

    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn reads(&self, sign: &str) -> bool {
        sign == "tool_call_ids"
    }

    fn window(&self) -> Window {
        Window::ToolRun
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        tree.get(node, "role")?;
        if tree.get(node, "tool_call_ids").is_some() {
            Some(
                "a SWE-agent history entry answering through `tool_call_ids` (SWE-agent sends \
                 the first id as the tool message's `tool_call_id`)",
            )
        } else if tree.get_str(node, "agent").is_some()
            && ["message_type", "thought", "action"]
                .iter()
                .any(|k| tree.get(node, k).is_some())
        {
            Some(
                "a SWE-agent history entry ({\"role\", \"agent\", \"message_type\"|\"thought\"|\"action\"}); \
                 a tool entry answers through `tool_call_ids`, whose first id SWE-agent sends",
            )
        } else {
            None
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `role`, and `tool_call_ids`, or `agent` with one of `message_type`, `thought`, `action`.
        const NEEDS: &[Keys] = &[
            Keys::ROLE.and(Keys::TOOL_CALL_IDS),
            Keys::ROLE.and(Keys::AGENT).and(Keys::MESSAGE_TYPE),
            Keys::ROLE.and(Keys::AGENT).and(Keys::THOUGHT),
            Keys::ROLE.and(Keys::AGENT).and(Keys::ACTION),
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let mut msg = role_message(tree, node, cx)?;
        if let Some(calls) = tree.get(node, "tool_calls")
            && tree.kind(calls) == Kind::Array
        {
            for (i, c) in tree.children(calls).enumerate() {
                msg.calls.push(read_call(tree, c, cx, i));
            }
        }
        if msg.role == Role::Tool {
            let first = tree
                .get(node, "tool_call_ids")
                .filter(|&ids| tree.kind(ids) == Kind::Array)
                .and_then(|ids| tree.index(ids, 0));
            let at = first.unwrap_or(node);
            let suffix = if first.is_some() {
                "/tool_call_ids/0"
            } else {
                ""
            };
            msg.results.push(ToolResult {
                span: cx.span(tree, node),
                whole_message: true,
                ..cx.result(tree, at, suffix, first)
            });
        }
        Some(msg)
    }

    fn repairable(&self, conv: &Conversation) -> bool {
        // An observation whose `tool_call_ids` is empty or missing is most likely the result of
        // the call before it with its id lost: a placeholder there would contradict it. TM006
        // says what to fix first.
        conv.messages
            .iter()
            .flat_map(|m| &m.results)
            .all(|r| r.id.is_some())
    }

    fn placeholder(&self, cx: &RepairCx<'_>, call: &CallAt) -> Option<J> {
        // SWE-agent keeps only the entries of its own agent (`entry["agent"]`): the placeholder
        // copies the calling entry's, and is not written without one.
        let owner = cx.reparse(cx.owner)?;
        let agent = owner.get(owner.root(), "agent")?;
        let agent = J::Raw(owner.raw_str(agent).into_owned());
        let sample = cx
            .sample_result()
            .and_then(|m| cx.reparse(m))
            .map(|t| member_names(&t, t.root()))
            .unwrap_or_default();
        let fields = order_keys(&sample, TOOL_ENTRY_KEYS)
            .into_iter()
            .map(|key| {
                let value = match key.as_str() {
                    "message_type" => J::str("observation"),
                    "role" => J::str("tool"),
                    "content" => J::str(cx.text(&call.call)),
                    "agent" => agent.clone(),
                    _ => J::Arr(vec![cx.id_token(&call.call)]),
                };
                (key, value)
            })
            .collect();
        Some(J::Obj(fields))
    }

    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        // A user observation keeping the orphan's content, with its `agent` (SWE-agent drops
        // entries of other agents, and fails on one without).
        let tree = cx.reparse(msg)?;
        let agent = tree.get(tree.root(), "agent")?;
        let J::Obj(fields) = orphan_note(cx, msg, "role", "user")? else {
            return None;
        };
        let mut entry = vec![("message_type".to_string(), J::str("observation"))];
        entry.extend(fields);
        entry.push(("agent".into(), J::Raw(tree.raw_str(agent).into_owned())));
        Some(J::Obj(entry))
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        if let Defect::MissingResultId { .. } = defect {
            return Some(
                "SWE-agent cannot send this entry: it takes the tool message's `tool_call_id` \
                 from `tool_call_ids[0]`. toolmend repairs nothing in this history until the id \
                 is put back"
                    .into(),
            );
        }
        let openai = OpenAiChat.provider_error(defect)?;
        Some(format!(
            "SWE-agent sends the history as chat messages (a tool entry's `tool_call_id` is its \
             first `tool_call_ids` entry). {openai}"
        ))
    }
}
