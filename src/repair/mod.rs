//! Repair: turn defects into edits over byte spans of the original document.
//!
//! Safe fixes (placeholders for dangling calls, moving results into their window) are applied
//! by default; unsafe ones (dropping or converting orphans, resolving duplicates, re-id) only
//! when a policy asks. Every byte outside the edits is kept.

use std::collections::BTreeMap;

use crate::analysis::{CallAt, Defect, Window};
use crate::dialect::Dialect;
use crate::fix::fix_for;
use crate::lint::{Analysed, dialect_of};
use crate::model::{Conversation, Message, Role};
use crate::rules::Applicability;

pub use crate::edit::{
    DuplicatePolicy, Edit, EditSet, OrphanPolicy, RepairCx, RepairOptions, SEED_PLACEHOLDER,
};

/// What the repair of one conversation fixed.
#[derive(Debug, Default)]
pub struct Plan {
    /// Indices (into the defect list) of the defects fixed.
    pub fixed: Vec<usize>,
    /// Number of placeholder results inserted.
    pub placeholders: usize,
    /// A fix was held back because its edits conflicted with edits already planned.
    pub deferred: bool,
}

/// A repaired document.
#[derive(Debug)]
pub struct Repaired {
    /// The new bytes (equal to the input when nothing changed).
    pub output: Vec<u8>,
    /// Placeholders inserted.
    pub placeholders: usize,
    /// Defects fixed by the first round, per conversation (indices into each defect list).
    pub fixed: Vec<Vec<usize>>,
    /// Defects fixed by further rounds (fixes held back by a conflict in an earlier round).
    pub fixed_later: usize,
    /// Whether anything changed.
    pub changed: bool,
}

impl Analysed {
    /// Repair the document `src` this analysis was made of: the safe fixes, and the unsafe
    /// ones `options` ask for. Fixes that conflict in one round are made in the next, over the
    /// repaired bytes, so repairing the output again changes nothing.
    pub fn repair(&self, src: &[u8], options: &RepairOptions) -> Repaired {
        document(src, self, options)
    }
}

/// Rounds of repair at most (see [`document`]).
const MAX_ROUNDS: usize = 8;

/// Repair every conversation of an analysed document.
///
/// Fixes that get in each other's way in one round (say two adjacent results both moved out
/// of the head of an array, whose separators overlap) are left to another round over the
/// repaired bytes, read again with the same options and the format found the first time.
/// Rounds go on while some fix was held back, so the output is a fixed point: repairing it
/// again changes nothing.
pub fn document(src: &[u8], analysed: &Analysed, options: &RepairOptions) -> Repaired {
    let first = round(src, analysed, options);
    let mut repaired = Repaired {
        changed: !first.edits.is_empty(),
        output: if first.edits.is_empty() {
            src.to_vec()
        } else {
            first.edits.apply(src)
        },
        placeholders: first.placeholders,
        fixed: first.fixed,
        fixed_later: 0,
    };
    let mut deferred = first.deferred;
    let mut lint_options = analysed.options.clone();
    lint_options.read.format = analysed.doc.format;
    for _ in 1..MAX_ROUNDS {
        if !deferred {
            break;
        }
        let again = crate::lint::analyse("", &repaired.output, &lint_options);
        let next = round(&repaired.output, &again, options);
        if next.edits.is_empty() {
            break;
        }
        repaired.output = next.edits.apply(&repaired.output);
        repaired.placeholders += next.placeholders;
        repaired.fixed_later += next.fixed.iter().map(Vec::len).sum::<usize>();
        deferred = next.deferred;
    }
    repaired
}

/// The edits of one round over all conversations.
struct Round {
    edits: EditSet,
    placeholders: usize,
    fixed: Vec<Vec<usize>>,
    /// Some fix conflicted with another and was held back.
    deferred: bool,
}

fn round(src: &[u8], analysed: &Analysed, options: &RepairOptions) -> Round {
    let mut r = Round {
        edits: EditSet::default(),
        placeholders: 0,
        fixed: Vec::new(),
        deferred: false,
    };
    for (conv, defects) in analysed.doc.conversations.iter().zip(&analysed.defects) {
        let p = plan(src, conv, dialect_of(conv), defects, options, &mut r.edits);
        r.placeholders += p.placeholders;
        r.deferred |= p.deferred;
        r.fixed.push(p.fixed);
    }
    r
}

