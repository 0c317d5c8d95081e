//! What a dialect sees while it writes a fix: the document, the conversation, where to insert,
//! and helpers that insert or remove whole messages in the document's own style.

use crate::json::{J, Style, Tree, parse};
use crate::model::{Call, Container, Conversation, Message};

use super::{Edit, RepairOptions};

/// Context for one fix.
#[derive(Debug, Clone, Copy)]
pub struct RepairCx<'a> {
    /// The whole original document.
    pub src: &'a [u8],
    /// The conversation being repaired.
    pub conv: &'a Conversation,
    /// The calling model message.
    pub owner: &'a Message,
    /// The last message of the owner's answer window (the owner itself when it has none):
    /// inserted results go right after it.
    pub anchor: &'a Message,
    /// The message after the anchor, if any.
    pub next: Option<&'a Message>,
    /// Options of the repair.
    pub options: &'a RepairOptions,
    /// What [`RepairCx::sample_result`] returns, found once per conversation.
    pub(crate) sample: Option<&'a Message>,
}

impl<'a> RepairCx<'a> {
    /// The original bytes of a message.
    pub fn bytes(&self, msg: &Message) -> &'a [u8] {
        &self.src[msg.span.start..msg.span.end]
    }

    /// Parse a message again (offsets in the tree are relative to `msg.span.start`).
    pub fn reparse(&self, msg: &Message) -> Option<Tree<'a>> {
        parse(self.bytes(msg)).ok()
    }

    /// Does a call after message `holder`, up to the anchor (a later call of the same run),
    /// reuse `call`'s id? A result for `call` then goes right after `holder`, so that it
    /// answers `call` and not the later one.
    pub fn reused_before_anchor(&self, holder: usize, call: &Call) -> bool {
        self.conv.messages[holder + 1..=self.anchor.index.max(holder)]
            .iter()
            .flat_map(|m| &m.calls)
            .any(|c| !c.server && c.id.is_some() && c.id == call.id)
    }

    /// The placeholder text for a call, from the template (`{id}`, `{name}`).
    pub fn text(&self, call: &Call) -> String {
        self.options
            .placeholder
            .replace("{id}", call.id.as_deref().unwrap_or(""))
            .replace("{name}", call.name.as_deref().unwrap_or("unknown"))
    }

    /// The call's id as a JSON token, copied exactly as the call wrote it.
    pub fn id_token(&self, call: &Call) -> J {
        match call.id_span {
            Some(s) => J::Raw(String::from_utf8_lossy(&self.src[s.start..s.end]).into_owned()),
            None => J::str(call.id.clone().unwrap_or_default()),
        }
    }

    /// The tool name as a JSON value (`"unknown"` when missing, as DeerFlow writes it).
    pub fn name_value(&self, call: &Call) -> J {
        J::str(call.name.clone().unwrap_or_else(|| "unknown".into()))
    }

    /// The first message of the conversation holding only a result: a model of key order.
    pub fn sample_result(&self) -> Option<&'a Message> {
        self.sample
    }

    /// The style of the document around `msg`.
    pub fn style_of(&self, msg: &Message) -> Style {
        let mut style = match self.reparse(msg) {
            Some(tree) => Style::like(&tree, tree.root()),
            None => Style::default(),
        };
        // `like` saw only the message; take the base indentation and line ending from the
        // document around it.
        let line_start = memchr::memrchr(b'\n', &self.src[..msg.span.start]).map_or(0, |i| i + 1);
        let lead = &self.src[line_start..msg.span.start];
        style.base = if lead.iter().all(|b| *b == b' ' || *b == b'\t') {
            String::from_utf8_lossy(lead).into_owned()
        } else {
            String::new()
        };
        // `like` measured the members' indentation from the line start, which includes that
        // base: keep only the unit.
        if let Some(unit) = style.indent.as_deref()
            && let Some(rest) = unit.strip_prefix(style.base.as_str())
            && !rest.is_empty()
        {
            style.indent = Some(rest.to_string());
        }
        style.newline = local_newline(self.src, msg.span.end).into();
        style
    }

    /// Insert whole messages right after `msg`, in the container's own layout.
    pub fn insert_after(&self, msg: &Message, items: &[J]) -> Edit {
        let style = self.style_of(msg);
        match self.conv.container {
            Container::Array { .. } | Container::Scattered => {
                let sep = element_separator(self.src, msg.span.start, msg.span.end);
                let mut text = String::new();
                for item in items {
                    text.push(',');
                    text.push_str(&sep);
                    text.push_str(&item.render(&style));
                }
                Edit::insert(msg.span.end, text)
            }
            Container::Lines => {
                let (line_end, newline) = line_end(self.src, msg.span.end);
                let mut text = String::new();
                if line_end == self.src.len() && !self.src.ends_with(b"\n") {
                    for item in items {
                        text.push_str(newline);
                        text.push_str(&item.render(&style));
                    }
                } else {
                    for item in items {
                        text.push_str(&item.render(&style));
                        text.push_str(newline);
                    }
                }
                Edit::insert(line_end, text)
            }
        }
    }

    /// Insert a message's original bytes (a moved result) right after `msg`.
    pub fn copy_after(&self, msg: &Message, moved: &Message) -> Edit {
        let raw = String::from_utf8_lossy(self.bytes(moved)).into_owned();
        let mut edit = self.insert_after(msg, &[J::Raw(raw)]);
        // Keep the exact original bytes even if they are not UTF-8.
        let lossy = String::from_utf8_lossy(self.bytes(moved)).into_owned();
        if let Some(at) = find(&edit.text, lossy.as_bytes()) {
            let mut text = edit.text[..at].to_vec();
            text.extend_from_slice(self.bytes(moved));
            text.extend_from_slice(&edit.text[at + lossy.len()..]);
            edit.text = text;
        }
        edit
    }

    /// Remove a whole message together with one separator (or its line).
    pub fn delete(&self, msg: &Message) -> Edit {
        match self.conv.container {
            Container::Array { .. } | Container::Scattered => {
                // Prefer removing the separator before the element; the first element takes
                // the separator after it.
                let before = self.src[..msg.span.start]
                    .iter()
                    .rposition(|b| !b.is_ascii_whitespace());
                match before {
                    Some(i) if self.src[i] == b',' => Edit::delete(i, msg.span.end),
                    _ => {
                        let after = self.src[msg.span.end..]
                            .iter()
                            .position(|b| !b.is_ascii_whitespace())
                            .map(|k| msg.span.end + k);
                        match after {
                            Some(j) if self.src[j] == b',' => {
                                let next = self.src[j + 1..]
                                    .iter()
                                    .position(|b| !b.is_ascii_whitespace())
                                    .map_or(j + 1, |k| j + 1 + k);
                                Edit::delete(msg.span.start, next)
                            }
                            _ => Edit::delete(msg.span.start, msg.span.end),
                        }
                    }
                }
            }
            Container::Lines => {
                let start =
                    memchr::memrchr(b'\n', &self.src[..msg.span.start]).map_or(0, |i| i + 1);
                let (end, _) = line_end(self.src, msg.span.end);
                Edit::delete(start, end)
            }
        }
    }

    /// Replace a whole message with `item`.
    pub fn replace(&self, msg: &Message, item: &J) -> Edit {
        let style = self.style_of(msg);
        Edit::replace(msg.span.start, msg.span.end, item.render(&style))
    }

    /// A synthetic-marker value when the user asked for one.
    pub fn marker(&self) -> Option<J> {
        self.options.mark_synthetic.then_some(J::Bool(true))
    }
}

