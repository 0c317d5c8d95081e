//! Linting a JSON document without keeping the model of its messages: each message is given
//! to the pairing walk as soon as it is read from the tree, then dropped. What stays is the
//! source, the tree and what the walk remembers (open and answered call ids, defects), not a
//! model of every message beside the tree.
//!
//! A conversation whose dialect judges the whole conversation ([`Dialect::streams`] is
//! `false`: Cline, OpenCode, SWE-agent) keeps its messages and is walked after reading, as
//! [`crate::lint::analyse`] does. Either way the findings are those of a whole-document lint.

use std::collections::BTreeMap;

use crate::analysis::{Defect, WalkOptions, Walker};
use crate::dialect::Dialect;
use crate::document_windows::{Windows, windowed};
use crate::edit::RepairOptions;
use crate::finding::Finding;
use crate::lint::{
    ConvInfo, LintOptions, ToolStats, conversation_defects, conversation_findings, count_calls,
    count_dangling, count_skimmed, dialect_of, document_findings, sent,
};
use crate::model::{Container, Message, Skimmed};
use crate::read::{Format, Numbering, ReadDoc, ReadOptions, Walk, guess_format, read_with};
use crate::target;

/// What linting a JSON document found: what [`crate::Analysed`] gives for it, without the
/// messages (see [`lint_document`]).
#[derive(Debug, Default)]
pub struct DocumentLint {
    /// Every finding, in reading order.
    pub findings: Vec<Finding>,
    /// The conversations found, in order.
    pub conversations: Vec<ReadConversation>,
    /// Remarks for `detect` (e.g. nothing found).
    pub notes: Vec<String>,
    /// Tool calls checked (server-side ones, whose results are inline, included).
    pub calls_checked: usize,
    /// Calls and dangling calls per tool name.
    pub stats: BTreeMap<String, ToolStats>,
    /// Nothing was found and nothing looks like a log, or the file holds no conversation (a
    /// directory walk skips it).
    pub skippable: bool,
}

/// One conversation of a linted document: where it is, its dialect and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadConversation {
    /// Index of the conversation within its document.
    pub index: usize,
    /// JSON Pointer of its message list.
    pub pointer: String,
    /// The dialect it was read as.
    pub dialect: &'static str,
    /// How many messages it holds.
    pub messages: usize,
    /// Why that dialect, and where the conversation was found.
    pub detection: String,
}

/// Lint `bytes`, named `name`, as one JSON document without keeping a model of its messages:
/// the same findings, counts and detections as [`crate::analyse`], in less memory. `None`
/// when the document is not read as one JSON value (JSON Lines), or when an option needs
/// every message of a conversation at once (`tail`, `deerflow`): analyse it whole then.
pub fn lint_document(name: &str, bytes: &[u8], options: &LintOptions) -> Option<DocumentLint> {
    walk_document(name, bytes, options, None).map(|walked| walked.lint)
}

/// A document walked by [`walk_document`].
pub(crate) struct Walked {
    /// What linting it found.
    pub lint: DocumentLint,
    /// What was read: the conversations, without the messages that were walked.
    pub doc: ReadDoc,
    /// Per conversation: its defects (what lint reports), and the messages a repair needs
    /// when the conversation's messages were walked rather than kept.
    pub conversations: Vec<(Vec<Defect>, Option<Windows>)>,
}

/// Lint a JSON document as [`lint_document`] does. With `repair`, the messages each fix of
/// a walked conversation needs are read again and kept (see [`Windows`]); the conversations
/// whose dialect's fixes may look further are kept whole instead.
pub(crate) fn walk_document(
    name: &str,
    bytes: &[u8],
    options: &LintOptions,
    repair: Option<&RepairOptions>,
) -> Option<Walked> {
    if options.tail.is_some() || options.deerflow {
        return None;
    }
    let format = options
        .read
        .format
        .unwrap_or_else(|| guess_format(name, bytes));
    if format != Format::Json {
        return None;
    }
    let read = ReadOptions {
        format: Some(format),
        ..options.read.clone()
    };
    let mut walk = DocWalk {
        options,
        repair,
        walks: Vec::new(),
        stats: BTreeMap::new(),
    };
    let doc = read_with(name, bytes, &read, Some(&mut walk));
    let mut out = DocumentLint {
        skippable: doc.skippable(),
        notes: doc.notes.clone(),
        ..DocumentLint::default()
    };
    out.findings = document_findings(name, &doc);
    let mut stats = walk.stats;
    let mut conversations = Vec::with_capacity(doc.conversations.len());
    for (conv, walked) in doc.conversations.iter().zip(walk.walks) {
        let d = dialect_of(conv);
        let (defects, info, messages, windows) = match walked {
            Some(w) => {
                out.calls_checked += w.calls_checked;
                let info = ConvInfo {
                    index: conv.index,
                    last_turn: w.last_turn.unwrap_or(0),
                    // `repairable` looks at the whole conversation only in dialects that do
                    // not stream, whose messages are kept.
                    read_only: conv.container == Container::Scattered
                        || !conv.foreign.is_empty()
                        || !conv.unread.is_empty()
                        || !d.repairs(),
                };
                (w.defects, info, w.numbering.count(), w.windows)
            }
            None => {
                // (`tail` and `deerflow` are not set here: see above.)
                let (defects, n) = conversation_defects(bytes, conv, options);
                out.calls_checked += n;
                for m in &conv.messages {
                    count_calls(&mut stats, m);
                }
                (defects, ConvInfo::of(conv), conv.messages.len(), None)
            }
        };
        // Tool keys the dialect does not read: what the walk says is not to be trusted.
        let defects: Vec<Defect> = if conv.unread.is_empty() {
            defects
        } else {
            Vec::new()
        };
        for defect in &defects {
            count_dangling(&mut stats, defect);
        }
        out.findings.extend(conversation_findings(
            name,
            conv,
            &info,
            &defects,
            options.target,
        ));
        out.conversations.push(ReadConversation {
            index: conv.index,
            pointer: conv.pointer.clone(),
            dialect: conv.dialect,
            messages,
            detection: conv.detection.clone(),
        });
        if repair.is_some() {
            conversations.push((defects, windows));
        }
    }
    out.findings.sort_by_key(|f| (f.line, f.column, f.rule));
    out.stats = stats;
    Some(Walked {
        lint: out,
        doc,
        conversations,
    })
}

