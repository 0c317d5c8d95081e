//! Moving the model of a few messages between coordinate systems: from the file they were read
//! from to a small buffer holding only their lines (and back), so a streaming repair can plan
//! fixes over one answer window with the code that plans them over a whole document.

use crate::analysis::{CallAt, Defect, ResultAt};
use crate::model::{Call, Container, Conversation, Message, Pos, Span, ToolResult};

/// A move of byte offsets and message indices: offsets lose `from` and gain `to`, indices lose
/// `first`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rebase {
    /// Offset in the file of the first byte kept.
    pub from: usize,
    /// Where that byte is in the buffer.
    pub to: usize,
    /// The index of the first message kept.
    pub first: usize,
}

impl Rebase {
    fn offset(&self, at: usize) -> usize {
        // Offsets before the buffer are only those the walk leaves unset (0) in what it
        // remembers of an answered call; no fix reads them.
        at.saturating_sub(self.from) + self.to
    }

    fn span(&self, s: Span) -> Span {
        Span {
            start: self.offset(s.start),
            end: self.offset(s.end),
        }
    }

    fn pos(&self, p: &mut Pos) {
        p.offset = self.offset(p.offset);
    }

    fn call(&self, c: &mut Call) {
        self.pos(&mut c.pos);
        c.id_span = c.id_span.map(|s| self.span(s));
    }

    fn result(&self, r: &mut ToolResult) {
        self.pos(&mut r.pos);
        r.id_span = r.id_span.map(|s| self.span(s));
        r.span = self.span(r.span);
    }

    /// A copy of `m` in the buffer's coordinates.
    pub fn message(&self, m: &Message) -> Message {
        let mut m = m.clone();
        m.index -= self.first;
        self.pos(&mut m.pos);
        m.span = self.span(m.span);
        m.calls.iter_mut().for_each(|c| self.call(c));
        m.results.iter_mut().for_each(|r| self.result(r));
        m
    }

    fn call_at(&self, c: &CallAt) -> CallAt {
        let mut c = c.clone();
        c.message -= self.first;
        c.holder -= self.first;
        self.call(&mut c.call);
        c
    }

    fn result_at(&self, r: &ResultAt) -> ResultAt {
        let mut r = r.clone();
        r.message -= self.first;
        self.result(&mut r.result);
        r
    }

    /// A copy of `d` in the buffer's coordinates.
    pub fn defect(&self, d: &Defect) -> Defect {
        map_defect(d, |c| self.call_at(c), |r| self.result_at(r))
    }

    /// `conv` moved into the buffer's coordinates (a conversation held by one line).
    pub fn conversation(&self, conv: &mut Conversation) {
        if let Container::Array { span } = &mut conv.container {
            *span = self.span(*span);
        }
        for m in &mut conv.messages {
            *m = self.message(m);
        }
    }
}

/// `d` with each of its calls and results replaced by `call` and `result` of it.
pub(crate) fn map_defect(
    d: &Defect,
    call: impl Fn(&CallAt) -> CallAt,
    result: impl Fn(&ResultAt) -> ResultAt,
) -> Defect {
    match d {
        Defect::Dangling { call: c, cause } => Defect::Dangling {
            call: call(c),
            cause: *cause,
        },
        Defect::Orphan {
            result: r,
            later_call,
        } => Defect::Orphan {
            result: result(r),
            later_call: later_call.as_deref().map(|c| Box::new(call(c))),
        },
        Defect::Misplaced { call: c, result: r } => Defect::Misplaced {
            call: Box::new(call(c)),
            result: result(r),
        },
        Defect::DuplicateResult {
            call: c,
            first,
            result: r,
        } => Defect::DuplicateResult {
            call: Box::new(call(c)),
            first: Box::new(result(first)),
            result: result(r),
        },
        Defect::DuplicateCallId { first, call: c } => Defect::DuplicateCallId {
            first: Box::new(call(first)),
            call: call(c),
        },
        Defect::ReusedCallId { first, call: c } => Defect::ReusedCallId {
            first: Box::new(call(first)),
            call: call(c),
        },
        Defect::MissingCallId { call: c } => Defect::MissingCallId { call: call(c) },
        Defect::MissingToolName { call: c } => Defect::MissingToolName { call: call(c) },
        Defect::MissingResultId { result: r } => Defect::MissingResultId { result: result(r) },
    }
}

