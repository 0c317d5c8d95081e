//! OpenHands event streams: the events of a conversation as OpenHands stores them
//! (`sessions/<id>/events/<n>.json`, one event each) and exports them (the trajectory download,
//! `save_trajectory_path`: a JSON array of events). An event is an action
//! (`{"id", "source", "action", "args", "tool_call_metadata"?}`) or an observation
//! (`{"id", "source", "observation", "content", "cause", "tool_call_metadata"?}`).
//! `tool_call_metadata` holds `function_name`, `tool_call_id` and the whole `model_response`
//! whose tool call produced the action; the observation answering it carries the same
//! `tool_call_id` and, in `cause`, the action's `id`.
//!
//! Only the tool actions become calls in what OpenHands sends (`openhands/memory/
//! conversation_memory.py`): `run` (from the agent), `run_ipython`, `read`, `edit`, `browse`,
//! `browse_interactive`, `call_tool_mcp`, `delegate`, `think`, `task_tracking`. The `finish`
//! action is sent as a plain assistant message, and state changes, recalls and condensation
//! events are never shown to the model as tool calls.
//!
//! OpenHands never sends a broken pairing: it holds back a response's assistant message until
//! every call of that response has its observation, then sends the message and its results
//! together, and its final filter (`_filter_unmatched_tool_calls`) drops calls without
//! observations and observations without calls. A stream cut off mid-action (OpenHands itself
//! writes an `ErrorObservation` for a pending action when the agent is stopped) is therefore
//! accepted as it is: no pairing defect is a finding, and nothing is repaired.

use crate::analysis::{Defect, Window};
use crate::json::{NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};

use super::common::{object_at, string};
use super::{Dialect, ReadCx};

/// The OpenHands event stream dialect.
pub struct OpenHands;

/// The actions OpenHands sends as tool calls.
const TOOL_ACTIONS: &[&str] = &[
    "run",
    "run_ipython",
    "read",
    "edit",
    "browse",
    "browse_interactive",
    "call_tool_mcp",
    "delegate",
    "think",
    "task_tracking",
];

impl Dialect for OpenHands {
    fn name(&self) -> &'static str {
        "openhands"
    }

    fn window(&self) -> Window {
        Window::BeforeNextAssistant
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        tree.get_str(node, "source")?;
        if tree.get_str(node, "action").is_some() {
            Some(
                "an OpenHands event ({\"source\", \"action\"}); OpenHands sends only tool \
                 actions whose observations are all recorded, and never shows state, recall or \
                 `finish` events as tool calls",
            )
        } else if tree.get_str(node, "observation").is_some() {
            Some("an OpenHands event ({\"source\", \"observation\"})")
        } else {
            None
        }
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let source = tree.get_str(node, "source")?;
        let metadata = object_at(tree, node, "tool_call_metadata");
        let id = metadata.and_then(|m| tree.get(m, "tool_call_id"));
        if let Some(action) = tree.get_str(node, "action") {
            let is_call = TOOL_ACTIONS.contains(&action.as_ref())
                && (action != "run" || source == "agent")
                && metadata.is_some();
            let role = match (action.as_ref(), source.as_ref()) {
                ("system", _) => Role::System,
                (_, "user") => Role::User,
                (_, "agent") => Role::Assistant,
                _ => Role::Other,
            };
            let mut msg = cx.message(tree, node, role);
            if is_call {
                let metadata = metadata?;
                msg.role = Role::Assistant;
                msg.group = string(tree, tree.path(metadata, &["model_response", "id"]));
                msg.calls.push(Call {
                    name: string(tree, tree.get(metadata, "function_name")),
                    ..cx.call(tree, metadata, "/tool_call_metadata", id, &action)
                });
            }
            return Some(msg);
        }
        tree.get_str(node, "observation")?;
        let mut msg = cx.message(tree, node, Role::Other);
        if let Some(metadata) = metadata {
            msg.role = Role::Tool;
            msg.results.push(ToolResult {
                name: string(tree, tree.get(metadata, "function_name")),
                span: cx.span(tree, node),
                whole_message: true,
                ..cx.result(tree, metadata, "/tool_call_metadata", id)
            });
        }
        Some(msg)
    }

    fn sends(&self, defect: &Defect) -> bool {
        !matches!(
            defect,
            Defect::Dangling { .. }
                | Defect::Orphan { .. }
                | Defect::Misplaced { .. }
                | Defect::DuplicateResult { .. }
        )
    }
}
