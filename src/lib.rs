//! toolmend: find and repair broken tool-call pairing in stored LLM conversation logs, and
//! simulate how a human-in-the-loop interrupt in a parallel tool batch re-executes siblings.
//!
//! The library's front door is a handful of functions and types: [`lint`] a document into
//! [`Finding`]s, [`repair`] it into a [`Repaired`] copy, [`detect`] which log format each
//! conversation is written in, or [`analyse`] once and do several of these on the
//! [`Analysed`] result. [`Options`] say how to read; [`RepairOptions`] which fixes to make.
//! The rules are in [`RULES`]. Output formats are in [`render`], safe file input and output in
//! [`io`], the interrupt simulator in [`simulate`], agent sessions on this machine in
//! [`sessions`], and the tolerant, span-preserving JSON reader everything is read with in
//! [`json`].
//!
//! ```
//! use toolmend::{Applicability, Options, RepairOptions};
//!
//! // An assistant asked for two tools; the run stopped before the second answered.
//! let log = br#"[
//!   {"role": "user", "content": "weather in Paris and Rome?"},
//!   {"role": "assistant", "tool_calls": [
//!     {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
//!     {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
//!   {"role": "tool", "tool_call_id": "call_1", "content": "18 C"}
//! ]"#;
//!
//! let findings = toolmend::lint("run.json", log, &Options::default());
//! assert_eq!(findings.len(), 1);
//! assert_eq!(findings[0].code, "TM001");
//! assert_eq!(findings[0].call_id.as_deref(), Some("call_2"));
//! let fix = findings[0].fix.as_ref().unwrap();
//! assert_eq!(fix.applicability, Applicability::Safe);
//!
//! let repaired = toolmend::repair("run.json", log, &Options::default(), &RepairOptions::default());
//! assert!(repaired.changed);
//! assert!(toolmend::lint("run.json", &repaired.output, &Options::default()).is_empty());
//! // Every byte of the original is still there, in order: the placeholder was inserted.
//! assert!(String::from_utf8_lossy(&repaired.output).contains(r#""tool_call_id": "call_2""#));
//! ```
//!
//! Inside, the pipeline reads a document into a neutral model (one dialect per log format),
//! walks it in order, describes defects as findings and turns the fixes into byte edits over
//! the original.

#![warn(missing_docs)]

mod analysis;
mod batches;
mod chunked;
mod dialect;
mod document_lint;
mod document_repair;
mod document_windows;
mod edit;
mod explain;
mod finding;
mod fix;
mod intern;
mod lint;
mod locate;
mod model;
mod provider;
mod read;
mod repair;
mod rules;
mod stream;
mod target;
mod terminal;

pub mod io;
pub mod json;
pub mod render;
pub mod sessions;
pub mod simulate;
pub mod store;

pub use batches::{Found as FoundBatch, batches as find_batches, hitl_findings};
pub use document_lint::{DocumentLint, ReadConversation, lint_document};
pub use document_repair::{NotPlanned, PlannedDocument, plan_document};
pub use explain::{Example, Explanation, explain};
pub use finding::{Finding, Fix};
pub use lint::{Analysed, LintOptions as Options, ToolStats};
pub use model::Conversation;
pub use provider::Provider;
pub use read::{Format, Problem, ReadDoc as Document, ReadOptions};
pub use repair::{
    AppliedEdit, DuplicatePolicy, NotStreamed, OpenLines, OrphanPolicy, RepairOptions, Repaired,
    SEED_PLACEHOLDER, Streamed, check_lines, stream_lines,
};
pub use rules::{
    Applicability, FixKinds, Rule, RuleData, Severity, TABLE as RULES, select as select_rules,
};
pub use stream::{StreamReport, lint_lines, lint_lines_sized};
pub use terminal::escape_control;

/// Read and analyse one document named `name` (the name guesses the format and appears in
/// findings). Everything else starts from here.
pub fn analyse(name: &str, bytes: &[u8], options: &Options) -> Analysed {
    lint::analyse(name, bytes, options)
}

/// The findings of one document, in reading order. A JSON document is walked as it is read,
/// without a model of every message ([`lint_document`]).
pub fn lint(name: &str, bytes: &[u8], options: &Options) -> Vec<Finding> {
    match lint_document(name, bytes, options) {
        Some(doc) => doc.findings,
        None => analyse(name, bytes, options).findings(name),
    }
}

/// Repair one document: the safe fixes, and the unsafe ones `repair` asks for.
pub fn repair(name: &str, bytes: &[u8], options: &Options, repair: &RepairOptions) -> Repaired {
    analyse(name, bytes, options).repair(bytes, repair)
}

/// Read one document without analysing it: its conversations, the log format (dialect) each
/// is read as and why, and what could not be read.
pub fn detect(name: &str, bytes: &[u8], options: &Options) -> Document {
    read::read(name, bytes, &options.read)
}

/// The names of the log formats (dialects) toolmend reads, for `--dialect`.
pub fn dialect_names() -> Vec<&'static str> {
    dialect::names()
}

/// Read every conversation as dialect `name` (see [`dialect_names`]) instead of detecting it;
/// `false` when there is no such dialect.
pub fn force_dialect(options: &mut ReadOptions, name: &str) -> bool {
    options.dialect = dialect::by_name(name);
    options.dialect.is_some()
}

// The CLI source lives in `src/app/` and names the library `toolmend::…`, as the binary did;
// inside the library that name needs this alias.
#[cfg(feature = "cli")]
extern crate self as toolmend;

/// The command-line interface, shared by the `toolmend` binary and the Python package's
/// `toolmend` command (feature `cli`, on by default). Only [`cli::main`] is public.
#[cfg(feature = "cli")]
#[path = "app/mod.rs"]
pub mod cli;
