//! The main thread of a Claude Code file, held while it streams by: which of its messages
//! Claude Code resumes, and in what order, is known only at the end of the file (see
//! [`super::chain`]). A held message is a few dozen bytes: each one is written as a run of
//! variable-length numbers (positions relative to the message's start, the few distinct
//! pointers, tool names and kinds interned, ids written out), into chunks that never move.

use super::chain::Chain;
use super::chunked::{Reader, Records, Writer};
use super::intern::{Interner, Sym};
use super::{ROLES, flag, role_number};
use crate::chunked::Chunked;
use crate::model::{Call, Message, Pos, Span, ToolResult};

/// Messages held until the resumed chain is known.
#[derive(Debug, Default)]
pub struct Held {
    /// Pointers, tool names and block kinds (a few distinct strings).
    names: Interner,
    /// Where each message's record starts in its chunk of `records`.
    at: Chunked<u32>,
    /// The first message of each chunk of `records`.
    firsts: Vec<u32>,
    records: Records,
    /// Room to write one record in before it is copied to `records`.
    scratch: Vec<u8>,
}

/// Flags of a record's parts.
const ID: u64 = 1;
const NAME: u64 = 2;
const ID_SPAN: u64 = 4;
const SERVER: u64 = 8;
const LEADING: u64 = 16;
const WHOLE_MESSAGE: u64 = 32;
const SPLIT: u64 = 64;
const GROUP: u64 = 128;

impl Held {
    /// Hold `m`, a message as its dialect read it (not yet numbered).
    pub fn push(&mut self, m: Message) {
        debug_assert!(
            m.index == 0 && !m.continuation,
            "held messages are not numbered"
        );
        let names = &mut self.names;
        self.scratch.clear();
        let mut w = Writer(&mut self.scratch);
        // The message: its span, its position relative to it, its parts.
        let base = m.span.start;
        w.uint(role_number(m.role) << 8 | flag(m.group.is_some(), GROUP));
        w.usize(base);
        w.usize(m.span.end - base);
        let line = m.pos.line;
        w.usize(line);
        pos(&mut w, names, &m.pos, base, line);
        w.opt_str(&m.group);
        w.usize(m.calls.len());
        w.usize(m.results.len());
        for c in &m.calls {
            w.uint(
                flag(c.id.is_some(), ID)
                    | flag(c.name.is_some(), NAME)
                    | flag(c.id_span.is_some(), ID_SPAN)
                    | flag(c.server, SERVER),
            );
            w.opt_str(&c.id);
            if let Some(name) = &c.name {
                w.uint(u64::from(names.intern(name)));
            }
            pos(&mut w, names, &c.pos, base, line);
            if let Some(s) = c.id_span {
                w.span(s, c.pos.offset);
            }
            w.uint(u64::from(names.intern(&c.kind)));
        }
        for r in &m.results {
            w.uint(
                flag(r.id.is_some(), ID)
                    | flag(r.name.is_some(), NAME)
                    | flag(r.id_span.is_some(), ID_SPAN)
                    | flag(r.leading, LEADING)
                    | flag(r.whole_message, WHOLE_MESSAGE)
                    | flag(r.split.is_some(), SPLIT),
            );
            w.opt_str(&r.id);
            if let Some(name) = &r.name {
                w.uint(u64::from(names.intern(name)));
            }
            pos(&mut w, names, &r.pos, base, line);
            if let Some(s) = r.id_span {
                w.span(s, r.pos.offset);
            }
            w.span(r.span, r.pos.offset);
            w.opt_str(&r.split);
        }
        let at = self.records.push(&self.scratch);
        if (at >> 32) as usize == self.firsts.len() {
            self.firsts.push(self.at.len() as u32);
        }
        self.at.push(at as u32);
    }

    /// The held messages that `chain` resumes, in its order (see [`super::resumed`]); all of
    /// them, in file order, when there is no chain to follow.
    pub fn resumed<'c>(self, chain: Option<&'c Chain>) -> impl Iterator<Item = Message> + 'c {
        let (order, chain) = match chain {
            Some(c) if c.path.is_some() => {
                let lines: Vec<u32> = (0..self.at.len())
                    .map(|i| super::line_number(self.line(i)))
                    .collect();
                (super::path_order(&lines, c), Some(c))
            }
            _ => ((0..self.at.len() as u32).collect(), None),
        };
        order.into_iter().map(move |i| {
            let mut m = self.message(i as usize);
            if let Some(chain) = chain {
                super::mark_split(&mut m, chain);
            }
            m
        })
    }

    /// The record of held message `i`.
    fn record(&self, i: usize) -> Reader<'_> {
        let chunk = self.firsts.partition_point(|&f| f as usize <= i) - 1;
        Reader(
            self.records
                .from((chunk as u64) << 32 | u64::from(self.at[i])),
        )
    }

    /// The line of held message `i`.
    fn line(&self, i: usize) -> usize {
        let mut r = self.record(i);
        r.uint();
        r.usize();
        r.usize();
        r.usize()
    }

    /// Held message `i`, as it was pushed.
    fn message(&self, i: usize) -> Message {
        let mut r = self.record(i);
        let head = r.uint();
        let role = ROLES[(head >> 8) as usize];
        let start = r.usize();
        let span = Span {
            start,
            end: start + r.usize(),
        };
        let line = r.usize();
        let pos = self.pos(&mut r, start, line);
        let mut m = Message::new(role, pos, span);
        m.group = r.opt_str(head & GROUP != 0);
        let (calls, results) = (r.usize(), r.usize());
        m.calls.reserve_exact(calls);
        m.results.reserve_exact(results);
        for _ in 0..calls {
            let flags = r.uint();
            let id = r.opt_str(flags & ID != 0);
            let name = self.name(&mut r, flags);
            let pos = self.pos(&mut r, start, line);
            let id_span = (flags & ID_SPAN != 0).then(|| r.span(pos.offset));
            let kind = self.names.get(r.uint() as Sym).to_string();
            m.calls.push(Call {
                id,
                name,
                pos,
                id_span,
                kind,
                server: flags & SERVER != 0,
            });
        }
        for _ in 0..results {
            let flags = r.uint();
            let id = r.opt_str(flags & ID != 0);
            let name = self.name(&mut r, flags);
            let pos = self.pos(&mut r, start, line);
            let id_span = (flags & ID_SPAN != 0).then(|| r.span(pos.offset));
            let span = r.span(pos.offset);
            m.results.push(ToolResult {
                id,
                name,
                pos,
                id_span,
                span,
                leading: flags & LEADING != 0,
                whole_message: flags & WHOLE_MESSAGE != 0,
                split: r.opt_str(flags & SPLIT != 0),
            });
        }
        m
    }

    fn name(&self, r: &mut Reader<'_>, flags: u64) -> Option<String> {
        (flags & NAME != 0).then(|| self.names.get(r.uint() as Sym).to_string())
    }

    /// A position [`pos`] wrote relative to `start` and `line`.
    fn pos(&self, r: &mut Reader<'_>, start: usize, line: usize) -> Pos {
        Pos {
            offset: r.rel(start),
            line: r.rel(line),
            column: r.usize(),
            pointer: self.names.get(r.uint() as Sym).to_string(),
        }
    }
}

