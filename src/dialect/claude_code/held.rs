//! The main thread of a Claude Code file, held while it streams by: which of its messages
//! Claude Code resumes, and in what order, is known only at the end of the file (see
//! [`super::chain`]). A held message costs a few words: its ids, names and pointers are
//! interned, and its calls and results sit in two flat vectors.

use super::chain::Chain;
use super::chunked::Chunked;
use super::intern::{Interner, OptSym, Sym};
use crate::model::{Call, Message, Pos, Role, Span, ToolResult};

/// Messages held until the resumed chain is known.
#[derive(Debug, Default)]
pub struct Held {
    names: Interner,
    messages: Chunked<HeldMessage>,
    calls: Vec<HeldCall>,
    results: Vec<HeldResult>,
}

/// A [`Pos`] with its pointer interned (a line and a column fit in 32 bits: a parsed line
/// is under 4 GiB).
#[derive(Debug)]
struct Place {
    offset: usize,
    line: u32,
    column: u32,
    pointer: Sym,
}

#[derive(Debug)]
struct HeldMessage {
    role: Role,
    pos: Place,
    span: Span,
    group: OptSym,
    /// Where its calls and results start in [`Held::calls`] and [`Held::results`].
    calls: u32,
    results: u32,
    n_calls: u32,
    n_results: u32,
}

#[derive(Debug)]
struct HeldCall {
    id: OptSym,
    name: OptSym,
    pos: Place,
    id_span: Option<Span>,
    kind: Sym,
    server: bool,
}

#[derive(Debug)]
struct HeldResult {
    id: OptSym,
    name: OptSym,
    pos: Place,
    id_span: Option<Span>,
    span: Span,
    leading: bool,
    whole_message: bool,
    split: OptSym,
}

impl Held {
    /// Hold `m`, a message as its dialect read it (not yet numbered).
    pub fn push(&mut self, m: Message) {
        debug_assert!(
            m.index == 0 && !m.continuation,
            "held messages are not numbered"
        );
        let names = &mut self.names;
        let place = |names: &mut Interner, p: Pos| Place {
            offset: p.offset,
            line: p.line as u32,
            column: p.column as u32,
            pointer: names.intern(&p.pointer),
        };
        let held = HeldMessage {
            role: m.role,
            pos: place(names, m.pos),
            span: m.span,
            group: OptSym::NONE,
            calls: self.calls.len() as u32,
            results: self.results.len() as u32,
            n_calls: m.calls.len() as u32,
            n_results: m.results.len() as u32,
        };
        for c in m.calls {
            let pos = place(names, c.pos);
            self.calls.push(HeldCall {
                id: OptSym::new(c.id.map(|s| names.intern(&s))),
                name: OptSym::new(c.name.map(|s| names.intern(&s))),
                pos,
                id_span: c.id_span,
                kind: names.intern(&c.kind),
                server: c.server,
            });
        }
        for r in m.results {
            let pos = place(names, r.pos);
            self.results.push(HeldResult {
                id: OptSym::new(r.id.map(|s| names.intern(&s))),
                name: OptSym::new(r.name.map(|s| names.intern(&s))),
                pos,
                id_span: r.id_span,
                span: r.span,
                leading: r.leading,
                whole_message: r.whole_message,
                split: OptSym::new(r.split.map(|s| names.intern(&s))),
            });
        }
        let group = OptSym::new(m.group.map(|g| self.names.intern(&g)));
        self.messages.push(HeldMessage { group, ..held });
    }

    /// The held messages that `chain` resumes, in its order (see [`super::resumed`]); all of
    /// them, in file order, when there is no chain to follow.
    pub fn resumed<'c>(self, chain: Option<&'c Chain>) -> impl Iterator<Item = Message> + 'c {
        let lines: Vec<usize> = self.messages.iter().map(|m| m.pos.line as usize).collect();
        let (order, chain) = match chain {
            Some(c) if c.path.is_some() => (super::path_order(&lines, c), Some(c)),
            _ => ((0..lines.len()).collect(), None),
        };
        order.into_iter().map(move |i| {
            let mut m = self.message(i);
            if let Some(chain) = chain {
                super::mark_split(&mut m, chain);
            }
            m
        })
    }

    fn pos(&self, p: &Place) -> Pos {
        Pos {
            offset: p.offset,
            line: p.line as usize,
            column: p.column as usize,
            pointer: self.names.get(p.pointer).to_string(),
        }
    }

    fn text(&self, sym: OptSym) -> Option<String> {
        sym.get().map(|s| self.names.get(s).to_string())
    }

    /// Held message `i`, as it was pushed.
    fn message(&self, i: usize) -> Message {
        let h = &self.messages[i];
        let (c, r) = (h.calls as usize, h.results as usize);
        let calls = &self.calls[c..c + h.n_calls as usize];
        let results = &self.results[r..r + h.n_results as usize];
        Message {
            index: 0,
            role: h.role,
            pos: self.pos(&h.pos),
            span: h.span,
            calls: calls
                .iter()
                .map(|c| Call {
                    id: self.text(c.id),
                    name: self.text(c.name),
                    pos: self.pos(&c.pos),
                    id_span: c.id_span,
                    kind: self.names.get(c.kind).to_string(),
                    server: c.server,
                })
                .collect(),
            results: results
                .iter()
                .map(|r| ToolResult {
                    id: self.text(r.id),
                    name: self.text(r.name),
                    pos: self.pos(&r.pos),
                    id_span: r.id_span,
                    span: r.span,
                    leading: r.leading,
                    whole_message: r.whole_message,
                    split: self.text(r.split),
                })
                .collect(),
            group: self.text(h.group),
            continuation: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_held_message_costs_a_few_words() {
        assert!(std::mem::size_of::<HeldMessage>() <= 64);
        assert!(std::mem::size_of::<HeldCall>() <= 64);
        assert!(std::mem::size_of::<HeldResult>() <= 80);
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
