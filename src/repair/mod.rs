//! Repair: turn defects into edits over byte spans of the original document.
//!
//! Safe fixes (placeholders for dangling calls, moving results into their window) are applied
//! by default; unsafe ones (dropping or converting orphans, resolving duplicates, re-id) only
//! when a policy asks. Every byte outside the edits is kept.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::{CallAt, Defect, Window};
use crate::dialect::{Dialect, TreeFix};
use crate::fix::fix_for;
use crate::lint::{Analysed, dialect_of};
use crate::model::{Conversation, Message, Role};
use crate::rules::{Applicability, Rule};

mod claude_stream;
mod stream;
mod window;

pub use stream::{NotStreamed, OpenLines, Streamed, check_lines, stream_lines};
pub(crate) use window::{map_defect, reach};

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
    /// The groups of edits made, each with what it fixes.
    pub made: Vec<(Label, Vec<Edit>)>,
}

/// What a group of edits fixes (see [`AppliedEdit`]).
#[derive(Debug, Clone)]
pub struct Label {
    kind: &'static str,
    rule: Rule,
    call_ids: Vec<String>,
    pointer: String,
}

impl Label {
    fn new<'s>(
        kind: &'static str,
        rule: Rule,
        ids: impl IntoIterator<Item = Option<&'s String>>,
        msg: &Message,
    ) -> Label {
        Label {
            kind,
            rule,
            call_ids: ids.into_iter().flatten().cloned().collect(),
            pointer: msg.pos.pointer.clone(),
        }
    }
}

/// One byte edit a repair made, with what it fixes: an entry of an audit record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedEdit {
    /// The round that made it: 1 edits the input; a later round edits the output of the
    /// round before (fixes held back by a conflict), so its range is in those bytes.
    pub round: usize,
    /// What it is part of: `placeholder`, `move`, `drop-orphan`, `note-orphan`,
    /// `keep-first`, `keep-last`, `re-id`, `drop-copy` (a Claude Code line repeated byte for
    /// byte) or `drop-torn-line` (`--truncated drop`).
    pub kind: &'static str,
    /// The rule whose finding the edit fixes.
    pub rule: Rule,
    /// The conversation (index in the document); `None` for the removal of a torn final line,
    /// which belongs to none.
    pub conversation: Option<usize>,
    /// The call ids the fix is about.
    pub call_ids: Vec<String>,
    /// JSON Pointer of the message the fix is about (relative to its line in JSON Lines).
    pub pointer: String,
    /// First byte replaced (in the round's input).
    pub start: usize,
    /// One past the last byte replaced (equal to `start` for an insertion).
    pub end: usize,
    /// The bytes put in their place.
    pub inserted: Vec<u8>,
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
    /// Defects fixed by further rounds (fixes held back by a conflict in an earlier round),
    /// and Claude Code tree findings fixed.
    pub fixed_later: usize,
    /// Whether anything changed.
    pub changed: bool,
    /// Every edit made, in the order of the rounds, then of the conversations.
    pub edits: Vec<AppliedEdit>,
    /// The torn final line removed (`--truncated drop`): its number and length in bytes.
    pub torn_tail: Option<(usize, usize)>,
}

impl Analysed {
    /// Repair the document `src` this analysis was made of: the safe fixes, and the unsafe
    /// ones `options` ask for. Fixes that conflict in one round are made in the next, over the
    /// repaired bytes, so repairing the output again changes nothing.
    pub fn repair(&self, src: &[u8], options: &RepairOptions) -> Repaired {
        document(src, self, options)
    }

