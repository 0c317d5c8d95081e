//! What a repair of a JSON document needs of a conversation whose messages are walked and
//! dropped as they are read (see [`crate::document_repair`]): the shape of every message,
//! then, once its defects are known, the messages their fixes read, read again from the tree
//! and kept, numbered in order for the planner.

use std::cell::Cell;
use std::collections::HashMap;

use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::dialect::Dialect;
use crate::edit::{RepairOptions, is_sample_result};
use crate::model::{Conversation, Message, Role};
use crate::repair::{Shape, map_defect, reach, scan_from};

/// Do the fixes of `dialect` read only their own messages and the first messages of each
/// kind that [`Windows`] keeps? Those of the other dialects (OpenAI Responses items and Codex
/// rollouts copy the layout of the first output item of the call's own type) are planned
/// over the whole conversation.
pub(crate) fn windowed(dialect: &dyn Dialect) -> bool {
    const WINDOWED: [&str; 10] = [
        "openai-chat",
        "openai-functions",
        "langchain",
        "pydantic-ai",
        "openhands",
        "kimi-code",
        "anthropic",
        "bedrock",
        "gemini",
        "vercel-ai",
    ];
    WINDOWED.contains(&dialect.name())
}

/// Where a walked message's element is, and its shape.
#[derive(Debug, Clone, Copy)]
struct Noted {
    /// Its element's position in the conversation's list.
    at: u32,
    shape: Shape,
}

/// What a repair needs of a conversation whose messages are walked: the shape of every
/// message, then the messages its fixes need, read again.
#[derive(Debug)]
pub(crate) struct Windows {
    window: Window,
    noted: Vec<Noted>,
    /// Messages kept whatever the fixes: the first ones of each kind a dialect may copy.
    firsts: Vec<usize>,
    /// No result has been seen in its place yet (every result until then is kept).
    before_leading: bool,
    seen_sample: bool,
    seen_tool: bool,
    seen_id: bool,
    /// The indices of the messages to read again, in order.
    pub wanted: Vec<usize>,
    /// Those messages, as read again.
    pub kept: Vec<Message>,
    /// Why the messages kept cannot be trusted, if they cannot.
    pub broken: Option<&'static str>,
}

impl Windows {
    /// Nothing noted yet, for a conversation judged with answer `window`.
    pub fn new(window: Window) -> Windows {
        Windows {
            window,
            noted: Vec::new(),
            firsts: Vec::new(),
            before_leading: true,
            seen_sample: false,
            seen_tool: false,
            seen_id: false,
            wanted: Vec::new(),
            kept: Vec::new(),
            broken: None,
        }
    }

    /// Note message `m` (numbered), read from element `at`.
    pub fn note(&mut self, at: usize, m: &Message) {
        let Ok(at) = u32::try_from(at) else {
            self.broken = Some("the conversation has more than 2^32 elements");
            return;
        };
        self.noted.push(Noted {
            at,
            shape: Shape::of(m),
        });
        let mut first = false;
        if !m.results.is_empty() && self.before_leading {
            first = true;
            self.before_leading = !m.results.iter().any(|r| r.leading);
        }
        if !self.seen_sample && is_sample_result(m) {
            (first, self.seen_sample) = (true, true);
        }
        if !self.seen_tool && m.role == Role::Tool {
            (first, self.seen_tool) = (true, true);
        }
        if !self.seen_id && m.results.iter().any(|r| r.id_span.is_some()) {
            (first, self.seen_id) = (true, true);
        }
        if first {
            self.firsts.push(m.index);
        }
    }

