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
//!
//! The V1 software-agent SDK (`openhands-sdk`, persisted one event per file,
//! `events/event-<n>-<id>.json`) writes `{"kind": "ActionEvent", "source", "tool_name",
//! "tool_call_id", "llm_response_id", "action": {…}}` and answers with `ObservationEvent`,
//! `AgentErrorEvent` or `UserRejectObservation` carrying the same `tool_call_id`. Its view of
//! the events drops unmatched actions and observations and every observation after the first
//! of a call (`ToolCallMatchingProperty`, `ObservationUniquenessProperty`), and a resumed
//! conversation backfills an interrupted action with an `AgentErrorEvent`: the same verdict.

use super::gate::Keys;
use crate::analysis::{Defect, Window};
use crate::json::{NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

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

    fn provider(&self) -> Provider {
        Provider::OpenHands
    }

    fn reads(&self, sign: &str) -> bool {
        sign == "tool_call_metadata"
    }

    fn window(&self) -> Window {
        Window::BeforeNextAssistant
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        tree.get_str(node, "source")?;
        if sdk_kind(tree, node).is_some() {
            return Some(
                "an OpenHands SDK event ({\"kind\", \"source\"}); OpenHands sends only actions \
                 and observations that match, the first observation of each call",
            );
        }
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

    fn claim_keys(&self) -> &'static [Keys] {
        // `source`, and `kind`, `action` or `observation`.
        const NEEDS: &[Keys] = &[
            Keys::SOURCE.and(Keys::KIND),
            Keys::SOURCE.and(Keys::ACTION),
            Keys::SOURCE.and(Keys::OBSERVATION),
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let source = tree.get_str(node, "source")?;
        if let Some(kind) = sdk_kind(tree, node) {
            return Some(read_sdk_event(tree, node, kind, cx));
        }
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

/// The event kinds of the V1 SDK that take part in what is sent to the model.
const SDK_KINDS: &[&str] = &[
    "ActionEvent",
    "ObservationEvent",
    "AgentErrorEvent",
    "UserRejectObservation",
    "MessageEvent",
    "SystemPromptEvent",
];

/// The `kind` of a V1 SDK event, when it is one of [`SDK_KINDS`].
fn sdk_kind(tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
    let kind = tree.get_str(node, "kind")?;
    SDK_KINDS.iter().copied().find(|k| *k == kind)
}

/// A V1 SDK event: an `ActionEvent` is a call of its LLM response (`llm_response_id`), the
/// observation-like events answer `tool_call_id`, a `MessageEvent` is its `llm_message`'s role.
fn read_sdk_event(tree: &Tree<'_>, node: NodeId, kind: &str, cx: &ReadCx<'_>) -> Message {
    let id = tree.get(node, "tool_call_id");
    let name = string(tree, tree.get(node, "tool_name"));
    match kind {
        "ActionEvent" => {
            let mut msg = cx.message(tree, node, Role::Assistant);
            msg.group = string(tree, tree.get(node, "llm_response_id"));
            msg.calls.push(Call {
                name,
                ..cx.call(tree, node, "", id, kind)
            });
            msg
        }
        "MessageEvent" => {
            let role = tree
                .path(node, &["llm_message", "role"])
                .and_then(|r| tree.str(r))
                .map_or(Role::Other, |r| super::common::role_of(&r));
            cx.message(tree, node, role)
        }
        "SystemPromptEvent" => cx.message(tree, node, Role::System),
        _ if id.is_some() => {
            let mut msg = cx.message(tree, node, Role::Tool);
            msg.results.push(ToolResult {
                name,
                whole_message: true,
                ..cx.result(tree, node, "", id)
            });
            msg
        }
        _ => cx.message(tree, node, Role::Other),
    }
}