    /// [`Analysed::repair`], writing the output to `out` instead of returning it (the
    /// result's `output` is empty): the repaired document is not held in memory beside the
    /// original.
    pub fn repair_to(
        &self,
        src: &[u8],
        options: &RepairOptions,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<Repaired> {
        document_to(src, self, options, out)
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
    let (first, torn_tail) = first_round(src, analysed, options);
    let output = first_output(&first, src);
    further_rounds(first, torn_tail, src, output, analysed, options)
}

/// The output of the first round.
fn first_output(first: &Round, src: &[u8]) -> Vec<u8> {
    if first.edits.is_empty() {
        src.to_vec()
    } else {
        first.edits.apply(src)
    }
}

/// Repair like [`document`], writing the output to `out` instead of returning it (its
/// `output` is left empty): when no fix waits for another round, the output is written
/// straight from `src` and the edits, never held in memory a second time.
pub fn document_to(
    src: &[u8],
    analysed: &Analysed,
    options: &RepairOptions,
    out: &mut dyn std::io::Write,
) -> std::io::Result<Repaired> {
    let (first, torn_tail) = first_round(src, analysed, options);
    if first.deferred {
        let output = first_output(&first, src);
        let mut repaired = further_rounds(first, torn_tail, src, output, analysed, options);
        out.write_all(&repaired.output)?;
        repaired.output = Vec::new();
        return Ok(repaired);
    }
    first.edits.write_to(src, out)?;
    Ok(further_rounds(
        first,
        torn_tail,
        src,
        Vec::new(),
        analysed,
        options,
    ))
}

/// The first round of a repair, with the torn final line dropped when asked.
fn first_round(
    src: &[u8],
    analysed: &Analysed,
    options: &RepairOptions,
) -> (Round, Option<(usize, usize)>) {
    let mut first = round(src, analysed, options);
    let torn_tail = options
        .drop_torn_tail
        .then(|| torn_tail(src, analysed))
        .flatten();
    if let Some((start, _)) = torn_tail {
        // Edits inside the torn line cannot exist: it was not read.
        let group = vec![Edit::delete(start, src.len())];
        if first.edits.try_add(group.clone()) {
            let label = Label {
                kind: "drop-torn-line",
                rule: Rule::InvalidJson,
                call_ids: Vec::new(),
                pointer: String::new(),
            };
            first.made.push((None, label, group));
        }
    }
    (first, torn_tail)
}

/// The repair after its first round: further rounds over `output` (the first round's
/// output; it may be left empty when no fix was held back) while fixes were held back.
fn further_rounds(
    first: Round,
    torn_tail: Option<(usize, usize)>,
    src: &[u8],
    output: Vec<u8>,
    analysed: &Analysed,
    options: &RepairOptions,
) -> Repaired {
    let mut deferred = first.deferred;
    let mut repaired = first.repaired(output);
    repaired.torn_tail = torn_tail.map(|(start, line)| (line, src.len() - start));
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
        repaired.edits.extend(applied(
            repaired.edits.last().map_or(1, |e| e.round) + 1,
            next.made,
        ));
        repaired.placeholders += next.placeholders;
        repaired.fixed_later += next.fixed.iter().map(Vec::len).sum::<usize>() + next.tree_fixed;
        deferred = next.deferred;
    }
    repaired
}

/// The groups of edits of one round as [`AppliedEdit`]s.
fn applied(round: usize, made: Vec<(Option<usize>, Label, Vec<Edit>)>) -> Vec<AppliedEdit> {
    made.into_iter()
        .flat_map(|(conversation, label, group)| {
            group.into_iter().map(move |e| AppliedEdit {
                round,
                kind: label.kind,
                rule: label.rule,
                conversation,
                call_ids: label.call_ids.clone(),
                pointer: label.pointer.clone(),
                start: e.start,
                end: e.end,
                inserted: e.text,
            })
        })
        .collect()
}

/// Where the torn final line of a JSON Lines file starts, and its number: the last line, when
/// it was reported as cut short and only blanks follow it.
fn torn_tail(src: &[u8], analysed: &Analysed) -> Option<(usize, usize)> {
    let p = analysed
        .doc
        .problems
        .iter()
        .find(|p| p.message.starts_with(crate::read::TORN_FINAL_LINE))?;
    let start = memchr::memrchr(b'\n', &src[..p.offset.min(src.len())]).map_or(0, |i| i + 1);
    let rest = &src[start..];
    let body = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i);
    rest[body..]
        .iter()
        .all(u8::is_ascii_whitespace)
        .then_some((start, p.line))
}

