//! OpenAI Chat Completions: assistant `tool_calls[].id`, answered by `role:"tool"` messages
//! carrying `tool_call_id`, in the contiguous run right after the assistant message.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::RepairCx;
use crate::json::{J, Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{role_message, string};
use super::layout::member_names;
use super::{Dialect, ReadCx};

/// The OpenAI Chat Completions dialect (also Mistral, Groq, DeepSeek, Ollama and most
/// OpenAI-compatible servers).
pub struct OpenAiChat;

impl Dialect for OpenAiChat {
    fn name(&self) -> &'static str {
        "openai-chat"
    }

    fn window(&self) -> Window {
        Window::ToolRun
    }

    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        tree.get(node, "role")?;
        if tree.get(node, "tool_calls").is_some() {
            Some("a message with `role` and `tool_calls`")
        } else if tree.get(node, "tool_call_id").is_some() {
            Some("a message with `role` and `tool_call_id`")
        } else {
            None
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `role`, and `tool_calls` or `tool_call_id`.
        const NEEDS: &[Keys] = &[
            Keys::ROLE.and(Keys::TOOL_CALLS),
            Keys::ROLE.and(Keys::TOOL_CALL_ID),
        ];
        NEEDS
    }

    fn claims_by_keys(&self, keys: Keys) -> Option<bool> {
        // `claims` asks only whether the members are there, as `Keys::of` notes them.
        Some(keys.holds(Keys::ROLE) && keys.any(Keys::TOOL_CALLS.and(Keys::TOOL_CALL_ID)))
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let mut msg = role_message(tree, node, cx)?;
        if let Some(calls) = tree.get(node, "tool_calls") {
            for (i, c) in tree.children(calls).enumerate() {
                msg.calls.push(read_call(tree, c, cx, i));
            }
        }
        if msg.role == Role::Tool {
            msg.results.push(ToolResult {
                name: string(tree, tree.get(node, "name")),
                whole_message: true,
                ..cx.result(tree, node, "", tree.get(node, "tool_call_id"))
            });
        }
        Some(msg)
    }

    fn placeholder(&self, cx: &RepairCx<'_>, call: &CallAt) -> Option<J> {
        let c = &call.call;
        let sample = cx.sample_result().and_then(|m| cx.reparse(m));
        let order: Vec<String> = match &sample {
            Some(t) => member_names(t, t.root()),
            None => vec!["role".into(), "tool_call_id".into(), "content".into()],
        };
        let mut fields: Vec<(String, J)> = Vec::new();
        for key in &order {
            let value = match key.as_str() {
                "role" => J::str("tool"),
                "tool_call_id" => cx.id_token(c),
                "content" => J::str(cx.text(c)),
                "name" => cx.name_value(c),
                "tool_name" => cx.name_value(c),
                _ => continue,
            };
            fields.push((key.clone(), value));
        }
        for (key, value) in [
            ("role", J::str("tool")),
            ("tool_call_id", cx.id_token(c)),
            ("content", J::str(cx.text(c))),
        ] {
            if !fields.iter().any(|(k, _)| k == key) {
                fields.push((key.into(), value));
            }
        }
        Some(J::Obj(fields))
    }

    fn can_note(&self) -> bool {
        true
    }

    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        orphan_note(cx, msg, "role", "user")
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        Some(match defect {
            Defect::Dangling { call, .. } => format!(
                "OpenAI would reject this: \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}\"",
                call.call.id.as_deref().unwrap_or("")
            ),
            Defect::Orphan { .. } => "OpenAI would reject this: \"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.\"".into(),
            Defect::DuplicateResult { result, .. } => format!(
                "OpenAI would reject this: \"Invalid parameter: Duplicate value for 'tool_call_id' of '{}'\"",
                result.result.id.as_deref().unwrap_or("")
            ),
            Defect::Misplaced { .. } => "OpenAI would reject this: the result is not in the run of tool messages right after the assistant message, so the call counts as unanswered".into(),
            _ => return None,
        })
    }
}

pub(super) fn read_call(tree: &Tree<'_>, c: NodeId, cx: &ReadCx<'_>, i: usize) -> Call {
    let kind = tree.get_str(c, "type");
    let name = tree
        .path(c, &["function", "name"])
        .or_else(|| tree.path(c, &["custom", "name"]))
        .or_else(|| tree.get(c, "name"));
    let suffix = crate::model::indexed("/tool_calls/", i);
    Call {
        name: string(tree, name),
        ..cx.call(
            tree,
            c,
            &suffix,
            tree.get(c, "id"),
            kind.as_deref().unwrap_or("function"),
        )
    }
}

/// Turn an orphan result message into a plain note that keeps its content: `{role_key:
/// note_role, "content": "[toolmend: tool result for unknown call <id>] <content>"}`.
pub(crate) fn orphan_note(
    cx: &RepairCx<'_>,
    msg: &Message,
    role_key: &str,
    note_role: &str,
) -> Option<J> {
    Some(J::obj([
        (role_key, J::str(note_role)),
        ("content", J::str(orphan_note_text(cx, msg)?)),
    ]))
}

/// The text of a note replacing an orphan result message: its call id and its `content`
/// (found at the top level, or under LangChain's `data` or `kwargs`).
pub(crate) fn orphan_note_text(cx: &RepairCx<'_>, msg: &Message) -> Option<String> {
    let tree = cx.reparse(msg)?;
    let root = tree.root();
    let inner = tree
        .get(root, "data")
        .or_else(|| tree.get(root, "kwargs"))
        .unwrap_or(root);
    let content = tree.get(inner, "content")?;
    let id = msg.results.first()?.id.clone().unwrap_or_default();
    let text = match tree.kind(content) {
        Kind::String => tree.str(content)?.into_owned(),
        _ => tree.raw_str(content).into_owned(),
    };
    Some(format!(
        "[toolmend: tool result for unknown call {id}] {text}"
    ))
}
