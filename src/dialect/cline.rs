//! Cline and Roo Code task folders (`…/tasks/<task id>/`). `api_conversation_history.json` is
//! the history the extension sends to the model: a JSON array of Anthropic messages (`role`,
//! `content` blocks with `tool_use` / `tool_result`), each with a few extension fields (`ts`,
//! Cline's `modelInfo` and `metrics`, Roo Code's `isSummary`, `condenseParent`,
//! `truncationParent`). `ui_messages.json` is what the extension shows (`say` / `ask` events):
//! never sent to the model, recognised and skipped. The files are recognised by their names.
//!
//! Verdicts follow what the extensions send:
//! - A call in the last model turn without a result (the task was interrupted) is answered by
//!   the extension itself on resume (Roo Code: "Task was interrupted before this tool call
//!   could be completed."; Cline adds a result for every call its next user message lacks
//!   before each request): no finding.
//! - Roo Code sends only the messages from its last condensation summary (`isSummary`) on, and
//!   drops the `tool_result` blocks there whose call was condensed away; messages hidden by a
//!   truncation marker are not sent either. Defects in what is not sent are no findings.
//! - Cline, since it writes native `tool_use` blocks at all (3.35), keeps most tool results as
//!   text in the next user message (`[read_file] Result: …`) and, before every request, gives
//!   each `tool_use` whose next message is a user message the `tool_result` it lacks
//!   ("result missing"): in a file Cline wrote (its `modelInfo` / `metrics` fields), such a
//!   call is no finding. Roo Code writes the `tool_result` blocks themselves and sends the
//!   history as it is.
//! - Everything else is judged by Anthropic's rules, as the `anthropic` dialect judges it (a
//!   call followed by another assistant message, a result answering nothing, a reused id).
//!
//! Repairs are Anthropic's (a `tool_result` with `is_error: true` at the front of the next
//! user message): both extensions read the file back as it is.

use super::gate::Keys;
use std::collections::HashSet;

use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{Kind, NodeId, Tree, parse};
use crate::model::{Conversation, Message, Role};
use crate::provider::Provider;

use super::{Anthropic, Dialect, ReadCx};

/// The Cline / Roo Code task history dialect.
pub struct Cline;

/// A file of a Cline / Roo Code task folder, known by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskFile {
    /// `api_conversation_history.json`: the history sent to the model.
    ApiHistory,
    /// `ui_messages.json`: what the extension shows; never sent to the model.
    UiMessages,
}

impl TaskFile {
    /// The task file named `name` (a path; only its last component counts).
    pub fn of(name: &str) -> Option<TaskFile> {
        match name.rsplit(['/', '\\']).next()? {
            "api_conversation_history.json" => Some(TaskFile::ApiHistory),
            "ui_messages.json" => Some(TaskFile::UiMessages),
            _ => None,
        }
    }

    /// Why the file is read (or skipped) as it is, for `detect`.
    pub fn why(self) -> &'static str {
        match self {
            TaskFile::ApiHistory => {
                "the file name `api_conversation_history.json`: a Cline / Roo Code task's API history"
            }
            TaskFile::UiMessages => {
                "`ui_messages.json` of a Cline / Roo Code task: the messages the extension shows, never sent to the model; skipped"
            }
        }
    }
}

/// Facts about the messages of a history that decide what the extension sends.
struct Sent {
    /// Index of the last Roo Code condensation summary (`isSummary: true`).
    summary: Option<usize>,
    /// Messages hidden by a truncation marker present in the history.
    truncated: HashSet<usize>,
    /// Written by Cline (its `modelInfo` / `metrics` fields), not Roo Code.
    cline: bool,
}