/// The edits of one round over all conversations.
#[derive(Default)]
pub(crate) struct Round {
    pub edits: EditSet,
    /// The groups made: conversation, what they fix, edits.
    made: Vec<(Option<usize>, Label, Vec<Edit>)>,
    /// Claude Code tree findings fixed.
    tree_fixed: usize,
    placeholders: usize,
    fixed: Vec<Vec<usize>>,
    /// Some fix conflicted with another and was held back.
    pub deferred: bool,
}

impl Round {
    /// Plan the fixes of the next conversation, `conv` with `defects`, judged for `target`.
    /// Its messages may be only those the fixes need (see `crate::document_repair`).
    pub(crate) fn conversation(
        &mut self,
        src: &[u8],
        conv: &Conversation,
        defects: &[Defect],
        target: Option<crate::Provider>,
        options: &RepairOptions,
    ) {
        let d = dialect_of(conv);
        let window = crate::target::judge(d, target).window;
        let sample = crate::edit::first_result(conv);
        let p = plan(
            src,
            conv,
            d,
            window,
            defects,
            options,
            sample,
            &mut self.edits,
        );
        self.made
            .extend(p.made.into_iter().map(|(l, g)| (Some(conv.index), l, g)));
        self.placeholders += p.placeholders;
        self.deferred |= p.deferred;
        self.fixed.push(p.fixed);
    }

    /// What the round did, as a repair of one round whose output is `output`.
    pub(crate) fn repaired(self, output: Vec<u8>) -> Repaired {
        Repaired {
            changed: !self.edits.is_empty(),
            output,
            placeholders: self.placeholders,
            fixed: self.fixed,
            fixed_later: self.tree_fixed,
            edits: applied(1, self.made),
            torn_tail: None,
        }
    }
}

fn round(src: &[u8], analysed: &Analysed, options: &RepairOptions) -> Round {
    let mut r = Round::default();
    for (conv, defects) in analysed.doc.conversations.iter().zip(&analysed.defects) {
        r.conversation(src, conv, defects, analysed.options.target, options);
    }
    for (conversation, finding) in &analysed.doc.tree {
        let group = match finding.fix {
            // The copy that is the last main-chain line goes only when lines are put right
            // after it.
            Some(TreeFix::DropCopy { line, last: true }) => {
                last_copy_drop(&src[..line.0], &src[line.1..], line)
                    .filter(|e| r.edits.inserts_at(e.end))
                    .map(|e| vec![e])
            }
            _ => finding.fix.as_ref().and_then(|f| tree_fix(src, f, options)),
        };
        if let Some(group) = group {
            if r.edits.try_add(group.clone()) {
                r.tree_fixed += 1;
                let kind = match (&finding.fix, options.orphans) {
                    (Some(TreeFix::DropCopy { .. }), _) => "drop-copy",
                    (_, OrphanPolicy::Note) => "note-orphan",
                    _ => "drop-orphan",
                };
                let label = Label {
                    kind,
                    rule: finding.rule,
                    call_ids: Vec::new(),
                    pointer: String::new(),
                };
                r.made.push((Some(*conversation), label, group));
            } else {
                r.deferred = true;
            }
        }
    }
    r
}

/// The deletion of the copy that is a Claude Code file's last main-chain line (text span
/// `line`, with the bytes `before` and `after` it): with its line ending, or, on a last line
/// without one, with the line ending before it (the lines put after it start with one);
/// `None` for a file of that one line.
pub(crate) fn last_copy_drop(before: &[u8], after: &[u8], line: (usize, usize)) -> Option<Edit> {
    let (start, end) = line;
    let ending = |b: &[u8]| match b {
        [b'\r', b'\n', ..] => 2,
        [b'\n', ..] => 1,
        _ => 0,
    };
    match ending(after) {
        0 => {
            let back = if before.ends_with(b"\r\n") {
                2
            } else {
                usize::from(before.ends_with(b"\n"))
            };
            (back > 0).then(|| Edit::delete(start - back, end))
        }
        n => Some(Edit::delete(start, end + n)),
    }
}

