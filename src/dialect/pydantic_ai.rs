//! pydantic-ai message dumps (`ModelMessagesTypeAdapter.dump_json`, `result.all_messages_json()`):
//! a list of `{"kind": "request"|"response", "parts": [...]}` messages. A response's
//! `{"part_kind": "tool-call", "tool_name", "args", "tool_call_id"}` part is answered in the next
//! request by a `tool-return` part, or by a `retry-prompt` part that names the tool (a retry
//! prompt without `tool_name` is a user prompt). `builtin-tool-call` / `builtin-tool-return`
//! parts are the provider's own tools, resolved inline in the response.
//!
//! pydantic-ai sends a dump to the provider only through its own history processing, which
//! repairs pairing before every request (`docs/message-history.md`, "Making histories
//! provider-valid"): a call without a result gets a synthesized `tool-return` ("The tool call was
//! interrupted before a result was produced."), an orphan result is removed, and adjacent
//! requests are merged with results first. A dump that ends with tool calls is a live run
//! waiting for its tools. None of these reach the provider, so none is a finding. What it
//! leaves alone, and the provider then rejects, is reported: two results for one call, an id
//! used twice in one response, a call without an id or tool name.

use super::gate::Keys;
use crate::analysis::{Defect, Window};
use crate::json::{Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{array_at, string};
use super::{Dialect, ReadCx};

/// The pydantic-ai message dump dialect.
pub struct PydanticAi;

/// The `parts` of a pydantic-ai message, with whether it is a response.
fn parts(tree: &Tree<'_>, node: NodeId) -> Option<(NodeId, bool)> {
    let kind = tree.get_str(node, "kind")?;
    let response = match kind.as_ref() {
        "request" => false,
        "response" => true,
        _ => return None,
    };
    Some((array_at(tree, node, "parts")?, response))
}

impl Dialect for PydanticAi {
    fn name(&self) -> &'static str {
        "pydantic-ai"
    }

    fn provider(&self) -> Provider {
        Provider::PydanticAi
    }

    fn reads(&self, sign: &str) -> bool {
        sign == "part_kind"
    }

    fn window(&self) -> Window {
        Window::NextMessage
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let (parts, _) = parts(tree, node)?;
        let typed = tree.is_empty(parts)
            || tree
                .children(parts)
                .any(|p| tree.get_str(p, "part_kind").is_some());
        typed.then_some(
            "a pydantic-ai message ({\"kind\": \"request\"|\"response\", \"parts\": [{\"part_kind\"…}]}); \
             pydantic-ai closes open calls and drops orphan results itself before each request",
        )
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `parts` needs `kind` and `parts`.
        const NEEDS: &[Keys] = &[Keys::KIND.and(Keys::PARTS)];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let (list, response) = parts(tree, node)?;
        let role = if response {
            Role::Assistant
        } else {
            Role::User
        };
        let mut msg = cx.message(tree, node, role);
        for (i, part) in tree.children(list).enumerate() {
            if tree.kind(part) != Kind::Object {
                continue;
            }
            let suffix = crate::model::indexed("/parts/", i);
            let id = tree.get(part, "tool_call_id");
            let name = string(tree, tree.get(part, "tool_name"));
            match tree.get_str(part, "part_kind").as_deref() {
                Some(kind @ ("tool-call" | "builtin-tool-call")) if response => {
                    msg.calls.push(Call {
                        name,
                        server: kind == "builtin-tool-call",
                        ..cx.call(tree, part, &suffix, id, kind)
                    });
                }
                Some("tool-return") if !response => msg.results.push(ToolResult {
                    name,
                    ..cx.result(tree, part, &suffix, id)
                }),
                Some("retry-prompt") if !response && name.is_some() => {
                    msg.results.push(ToolResult {
                        name,
                        ..cx.result(tree, part, &suffix, id)
                    })
                }
                _ => {}
            }
        }
        Some(msg)
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        match defect {
            Defect::DuplicateResult { .. } => Some(
                "pydantic-ai sends both results (its history repair leaves duplicates alone); \
                 OpenAI would reject this: \"Invalid parameter: Duplicate value for \
                 'tool_call_id'\""
                    .into(),
            ),
            _ => None,
        }
    }

    fn sends(&self, defect: &Defect) -> bool {
        !matches!(
            defect,
            Defect::Dangling { .. } | Defect::Orphan { .. } | Defect::Misplaced { .. }
        )
    }
}