/// The last message of `owner`'s answer window: its continuations and the results right after
/// (for [`Window::CallRun`], also the sibling calls and other items of the same run).
pub fn window_end(conv: &Conversation, owner: usize, window: Window) -> usize {
    let mut end = owner;
    for m in &conv.messages[owner + 1..] {
        let inside = m.continuation
            || m.role == Role::Tool
            || (window == Window::CallRun
                && (m.role == Role::Other || (m.role == Role::Assistant && !m.calls.is_empty())));
        if !inside {
            break;
        }
        end = m.index;
    }
    // Trailing items that are not results (reasoning before the next turn) stay after.
    while end > owner && conv.messages[end].role != Role::Tool && !conv.messages[end].continuation {
        end -= 1;
    }
    end
}

/// Plan the repair of one conversation.
pub fn plan(
    src: &[u8],
    conv: &Conversation,
    dialect: &dyn Dialect,
    defects: &[Defect],
    options: &RepairOptions,
    edits: &mut EditSet,
) -> Plan {
    let mut plan = Plan::default();
    if conv.container == crate::model::Container::Scattered
        || !conv.foreign.is_empty()
        || conv.messages.is_empty()
        || !dialect.repairs()
    {
        return plan;
    }
    let sample = crate::edit::first_result(conv);
    // A context for the calling message `owner`, inserting after message `anchor`.
    let cx_at = |owner: usize, anchor: usize| -> RepairCx<'_> {
        RepairCx {
            src,
            conv,
            owner: &conv.messages[owner],
            anchor: &conv.messages[anchor],
            next: conv.messages.get(anchor + 1),
            options,
            sample,
        }
    };
    // Results go after the owner's answer window (or right after it, for `--profile deerflow`).
    let cx_for = |owner: usize| -> RepairCx<'_> {
        let anchor = if options.before_results {
            owner
        } else {
            window_end(conv, owner, dialect.window())
        };
        cx_at(owner, anchor)
    };
    // A context placed at one message, for the fixes that replace or remove it.
    let plain_cx = |at: usize| cx_at(at, at);
    // Only the fixes `lint` offers, each in the pass of its applicability.
    let offered: Vec<Option<Applicability>> = defects
        .iter()
        .map(|d| fix_for(dialect, d, false).map(|f| f.applicability))
        .collect();
    let safe = |i: usize| offered[i] == Some(Applicability::Safe);
    let unsafe_ = |i: usize| offered[i] == Some(Applicability::Unsafe);

    // Safe: moves into the window first (they go right after the existing results), then
    // placeholders, grouped per calling message in call order.
    for (i, d) in defects.iter().enumerate() {
        let (call, result) = match d {
            Defect::Misplaced { call, result } => (call, result),
            Defect::Orphan {
                result,
                later_call: Some(call),
            } => (call, result),
            _ => continue,
        };
        if !safe(i) {
            continue;
        }
        let msg = &conv.messages[result.message];
        if !result.result.whole_message || !msg.calls.is_empty() {
            if let Some(group) = dialect.move_block(&cx_for(call.message), call, result)
                && edits.try_add(group)
            {
                plan.fixed.push(i);
            }
            continue;
        }
        let cx = cx_for(call.message);
        let group = vec![cx.delete(msg), cx.copy_after(cx.anchor, msg)];
        if cx.anchor.index != msg.index {
            if edits.try_add(group) {
                plan.fixed.push(i);
            } else {
                plan.deferred = true;
            }
        }
    }

    let mut dangling: BTreeMap<usize, Vec<(usize, &CallAt)>> = BTreeMap::new();
    for (i, d) in defects.iter().enumerate() {
        if let Defect::Dangling { call, .. } = d
            && safe(i)
        {
            dangling.entry(call.message).or_default().push((i, call));
        }
    }
    for (owner, mut calls) in dangling {
        calls.sort_by_key(|(_, c)| (c.holder, c.slot));
        let cx = cx_for(owner);
        let just_calls: Vec<&CallAt> = calls.iter().map(|(_, c)| *c).collect();
        if let Some(group) = dialect.insert_results(&cx, &just_calls) {
            if edits.try_add(group) {
                plan.placeholders += calls.len();
                plan.fixed.extend(calls.iter().map(|(i, _)| *i));
            } else {
                plan.deferred = true;
            }
        }
    }

    // Unsafe, by policy.
    for (i, d) in defects.iter().enumerate().filter(|(i, _)| unsafe_(*i)) {
        let group = match d {
            Defect::Orphan {
                result,
                later_call: None,
            } => orphan_fix(&plain_cx(result.message), dialect, result),
            Defect::DuplicateResult { first, result, .. } => {
                duplicate_fix(&plain_cx(result.message), first.message)
            }
            Defect::DuplicateCallId { call, .. } if options.reid => {
                reid_fix(&cx_for(call.message), dialect, call)
            }
            _ => None,
        };
        if let Some(group) = group {
            if edits.try_add(group) {
                plan.fixed.push(i);
            } else {
                plan.deferred = true;
            }
        }
    }
    plan.fixed.sort_unstable();
    plan
}

