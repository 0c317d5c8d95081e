//! Codex CLI rollout files (`~/.codex/sessions/…/rollout-*.jsonl`): one `{timestamp, type,
//! payload}` record per line, `type` one of `session_meta`, `response_item`, `event_msg`,
//! `turn_context`, `compacted`. A `response_item` payload is a Responses item and is read as
//! the `openai-responses` dialect reads items (calls, outputs, window, placeholders); every
//! other line is not a message and is passed through untouched.
//!
//! Codex sends the `response_item`s back to the Responses API on the next turn or on resume,
//! so pairing is judged the way that API judges it. Codex answers a `local_shell_call` with a
//! `function_call_output`, so that is the placeholder for one.
//!
//! Calls whose only completion is an `event_msg` carrying their `call_id` (e.g. `spawn_agent`
//! with `collab_agent_spawn_end`, `wait_agent` with `collab_waiting_end`) are dangling: events
//! are for the UI and are never sent to the model, and Codex records every tool's result as a
//! `function_call_output` item (its collaboration tools are function tools too). A rollout
//! without that item would be sent as a call without output, which the API rejects; Codex's
//! own history normalisation patches exactly this case with an output reading `aborted`.
//! toolmend inserts the output item with the configured placeholder text instead.
//!
//! Placeholders are new `response_item` lines right after the call's run, their envelope in
//! the calling line's key order with its `timestamp` copied (deterministic); with
//! `--mark-synthetic` the envelope gets `"toolmend_synthetic": true`, which Codex ignores.
//!
//! Not modelled: a `compacted` line replaces the history before it when Codex resumes, so a
//! call left dangling before one would not be replayed; it is still reported.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, NodeId, Tree};
use crate::model::Message;
use crate::provider::Provider;

use super::layout::{member_names, order_keys};
use super::openai_responses::{
    insert_outputs, note_text, output_for, output_item, provider_error, read_item,
};
use super::{Dialect, ReadCx};

/// The Codex rollout dialect.
pub struct CodexRollout;

const LINE_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// A `response_item` line around `payload`: envelope keys in the order of `like`'s, its
/// `timestamp` copied verbatim.
fn envelope(cx: &RepairCx<'_>, like: &Message, payload: J) -> J {
    let tree = cx.reparse(like);
    let timestamp = tree.as_ref().and_then(|t| {
        t.get(t.root(), "timestamp")
            .map(|v| t.raw_str(v).into_owned())
    });
    let sample = tree
        .as_ref()
        .map(|t| member_names(t, t.root()))
        .unwrap_or_default();
    let mut payload = Some(payload);
    let mut fields: Vec<(String, J)> = Vec::new();
    for key in order_keys(&sample, &["timestamp", "type", "payload"]) {
        let value = match key.as_str() {
            "timestamp" => match &timestamp {
                Some(raw) => J::Raw(raw.clone()),
                None => continue,
            },
            "type" => J::str("response_item"),
            "payload" => match payload.take() {
                Some(p) => p,
                None => continue,
            },
            _ => continue,
        };
        fields.push((key, value));
    }
    if let Some(marker) = cx.marker() {
        fields.push(("toolmend_synthetic".into(), marker));
    }
    J::Obj(fields)
}

impl Dialect for CodexRollout {
    fn name(&self) -> &'static str {
        "codex-rollout"
    }

    fn window(&self) -> Window {
        Window::AfterCall
    }

    fn provider(&self) -> Provider {
        Provider::OpenAi
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let ty = tree.get_str(node, "type")?;
        (LINE_TYPES.contains(&ty.as_ref())
            && tree.get(node, "timestamp").is_some()
            && tree.get(node, "payload").is_some())
        .then_some("a Codex rollout line ({\"timestamp\", \"type\", \"payload\"})")
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `type`, `timestamp` and `payload` are all looked up and must be there.
        const NEEDS: &[Keys] = &[Keys::TYPE.and(Keys::TIMESTAMP).and(Keys::PAYLOAD)];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if !tree.str_is(node, "type", "response_item") {
            return None;
        }
        read_item(tree, node, tree.get(node, "payload")?, "/payload", cx)
    }

    fn placeholder(&self, cx: &RepairCx<'_>, call: &CallAt) -> Option<J> {
        let out = match call.call.kind.as_str() {
            "local_shell_call" => "function_call_output",
            kind => output_for(kind)?,
        };
        let holder = cx.conv.messages.get(call.holder)?;
        Some(envelope(cx, holder, output_item(cx, call, out, true)))
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        insert_outputs(self, cx, calls)
    }

    fn can_note(&self) -> bool {
        true
    }

    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        let text = note_text(cx, msg, true)?;
        let payload = J::obj([
            ("type", J::str("message")),
            ("role", J::str("user")),
            (
                "content",
                J::Arr(vec![J::obj([
                    ("type", J::str("input_text")),
                    ("text", J::str(text)),
                ])]),
            ),
        ]);
        Some(envelope(cx, msg, payload))
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        provider_error(defect)
    }
}