/// The edits of a fix of a Claude Code tree finding, when the options allow it.
fn tree_fix(src: &[u8], fix: &TreeFix, options: &RepairOptions) -> Option<Vec<Edit>> {
    tree_fix_with(&|end| crate::edit::line_ending(src, end), fix, options)
}

/// [`tree_fix`], told the length of the line ending after a line's text by `ending` (given
/// the offset where the text ends).
pub(crate) fn tree_fix_with(
    ending: &dyn Fn(usize) -> usize,
    fix: &TreeFix,
    options: &RepairOptions,
) -> Option<Vec<Edit>> {
    // A line goes with its line ending.
    let whole = |(start, end): (usize, usize)| Edit::delete(start, end + ending(end));
    match fix {
        TreeFix::DropCopy { line, .. } => Some(vec![whole(*line)]),
        TreeFix::Orphan { block, note, .. } if options.orphans == OrphanPolicy::Note => {
            let text = crate::json::J::obj([
                ("type", crate::json::J::str("text")),
                ("text", crate::json::J::str(note.clone())),
            ])
            .render(&crate::json::Style::default());
            Some(vec![Edit::replace(block.0, block.1, text)])
        }
        TreeFix::Orphan { drop: Some(d), .. } if options.orphans == OrphanPolicy::Drop => {
            Some(d.edits(ending))
        }
        TreeFix::Orphan { .. } => None,
    }
}

/// What the search for the end of an answer window reads of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The message's role.
    pub role: Role,
    /// It holds calls.
    pub calls: bool,
    /// It continues the model message before it.
    pub continuation: bool,
}

impl Shape {
    /// The shape of `m`.
    pub fn of(m: &Message) -> Shape {
        Shape {
            role: m.role,
            calls: !m.calls.is_empty(),
            continuation: m.continuation,
        }
    }
}

/// The last message of the answer window that starts at message `from` (the window of the
/// message before it), if the window holds any, and whether a message after it closed it
/// (`false` when the window runs to the last of the `len` messages, so that a later message
/// could still belong to it). `shape(k)` gives message `k`'s shape; message `from - 1` is
/// never read, so `from` may be the first message known.
///
/// The window holds its calling message's continuations and the results right after (for
/// [`Window::CallRun`] and [`Window::AfterCall`], also the sibling calls and other items of
/// the same run; for [`Window::NextResponseTurn`], the model turns with calls that the next
/// response turn answers together).
pub(crate) fn scan_from(
    len: usize,
    from: usize,
    window: Window,
    shape: impl Fn(usize) -> Shape,
) -> (Option<usize>, bool) {
    let mut end = None;
    if window == Window::NextResponseTurn {
        for k in from..len {
            let m = shape(k);
            if m.role != Role::Assistant || !m.calls {
                return (end, true);
            }
            end = Some(k);
        }
        return (end, false);
    }
    let runs = matches!(window, Window::CallRun | Window::AfterCall);
    let mut closed = false;
    for k in from..len {
        let m = shape(k);
        let inside = m.continuation
            || m.role == Role::Tool
            || (runs && (m.role == Role::Other || (m.role == Role::Assistant && m.calls)));
        if !inside {
            closed = true;
            break;
        }
        end = Some(k);
    }
    // Trailing items that are not results (reasoning before the next turn) stay after.
    while let Some(e) = end.filter(|&e| {
        let m = shape(e);
        m.role != Role::Tool && !m.continuation
    }) {
        end = e.checked_sub(1).filter(|&k| k >= from);
    }
    (end, closed)
}