/// The fix of an orphan result by policy; `cx` is placed at the orphan's message.
fn orphan_fix(
    cx: &RepairCx<'_>,
    dialect: &dyn Dialect,
    result: &crate::analysis::ResultAt,
) -> Option<Vec<Edit>> {
    let msg = cx.owner;
    if !result.result.whole_message {
        return None;
    }
    match cx.options.orphans {
        OrphanPolicy::Keep => None,
        OrphanPolicy::Drop => Some(vec![cx.delete(msg)]),
        OrphanPolicy::Note => dialect.note(cx, msg).map(|j| vec![cx.replace(msg, &j)]),
    }
}

/// The fix of a duplicate result by policy; `cx` is placed at the extra result's message.
fn duplicate_fix(cx: &RepairCx<'_>, first: usize) -> Option<Vec<Edit>> {
    let (first_msg, extra_msg) = (&cx.conv.messages[first], cx.owner);
    let whole =
        |m: &Message| m.calls.is_empty() && m.results.len() == 1 && m.results[0].whole_message;
    if !whole(first_msg) || !whole(extra_msg) {
        return None;
    }
    match cx.options.duplicates? {
        DuplicatePolicy::KeepFirst => Some(vec![cx.delete(extra_msg)]),
        DuplicatePolicy::KeepLast => Some(vec![
            Edit::replace(
                first_msg.span.start,
                first_msg.span.end,
                cx.bytes(extra_msg).to_vec(),
            ),
            cx.delete(extra_msg),
        ]),
    }
}

/// Re-id the later of two calls sharing an id in one message, and the result that answers it
/// (the result of that id in the window whose rank matches the call's rank); when it has none,
/// a placeholder under the new id goes with it so the repair stays complete in one run.
fn reid_fix(cx: &RepairCx<'_>, dialect: &dyn Dialect, call: &CallAt) -> Option<Vec<Edit>> {
    let conv = cx.conv;
    let id = call.call.id.as_deref()?;
    let id_span = call.call.id_span?;
    let holder = &conv.messages[call.holder];
    let rank = holder.calls[..call.slot]
        .iter()
        .filter(|c| c.id.as_deref() == Some(id))
        .count();
    let new_id = format!("{id}_{}", call.slot + 1);
    let token = crate::json::J::str(new_id.clone()).render(&crate::json::Style::default());
    let mut edits = vec![Edit::replace(id_span.start, id_span.end, token.clone())];
    let last = (cx.anchor.index.max(call.message + 1)).min(conv.messages.len() - 1);
    let result = conv.messages[call.message..=last]
        .iter()
        .flat_map(|m| m.results.iter())
        .filter(|r| r.id.as_deref() == Some(id))
        .nth(rank);
    match result.and_then(|r| r.id_span) {
        Some(span) => edits.push(Edit::replace(span.start, span.end, token)),
        None => {
            let mut renamed = call.clone();
            renamed.call.id = Some(new_id);
            renamed.call.id_span = None;
            edits.extend(dialect.insert_results(cx, &[&renamed])?);
        }
    }
    Some(edits)
}
