//! Claude Code's `--output-format stream-json` output (`claude -p --verbose`): one event per
//! line. `assistant` events carry one API message's content blocks (Claude Code writes one
//! event per block; the events of one message share `message.id`), `user` events carry the
//! `tool_result` blocks sent back (and, with `--input-format stream-json`, the prompts).
//! `system` (`init`, hook and status events), `result` (the run's summary), `stream_event`
//! (partial messages) and `rate_limit_event` lines are for the caller: the model never sees
//! them, and they are passed through. Events with a `parent_tool_use_id` belong to the
//! subagent run by that `Task` call and are walked as their own conversation.
//!
//! Pairing is judged as in the session file the stream was recorded from (a `tool_use` is
//! answered before the next assistant turn), and the provider named is Anthropic. The stream
//! is a record nothing reads back (`--resume` reads the session file under
//! `~/.claude/projects/`, not this output), so findings come without a fix: repairing the
//! stream would change nothing the model sees.

use crate::analysis::{Defect, Window};
use crate::json::{Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{array_at, object_at, string};
use super::{Dialect, ReadCx, ThreadMemory};

/// The Claude Code stream-json output dialect.
pub struct ClaudeStream;

/// Block types of calls whose result comes back inline (never dangling).
const SERVER_CALLS: &[&str] = &["server_tool_use", "mcp_tool_use"];

/// Is `node` an event line of the stream (`type` and `session_id`, snake case: the session
/// file's lines spell it `sessionId`)?
fn event_type(tree: &Tree<'_>, node: NodeId) -> Option<String> {
    if tree.kind(node) != Kind::Object || tree.get(node, "session_id").is_none() {
        return None;
    }
    tree.get_str(node, "type").map(|t| t.into_owned())
}

impl Dialect for ClaudeStream {
    fn name(&self) -> &'static str {
        "claude-code-stream"
    }

    fn window(&self) -> Window {
        Window::BeforeNextAssistant
    }

    fn claim_keys(&self) -> &'static [super::gate::Keys] {
        // `type` is looked up and must be there (with `session_id`, which has no bit).
        const NEEDS: &[super::gate::Keys] = &[super::gate::Keys::TYPE];
        NEEDS
    }

    /// The stream records what Claude Code sent to Anthropic.
    fn provider(&self) -> Provider {
        Provider::Anthropic
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let ty = event_type(tree, node)?;
        match ty.as_str() {
            "system" if tree.str_is(node, "subtype", "init") => Some(
                "the `system` `init` event of Claude Code's `--output-format stream-json` output \
                 (`system`, `result` and `stream_event` lines are for the caller: the model never sees them)",
            ),
            "assistant" | "user" if object_at(tree, node, "message").is_some() => Some(
                "an event of Claude Code's `--output-format stream-json` output (`type`, `message`, `session_id`)",
            ),
            "result" if tree.get(node, "subtype").is_some() => Some(
                "the `result` event of Claude Code's `--output-format stream-json` output \
                 (for the caller: the model never sees it)",
            ),
            _ => None,
        }
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let role = match event_type(tree, node)?.as_str() {
            "assistant" => Role::Assistant,
            "user" => Role::User,
            _ => return None,
        };
        let message = object_at(tree, node, "message")?;
        let mut msg = cx.message(tree, node, role);
        if role == Role::Assistant {
            msg.group = tree.get_str(message, "id").map(|s| s.into_owned());
        }
        let Some(content) = array_at(tree, message, "content") else {
            return Some(msg);
        };
        let mut leading = true;
        for (i, block) in tree.children(content).enumerate() {
            let ty = tree.get_str(block, "type").unwrap_or_default();
            let suffix = format!("/message/content/{i}");
            if role == Role::Assistant && (ty == "tool_use" || SERVER_CALLS.contains(&ty.as_ref()))
            {
                msg.calls.push(Call {
                    name: string(tree, tree.get(block, "name")),
                    server: ty != "tool_use",
                    ..cx.call(tree, block, &suffix, tree.get(block, "id"), &ty)
                });
            } else if role == Role::User && ty == "tool_result" {
                msg.results.push(ToolResult {
                    leading,
                    ..cx.result(tree, block, &suffix, tree.get(block, "tool_use_id"))
                });
            }
            leading &= ty == "tool_result";
        }
        if role == Role::User && !msg.results.is_empty() && tree.len(content) == msg.results.len() {
            msg.role = Role::Tool;
        }
        Some(msg)
    }

    fn thread(&self, tree: &Tree<'_>, node: NodeId, _: &mut ThreadMemory) -> Option<String> {
        tree.get_str(node, "parent_tool_use_id")
            .map(|id| format!("subagent of {id}"))
    }

    fn repairs(&self) -> bool {
        false
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let what = match defect {
            Defect::Dangling { .. } => "no `tool_result` came back before the run went on or ended",
            Defect::Orphan { .. } => "Anthropic rejects a `tool_result` without its `tool_use`",
            Defect::DuplicateCallId { .. } => {
                "Anthropic rejects it: \"`tool_use` ids must be unique\""
            }
            _ => return None,
        };
        Some(format!(
            "{what}. This stream is Claude Code's output, which nothing reads back: check and repair the session file it came from (~/.claude/projects/…)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn claims(src: &str) -> bool {
        let t = parse(src.as_bytes()).unwrap();
        ClaudeStream.claims(&t, t.root()).is_some()
    }

    #[test]
    fn claims_stream_events_not_session_lines() {
        assert!(claims(
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[]}"#
        ));
        assert!(claims(
            r#"{"type":"assistant","message":{"id":"m","content":[]},"parent_tool_use_id":null,"session_id":"s"}"#
        ));
        assert!(claims(
            r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#
        ));
        // A Claude Code session line (camel-case `sessionId`) is the claude-code dialect's.
        assert!(!claims(
            r#"{"type":"assistant","uuid":"u","parentUuid":null,"sessionId":"s","message":{"content":[]}}"#
        ));
        assert!(!claims(r#"{"type":"system","subtype":"compact_boundary"}"#));
    }
}
