//! OpenAI Responses input items: request bodies with an `input` list, and Agents SDK sessions
//! stored one item per line. Every item is one message. A call item (`function_call`,
//! `custom_tool_call`, `computer_call`, `local_shell_call`, `shell_call`, `apply_patch_call`,
//! `tool_search_call`, `program`) holds one call, answered by its `*_output` item with the same
//! `call_id`; an `mcp_approval_request` is answered by the `mcp_approval_response` whose
//! `approval_request_id` is its `id`. `message` items are read by their role; `reasoning` and
//! every other item are [`Role::Other`] and kept as they are.
//!
//! Self-contained items (`web_search_call`, `file_search_call`, `code_interpreter_call`,
//! `image_generation_call`, `mcp_call`, and a `tool_search_call`/`tool_search_output` with
//! `execution: "server"`) carry their result inline: server calls, never dangling.
//!
//! Answer window ([`Window::AfterCall`]): OpenAI pairs by `call_id` anywhere after the call in
//! `input`, with other items (a `developer` message, as Codex records) in between. Under
//! `--target deepseek` (or any other target) the window is [`Window::CallRun`]: the output must
//! sit in the run of calls, outputs and reasoning after its call, and an output after a user,
//! system, developer or assistant `message` is misplaced (TM003). Reusing a `call_id` in a
//! later turn is a finding (TM005): the API answers "Duplicate function_call_output for
//! call_id …".
//!
//! A request continuing a conversation stored by the API (`previous_response_id` or
//! `conversation` set) sends outputs whose calls live in the stored response: an output whose
//! call is not in the list is then not an orphan.
//!
//! Pairing is by id alone: an output of another type with the same id answers the call.
//!
//! Placeholders: the matching output item, `call_id` copied verbatim, keys in the order of the
//! file's own output items (same type first, else any), all sorted when the file sorts its keys
//! (judged on those outputs, else on the calling item). The text goes in `output` (function,
//! custom tool and local shell outputs), in `stderr` of one chunk with `exit_code` 1
//! (`shell_call_output`, whose `output` is a list of chunks), in `output` with `status:
//! "failed"` (`apply_patch_call_output`), in `result` with `status: "incomplete"`
//! (`program_output`) and in `reason` with `approve: false` (`mcp_approval_response`: never
//! approve for the user). Two outputs cannot carry text: `tool_search_output` gets `tools: []`
//! (as Codex writes it), and `computer_call_output`, whose `output` must be a screenshot, gets a
//! blank 1×1 PNG as a data URL: the least wrong shape the API accepts; the model sees an
//! empty screen and takes a new screenshot. No synthetic marker is written: the API rejects
//! unknown item fields.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::string;
use super::layout::{keys_sorted, member_names, ordered};
use super::{Dialect, ReadCx};

/// The OpenAI Responses dialect (also the Agents SDK's stored items).
pub struct OpenAiResponses;

/// Call item types, the output type answering each, and the tool name of items without one.
const PAIRS: &[(&str, &str, &str)] = &[
    ("function_call", "function_call_output", ""),
    ("custom_tool_call", "custom_tool_call_output", ""),
    ("computer_call", "computer_call_output", "computer"),
    ("local_shell_call", "local_shell_call_output", "local_shell"),
    ("shell_call", "shell_call_output", "shell"),
    ("apply_patch_call", "apply_patch_call_output", "apply_patch"),
    ("tool_search_call", "tool_search_output", "tool_search"),
    ("program", "program_output", "program"),
    ("mcp_approval_request", "mcp_approval_response", ""),
];

/// Items that carry their own result.
const SERVER_ITEMS: &[&str] = &[
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
];

/// A blank 1×1 PNG: the placeholder screenshot of a `computer_call_output`.
const BLANK_PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGP4DwABAQEAsTj2FAAAAABJRU5ErkJggg==";

/// The output item type answering a call item type.
pub(crate) fn output_for(call_type: &str) -> Option<&'static str> {
    PAIRS.iter().find(|p| p.0 == call_type).map(|p| p.1)
}

fn is_output(ty: &str) -> bool {
    PAIRS.iter().any(|p| p.1 == ty)
}

/// Executed by the server: a self-contained item, or a server-side tool search.
fn server_side(tree: &Tree<'_>, item: NodeId, ty: &str) -> bool {
    SERVER_ITEMS.contains(&ty)
        || (matches!(ty, "tool_search_call" | "tool_search_output")
            && tree.str_is(item, "execution", "server"))
}

