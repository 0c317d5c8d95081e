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
//! conversation whose dialect's fixes look further than their messages (see
//! [`crate::document_windows::windowed`]) is
//! kept whole as it is read; `--tail`, `--profile deerflow`, `--reid` of a reused call id, and
//! fixes that get in each other's way (made in rounds, each over the output of the one
//! before) need the whole document.

use std::io::{self, Write};

use crate::document_lint::{DocumentLint, walk_document};
use crate::edit::{EditSet, RepairOptions};
use crate::lint::LintOptions;
use crate::read::{Format, TORN_FINAL_LINE, guess_format};
use crate::repair::{Repaired, Round};

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
