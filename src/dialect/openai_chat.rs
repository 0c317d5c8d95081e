//! OpenAI Chat Completions: assistant `tool_calls[].id`, answered by `role:"tool"` messages
//! carrying `tool_call_id`, in the contiguous run right after the assistant message.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::RepairCx;
use crate::json::{J, Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, Skimmed, ToolResult};
use crate::provider::Provider;

use super::common::{role_message, role_named, string};
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

    fn skim(&self, tree: &Tree<'_>, nodes: &[NodeId], unique_ids: bool) -> Option<Skimmed> {
        skim(tree, nodes, unique_ids)
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

/// [`Dialect::skim`] for OpenAI chat: every assistant message's `tool_calls` (objects, each
/// with a plain, non-empty string `id`, not twice in the message nor, with `unique_ids`, in the
/// conversation, and such a tool name) is answered, each call once, by the run of
/// `role:"tool"` messages right after it and by nothing else. Anything else, however harmless,
/// gives `None`.
fn skim(tree: &Tree<'_>, nodes: &[NodeId], unique_ids: bool) -> Option<Skimmed> {
    let plain = |node: Option<NodeId>| {
        node.and_then(|v| tree.plain_bytes(v))
            .filter(|b| !b.is_empty())
    };
    // The calls of the message being answered, those not answered yet, and every call's id
    // (the ids of the conversation, or of the message only).
    let mut open: Vec<&[u8]> = Vec::new();
    let mut ids: Vec<&[u8]> = Vec::new();
    let mut calls = 0;
    let mut names: Vec<(&[u8], usize)> = Vec::new();
    for &n in nodes {
        if tree.kind(n) != Kind::Object {
            return None;
        }
        let role = match tree.get(n, "role") {
            Some(r) => role_named(tree.plain_bytes(r)?),
            None => Role::Other,
        };
        let (list, answers) = (tree.get(n, "tool_calls"), tree.get(n, "tool_call_id"));
        if role == Role::Tool {
            let id = plain(answers)?;
            let at = open.iter().position(|&o| o == id)?;
            open.swap_remove(at);
            if list.is_some() {
                return None;
            }
            continue;
        }
        if !open.is_empty() || answers.is_some() {
            return None;
        }
        let Some(list) = list.filter(|&c| tree.kind(c) != Kind::Null) else {
            continue;
        };
        if role != Role::Assistant || tree.kind(list) != Kind::Array {
            return None;
        }
        if !unique_ids {
            ids.clear();
        }
        for c in tree.children(list) {
            if tree.kind(c) != Kind::Object {
                return None;
            }
            let name = tree
                .path(c, &["function", "name"])
                .or_else(|| tree.path(c, &["custom", "name"]))
                .or_else(|| tree.get(c, "name"));
            let (id, name) = (plain(tree.get(c, "id"))?, plain(name)?);
            open.push(id);
            ids.push(id);
            calls += 1;
            match names.iter_mut().find(|(known, _)| *known == name) {
                Some((_, count)) => *count += 1,
                None => names.push((name, 1)),
            }
        }
        if open.is_empty() {
            // `tool_calls: []`: left to the walk.
            return None;
        }
        if !unique_ids && !all_different(&mut ids) {
            return None;
        }
    }
    if !open.is_empty() || (unique_ids && !all_different(&mut ids)) {
        return None;
    }
    let names = names
        .into_iter()
        .map(|(name, count)| Some((std::str::from_utf8(name).ok()?.to_string(), count)))
        .collect::<Option<Vec<_>>>()?;
    Some(Skimmed {
        messages: nodes.len(),
        calls,
        names,
    })
}

/// Whether no two of `ids` are the same (they are sorted to tell).
fn all_different(ids: &mut [&[u8]]) -> bool {
    ids.sort_unstable();
    ids.windows(2).all(|w| w[0] != w[1])
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

#[cfg(test)]
mod tests {
    use super::skim;
    use crate::json::parse;
    use crate::model::Skimmed;

    /// The skim of the messages of `array` (a JSON array of messages).
    fn skimmed(array: &str) -> Option<Skimmed> {
        let t = parse(array.as_bytes()).unwrap();
        let nodes: Vec<_> = t.children(t.root()).collect();
        skim(&t, &nodes, false)
    }

    const CALL: &str = r#"{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f"}},{"id":"b","type":"function","function":{"name":"g"}}]}"#;

    #[test]
    fn a_plainly_answered_batch_is_skimmed_with_its_counts() {
        let s = skimmed(&format!(
            r#"[{{"role":"user"}},{CALL},{{"role":"tool","tool_call_id":"b"}},{{"role":"tool","tool_call_id":"a"}},{{"role":"assistant","tool_calls":null}}]"#
        ));
        assert_eq!(
            s,
            Some(Skimmed {
                messages: 5,
                calls: 2,
                names: vec![("f".into(), 1), ("g".into(), 1)],
            })
        );
    }

    #[test]
    fn anything_less_plain_is_left_to_the_walk() {
        let answers = r#"{"role":"tool","tool_call_id":"a"},{"role":"tool","tool_call_id":"b"}"#;
        for departure in [
            // unanswered, at the end or before the next message
            format!("[{CALL}]"),
            format!(r#"[{CALL},{{"role":"tool","tool_call_id":"a"}},{{"role":"user"}}]"#),
            // answered outside the run, twice, or with an escaped id
            format!(r#"[{CALL},{{"role":"user"}},{answers}]"#),
            format!(r#"[{CALL},{answers},{{"role":"tool","tool_call_id":"a"}}]"#),
            format!(r#"[{CALL},{}]"#, answers.replace(r#""a""#, r#""\u0061""#)),
            // an id used twice in a message, a call without a name, an empty list of calls
            format!("[{},{answers}]", CALL.replace(r#""id":"b""#, r#""id":"a""#)),
            format!(
                "[{},{answers}]",
                CALL.replace(r#""name":"g""#, r#""name":"""#)
            ),
            r#"[{"role":"assistant","tool_calls":[]}]"#.to_string(),
            // not a message, a role with an escape
            format!("[{CALL},{answers},3]"),
            format!(
                "[{},{answers}]",
                CALL.replace("assistant", r"\u0061ssistant")
            ),
        ] {
            assert_eq!(skimmed(&departure), None, "{departure}");
        }
    }

    #[test]
    fn an_id_used_again_by_a_later_message_is_skimmed_only_where_the_provider_allows_it() {
        let answers = r#"{"role":"tool","tool_call_id":"a"},{"role":"tool","tool_call_id":"b"}"#;
        let again = format!("[{CALL},{answers},{CALL},{answers}]");
        let t = parse(again.as_bytes()).unwrap();
        let nodes: Vec<_> = t.children(t.root()).collect();
        assert_eq!(skim(&t, &nodes, false).map(|s| s.calls), Some(4));
        assert_eq!(skim(&t, &nodes, true), None);
    }
}