/// The member holding the id a call item is answered by.
fn call_id_node(tree: &Tree<'_>, item: NodeId, ty: &str) -> Option<NodeId> {
    match ty {
        "mcp_approval_request" => tree.get(item, "id"),
        _ => tree.get(item, "call_id"),
    }
}

/// The member holding the id of the call an output item answers.
fn output_id_node(tree: &Tree<'_>, item: NodeId, ty: &str) -> Option<NodeId> {
    match ty {
        "mcp_approval_response" => tree.get(item, "approval_request_id"),
        // The SDK type names it `id`; the server wants `call_id`.
        "local_shell_call_output" => tree.get(item, "call_id").or_else(|| tree.get(item, "id")),
        _ => tree.get(item, "call_id"),
    }
}

fn role_of(role: &str) -> Role {
    match role {
        "assistant" => Role::Assistant,
        "user" => Role::User,
        "system" | "developer" => Role::System,
        _ => Role::Other,
    }
}

/// Read one Responses item into a message. The message is `outer` (the item itself, or the
/// Codex line around it); `item` is the item, at `prefix` within `outer` (`""`, `/payload`).
pub(crate) fn read_item(
    tree: &Tree<'_>,
    outer: NodeId,
    item: NodeId,
    prefix: &str,
    cx: &ReadCx<'_>,
) -> Option<Message> {
    if tree.kind(item) != Kind::Object {
        return None;
    }
    let ty = tree.get_str(item, "type").unwrap_or_default();
    let ty = ty.as_ref();
    let server = server_side(tree, item, ty);
    let new = |role| cx.message(tree, outer, role);
    let name = string(tree, tree.get(item, "name"));
    if let Some(&(_, _, default_name)) = PAIRS.iter().find(|p| p.0 == ty)
        && !server
    {
        let mut msg = new(Role::Assistant);
        msg.calls.push(Call {
            name: name.or_else(|| (!default_name.is_empty()).then(|| default_name.to_string())),
            ..cx.call(tree, item, prefix, call_id_node(tree, item, ty), ty)
        });
        return Some(msg);
    }
    if server && ty != "tool_search_output" {
        let id = tree.get(item, "call_id").or_else(|| tree.get(item, "id"));
        let mut msg = new(Role::Assistant);
        msg.calls.push(Call {
            name: name.or_else(|| Some(ty.to_string())),
            server: true,
            ..cx.call(tree, item, prefix, id, ty)
        });
        return Some(msg);
    }
    if is_output(ty) && !server {
        let mut msg = new(Role::Tool);
        msg.results.push(ToolResult {
            name,
            span: msg.span,
            whole_message: true,
            ..cx.result(tree, item, prefix, output_id_node(tree, item, ty))
        });
        return Some(msg);
    }
    let role = match (ty, tree.get_str(item, "role")) {
        ("message" | "", Some(role)) => role_of(&role),
        _ => Role::Other,
    };
    Some(new(role))
}

/// In a request continuing a stored conversation (`previous_response_id` or `conversation`),
/// does the output `node` with call id `id` answer a call of the stored part (no call item
/// with that id comes before it in its list)?
fn answers_stored_call(tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>, id: &str) -> bool {
    let tokens: Vec<String> = cx
        .pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let [envelope @ .., list_key, _] = tokens.as_slice() else {
        return false;
    };
    let Some(envelope) = envelope
        .iter()
        .try_fold(tree.root(), |at, tok| match tree.kind(at) {
            Kind::Array => tok.parse().ok().and_then(|i| tree.index(at, i)),
            _ => tree.get(at, tok),
        })
    else {
        return false;
    };
    let stored = tree
        .get(envelope, "previous_response_id")
        .is_some_and(|v| tree.kind(v) == Kind::String)
        || tree
            .get(envelope, "conversation")
            .is_some_and(|v| tree.kind(v) != Kind::Null);
    let Some(list) = tree.get(envelope, list_key).filter(|_| stored) else {
        return false;
    };
    !tree.children(list).take_while(|&c| c != node).any(|c| {
        let ty = tree.get_str(c, "type").unwrap_or_default();
        output_for(&ty).is_some()
            && !server_side(tree, c, &ty)
            && string(tree, call_id_node(tree, c, &ty)).as_deref() == Some(id)
    })
}

