//! Amazon Bedrock Converse: `{"toolUse": {"toolUseId", "name", "input"}}` blocks in an
//! assistant message, answered by `{"toolResult": {"toolUseId", "content", "status"}}` blocks,
//! all in the very next user message (their order within it is free).
//!
//! A `toolUse` with `"type": "server_tool_use"` (Nova's `nova_code_interpreter`) is run by
//! Bedrock itself: its `toolResult` comes inline in the same assistant message, so it is
//! never dangling and that result is no orphan.
//!
//! Placeholders are `toolResult` blocks with `status: "error"` and non-empty text content,
//! merged into the next user message after its existing results, or a new user message right
//! after the calling one when the next message is not a user message (Converse also wants
//! user and assistant turns to alternate, which both keep).

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::anthropic::{content_blocks, merge_blocks, new_user_message, sample_block};
use super::common::{object_at, role_message, string};
use super::layout::{member_names, ordered, sorts_keys};
use super::{Dialect, ReadCx};

/// The Bedrock Converse dialect (`converse` request messages, Strands-style histories).
pub struct Bedrock;

impl Dialect for Bedrock {
    fn name(&self) -> &'static str {
        "bedrock"
    }

    fn window(&self) -> Window {
        Window::NextMessage
    }

    fn provider(&self) -> Provider {
        Provider::Bedrock
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let blocks = content_blocks(tree, node)?;
        tree.children(blocks).find_map(|b| {
            if object_at(tree, b, "toolUse").is_some() {
                Some("a message with `toolUse` content blocks (Bedrock Converse)")
            } else if object_at(tree, b, "toolResult").is_some() {
                Some("a message with `toolResult` content blocks (Bedrock Converse)")
            } else {
                None
            }
        })
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `content_blocks`: `role`, and `content` as an array.
        const NEEDS: &[Keys] = &[Keys::ROLE.and(Keys::CONTENT_ARRAY)];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let mut msg = role_message(tree, node, cx)?;
        let Some(blocks) = content_blocks(tree, node) else {
            return Some(msg);
        };
        // Server tools (`"type": "server_tool_use"`, e.g. Nova's code interpreter) carry their
        // result inline, in the same assistant message.
        let server_ids: Vec<String> = tree
            .children(blocks)
            .filter_map(|b| object_at(tree, b, "toolUse"))
            .filter(|&call| tree.str_is(call, "type", "server_tool_use"))
            .filter_map(|call| string(tree, tree.get(call, "toolUseId")))
            .collect();
        for (i, b) in tree.children(blocks).enumerate() {
            let suffix = crate::model::indexed("/content/", i);
            if let Some(call) = object_at(tree, b, "toolUse") {
                msg.calls.push(Call {
                    name: string(tree, tree.get(call, "name")),
                    server: tree.str_is(call, "type", "server_tool_use"),
                    ..cx.call(tree, b, &suffix, tree.get(call, "toolUseId"), "toolUse")
                });
            } else if let Some(result) = object_at(tree, b, "toolResult") {
                let inline = msg.role == Role::Assistant
                    && string(tree, tree.get(result, "toolUseId"))
                        .is_some_and(|id| server_ids.contains(&id));
                if inline {
                    continue;
                }
                msg.results.push(ToolResult {
                    // Anywhere in the user message counts as in place.
                    leading: msg.role == Role::User,
                    ..cx.result(tree, b, &suffix, tree.get(result, "toolUseId"))
                });
            }
        }
        Some(msg)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        let sample = sample_block(cx, |t, b| object_at(t, b, "toolResult").is_some());
        // The key order of the file's own `toolResult` objects.
        let like = sample
            .as_ref()
            .and_then(|t| object_at(t, t.root(), "toolResult").map(|r| member_names(t, r)));
        let blocks: Vec<J> = calls
            .iter()
            .map(|c| result_block(cx, &c.call, like.as_deref()))
            .collect();
        // After the next message's last `toolResult` block, else at its front.
        let after_results = |t: &Tree<'_>, elems: &[NodeId]| {
            elems
                .iter()
                .rposition(|&b| object_at(t, b, "toolResult").is_some())
                .map_or(0, |i| i + 1)
        };
        let merged = cx
            .next
            .filter(|m| m.role == Role::User)
            .and_then(|next| merge_blocks(cx, next, after_results, &blocks));
        Some(vec![merged.unwrap_or_else(|| new_user_message(cx, blocks))])
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let expected = |call: &CallAt| {
            format!(
                "Bedrock would reject this: \"Expected toolResult blocks at messages.{}.content for the following Ids: {}\"",
                call.message + 1,
                call.call.id.as_deref().unwrap_or("")
            )
        };
        Some(match defect {
            Defect::Dangling { call, .. } => expected(call),
            Defect::Misplaced { call, .. } => expected(call),
            Defect::Orphan { result, .. } | Defect::DuplicateResult { result, .. } => format!(
                "Bedrock would reject this: \"The number of toolResult blocks at messages.{}.content exceeds the number of toolUse blocks of previous turn.\"",
                result.message
            ),
            Defect::DuplicateCallId { call, .. } | Defect::ReusedCallId { call, .. } => format!(
                "Bedrock would reject this: \"The toolUse blocks at messages.{}.content contain duplicate Ids: {}\"",
                call.holder,
                call.call.id.as_deref().unwrap_or("")
            ),
            _ => return None,
        })
    }
}