/// Plan the repair of one conversation read as `dialect` and judged with answer `window`: the
/// fixes [`fix_for`] offers, safe ones first (moves into the answer window, then placeholders),
/// then the unsafe ones its policies ask for. `sample` is the conversation's first message
/// holding only a result (placeholders copy its key order).
#[allow(clippy::too_many_arguments)]
pub fn plan<'a>(
    src: &'a [u8],
    conv: &'a Conversation,
    dialect: &'a dyn Dialect,
    window: Window,
    defects: &[Defect],
    options: &'a RepairOptions,
    sample: Option<&'a Message>,
    edits: &mut EditSet,
) -> Plan {
    if conv.container == crate::model::Container::Scattered
        || !conv.foreign.is_empty()
        || !conv.unread.is_empty()
        || conv.messages.is_empty()
        || !dialect.repairs()
        || !dialect.repairable(conv)
    {
        return Plan::default();
    }
    let mut planner = Planner {
        src,
        conv,
        dialect,
        window,
        options,
        sample,
        offered: defects
            .iter()
            .map(|d| fix_for(dialect, d, false).map(|f| f.applicability))
            .collect(),
        noted: BTreeSet::new(),
        edits,
        plan: Plan::default(),
    };
    planner.noted = planner.noted_orphans(defects);
    planner.moves(defects);
    planner.placeholders(defects);
    planner.policy_fixes(defects);
    planner.plan.fixed.sort_unstable();
    planner.plan
}

/// The repair of one conversation being planned.
struct Planner<'a, 'e> {
    src: &'a [u8],
    conv: &'a Conversation,
    dialect: &'a dyn Dialect,
    /// The answer window the conversation is judged with (its provider's or `--target`'s).
    window: Window,
    options: &'a RepairOptions,
    /// The conversation's first result message (see `RepairCx::sample_result`).
    sample: Option<&'a Message>,
    /// The applicability of each defect's fix, if it has one.
    offered: Vec<Option<Applicability>>,
    /// Messages that are each a whole orphan result `--orphans note` turns into a note: they
    /// leave their answer window (see [`Planner::placement_end`]).
    noted: BTreeSet<usize>,
    edits: &'e mut EditSet,
    plan: Plan,
}

