//! The fix of one defect, decided in one place: `lint` shows it (`[*]` for a safe fix) and
//! `repair` applies exactly what it offers (safe fixes by default, unsafe ones by policy), so
//! the two cannot disagree.

use crate::analysis::{CallAt, Defect, ResultAt};
use crate::dialect::Dialect;
use crate::finding::Fix;
use crate::rules::Applicability::{self, Safe, Unsafe};

/// The fix `repair` can make for `defect` in a conversation read as `dialect`; `None` when
/// there is none (or the conversation is `read_only`: gathered from several places, or of
/// mixed dialects).
pub fn fix_for(dialect: &dyn Dialect, defect: &Defect, read_only: bool) -> Option<Fix> {
    if read_only {
        return None;
    }
    let movable = |r: &ResultAt| r.result.whole_message && r.alone;
    let moves = |call: &CallAt, r: &ResultAt| movable(r) || dialect.can_move_block(call, r);
    let (offered, applicability, description): (bool, Applicability, String) = match defect {
        Defect::Dangling { .. } => (
            true,
            Safe,
            "insert a placeholder error result right after the calling message's results".into(),
        ),
        Defect::Orphan {
            result,
            later_call: Some(call),
        } => (
            moves(call, result),
            Safe,
            "move the result right after its call".into(),
        ),
        Defect::Orphan {
            result,
            later_call: None,
        } if !movable(result) => (
            dialect.can_note_result(result),
            Unsafe,
            format!(
                "keep its content as a text note instead of a result (--orphans note){}",
                match dialect.can_drop_result() {
                    true => ", or drop its line when it holds nothing else (--orphans drop)",
                    false => "",
                }
            ),
        ),
        Defect::Orphan {
            result,
            later_call: None,
        } => (
            movable(result),
            Unsafe,
            if dialect.can_note() {
                "drop it (--orphans drop) or keep its content as a note (--orphans note)".into()
            } else {
                "drop it (--orphans drop)".into()
            },
        ),
        Defect::Misplaced { call, result } => (
            moves(call, result),
            Safe,
            format!("move it right after message {}'s results", call.message),
        ),
        Defect::DuplicateResult { first, result, .. }
            if !(movable(result) && movable(first)) && dialect.can_drop_copy(first, result) =>
        {
            (
                true,
                Unsafe,
                "drop the second copy (--duplicates keep-first)".into(),
            )
        }
        Defect::DuplicateResult { first, result, .. } => (
            movable(result) && movable(first),
            Unsafe,
            "keep one result (--duplicates keep-first|keep-last)".into(),
        ),
        Defect::DuplicateCallId { call, .. } | Defect::ReusedCallId { call, .. } => (
            call.call.id_span.is_some(),
            Unsafe,
            "give the later call and its result a new id (--duplicate-ids re-id)".into(),
        ),
        Defect::MissingCallId { .. }
        | Defect::MissingToolName { .. }
        | Defect::MissingResultId { .. } => (false, Safe, String::new()),
    };
    offered.then_some(Fix {
        applicability,
        description,
    })
}
