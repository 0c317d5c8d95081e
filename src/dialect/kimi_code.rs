//! Kimi Code session wires (`~/.kimi/sessions/…/agents/<id>/wire.jsonl`): one record per line,
//! `{"type": …, …, "time": ms}`. The model's context is rebuilt from the `context.*` records:
//! `context.append_message` holds a whole message (`{"role", "content", "toolCalls"}`), and
//! `context.append_loop_event` one event of a model step: `step.begin`, `content.part`,
//! `tool.call` (`toolCallId`, `name`, `args`, the step's `stepUuid`), `tool.result`
//! (`toolCallId`, `result: {output, isError}`) and `step.end`. Every other record (`metadata`,
//! `config.update`, `turn.*`, `usage.record`, `permission.*`…) is for the session and the UI,
//! never for the model, and is passed through untouched.
//!
//! Kimi Code folds the loop events into messages itself (`agent-core-v2`,
//! `contextMemory/loopEventFold.ts`): the calls of a step form one assistant message; a call
//! still open when the next step begins (or when the wire ends) gets a tool message "Tool
//! execution was interrupted before its result was recorded…"; a `tool.result` for no open call
//! is ignored; a user message that arrives while calls are open is sent after their results. So
//! an interrupted run, an orphan or a late result never reaches the provider: none is a finding,
//! and nothing is repaired. A call id used twice in one step, or a call without id or name, is
//! sent as written and is reported.
//!
//! Older wires written by kimi-cli (`{"timestamp", "message": {"type", "payload"}}`, with
//! `StepBegin`, `ToolCall` (`payload.id`, `payload.function.name`) and `ToolResult`
//! (`payload.tool_call_id`)) are read the same way. They are a UI event log: the model's
//! context is `context.jsonl` next to them, so their pairing is never sent to a model either.

