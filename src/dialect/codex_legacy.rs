//! Codex CLI rollouts of the older form (mid 2025, before the `{timestamp, type, payload}`
//! envelope): line 1 is a bare header `{id, timestamp, instructions, git?}`, then
//! `{"record_type": "state"}` markers and the Responses items themselves, one per line, with
//! no envelope (`{"type": "function_call", "name", "arguments", "call_id"}`,
//! `{"type": "function_call_output", "call_id", "output"}`, messages, reasoning…).
//!
//! The items are the Responses items Codex sent and got back, so they are read and judged as
//! the `openai-responses` dialect does. The header and the `record_type` lines are bookkeeping
//! the model never sees: they are passed through.
//!
//! Findings come without a fix: the current Codex CLI does not resume this form at all
//! (0.171.0: the `older-form` case of `tests/codex_resume` shows it sends nothing), and
//! the versions that wrote it were not checked, so no app is known to read a repair back.

use super::gate::Keys;
use crate::analysis::{Defect, Window};
use crate::json::{Kind, NodeId, Tree};
use crate::model::Message;
use crate::provider::Provider;

use super::{Dialect, OpenAiResponses, ReadCx};

/// The older Codex rollout dialect.
pub struct CodexLegacy;

/// Is `node` the bare header line (`id`, `timestamp` and `instructions` or `git`, no `type`)?
fn is_header(tree: &Tree<'_>, node: NodeId) -> bool {
    tree.get(node, "type").is_none()
        && tree.get(node, "payload").is_none()
        && tree.get_str(node, "id").is_some()
        && tree.get_str(node, "timestamp").is_some()
        && (tree.get(node, "instructions").is_some() || tree.get(node, "git").is_some())
}

impl Dialect for CodexLegacy {
    fn name(&self) -> &'static str {
        "codex-rollout-legacy"
    }

    fn window(&self) -> Window {
        OpenAiResponses.window()
    }

    /// The items went to OpenAI's Responses API.
    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        if tree.get(node, "record_type").is_some() && tree.get(node, "type").is_none() {
            Some(
                "a `record_type` line of an older Codex rollout (bookkeeping the model never sees)",
            )
        } else if is_header(tree, node) {
            Some(
                "the header of an older Codex rollout (`id`, `timestamp`, `instructions`; no envelope; \
                 the header and `record_type` lines are bookkeeping the model never sees)",
            )
        } else {
            None
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // A `record_type` line, or a header: `id`, `timestamp`, and `instructions` or `git`.
        const NEEDS: &[Keys] = &[
            Keys::RECORD_TYPE,
            Keys::ID.and(Keys::TIMESTAMP).and(Keys::INSTRUCTIONS),
            Keys::ID.and(Keys::TIMESTAMP).and(Keys::GIT),
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if tree.kind(node) != Kind::Object
            || tree.get(node, "record_type").is_some()
            || is_header(tree, node)
        {
            return None;
        }
        OpenAiResponses.read(tree, node, cx)
    }

    fn repairs(&self) -> bool {
        false
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let words = OpenAiResponses.provider_error(defect)?;
        Some(format!(
            "{words} (no fix: the current Codex CLI does not resume this older rollout form)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn claims(src: &str) -> bool {
        let t = parse(src.as_bytes()).unwrap();
        CodexLegacy.claims(&t, t.root()).is_some()
    }

    #[test]
    fn claims_the_bookkeeping_lines_only() {
        assert!(claims(r#"{"record_type":"state"}"#));
        assert!(claims(
            r#"{"id":"a","timestamp":"2025-07-01T00:00:00Z","instructions":null}"#
        ));
        assert!(!claims(r#"{"id":"a","timestamp":"2025-07-01T00:00:00Z"}"#));
        assert!(!claims(
            r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}"#
        ));
        assert!(!claims(
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"a"}}"#
        ));
    }
}