impl<'a> Planner<'a, '_> {
    /// A context for the calling message `owner`, inserting after message `anchor`.
    fn cx_at(&self, owner: usize, anchor: usize) -> RepairCx<'a> {
        RepairCx {
            src: self.src,
            conv: self.conv,
            owner: &self.conv.messages[owner],
            anchor: &self.conv.messages[anchor],
            next: self.conv.messages.get(anchor + 1),
            options: self.options,
            sample: self.sample,
        }
    }

    /// A context for `owner`'s results: they go after the results of its answer window (or
    /// right after it, for `--profile deerflow`).
    fn cx_for(&self, owner: usize) -> RepairCx<'a> {
        let anchor = if self.options.before_results {
            owner
        } else {
            self.placement_end(owner + 1).unwrap_or(owner)
        };
        self.cx_at(owner, anchor)
    }

    /// The message that what goes into the answer window starting at message `from` is
    /// placed after: the window's last message that stays a result. Orphans turned into
    /// notes do not: a note is not a result, so one left inside the window would end it
    /// before the results after it, and before the placeholders; the notes go after them.
    fn placement_end(&self, from: usize) -> Option<usize> {
        let messages = &self.conv.messages;
        let (end, _) = scan_from(messages.len(), from, self.window, |k| {
            Shape::of(&messages[k])
        });
        (from..=end?).rev().find(|k| !self.noted.contains(k))
    }

    /// The messages of `defects` that are each a whole orphan result its note replaces.
    fn noted_orphans(&self, defects: &[Defect]) -> BTreeSet<usize> {
        if self.options.orphans != OrphanPolicy::Note {
            return BTreeSet::new();
        }
        defects
            .iter()
            .enumerate()
            .filter_map(|(i, d)| match d {
                Defect::Orphan {
                    result,
                    later_call: None,
                } if result.result.whole_message && self.offers(i, Applicability::Unsafe) => {
                    let cx = self.plain_cx(result.message);
                    self.dialect.note(&cx, cx.owner).map(|_| result.message)
                }
                _ => None,
            })
            .collect()
    }

    /// A context placed at one message, for the fixes that replace or remove it.
    fn plain_cx(&self, at: usize) -> RepairCx<'a> {
        self.cx_at(at, at)
    }

    fn offers(&self, i: usize, applicability: Applicability) -> bool {
        self.offered[i] == Some(applicability)
    }

    /// Add the edits fixing defect(s) `fixed`; a conflict holds them back for another round.
    fn add(&mut self, group: Vec<Edit>, label: Label, fixed: impl IntoIterator<Item = usize>) {
        if self.accept(group, label) {
            self.plan.fixed.extend(fixed);
        } else {
            self.plan.deferred = true;
        }
    }

    /// Add `group` unless it conflicts with edits already planned; say whether it was.
    fn accept(&mut self, group: Vec<Edit>, label: Label) -> bool {
        let ok = self.edits.try_add(group.clone());
        if ok {
            self.plan.made.push((label, group));
        }
        ok
    }

    /// Safe: results moved into their call's answer window, right after the existing results.
    fn moves(&mut self, defects: &[Defect]) {
        for (i, d) in defects.iter().enumerate() {
            let (call, result, rule) = match d {
                Defect::Misplaced { call, result } => (call, result, Rule::MisplacedToolResult),
                Defect::Orphan {
                    result,
                    later_call: Some(call),
                } => (call, result, Rule::OrphanToolResult),
                _ => continue,
            };
            if !self.offers(i, Applicability::Safe) {
                continue;
            }
            let msg = &self.conv.messages[result.message];
            let label = Label::new("move", rule, [result.result.id.as_ref()], msg);
            if !result.result.whole_message || !msg.calls.is_empty() {
                // A block inside a message: the dialect moves it, or nothing happens.
                if let Some(group) =
                    self.dialect
                        .move_block(&self.cx_for(call.message), call, result)
                    && self.accept(group, label)
                {
                    self.plan.fixed.push(i);
                }
                continue;
            }
            let mut cx = self.cx_for(call.message);
            if cx.reused_before_anchor(call.holder, &call.call) {
                // As for a placeholder: after the run, the result would answer the later call.
                cx = self.cx_at(call.message, call.holder);
            }
            if cx.anchor.index != msg.index {
                self.add(
                    vec![cx.delete(msg), cx.copy_after(cx.anchor, msg)],
                    label,
                    [i],
                );
            }
        }
    }

    /// Safe: placeholders for dangling calls, grouped per calling message in call order.
    fn placeholders(&mut self, defects: &[Defect]) {
        let mut dangling: BTreeMap<usize, Vec<(usize, &CallAt)>> = BTreeMap::new();
        for (i, d) in defects.iter().enumerate() {
            if let Defect::Dangling { call, .. } = d
                && self.offers(i, Applicability::Safe)
            {
                dangling.entry(call.message).or_default().push((i, call));
            }
        }
        for (owner, mut calls) in dangling {
            calls.sort_by_key(|(_, c)| (c.holder, c.slot));
            let cx = self.cx_for(owner);
            let just_calls: Vec<&CallAt> = calls.iter().map(|(_, c)| *c).collect();
            if let Some(group) = self.dialect.insert_results(&cx, &just_calls) {
                let before = self.plan.fixed.len();
                let label = Label::new(
                    "placeholder",
                    Rule::DanglingToolCall,
                    just_calls.iter().map(|c| c.call.id.as_ref()),
                    cx.owner,
                );
                self.add(group, label, calls.iter().map(|(i, _)| *i));
                self.plan.placeholders += self.plan.fixed.len() - before;
            }
        }
    }

    /// Unsafe, each by its policy: orphans, duplicate results, duplicate and reused call ids.
    fn policy_fixes(&mut self, defects: &[Defect]) {
        for (i, d) in defects.iter().enumerate() {
            if !self.offers(i, Applicability::Unsafe) {
                continue;
            }
            let messages = &self.conv.messages;
            let (group, label) = match d {
                Defect::Orphan {
                    result,
                    later_call: None,
                } => (
                    orphan_fix(
                        &self.plain_cx(result.message),
                        self.dialect,
                        result,
                        self.placement_end(result.message),
                    ),
                    Label::new(
                        match self.options.orphans {
                            OrphanPolicy::Note => "note-orphan",
                            _ => "drop-orphan",
                        },
                        Rule::OrphanToolResult,
                        [result.result.id.as_ref()],
                        &messages[result.message],
                    ),
                ),
                Defect::DuplicateResult { first, result, .. } => (
                    duplicate_fix(&self.plain_cx(result.message), first.message).or_else(|| {
                        (self.options.duplicates == Some(DuplicatePolicy::KeepFirst))
                            .then(|| {
                                self.dialect.drop_copy(
                                    &self.plain_cx(result.message),
                                    first,
                                    result,
                                )
                            })
                            .flatten()
                    }),
                    Label::new(
                        match self.options.duplicates {
                            Some(DuplicatePolicy::KeepLast) => "keep-last",
                            _ => "keep-first",
                        },
                        Rule::DuplicateToolResult,
                        [result.result.id.as_ref()],
                        &messages[result.message],
                    ),
                ),
                Defect::DuplicateCallId { call, .. } if self.options.reid => (
                    reid_fix(&self.cx_for(call.message), self.dialect, call),
                    Label::new(
                        "re-id",
                        Rule::DuplicateToolCallId,
                        [call.call.id.as_ref()],
                        &messages[call.holder],
                    ),
                ),
                Defect::ReusedCallId { call, .. } if self.options.reid => (
                    reuse_fix(&self.cx_for(call.message), self.dialect, call),
                    Label::new(
                        "re-id",
                        Rule::DuplicateToolCallId,
                        [call.call.id.as_ref()],
                        &messages[call.holder],
                    ),
                ),
                _ => continue,
            };
            if let Some(group) = group {
                self.add(group, label, [i]);
            }
        }
    }
}