impl Sent {
    fn of(src: &[u8], conv: &Conversation) -> Sent {
        let mut summary = None;
        let mut markers = HashSet::new();
        let mut parents: Vec<(usize, String)> = Vec::new();
        let mut cline = false;
        for m in &conv.messages {
            let Ok(t) = parse(&src[m.span.start..m.span.end]) else {
                continue;
            };
            let root = t.root();
            cline |= t.get(root, "modelInfo").is_some() || t.get(root, "metrics").is_some();
            if t.get(root, "isSummary").and_then(|v| t.bool(v)) == Some(true) {
                summary = Some(m.index);
            }
            if t.get(root, "isTruncationMarker").and_then(|v| t.bool(v)) == Some(true)
                && let Some(id) = t.get_str(root, "truncationId")
            {
                markers.insert(id.into_owned());
            }
            if let Some(p) = t.get_str(root, "truncationParent") {
                parents.push((m.index, p.into_owned()));
            }
        }
        let truncated = parents
            .into_iter()
            .filter(|(_, p)| markers.contains(p))
            .map(|(i, _)| i)
            .collect();
        Sent {
            summary,
            truncated,
            cline,
        }
    }

    /// Is message `i` left out of what is sent?
    fn hidden(&self, i: usize) -> bool {
        self.summary.is_some_and(|s| i < s) || self.truncated.contains(&i)
    }
}

/// Does no assistant message follow message `at` (its calls are the last turn's)?
fn last_turn(conv: &Conversation, at: usize) -> bool {
    conv.messages[at + 1..]
        .iter()
        .all(|m| m.role != Role::Assistant)
}

impl Dialect for Cline {
    fn streams(&self) -> bool {
        // Not one window at a time: the app settles a trailing call, judged on the whole task.
        false
    }

    fn name(&self) -> &'static str {
        "cline"
    }

    fn window(&self) -> Window {
        Anthropic.window()
    }

    /// Both extensions send Anthropic-shaped histories (converted for other providers).
    fn provider(&self) -> Provider {
        Provider::Anthropic
    }

    /// Never claimed by content (it is Anthropic's): chosen by the file name.
    fn claims(&self, _: &Tree<'_>, _: NodeId) -> Option<&'static str> {
        None
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // Chosen by file name only: it never claims.
        const NEEDS: &[Keys] = &[];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        Anthropic.read(tree, node, cx)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        Anthropic.insert_results(cx, calls)
    }

    fn can_move_block(&self, call: &CallAt, result: &ResultAt) -> bool {
        Anthropic.can_move_block(call, result)
    }

    fn move_block(&self, cx: &RepairCx<'_>, call: &CallAt, result: &ResultAt) -> Option<Vec<Edit>> {
        Anthropic.move_block(cx, call, result)
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let base = Anthropic.provider_error(defect)?;
        Some(match defect {
            Defect::Dangling { .. } => format!(
                "{base} (Cline fills in a missing result only for a call followed by a user message; Roo Code sends the history as it is)"
            ),
            _ => base,
        })
    }

    fn settled_by_app(&self, src: &[u8], conv: &Conversation, defect: &Defect) -> bool {
        let sent = Sent::of(src, conv);
        match defect {
            Defect::Dangling { call, .. } => {
                let user_next = conv
                    .messages
                    .get(call.holder + 1)
                    .is_some_and(|m| matches!(m.role, Role::User | Role::Tool));
                sent.hidden(call.holder)
                    || last_turn(conv, call.holder)
                    || (sent.cline && user_next)
            }
            Defect::Orphan { result, .. } => {
                sent.hidden(result.message) || sent.summary.is_some_and(|s| result.message > s)
            }
            // A result whose call was condensed away is dropped with it.
            Defect::Misplaced { call, result } | Defect::DuplicateResult { call, result, .. } => {
                sent.hidden(result.message) || sent.hidden(call.holder)
            }
            Defect::MissingResultId { result } => sent.hidden(result.message),
            Defect::DuplicateCallId { call, .. }
            | Defect::ReusedCallId { call, .. }
            | Defect::MissingCallId { call }
            | Defect::MissingToolName { call } => sent.hidden(call.holder),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_files_by_name() {
        assert_eq!(
            TaskFile::of("tasks/17/api_conversation_history.json"),
            Some(TaskFile::ApiHistory)
        );
        assert_eq!(
            TaskFile::of("C:\\t\\ui_messages.json"),
            Some(TaskFile::UiMessages)
        );
        assert_eq!(TaskFile::of("history.json"), None);
    }
}
