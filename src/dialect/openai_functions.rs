//! Legacy OpenAI function calling (before `tool_calls`, deprecated in 2023 but still accepted):
//! an assistant message with one `function_call: {"name", "arguments"}` and no id, answered by
//! a `{"role": "function", "name", "content"}` message.
//!
//! With no ids, the API pairs nothing: the model reads a `function` message as the output of the
//! function it names, and the request is accepted whatever the order, a call left without its
//! `function` message included. toolmend pairs by name and position as the model reads them (a
//! `function` message answers the call of the same name right before it), so calls are counted
//! and shown per tool, but no pairing defect is a finding and nothing is repaired. What the API
//! does reject is reported: a `function` message without `name`, and a `function_call` with an
//! empty name.

use super::gate::Keys;
use crate::analysis::{Defect, Window};
use crate::json::{Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{object_at, role_message, string};
use super::{Dialect, ReadCx};

/// The legacy OpenAI `function_call` dialect.
pub struct OpenAiFunctions;

impl Dialect for OpenAiFunctions {
    fn name(&self) -> &'static str {
        "openai-functions"
    }

    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn reads(&self, sign: &str) -> bool {
        sign == "function_call" || sign == "role: function"
    }

    fn window(&self) -> Window {
        Window::ToolRun
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let role = tree.get_str(node, "role")?;
        if object_at(tree, node, "function_call").is_some() {
            Some(
                "a legacy OpenAI message with `function_call` (no ids: a `function` message \
                 answers the call of its `name` right before it; the API checks no pairing)",
            )
        } else if role == "function" && tree.get(node, "parts").is_none() {
            // (Gemini's older API also has `role: "function"`, with `parts`.)
            Some("a legacy OpenAI `role: \"function\"` message (paired by name and position)")
        } else {
            None
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // A string `role`, and `function_call`, or the role `function`.
        const NEEDS: &[Keys] = &[Keys::ROLE.and(Keys::FUNCTION_CALL), Keys::ROLE_FUNCTION];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let mut msg = role_message(tree, node, cx)?;
        if let Some(call) = object_at(tree, node, "function_call") {
            let name = tree.get(call, "name");
            msg.calls.push(Call {
                // The call's identity is its name: that is all a `function` message can name.
                id: string(tree, name),
                name: string(tree, name),
                ..cx.call(tree, call, "/function_call", None, "function_call")
            });
        }
        if tree.str_is(node, "role", "function") {
            msg.role = Role::Tool;
            let name = tree
                .get(node, "name")
                .filter(|&n| tree.kind(n) == Kind::String);
            msg.results.push(ToolResult {
                id: string(tree, name),
                name: string(tree, name),
                whole_message: true,
                ..cx.result(tree, node, "", None)
            });
        }
        Some(msg)
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        match defect {
            Defect::MissingResultId { .. } => Some(
                "OpenAI rejects a `function` message without a `name`: it names the function \
                 whose output it is"
                    .into(),
            ),
            Defect::MissingToolName { .. } => {
                Some("OpenAI rejects a `function_call` with an empty name".into())
            }
            _ => None,
        }
    }

    fn sends(&self, defect: &Defect) -> bool {
        // Only a missing name is rejected; pairing is never checked, and a call without a
        // name has no id either (reported once, as the missing name).
        matches!(
            defect,
            Defect::MissingResultId { .. } | Defect::MissingToolName { .. }
        )
    }
}