impl Dialect for OpenAiResponses {
    fn name(&self) -> &'static str {
        "openai-responses"
    }

    fn window(&self) -> Window {
        Window::AfterCall
    }

    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        if tree.kind(node) != Kind::Object || tree.get(node, "role").is_some() {
            return None;
        }
        let ty = tree.get_str(node, "type")?;
        let ty = ty.as_ref();
        if output_for(ty).is_some() && call_id_node(tree, node, ty).is_some() {
            Some("a Responses call item (`type` and `call_id`)")
        } else if is_output(ty) && output_id_node(tree, node, ty).is_some() {
            Some("a Responses output item (`type` and `call_id`)")
        } else if ty == "reasoning"
            && (tree.get(node, "summary").is_some()
                || tree.get(node, "encrypted_content").is_some())
        {
            Some("a Responses `reasoning` item")
        } else if SERVER_ITEMS.contains(&ty) && tree.get(node, "id").is_some() {
            Some("a Responses server tool item")
        } else {
            None
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `type`, and the member each branch looks up: `call_id` or `id` (calls, outputs, server items), `approval_request_id`, `summary` or `encrypted_content`.
        const NEEDS: &[Keys] = &[
            Keys::TYPE.and(Keys::CALL_ID),
            Keys::TYPE.and(Keys::ID),
            Keys::TYPE.and(Keys::APPROVAL_REQUEST_ID),
            Keys::TYPE.and(Keys::SUMMARY),
            Keys::TYPE.and(Keys::ENCRYPTED_CONTENT),
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let mut msg = read_item(tree, node, node, "", cx)?;
        if let Some(id) = msg.results.first().and_then(|r| r.id.clone())
            && answers_stored_call(tree, node, cx, &id)
        {
            msg.results.clear();
        }
        Some(msg)
    }

    fn placeholder(&self, cx: &RepairCx<'_>, call: &CallAt) -> Option<J> {
        let out = output_for(&call.call.kind)?;
        Some(output_item(cx, call, out, false))
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        insert_outputs(self, cx, calls)
    }

    fn can_note(&self) -> bool {
        true
    }

    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        let text = note_text(cx, msg, false)?;
        let tree = cx.reparse(msg)?;
        let sorted = keys_sorted(&member_names(&tree, tree.root()));
        let fields = vec![("role", J::str("user")), ("content", J::str(text))];
        Some(ordered(fields, None, sorted))
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        provider_error(defect)
    }
}

/// Insert one placeholder output per dangling call after the run's last output, except for a
/// call whose id a later call of the same run reuses: its output goes right after it, so that
/// it answers that call and not the later one.
pub(crate) fn insert_outputs(
    d: &dyn Dialect,
    cx: &RepairCx<'_>,
    calls: &[&CallAt],
) -> Option<Vec<Edit>> {
    let mut edits = Vec::new();
    for call in calls {
        let holder = cx.conv.messages.get(call.holder)?;
        let reused = cx.reused_before_anchor(call.holder, &call.call);
        let anchor = if reused { holder } else { cx.anchor };
        edits.push(cx.insert_after(anchor, &[d.placeholder(cx, call)?]));
    }
    Some(edits)
}

/// The item of a message: the message itself, or its `payload` (Codex lines).
fn item_of(tree: &Tree<'_>, payload: bool) -> Option<NodeId> {
    if payload {
        tree.get(tree.root(), "payload")
    } else {
        Some(tree.root())
    }
}

/// Key order of the file's own output items: one of type `out` if any, else the first one.
fn sample_order(cx: &RepairCx<'_>, out: &str, payload: bool) -> Option<Vec<String>> {
    let mut any = None;
    for m in &cx.conv.messages {
        if m.results.len() != 1 || !m.calls.is_empty() {
            continue;
        }
        let Some(tree) = cx.reparse(m) else { continue };
        let Some(item) = item_of(&tree, payload) else {
            continue;
        };
        let keys = member_names(&tree, item);
        if tree.str_is(item, "type", out) {
            return Some(keys);
        }
        any.get_or_insert(keys);
    }
    any
}