/// The walks of a document's conversations, fed while they are read.
struct DocWalk<'o> {
    options: &'o LintOptions,
    /// A repair is to follow: keep what its fixes need.
    repair: Option<&'o RepairOptions>,
    /// One entry per conversation read, in order: its walk, or `None` when its messages
    /// were kept in the model.
    walks: Vec<Option<ConvWalk>>,
    /// Calls per tool name, counted as the messages go by.
    stats: BTreeMap<String, ToolStats>,
}

/// The walk of one conversation.
struct ConvWalk {
    dialect: &'static dyn Dialect,
    /// The walk, until the conversation has been read.
    walker: Option<Walker>,
    numbering: Numbering,
    /// Index of the last message that does not continue an earlier one.
    last_turn: Option<usize>,
    /// What the walk found, once the conversation has been read.
    calls_checked: usize,
    defects: Vec<Defect>,
    /// What a repair of the conversation needs (with a repair to follow).
    windows: Option<Windows>,
}

impl Walk for DocWalk<'_> {
    /// Messages of a dialect that judges the whole conversation are kept, and with a repair
    /// to follow, those of a dialect whose fixes may look beyond their answer windows.
    fn begin(&mut self, dialect: &'static dyn Dialect) -> bool {
        let windowed = self.repair.is_none() || windowed(dialect);
        let walk = (dialect.streams() && windowed).then(|| {
            let judge = target::judge(dialect, self.options.target);
            ConvWalk {
                dialect,
                walker: Some(Walker::new(
                    judge.window,
                    WalkOptions {
                        tail: false,
                        unique_ids: judge.unique_ids,
                    },
                )),
                numbering: Numbering::default(),
                last_turn: None,
                calls_checked: 0,
                defects: Vec::new(),
                windows: self.repair.map(|_| Windows::new(judge.window)),
            }
        });
        let taken = walk.is_some();
        self.walks.push(walk);
        taken
    }

    /// Numbered, walked and dropped (what a repair needs of it is noted).
    fn message(&mut self, at: usize, mut m: Message) {
        if let Some(Some(w)) = self.walks.last_mut() {
            w.numbering.number(&mut m);
            if !m.continuation {
                w.last_turn = Some(m.index);
            }
            count_calls(&mut self.stats, &m);
            if let Some(walker) = &mut w.walker {
                walker.push(&m);
            }
            if let Some(windows) = &mut w.windows {
                windows.note(at, &m);
            }
        }
    }

    /// The walk ends; with a repair to follow, the messages its fixes need are read again.
    fn reread(&mut self, repairable: bool) -> Vec<usize> {
        let Some(Some(w)) = self.walks.last_mut() else {
            return Vec::new();
        };
        if let Some(walker) = w.walker.take() {
            w.calls_checked = walker.calls_checked();
            w.defects = sent(w.dialect, walker.finish());
        }
        match (&mut w.windows, self.repair) {
            (Some(windows), Some(options)) if repairable && w.dialect.repairs() => {
                windows.wanted(&w.defects, options)
            }
            _ => Vec::new(),
        }
    }

    fn again(&mut self, m: Message) {
        if let Some(Some(w)) = self.walks.last_mut()
            && let Some(windows) = &mut w.windows
        {
            windows.keep(m);
        }
    }

    /// For a lint under the dialects' own rules: a repair needs the messages of every
    /// conversation it may touch, and another provider's rules are the walk's to apply.
    fn skims(&self) -> bool {
        self.repair.is_none() && self.options.target.is_none()
    }

    /// Counted as its walk would count it: its calls, and no defect.
    fn skimmed(&mut self, dialect: &'static dyn Dialect, skimmed: Skimmed) {
        count_skimmed(&mut self.stats, &skimmed.names);
        self.walks.push(Some(ConvWalk {
            dialect,
            walker: None,
            numbering: Numbering::skipping(skimmed.messages),
            last_turn: None,
            calls_checked: skimmed.calls,
            defects: Vec::new(),
            windows: None,
        }));
    }
}
