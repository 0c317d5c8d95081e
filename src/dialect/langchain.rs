//! LangChain messages in their three on-disk forms: `messages_to_dict` (`{"type":"ai","data":
//! {…}}`), the flat `model_dump` of LangGraph thread exports (`{"type":"ai",…}`), and the
//! `lc:1` constructor form. Calls are `tool_calls` (and `invalid_tool_calls`, which several
//! providers are sent as calls too); results are ToolMessages with `tool_call_id`.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::RepairCx;
use crate::json::{J, Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::string;
use super::openai_chat::orphan_note_text;
use super::{Dialect, ReadCx};

/// The LangChain / LangGraph dialect.
pub struct LangChain;

/// Which on-disk form a LangChain message uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `{"type": "ai", "data": {...}}`
    Data,
    /// `{"type": "ai", "content": ..., ...}`
    Flat,
    /// `{"lc": 1, "type": "constructor", "id": [...], "kwargs": {...}}`
    Constructor,
}

const TYPES: &[&str] = &[
    "human",
    "ai",
    "tool",
    "system",
    "chat",
    "function",
    "remove",
    "AIMessageChunk",
    "HumanMessageChunk",
    "ToolMessageChunk",
    "SystemMessageChunk",
    "ChatMessageChunk",
    "FunctionMessageChunk",
];

/// The form of `node` and the object holding its fields.
fn form(tree: &Tree<'_>, node: NodeId) -> Option<(Form, NodeId)> {
    if tree.kind(node) != Kind::Object {
        return None;
    }
    if let Some(lc) = tree.get(node, "lc")
        && tree.raw(lc) == b"1"
    {
        let id = tree.get(node, "id")?;
        let first = tree.index(id, 0).and_then(|v| tree.str(v))?;
        if matches!(first.as_ref(), "langchain" | "langchain_core") {
            return Some((Form::Constructor, tree.get(node, "kwargs")?));
        }
        return None;
    }
    let ty = tree.get_str(node, "type")?;
    if !TYPES.contains(&ty.as_ref()) || tree.get(node, "role").is_some() {
        return None;
    }
    match tree.get(node, "data") {
        Some(data) if tree.kind(data) == Kind::Object => Some((Form::Data, data)),
        _ if tree.get(node, "content").is_some() => Some((Form::Flat, node)),
        _ => None,
    }
}

/// The message type: `ai`, `tool`, … (from `type`, or the constructor's class name).
fn msg_type(tree: &Tree<'_>, node: NodeId, form: Form, fields: NodeId) -> String {
    match form {
        Form::Constructor => {
            if let Some(t) = tree.get_str(fields, "type") {
                return t.into_owned();
            }
            let class = tree
                .get(node, "id")
                .and_then(|id| tree.children(id).last())
                .and_then(|v| tree.str(v))
                .unwrap_or_default();
            match class.trim_end_matches("Chunk") {
                "AIMessage" => "ai",
                "ToolMessage" => "tool",
                "HumanMessage" => "human",
                "SystemMessage" => "system",
                _ => "other",
            }
            .into()
        }
        _ => tree.get_str(node, "type").unwrap_or_default().into_owned(),
    }
}

fn role(ty: &str) -> Role {
    match ty.trim_end_matches("MessageChunk") {
        "ai" | "AI" => Role::Assistant,
        "tool" | "Tool" => Role::Tool,
        "human" | "Human" => Role::User,
        "system" | "System" => Role::System,
        _ => Role::Other,
    }
}

