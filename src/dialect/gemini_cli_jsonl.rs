//! Gemini CLI chat recordings in their JSON Lines form (`session-*.jsonl`, newer versions): a
//! log of record updates, replayed the way Gemini CLI's `loadConversationRecord` replays it.
//!
//! - The first line is the session header `{sessionId, projectHash, startTime, …}`.
//! - A line with a string `id` is a message record (`{id, timestamp, type, content,
//!   toolCalls?}`), read as the `gemini-cli` dialect reads one. Gemini CLI appends the whole
//!   record again every time it changes (a tool call gets its result, a status changes): the
//!   newest line with an id replaces the older one in its place, so only the newest version of
//!   each record is judged and repaired. An older version left without a result is history,
//!   not a dangling call.
//! - `{"$rewindTo": id}` drops that record and every record after it (all of them when the
//!   id is unknown).
//! - `{"$set": {…}}` updates the header; with a `messages` array it is a checkpoint that
//!   replaces every record so far by the ones it holds.
//!
//! On `--resume` the live records become model turns exactly as in the JSON form, so the
//! verdicts and the in-place repair (an error `functionResponse` in the newest version's
//! `result`) are the `gemini-cli` dialect's. Records of `type` `info`, `error` and `warning`
//! are shown in the terminal and never sent to the model; they are passed through.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{Kind, NodeId, Tree};
use crate::model::Message;
use crate::provider::Provider;

use super::common::{array_at, object_at};
use super::{Dialect, GeminiCli, ReadCx, RecordOp};

/// The Gemini CLI JSON Lines recording dialect.
pub struct GeminiCliJsonl;

/// What one line of a Gemini CLI recording does to the records before it (shared with the
/// `gemini-cli` dialect, for a recording whose header line is missing).
pub(super) fn record_op(tree: &Tree<'_>, node: NodeId) -> Option<RecordOp> {
    if tree.kind(node) != Kind::Object {
        return None;
    }
    if let Some(id) = tree.get_str(node, "$rewindTo") {
        return Some(RecordOp::RewindTo(id.into_owned()));
    }
    if let Some(set) = object_at(tree, node, "$set") {
        return array_at(tree, set, "messages").map(|list| RecordOp::Checkpoint {
            list,
            at: "/$set/messages",
        });
    }
    tree.get_str(node, "id")
        .map(|id| RecordOp::Upsert(id.into_owned()))
}

impl Dialect for GeminiCliJsonl {
    fn name(&self) -> &'static str {
        "gemini-cli-jsonl"
    }

    fn window(&self) -> Window {
        GeminiCli.window()
    }

    /// On resume the records become Gemini contents.
    fn provider(&self) -> Provider {
        Provider::Gemini
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        let text = |key| {
            tree.get(node, key)
                .is_some_and(|v| tree.kind(v) == Kind::String)
        };
        if text("sessionId") && text("projectHash") && array_at(tree, node, "messages").is_none() {
            Some(
                "the header of a Gemini CLI JSON Lines recording (`sessionId`, `projectHash`; \
                 `$set` lines and `info`/`error`/`warning` records are never sent to the model)",
            )
        } else if object_at(tree, node, "$set").is_some() {
            Some("a Gemini CLI recording update (`$set`)")
        } else if text("$rewindTo") {
            Some("a Gemini CLI recording rewind (`$rewindTo`)")
        } else {
            None
        }
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // A header (`sessionId`, `projectHash`), a `$set` or a `$rewindTo` line.
        const NEEDS: &[Keys] = &[
            Keys::SESSION_ID_CAMEL.and(Keys::PROJECT_HASH),
            Keys::SET,
            Keys::REWIND_TO,
        ];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        GeminiCli.read(tree, node, cx)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        GeminiCli.insert_results(cx, calls)
    }

    fn drop_copy(
        &self,
        cx: &RepairCx<'_>,
        first: &ResultAt,
        result: &ResultAt,
    ) -> Option<Vec<Edit>> {
        GeminiCli.drop_copy(cx, first, result)
    }

    fn can_drop_copy(&self, first: &ResultAt, result: &ResultAt) -> bool {
        GeminiCli.can_drop_copy(first, result)
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        GeminiCli.provider_error(defect)
    }

    fn record_log(&self) -> bool {
        true
    }

    fn record_op(&self, tree: &Tree<'_>, node: NodeId) -> Option<RecordOp> {
        record_op(tree, node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn op(src: &str) -> Option<RecordOp> {
        let t = parse(src.as_bytes()).unwrap();
        record_op(&t, t.root())
    }

    #[test]
    fn record_ops() {
        assert_eq!(
            op(r#"{"id":"a","type":"user"}"#),
            Some(RecordOp::Upsert("a".into()))
        );
        assert_eq!(
            op(r#"{"$rewindTo":"b"}"#),
            Some(RecordOp::RewindTo("b".into()))
        );
        assert!(matches!(
            op(r#"{"$set":{"messages":[]}}"#),
            Some(RecordOp::Checkpoint { .. })
        ));
        assert_eq!(op(r#"{"$set":{"lastUpdated":"x"}}"#), None);
        assert_eq!(op(r#"{"sessionId":"s","projectHash":"h"}"#), None);
        assert_eq!(op(r#"{"id":7}"#), None);
    }
}