/// The first message of `conv` holding only a result (see [`RepairCx::sample_result`]).
pub(crate) fn first_result(conv: &Conversation) -> Option<&Message> {
    conv.messages.iter().find(|m| is_sample_result(m))
}

/// Does `m` hold only one result, as a whole message (what [`first_result`] looks for)?
pub(crate) fn is_sample_result(m: &Message) -> bool {
    m.results.len() == 1 && m.results[0].whole_message && m.calls.is_empty()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// The line ending used around `offset`: that of the line it is on, else of the line before.
fn local_newline(src: &[u8], offset: usize) -> &'static str {
    let crlf = |nl: usize| nl > 0 && src[nl - 1] == b'\r';
    match memchr::memchr(b'\n', &src[offset..]) {
        Some(k) if crlf(offset + k) => "\r\n",
        Some(_) => "\n",
        None => match memchr::memrchr(b'\n', &src[..offset]) {
            Some(nl) if crlf(nl) => "\r\n",
            _ => "\n",
        },
    }
}

/// The whitespace that separates array elements around the element at `start..end`: the one
/// after the comma before it, or for a first element the one after the comma that follows it
/// (else the one after the opening bracket).
fn element_separator(src: &[u8], start: usize, end: usize) -> String {
    let ws = |from: usize| -> usize {
        src[from..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map_or(src.len(), |k| from + k)
    };
    let before = src[..start]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    if before > 0 && src[before - 1] == b',' {
        return String::from_utf8_lossy(&src[before..start]).into_owned();
    }
    let after = ws(end);
    if src.get(after) == Some(&b',') {
        let next = ws(after + 1);
        return String::from_utf8_lossy(&src[after + 1..next]).into_owned();
    }
    String::from_utf8_lossy(&src[before..start]).into_owned()
}

/// The offset just past the line that contains `offset` (after its line ending), and that
/// line's ending (`"\r\n"` or `"\n"`).
fn line_end(src: &[u8], offset: usize) -> (usize, &'static str) {
    match memchr::memchr(b'\n', &src[offset..]) {
        Some(k) => {
            let nl = offset + k;
            let ending = if nl > 0 && src[nl - 1] == b'\r' {
                "\r\n"
            } else {
                "\n"
            };
            (nl + 1, ending)
        }
        None => (src.len(), local_newline(src, offset)),
    }
}