    /// The elements to read again for the fixes of `defects` under `options`: for each fix,
    /// its messages from the first to the one after its answer window; and the first messages
    /// of each kind.
    pub fn wanted(&mut self, defects: &[Defect], options: &RepairOptions) -> Vec<usize> {
        let noted = std::mem::take(&mut self.noted);
        let firsts = std::mem::take(&mut self.firsts);
        if defects.is_empty() || self.broken.is_some() {
            return Vec::new();
        }
        if options.reid
            && defects
                .iter()
                .any(|d| matches!(d, Defect::ReusedCallId { .. }))
        {
            self.broken = Some("--reid renames a reused call id across the whole conversation");
            return Vec::new();
        }
        let n = noted.len();
        // Each fix's messages, as ranges merged before they are listed (fixes of one answer
        // window share them).
        let mut ends: HashMap<usize, Option<usize>> = HashMap::new();
        let mut ranges: Vec<(usize, usize)> = defects
            .iter()
            .map(|d| {
                let (lo, hi, from) = reach(d);
                let after = match from {
                    Some(from) => {
                        let end = *ends.entry(from).or_insert_with(|| {
                            scan_from(n, from, self.window, |k| noted[k].shape).0
                        });
                        end.map_or(from, |end| end + 1).max(hi + 1)
                    }
                    None => hi + 1,
                };
                (lo, after.min(n.saturating_sub(1)).max(lo))
            })
            .chain(firsts.into_iter().map(|i| (i, i)))
            .collect();
        ranges.sort_unstable();
        let mut wanted: Vec<usize> = Vec::new();
        for (lo, last) in ranges {
            let from = wanted.last().map_or(lo, |&w| lo.max(w + 1));
            wanted.extend(from..=last);
        }
        if wanted.last().is_some_and(|&last| last >= n) {
            self.broken = Some("a fix reached past the conversation's messages");
            return Vec::new();
        }
        let at = wanted.iter().map(|&i| noted[i].at as usize).collect();
        self.wanted = wanted;
        self.noted = noted;
        at
    }

    /// Keep `m`, the next message read again: it gets the index and continuation the walk
    /// gave it.
    pub fn keep(&mut self, mut m: Message) {
        let Some(&index) = self.wanted.get(self.kept.len()) else {
            self.broken = Some("the second reading gave more messages than asked");
            return;
        };
        let noted = self.noted[index].shape;
        m.index = index;
        m.continuation = noted.continuation;
        if Shape::of(&m) != noted {
            self.broken = Some("the second reading read a message unlike the first");
        }
        self.kept.push(m);
        if self.kept.len() == self.wanted.len() {
            self.noted = Vec::new();
        }
    }

    /// Why the kept messages cannot be planned over.
    pub fn why(&self) -> String {
        self.broken
            .unwrap_or("the second reading gave fewer messages than asked")
            .to_string()
    }

    /// `conv` with the messages kept, numbered in order, and `defects` numbered alike.
    pub fn sparse(
        &self,
        conv: &Conversation,
        defects: &[Defect],
    ) -> Result<(Conversation, Vec<Defect>), String> {
        if self.broken.is_some() || self.kept.len() != self.wanted.len() {
            return Err(self.why());
        }
        let missing = Cell::new(false);
        let position = |index: usize| {
            self.wanted.binary_search(&index).unwrap_or_else(|_| {
                missing.set(true);
                0
            })
        };
        let call = |c: &CallAt| CallAt {
            message: position(c.message),
            holder: position(c.holder),
            ..c.clone()
        };
        let result = |r: &ResultAt| ResultAt {
            message: position(r.message),
            ..r.clone()
        };
        let defects: Vec<Defect> = defects
            .iter()
            .map(|d| map_defect(d, call, result))
            .collect();
        if missing.get() {
            return Err("a fix needs a message that was not kept".into());
        }
        let messages = self
            .kept
            .iter()
            .enumerate()
            .map(|(k, m)| Message {
                index: k,
                ..m.clone()
            })
            .collect();
        let sparse = Conversation {
            index: conv.index,
            dialect: conv.dialect,
            detection: String::new(),
            pointer: conv.pointer.clone(),
            container: conv.container.clone(),
            messages,
            foreign: conv.foreign.clone(),
            unread: conv.unread.clone(),
            next_lines: Vec::new(),
            skimmed: None,
        };
        Ok((sparse, defects))
    }
}