/// Write `p` relative to the message's `start` and `line`, its pointer interned in `names`.
fn pos(w: &mut Writer<'_>, names: &mut Interner, p: &Pos, start: usize, line: usize) {
    w.rel(p.offset, start);
    w.rel(p.line, line);
    w.usize(p.column);
    w.uint(u64::from(names.intern(&p.pointer)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    fn message(line: usize, role: Role, call: Option<&str>, result: Option<&str>) -> Message {
        let pos = |pointer: &str| Pos {
            offset: line * 100,
            line,
            column: 3,
            pointer: pointer.into(),
        };
        let mut m = Message::new(role, pos(""), Span::new((line * 100, line * 100 + 90)));
        m.group = call.map(|c| format!("msg_{c}"));
        m.calls.extend(call.map(|id| Call {
            id: Some(id.into()),
            name: Some("Bash".into()),
            pos: pos("/message/content/0"),
            id_span: Some(Span::new((line * 100 + 40, line * 100 + 44))),
            kind: "tool_use".into(),
            server: false,
        }));
        m.results.extend(result.map(|id| ToolResult {
            id: Some(id.into()),
            pos: pos("/message/content/1"),
            span: Span::new((line * 100 + 20, line * 100 + 80)),
            leading: true,
            ..ToolResult::default()
        }));
        m
    }

    fn sample() -> Vec<Message> {
        vec![
            message(1, Role::User, None, None),
            message(2, Role::Assistant, Some("c1"), None),
            message(3, Role::Tool, None, Some("c1")),
            message(5, Role::Tool, None, Some("c0")),
        ]
    }

    fn held(messages: Vec<Message>) -> Held {
        let mut held = Held::default();
        for m in messages {
            held.push(m);
        }
        held
    }

    #[test]
    fn messages_are_found_across_chunks() {
        let messages: Vec<Message> = (1..6000)
            .map(|line| message(line, Role::Assistant, Some(&"c".repeat(line % 40)), None))
            .collect();
        let held = held(messages.clone());
        assert!(held.firsts.len() > 2);
        assert!(held.resumed(None).eq(messages));
    }

    #[test]
    fn a_held_message_costs_a_few_dozen_bytes() {
        let held = held(sample());
        let bytes = held.records.len();
        // Four messages, one with a call and two with a result, ids and group written out.
        assert!(bytes <= 4 * 12 + 3 * 16, "{bytes} bytes");
    }

    #[test]
    fn unusual_parts_come_back_as_they_were() {
        let mut m = message(7, Role::Tool, None, Some("c9"));
        m.pos.offset = m.span.start + 3;
        m.pos.line = 9;
        m.results[0].name = Some("Read".into());
        m.results[0].id_span = None;
        m.results[0].whole_message = true;
        m.results[0].split = Some("why".into());
        m.results[0].pos.offset = 1;
        m.results[0].pos.line = 1;
        m.results.push(ToolResult::default());
        let mut call = message(8, Role::Assistant, Some("c8"), None);
        call.calls[0].server = true;
        call.calls[0].id = None;
        call.group = None;
        let back: Vec<Message> = held(vec![m.clone(), call.clone()]).resumed(None).collect();
        assert_eq!(back, [m, call]);
    }

    #[test]
    fn held_messages_come_back_as_they_were() {
        let back: Vec<Message> = held(sample()).resumed(None).collect();
        assert_eq!(back, sample());
    }

    #[test]
    fn held_messages_follow_the_chain_as_a_read_file_does() {
        let chain = Chain {
            path: Some(vec![5, 1, 2]),
            split: [((5, "c0".to_string()), "its call is elsewhere".to_string())].into(),
            ..Chain::default()
        };
        let back: Vec<Message> = held(sample()).resumed(Some(&chain)).collect();
        assert_eq!(back, super::super::resumed(sample(), &chain));
        assert_eq!(back.len(), 3);
        assert_eq!(
            back[0].results[0].split.as_deref(),
            Some("its call is elsewhere")
        );
    }
}