impl Dialect for LangChain {
    fn name(&self) -> &'static str {
        "langchain"
    }

    fn window(&self) -> Window {
        Window::ToolRun
    }

    fn provider(&self) -> Provider {
        Provider::LangGraph
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        Some(match form(tree, node)?.0 {
            Form::Data => "a LangChain `messages_to_dict` entry ({\"type\", \"data\"})",
            Form::Flat => {
                "a LangChain message dump ({\"type\": \"ai\"|\"human\"|\"tool\", \"content\"})"
            }
            Form::Constructor => {
                "a LangChain serialized message ({\"lc\": 1, \"type\": \"constructor\"})"
            }
        })
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `form`: a constructor (`lc` is 1, then `id` and `kwargs`; no falling through), or `type` with `data` or `content`.
        const NEEDS: &[Keys] = &[
            Keys::LC.and(Keys::ID).and(Keys::KWARGS),
            Keys::TYPE.and(Keys::DATA),
            Keys::TYPE.and(Keys::CONTENT),
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let (form, fields) = form(tree, node)?;
        let prefix = match form {
            Form::Data => "/data",
            Form::Flat => "",
            Form::Constructor => "/kwargs",
        };
        let ty = msg_type(tree, node, form, fields);
        let role = role(&ty);
        let mut msg = cx.message(tree, node, role);
        let lists: &[&str] = match tree.get(fields, "tool_calls") {
            Some(_) => &["tool_calls", "invalid_tool_calls"],
            None => &["invalid_tool_calls"],
        };
        for list in lists {
            let Some(calls) = tree.get(fields, list) else {
                continue;
            };
            for (i, c) in tree.children(calls).enumerate() {
                let suffix = format!("{prefix}/{list}/{i}");
                msg.calls.push(Call {
                    name: string(tree, tree.get(c, "name")),
                    ..cx.call(tree, c, &suffix, tree.get(c, "id"), list)
                });
            }
        }
        if tree.get(fields, "tool_calls").is_none()
            && let Some(calls) = tree.path(fields, &["additional_kwargs", "tool_calls"])
        {
            for (i, c) in tree.children(calls).enumerate() {
                let suffix = format!("{prefix}/additional_kwargs/tool_calls/{i}");
                msg.calls.push(Call {
                    name: string(tree, tree.path(c, &["function", "name"])),
                    ..cx.call(tree, c, &suffix, tree.get(c, "id"), "additional_kwargs")
                });
            }
        }
        if role == Role::Tool {
            msg.results.push(ToolResult {
                name: string(tree, tree.get(fields, "name")),
                whole_message: true,
                // The whole message is the result.
                ..cx.result(tree, node, "", tree.get(fields, "tool_call_id"))
            });
        }
        Some(msg)
    }

    fn placeholder(&self, cx: &RepairCx<'_>, call: &CallAt) -> Option<J> {
        let c = &call.call;
        // Mirror the form of the file's own ToolMessages, else the calling message's form.
        let model = cx.sample_result().unwrap_or(cx.owner);
        let tree = cx.reparse(model)?;
        let (form, _) = form(&tree, tree.root())?;
        let mut fields = vec![
            ("content".to_string(), J::str(cx.text(c))),
            ("tool_call_id".to_string(), cx.id_token(c)),
            ("name".to_string(), cx.name_value(c)),
            ("status".to_string(), J::str("error")),
        ];
        if let Some(marker) = cx.marker() {
            fields.push((
                "additional_kwargs".into(),
                J::obj([("toolmend_synthetic", marker)]),
            ));
        }
        Some(match form {
            Form::Data => J::obj([("type", J::str("tool")), ("data", J::Obj(fields))]),
            Form::Flat => {
                fields.insert(1, ("type".into(), J::str("tool")));
                J::Obj(fields)
            }
            Form::Constructor => {
                fields.insert(1, ("type".into(), J::str("tool")));
                J::obj([
                    ("lc", J::Raw("1".into())),
                    ("type", J::str("constructor")),
                    (
                        "id",
                        J::Arr(
                            ["langchain", "schema", "messages", "ToolMessage"]
                                .map(J::str)
                                .to_vec(),
                        ),
                    ),
                    ("kwargs", J::Obj(fields)),
                ])
            }
        })
    }

    fn can_note(&self) -> bool {
        true
    }

    /// An orphan ToolMessage becomes a HumanMessage in the same on-disk form, keeping its
    /// content.
    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        let tree = cx.reparse(msg)?;
        let (form, _) = form(&tree, tree.root())?;
        let text = orphan_note_text(cx, msg)?;
        let fields = || J::obj([("content", J::str(text.clone())), ("type", J::str("human"))]);
        Some(match form {
            Form::Data => J::obj([("type", J::str("human")), ("data", fields())]),
            Form::Flat => J::obj([("type", J::str("human")), ("content", J::str(text))]),
            Form::Constructor => J::obj([
                ("lc", J::Raw("1".into())),
                ("type", J::str("constructor")),
                (
                    "id",
                    J::Arr(
                        ["langchain", "schema", "messages", "HumanMessage"]
                            .map(J::str)
                            .to_vec(),
                    ),
                ),
                ("kwargs", fields()),
            ]),
        })
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        match defect {
            Defect::Dangling { .. } => Some(
                "LangGraph would raise INVALID_CHAT_HISTORY: \"Found AIMessages with tool_calls that do not have a corresponding ToolMessage\"".into(),
            ),
            _ => None,
        }
    }
}