/// The placeholder `toolResult` block for one dangling call: `status: "error"` with the
/// placeholder text as its (required non-empty) content, keys ordered like the file's own
/// `toolResult` objects. No synthetic marker: Converse rejects unknown fields.
fn result_block(cx: &RepairCx<'_>, call: &Call, like: Option<&[String]>) -> J {
    let sorted = sorts_keys(cx, like);
    let inner = ordered(
        vec![
            ("toolUseId", cx.id_token(call)),
            (
                "content",
                J::Arr(vec![J::obj([("text", J::str(cx.text(call)))])]),
            ),
            ("status", J::str("error")),
        ],
        like,
        sorted,
    );
    J::obj([("toolResult", inner)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn claims(src: &str) -> Option<&'static str> {
        let t = parse(src.as_bytes()).unwrap();
        Bedrock.claims(&t, t.root())
    }

    #[test]
    fn claims_camel_case_blocks_only() {
        assert!(
            claims(r#"{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"n","input":{}}}]}"#)
                .is_some()
        );
        assert!(
            claims(r#"{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[{"text":"x"}]}}]}"#)
                .is_some()
        );
        for other in [
            r#"{"role":"user","content":[{"text":"hi"}]}"#,
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}"#,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}"#,
            r#"{"role":"tool","tool_call_id":"c","content":"ok"}"#,
            r#"{"toolUse":{"toolUseId":"t"}}"#,
        ] {
            assert_eq!(claims(other), None, "{other}");
        }
    }

    #[test]
    fn reads_calls_and_results() {
        let src = br#"[{"role":"assistant","content":[{"text":"x"},{"toolUse":{"toolUseId":"a","name":"f","input":{}}}]},{"role":"user","content":[{"text":"y"},{"toolResult":{"toolUseId":"a","content":[{"text":"1"}],"status":"success"}}]}]"#;
        let t = parse(src).unwrap();
        let cursor = super::super::Cursor::default();
        let cx = ReadCx {
            pointer: "/1".into(),
            ..ReadCx::new(0, 1, &cursor)
        };
        let a = Bedrock.read(&t, t.index(0, 0).unwrap(), &cx).unwrap();
        assert_eq!(a.calls.len(), 1);
        assert_eq!(a.calls[0].id.as_deref(), Some("a"));
        assert_eq!(a.calls[0].pos.pointer, "/1/content/1");
        let u = Bedrock.read(&t, t.index(0, 1).unwrap(), &cx).unwrap();
        assert_eq!(u.results.len(), 1);
        assert!(u.results[0].leading);
    }
}
