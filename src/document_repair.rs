//! Repairing a JSON document without a model of every message.
//!
//! The document is linted as [`crate::lint_document`] walks it: each message is walked and
//! dropped, and only its shape (role, whether it holds calls, whether it continues the model
//! message before it) and the place of its element are noted, a few bytes. When a
//! conversation has been read, its defects tell which messages their fixes read or edit: from
//! the first message of a fix to the message after its answer window (found from the shapes).
//! Those messages are read again from the tree, which is still there, and kept, together with
//! the first messages of each kind a dialect copies the layout of (the first results, up to
//! the first one in its place; the first whole-message result; the first tool message; the
//! first result with an id). The planner of a whole-document repair then plans over just those
//! messages, numbered in order, and the output is written from the source and the edits.
//!
//! The output is byte for byte that of the whole-document repair. Where that cannot be
//! promised, [`plan_document`] says why and the caller repairs the document whole: a
//! conversation whose dialect's fixes look further than their messages (see [`windowed`]) is
//! kept whole as it is read; `--tail`, `--profile deerflow`, `--reid` of a reused call id, and
//! fixes that get in each other's way (made in rounds, each over the output of the one
//! before) need the whole document.

use std::cell::Cell;
use std::io::{self, Write};

use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::dialect::Dialect;
use crate::document_lint::{DocumentLint, walk_document};
use crate::edit::{EditSet, RepairOptions, is_sample_result};
use crate::lint::LintOptions;
use crate::model::{Conversation, Message, Role};
use crate::read::{Format, TORN_FINAL_LINE, guess_format};
use crate::repair::{Repaired, Round, Shape, map_defect, reach, scan_shapes};

/// A JSON document's repair, planned without a model of every message (see
/// [`plan_document`]).
#[derive(Debug)]
pub struct PlannedDocument {
    /// What linting the document found.
    pub lint: DocumentLint,
    /// What the repair does: counts, fixes and edits; its `output` is left empty (write it
    /// with [`PlannedDocument::write_to`]).
    pub repaired: Repaired,
    /// Messages of walked conversations read again and kept for the fixes (the others were
    /// walked and dropped).
    pub kept: usize,
    edits: EditSet,
}

impl PlannedDocument {
    /// Write the repaired document, `src` (the bytes it was planned over) with the edits
    /// applied, to `out`.
    pub fn write_to(&self, src: &[u8], out: &mut dyn Write) -> io::Result<()> {
        self.edits.write_to(src, out)
    }
}

/// Why [`plan_document`] did not plan a repair.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotPlanned {
    /// The input is not read as one JSON document (it is JSON Lines).
    #[error("not one JSON document")]
    Lines,
    /// The repair needs a model of every message, for this reason: repair it whole.
    #[error("{0}")]
    Whole(String),
}

/// Plan the repair of `bytes`, named `name`, as one JSON document, keeping only the messages
/// its fixes need: the same findings, fixes, counts and output bytes as linting with
/// [`crate::analyse`] and repairing with [`crate::Analysed::repair`], in about the memory a
/// lint takes. Nothing is planned when it cannot promise that ([`NotPlanned`]).
pub fn plan_document(
    name: &str,
    bytes: &[u8],
    lint: &LintOptions,
    options: &RepairOptions,
) -> Result<PlannedDocument, NotPlanned> {
    let whole = |why: &str| Err(NotPlanned::Whole(why.to_string()));
    if lint
        .read
        .format
        .unwrap_or_else(|| guess_format(name, bytes))
        != Format::Json
    {
        return Err(NotPlanned::Lines);
    }
    if lint.tail.is_some() || lint.deerflow || options.before_results {
        return whole("--tail and --profile deerflow judge the document as a whole");
    }
    let Some(walked) = walk_document(name, bytes, lint, Some(options)) else {
        return Err(NotPlanned::Lines);
    };
    let doc = &walked.doc;
    if !doc.tree.is_empty()
        || (options.drop_torn_tail
            && doc
                .problems
                .iter()
                .any(|p| p.message.starts_with(TORN_FINAL_LINE)))
    {
        return whole("fixes of the document's structure are planned on the whole document");
    }
    let mut round = Round::default();
    let mut kept = 0;
    for (conv, (defects, windows)) in doc.conversations.iter().zip(&walked.conversations) {
        match windows {
            Some(w) if !w.wanted.is_empty() => {
                kept += w.kept.len();
                let (sparse, defects) = w.sparse(conv, defects).map_err(NotPlanned::Whole)?;
                round.conversation(bytes, &sparse, &defects, lint.target, options);
            }
            Some(w) if w.broken.is_some() => return Err(NotPlanned::Whole(w.why())),
            // Walked and nothing to fix (its model has no messages), or kept whole.
            _ => round.conversation(bytes, conv, defects, lint.target, options),
        }
    }
    if round.deferred {
        return whole(
            "fixes got in each other's way: they are made in rounds, each over the output of the one before",
        );
    }
    let edits = std::mem::take(&mut round.edits);
    let mut repaired = round.repaired(Vec::new());
    repaired.changed = !edits.is_empty();
    Ok(PlannedDocument {
        lint: walked.lint,
        repaired,
        kept,
        edits,
    })
}

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
    wanted: Vec<usize>,
    /// Those messages, as read again.
    kept: Vec<Message>,
    /// Why the messages kept cannot be trusted, if they cannot.
    broken: Option<&'static str>,
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
        let n = self.noted.len();
        let mut wanted = std::mem::take(&mut self.firsts);
        for d in defects {
            let (lo, hi, owner) = reach(d);
            let after = match owner {
                Some(owner) => {
                    let noted = &self.noted;
                    let end = scan_shapes(n, owner, self.window, |k| noted[k].shape).0;
                    (end + 1).max(hi + 1)
                }
                None => hi + 1,
            };
            wanted.extend(lo..=after.min(n.saturating_sub(1)).max(lo));
        }
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.last().is_some_and(|&last| last >= n) {
            self.broken = Some("a fix reached past the conversation's messages");
            return Vec::new();
        }
        self.wanted = wanted;
        self.wanted
            .iter()
            .map(|&i| self.noted[i].at as usize)
            .collect()
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
    fn why(&self) -> String {
        self.broken
            .unwrap_or("the second reading gave fewer messages than asked")
            .to_string()
    }

    /// `conv` with the messages kept, numbered in order, and `defects` numbered alike.
    fn sparse(
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
        };
        Ok((sparse, defects))
    }
}