/// The fix of an orphan result by policy; `cx` is placed at the orphan's message. A note of a
/// whole message goes after `results_end`, the last result of the run it sits in, when that
/// comes after it (see [`Planner::placement_end`]).
fn orphan_fix(
    cx: &RepairCx<'_>,
    dialect: &dyn Dialect,
    result: &crate::analysis::ResultAt,
    results_end: Option<usize>,
) -> Option<Vec<Edit>> {
    let msg = cx.owner;
    if !result.result.whole_message {
        return match cx.options.orphans {
            OrphanPolicy::Note => dialect.note_result(cx, result),
            OrphanPolicy::Drop => dialect.drop_result(cx, result),
            OrphanPolicy::Keep => None,
        };
    }
    match cx.options.orphans {
        OrphanPolicy::Keep => None,
        OrphanPolicy::Drop => Some(vec![cx.delete(msg)]),
        OrphanPolicy::Note => dialect.note(cx, msg).map(|j| match results_end {
            Some(end) if end > msg.index => {
                vec![
                    cx.delete(msg),
                    cx.insert_after(&cx.conv.messages[end], &[j]),
                ]
            }
            _ => vec![cx.replace(msg, &j)],
        }),
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

/// Give a call that reuses an earlier call's id (where ids must be unique in the request) a
/// new deterministic id, together with the first result of that id after it (before any later
/// call of the id); when it has none, a placeholder under the new id goes with it.
fn reuse_fix(cx: &RepairCx<'_>, dialect: &dyn Dialect, call: &CallAt) -> Option<Vec<Edit>> {
    let conv = cx.conv;
    let id = call.call.id.as_deref()?;
    let id_span = call.call.id_span?;
    let new_id = format!("{id}_m{}", call.holder);
    let token = crate::json::J::str(new_id.clone()).render(&crate::json::Style::default());
    let mut edits = vec![Edit::replace(id_span.start, id_span.end, token.clone())];
    let later = &conv.messages[call.holder + 1..];
    let end = later
        .iter()
        .position(|m| m.calls.iter().any(|c| c.id.as_deref() == Some(id)))
        .unwrap_or(later.len());
    let result = later[..end]
        .iter()
        .flat_map(|m| m.results.iter())
        .find(|r| r.id.as_deref() == Some(id));
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