/// The output item of type `out` answering `call` (`payload`: items sit under `/payload`).
pub(crate) fn output_item(cx: &RepairCx<'_>, call: &CallAt, out: &str, payload: bool) -> J {
    let c = &call.call;
    let text = || J::str(cx.text(c));
    let holder_tree = cx
        .conv
        .messages
        .get(call.holder)
        .and_then(|m| cx.reparse(m));
    let holder = holder_tree
        .as_ref()
        .and_then(|t| item_of(t, payload).map(|i| (t, i)));
    let id_key = match out {
        "mcp_approval_response" => "approval_request_id",
        _ => "call_id",
    };
    let mut fields: Vec<(String, J)> = vec![
        ("type".into(), J::str(out)),
        (id_key.into(), cx.id_token(c)),
    ];
    let rest: Vec<(&str, J)> = match out {
        "computer_call_output" => vec![(
            "output",
            J::obj([
                ("type", J::str("computer_screenshot")),
                ("image_url", J::str(BLANK_PNG)),
            ]),
        )],
        "shell_call_output" => vec![(
            "output",
            J::Arr(vec![J::obj([
                ("stdout", J::str("")),
                ("stderr", text()),
                (
                    "outcome",
                    J::obj([("type", J::str("exit")), ("exit_code", J::Raw("1".into()))]),
                ),
            ])]),
        )],
        "apply_patch_call_output" => vec![("status", J::str("failed")), ("output", text())],
        "tool_search_output" => {
            let execution = holder
                .and_then(|(t, i)| t.get_str(i, "execution"))
                .map_or_else(|| "client".into(), |s| s.into_owned());
            vec![
                ("status", J::str("completed")),
                ("execution", J::str(execution)),
                ("tools", J::Arr(Vec::new())),
            ]
        }
        "program_output" => vec![("status", J::str("incomplete")), ("result", text())],
        "mcp_approval_response" => vec![("approve", J::Bool(false)), ("reason", text())],
        _ => vec![("output", text())],
    };
    fields.extend(rest.into_iter().map(|(k, v)| (k.to_string(), v)));
    let order = sample_order(cx, out, payload);
    // A file written with sorted keys: judged on its outputs, else on the calling item.
    let sorted = match &order {
        Some(keys) => keys_sorted(keys),
        None => holder.is_some_and(|(t, i)| keys_sorted(&member_names(t, i))),
    };
    if let Some(order) = &order {
        let has = |k: &str| order.iter().any(|o| o == k);
        if out == "local_shell_call_output" && has("id") && !has("call_id") {
            fields[1].0 = "id".into();
        }
    }
    ordered(fields, order.as_deref(), sorted)
}

/// The text of an orphan output turned into a note, keeping its content.
pub(crate) fn note_text(cx: &RepairCx<'_>, msg: &Message, payload: bool) -> Option<String> {
    let tree = cx.reparse(msg)?;
    let item = item_of(&tree, payload)?;
    let id = msg.results.first()?.id.clone().unwrap_or_default();
    let content = tree
        .get(item, "output")
        .or_else(|| tree.get(item, "result"))
        .or_else(|| tree.get(item, "reason"));
    let text = match content {
        Some(v) if tree.kind(v) == Kind::String => tree.str(v)?.into_owned(),
        Some(v) => tree.raw_str(v).into_owned(),
        None => tree.raw_str(item).into_owned(),
    };
    Some(format!(
        "[toolmend: tool result for unknown call {id}] {text}"
    ))
}

/// OpenAI's own words for a defect of a Responses item list.
pub(crate) fn provider_error(defect: &Defect) -> Option<String> {
    Some(match defect {
        Defect::Dangling { call, .. } => {
            let id = call.call.id.as_deref().unwrap_or("");
            let what = match call.call.kind.as_str() {
                "function_call" => "function call",
                "custom_tool_call" => "custom tool call",
                "local_shell_call" => "local shell call",
                other => {
                    return Some(format!(
                        "OpenAI would reject this: every call needs its `{}` item (its words for a function call: \"No tool output found for function call {id}.\")",
                        output_for(other).unwrap_or("output")
                    ));
                }
            };
            format!("OpenAI would reject this: \"No tool output found for {what} {id}.\"")
        }
        Defect::Orphan { result, .. } => format!(
            "OpenAI would reject this: \"No tool call found for function call output with call_id {}.\" (its words for a function_call_output)",
            result.result.id.as_deref().unwrap_or("")
        ),
        Defect::ReusedCallId { call, .. } => format!(
            "OpenAI would reject this: \"Duplicate function_call_output for call_id '{}'. Each function_call must have exactly one matching function_call_output\"",
            call.call.id.as_deref().unwrap_or("")
        ),
        Defect::DuplicateResult { .. } => "OpenAI would reject this when both copies carry the same item id: \"Duplicate item found with id fco_…. Remove duplicate items from your input and try again.\"".into(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn chat_messages_and_message_items_are_never_claimed() {
        let chat = br#"[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]"#;
        let tree = parse(chat).unwrap();
        for node in tree.children(tree.root()) {
            assert_eq!(OpenAiResponses.claims(&tree, node), None);
        }
        // An item with a role is a message, never claimed: only call, output, reasoning and
        // server items are.
        let message = parse(br#"{"type":"message","role":"assistant","content":[]}"#).unwrap();
        assert_eq!(OpenAiResponses.claims(&message, message.root()), None);
    }
}
