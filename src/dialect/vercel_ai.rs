//! Vercel AI SDK `ModelMessage` arrays (v5/v6; v4 `CoreMessage` too): assistant content parts
//! `{type: "tool-call", toolCallId, toolName, input}` (v4: `args`), answered by
//! `{type: "tool-result", toolCallId, toolName, output: {type, value}}` (v4: `result`) parts of
//! the `role: "tool"` messages right after.
//!
//! Provider-executed calls (`providerExecuted: true`) carry their result in the assistant
//! message and are never dangling. A call gated by a `tool-approval-request` counts as
//! answered by the matching `tool-approval-response` until its real result exists, as the SDK
//! does; that lookup needs the whole message list, so it is made in JSON documents only.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, Kind, NodeId, Tree, parse};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{array_at, string};
use super::layout::{append_to_array, compact, role_object};
use super::{Dialect, ReadCx};

/// The Vercel AI SDK dialect.
pub struct VercelAi;

/// The content parts of a message, when `content` is a list.
fn content(tree: &Tree<'_>, node: NodeId) -> Option<NodeId> {
    array_at(tree, node, "content")
}

fn is_part(tree: &Tree<'_>, part: NodeId, ty: &str) -> bool {
    tree.kind(part) == Kind::Object && tree.str_is(part, "type", ty)
}

fn role_of(name: &str) -> Role {
    match name {
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        "user" => Role::User,
        "system" => Role::System,
        _ => Role::Other,
    }
}

impl Dialect for VercelAi {
    fn name(&self) -> &'static str {
        "vercel-ai"
    }

    fn window(&self) -> Window {
        Window::ToolRun
    }

    fn provider(&self) -> Provider {
        Provider::VercelAi
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        tree.get(node, "role")?;
        let parts = content(tree, node)?;
        tree.children(parts)
            .any(|p| {
                (is_part(tree, p, "tool-call") || is_part(tree, p, "tool-result"))
                    && tree.get(p, "toolCallId").is_some()
            })
            .then_some("a ModelMessage with `tool-call` / `tool-result` content parts")
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `role`, and `content` as an array.
        const NEEDS: &[Keys] = &[Keys::ROLE.and(Keys::CONTENT_ARRAY)];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        let role = role_of(&tree.get_str(node, "role")?);
        let mut msg = cx.message(tree, node, role);
        let Some(parts) = content(tree, node) else {
            return Some(msg);
        };
        let single = tree.len(parts) == 1;
        for (i, part) in tree.children(parts).enumerate() {
            let suffix = crate::model::indexed("/content/", i);
            let id = tree.get(part, "toolCallId");
            let name = string(tree, tree.get(part, "toolName"));
            if role == Role::Assistant && is_part(tree, part, "tool-call") {
                let server = tree
                    .get(part, "providerExecuted")
                    .and_then(|v| tree.bool(v))
                    .unwrap_or(false);
                msg.calls.push(Call {
                    name,
                    server,
                    ..cx.call(tree, part, &suffix, id, "tool-call")
                });
            } else if role == Role::Tool && is_part(tree, part, "tool-result") {
                msg.results.push(ToolResult {
                    name,
                    whole_message: single,
                    ..cx.result(tree, part, &suffix, id)
                });
            } else if role == Role::Tool
                && is_part(tree, part, "tool-approval-response")
                && let Some((call_id, call_name)) = approved_call(tree, part, cx)
            {
                msg.results.push(ToolResult {
                    id: Some(call_id),
                    name: call_name,
                    ..cx.result(tree, part, &suffix, None)
                });
            }
        }
        Some(msg)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        let parts: Vec<J> = calls.iter().map(|c| result_part(cx, &c.call)).collect();
        if cx.anchor.index != cx.owner.index
            && cx.anchor.role == Role::Tool
            && let Some(edit) = append_to_array(cx, cx.anchor, "content", &parts)
        {
            return Some(vec![edit]);
        }
        let model = cx
            .conv
            .messages
            .iter()
            .find(|m| m.role == Role::Tool)
            .unwrap_or(cx.owner);
        let message = role_object(cx, model, "tool", "content", J::Arr(parts));
        Some(vec![cx.insert_after(cx.anchor, &[message])])
    }

    fn can_note(&self) -> bool {
        true
    }

    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        let r = msg.results.first()?;
        let part = parse(&cx.src[r.span.start..r.span.end]).ok()?;
        let root = part.root();
        let body = match part.get(root, "output") {
            Some(out) => match part.get_str(out, "value") {
                Some(text) => text.into_owned(),
                None => compact(&part.raw_str(out)),
            },
            None => part
                .get(root, "result")
                .map(|v| compact(&part.raw_str(v)))
                .unwrap_or_default(),
        };
        let text = J::str(format!(
            "[toolmend: tool result for unknown call {}] {body}",
            r.id.as_deref().unwrap_or("")
        ));
        Some(role_object(cx, msg, "user", "content", text))
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        match defect {
            Defect::Dangling { call, .. } => Some(format!(
                "the AI SDK would throw AI_MissingToolResultsError: \"Tool result is missing for tool call {}.\"",
                call.call.id.as_deref().unwrap_or("")
            )),
            _ => None,
        }
    }
}