/// The messages a defect's fix reads or edits, lowest and highest (by index); and the first
/// message of the answer window whose end the fix needs, if it needs one: the window of the
/// calling message it places results after, or the run a whole result it turns into a note
/// sits in (the note goes after the run's results, see `Planner::placement_end`).
pub(crate) fn reach(d: &Defect) -> (usize, usize, Option<usize>) {
    let call = |c: &CallAt| [c.message, c.holder];
    let after = |c: &CallAt| Some(c.message + 1);
    let (indices, from): (Vec<usize>, Option<usize>) = match d {
        Defect::Dangling { call: c, .. } => (call(c).to_vec(), after(c)),
        Defect::Misplaced { call: c, result } => {
            ([&call(c)[..], &[result.message]].concat(), after(c))
        }
        Defect::Orphan {
            result,
            later_call: Some(c),
        } => ([&call(c)[..], &[result.message]].concat(), after(c)),
        Defect::Orphan {
            result,
            later_call: None,
        } => (
            vec![result.message],
            result.result.whole_message.then_some(result.message),
        ),
        Defect::MissingResultId { result } => (vec![result.message], None),
        Defect::DuplicateResult {
            call: c,
            first,
            result,
        } => (
            [&call(c)[..], &[first.message, result.message]].concat(),
            None,
        ),
        Defect::DuplicateCallId { first, call: c } | Defect::ReusedCallId { first, call: c } => {
            ([&call(first)[..], &call(c)[..]].concat(), after(c))
        }
        Defect::MissingCallId { call: c } | Defect::MissingToolName { call: c } => {
            (call(c).to_vec(), None)
        }
    };
    let lo = indices.iter().copied().min().unwrap_or(0);
    let hi = indices.iter().copied().max().unwrap_or(0);
    (lo, hi, from)
}

/// A call or a result that a defect names.
enum Part<'d> {
    Call(&'d CallAt),
    Result(&'d ResultAt),
}

impl Part<'_> {
    /// The index of the message holding it, and its offset (0 when the walk remembered it
    /// without its position).
    fn place(&self) -> (usize, usize) {
        match self {
            Part::Call(c) => (c.holder, c.call.pos.offset),
            Part::Result(r) => (r.message, r.result.pos.offset),
        }
    }
}

/// The calls and results `d` names.
fn parts(d: &Defect) -> Vec<Part<'_>> {
    match d {
        Defect::Dangling { call: c, .. }
        | Defect::MissingCallId { call: c }
        | Defect::MissingToolName { call: c } => vec![Part::Call(c)],
        Defect::Orphan {
            result: r,
            later_call,
        } => {
            let mut parts = vec![Part::Result(r)];
            parts.extend(later_call.as_deref().map(Part::Call));
            parts
        }
        Defect::Misplaced { call: c, result: r } => vec![Part::Call(c), Part::Result(r)],
        Defect::DuplicateResult {
            call: c,
            first,
            result: r,
        } => vec![Part::Call(c), Part::Result(first), Part::Result(r)],
        Defect::DuplicateCallId { first, call: c } | Defect::ReusedCallId { first, call: c } => {
            vec![Part::Call(first), Part::Call(c)]
        }
        Defect::MissingResultId { result: r } => vec![Part::Result(r)],
    }
}

/// The messages of `d` whose place in the file the defect tells: (message index, an offset
/// inside that message). Calls and results the walk remembered without their position (offset
/// 0) are left out.
pub(super) fn placed(d: &Defect) -> Vec<(usize, usize)> {
    parts(d)
        .iter()
        .map(Part::place)
        .filter(|&(_, offset)| offset > 0)
        .collect()
}

/// Did the second reading find each call and result `d` places as the first reading did: in
/// the message of the same index (`message` gives it, when kept), at the same offset, with the
/// same id and id span? A file changed between the readings (a line added or cut before, an
/// id rewritten) fails here, rather than having the first reading's positions applied to other
/// bytes.
pub(super) fn read_again_as_placed<'m>(
    d: &Defect,
    message: impl Fn(usize) -> Option<&'m Message>,
) -> bool {
    parts(d).iter().all(|part| {
        let (index, offset) = part.place();
        offset == 0
            || message(index).is_some_and(|m| match part {
                Part::Call(c) => m.calls.iter().any(|x| {
                    x.pos.offset == offset && x.id == c.call.id && x.id_span == c.call.id_span
                }),
                Part::Result(r) => m.results.iter().any(|x| {
                    x.pos.offset == offset && x.id == r.result.id && x.id_span == r.result.id_span
                }),
            })
    })
}