use super::gate::Keys;
use crate::analysis::{Defect, Window};
use crate::json::{Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{object_at, role_of, string};
use super::{Dialect, ReadCx, ThreadMemory};

/// The Kimi Code wire dialect.
pub struct KimiCode;

/// A detection reason, followed by what Kimi Code does with the records.
macro_rules! heals {
    ($what:literal) => {
        concat!(
            $what,
            "; Kimi Code closes open calls and drops orphan results itself when it rebuilds the \
             context from the `context.*` records, and never sends its other records to the model"
        )
    };
}

impl Dialect for KimiCode {
    fn name(&self) -> &'static str {
        "kimi-code"
    }

    fn provider(&self) -> Provider {
        Provider::KimiCode
    }

    fn reads(&self, sign: &str) -> bool {
        sign == "type: tool.call"
    }

    fn window(&self) -> Window {
        Window::BeforeNextAssistant
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        if legacy_event(tree, node).is_some() {
            return Some(
                "a kimi-cli wire record ({\"timestamp\", \"message\": {\"type\", \"payload\"}}): \
                 a UI event log, never sent to the model (its context is `context.jsonl`)",
            );
        }
        match tree.get_str(node, "type")?.as_ref() {
            "context.append_loop_event" if object_at(tree, node, "event").is_some() => Some(
                heals!("a Kimi Code wire record (`context.append_loop_event`)"),
            ),
            "context.append_message" if object_at(tree, node, "message").is_some() => {
                Some(heals!("a Kimi Code wire record (`context.append_message`)"))
            }
            _ => None,
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // A legacy record (`timestamp` and `message`), or `type` with `event` or `message`.
        const NEEDS: &[Keys] = &[
            Keys::TIMESTAMP.and(Keys::MESSAGE),
            Keys::TYPE.and(Keys::EVENT),
            Keys::TYPE.and(Keys::MESSAGE),
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if let Some(message) = object_at(tree, node, "message")
            && tree.str_is(node, "type", "context.append_message")
        {
            return Some(read_message(tree, node, message, cx));
        }
        if let Some((kind, payload)) = legacy_event(tree, node) {
            return read_legacy(tree, node, &kind, payload, cx);
        }
        if !tree.str_is(node, "type", "context.append_loop_event") {
            return None;
        }
        let event = object_at(tree, node, "event")?;
        let id = tree.get(event, "toolCallId");
        let step = |key| string(tree, tree.get(event, key));
        let msg = match tree.get_str(event, "type")?.as_ref() {
            "step.begin" => {
                let mut m = cx.message(tree, node, Role::Assistant);
                m.group = step("uuid");
                m
            }
            "content.part" => {
                let mut m = cx.message(tree, node, Role::Assistant);
                m.group = step("stepUuid");
                m
            }
            "tool.call" => {
                let mut m = cx.message(tree, node, Role::Assistant);
                m.group = step("stepUuid");
                m.calls.push(Call {
                    name: step("name"),
                    ..cx.call(tree, event, "/event", id, "tool.call")
                });
                m
            }
            "tool.result" => {
                let mut m = cx.message(tree, node, Role::Tool);
                m.results.push(ToolResult {
                    span: cx.span(tree, node),
                    whole_message: true,
                    ..cx.result(tree, event, "/event", id)
                });
                m
            }
            _ => return None,
        };
        Some(msg)
    }

    fn thread(&self, tree: &Tree<'_>, node: NodeId, memory: &mut ThreadMemory) -> Option<String> {
        let _ = memory;
        tree.get_str(node, "agentId")
            .filter(|a| a != "main")
            .map(|a| a.into_owned())
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

/// A whole `context.append_message` message: its `toolCalls` are calls (`{"id", "name"}`, or the
/// older `{"id", "function": {"name"}}`), and a `tool` message answers `toolCallId`.
fn read_message(tree: &Tree<'_>, node: NodeId, message: NodeId, cx: &ReadCx<'_>) -> Message {
    let role = tree
        .get_str(message, "role")
        .map_or(Role::Other, |r| role_of(&r));
    let mut msg = cx.message(tree, node, role);
    if let Some(calls) = tree
        .get(message, "toolCalls")
        .filter(|&c| tree.kind(c) == Kind::Array)
    {
        for (i, c) in tree.children(calls).enumerate() {
            let name = tree
                .get(c, "name")
                .or_else(|| tree.path(c, &["function", "name"]));
            msg.calls.push(Call {
                name: string(tree, name),
                ..cx.call(
                    tree,
                    c,
                    &format!("/message/toolCalls/{i}"),
                    tree.get(c, "id"),
                    "toolCalls",
                )
            });
        }
    }
    if role == Role::Tool {
        msg.results.push(ToolResult {
            span: cx.span(tree, node),
            whole_message: true,
            ..cx.result(tree, message, "/message", tree.get(message, "toolCallId"))
        });
    }
    msg
}

/// The `message.type` and `message.payload` of a kimi-cli wire record.
fn legacy_event(tree: &Tree<'_>, node: NodeId) -> Option<(String, NodeId)> {
    tree.get(node, "timestamp")?;
    let message = object_at(tree, node, "message")?;
    let kind = tree.get_str(message, "type")?.into_owned();
    Some((kind, tree.get(message, "payload")?))
}

/// A kimi-cli wire record: `StepBegin` starts a model step, `ToolCall` is a call of the step,
/// `ToolResult` answers `tool_call_id`; other records are not messages.
fn read_legacy(
    tree: &Tree<'_>,
    node: NodeId,
    kind: &str,
    payload: NodeId,
    cx: &ReadCx<'_>,
) -> Option<Message> {
    Some(match kind {
        "StepBegin" => cx.message(tree, node, Role::Assistant),
        "ToolCall" => {
            let mut m = cx.message(tree, node, Role::Assistant);
            m.calls.push(Call {
                name: string(tree, tree.path(payload, &["function", "name"])),
                ..cx.call(
                    tree,
                    payload,
                    "/message/payload",
                    tree.get(payload, "id"),
                    "ToolCall",
                )
            });
            m
        }
        "ToolResult" => {
            let mut m = cx.message(tree, node, Role::Tool);
            m.results.push(ToolResult {
                span: cx.span(tree, node),
                whole_message: true,
                ..cx.result(
                    tree,
                    payload,
                    "/message/payload",
                    tree.get(payload, "tool_call_id"),
                )
            });
            m
        }
        _ => return None,
    })
}