/// Does the file use the v4 shapes (`args` / `result`) rather than `input` / `output`?
fn legacy(cx: &RepairCx<'_>) -> bool {
    let has = |span: crate::model::Span, key: &str| {
        parse(&cx.src[span.start..span.end])
            .ok()
            .is_some_and(|t| t.get(t.root(), key).is_some())
    };
    if let Some(r) = cx
        .conv
        .messages
        .iter()
        .flat_map(|m| m.results.iter())
        .find(|r| r.id_span.is_some())
    {
        return has(r.span, "result") && !has(r.span, "output");
    }
    let Some(tree) = cx.reparse(cx.owner) else {
        return false;
    };
    let Some(parts) = content(&tree, tree.root()) else {
        return false;
    };
    tree.children(parts)
        .find(|&p| is_part(&tree, p, "tool-call"))
        .is_some_and(|p| tree.get(p, "args").is_some() && tree.get(p, "input").is_none())
}

/// The placeholder `tool-result` part for a dangling call.
fn result_part(cx: &RepairCx<'_>, call: &Call) -> J {
    let text = J::str(cx.text(call));
    let mut fields = vec![
        ("type".to_string(), J::str("tool-result")),
        ("toolCallId".to_string(), cx.id_token(call)),
        ("toolName".to_string(), cx.name_value(call)),
    ];
    if legacy(cx) {
        fields.push(("result".into(), text));
        fields.push(("isError".into(), J::Bool(true)));
    } else {
        fields.push((
            "output".into(),
            J::obj([("type", J::str("error-text")), ("value", text)]),
        ));
    }
    if let Some(marker) = cx.marker() {
        fields.push((
            "providerOptions".into(),
            J::obj([("toolmend", J::obj([("synthetic", marker)]))]),
        ));
    }
    J::Obj(fields)
}

/// The message list holding the element at `pointer` (JSON documents only).
fn parent_array(tree: &Tree<'_>, pointer: &str) -> Option<NodeId> {
    let (parent, _) = pointer.rsplit_once('/')?;
    let mut at = tree.root();
    for tok in parent.split('/').skip(1) {
        let tok = tok.replace("~1", "/").replace("~0", "~");
        at = match tree.kind(at) {
            Kind::Array => tree.index(at, tok.parse().ok()?)?,
            _ => tree.get(at, &tok)?,
        };
    }
    (tree.kind(at) == Kind::Array).then_some(at)
}

/// The call an approval response answers, when that call has no real result in the list.
fn approved_call(
    tree: &Tree<'_>,
    response: NodeId,
    cx: &ReadCx<'_>,
) -> Option<(String, Option<String>)> {
    let approval = tree.get_str(response, "approvalId")?;
    let list = parent_array(tree, &cx.pointer)?;
    let parts = || {
        tree.children(list)
            .filter_map(|m| content(tree, m))
            .flat_map(|c| tree.children(c))
    };
    let request = parts().find(|&p| {
        is_part(tree, p, "tool-approval-request") && tree.str_is(p, "approvalId", &approval)
    })?;
    let call_id = tree.get_str(request, "toolCallId")?;
    let has_result =
        parts().any(|p| is_part(tree, p, "tool-result") && tree.str_is(p, "toolCallId", &call_id));
    (!has_result).then(|| {
        (
            call_id.into_owned(),
            tree.get_str(request, "toolName").map(|s| s.into_owned()),
        )
    })
}
