//! Analysing a document: read it, walk every conversation, and describe each defect as a
//! [`Finding`]. Pure: takes bytes, returns data.

use std::collections::BTreeMap;

use crate::analysis::{self, CallAt, DanglingCause, Defect, ResultAt, WalkOptions};
use crate::dialect::{self, Dialect};
use crate::finding::{Finding, Fix};
use crate::model::{Conversation, Pos};
use crate::read::{self, ReadDoc, ReadOptions};
use crate::rules::{Applicability, Rule};

/// Options of the analysis.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// How to read the documents.
    pub read: ReadOptions,
    /// Only the last N messages of each conversation.
    pub tail: Option<usize>,
    /// Reproduce the seed middleware's check (`--profile deerflow`).
    pub deerflow: bool,
}

/// A document with the defects of each of its conversations.
#[derive(Debug, Default)]
pub struct Analysed {
    /// What was read.
    pub doc: ReadDoc,
    /// Defects, one list per conversation.
    pub defects: Vec<Vec<Defect>>,
    /// Client-side calls checked.
    pub calls_checked: usize,
    /// The options it was analysed with (a repair reads its own output again with them).
    pub options: LintOptions,
}

/// Per tool name: calls seen and calls left dangling.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ToolStats {
    /// Calls of the tool.
    pub calls: usize,
    /// Of those, dangling.
    pub dangling: usize,
}

/// Read and analyse one document.
pub fn analyse(name: &str, bytes: &[u8], options: &LintOptions) -> Analysed {
    let doc = read::read(name, bytes, &options.read);
    let mut calls_checked = 0;
    let defects = doc
        .conversations
        .iter()
        .map(|conv| {
            let start = options
                .tail
                .map_or(0, |n| conv.messages.len().saturating_sub(n));
            let messages = &conv.messages[start..];
            let (defects, n) = if options.deerflow {
                analysis::walk_deerflow(messages)
            } else {
                let d = dialect_of(conv);
                let walk = WalkOptions {
                    tail: options.tail.is_some(),
                };
                analysis::walk(messages, d.window(), walk)
            };
            calls_checked += n;
            defects
        })
        .collect();
    Analysed {
        doc,
        defects,
        calls_checked,
        options: options.clone(),
    }
}

/// The dialect a conversation was read as.
pub fn dialect_of(conv: &Conversation) -> &'static dyn Dialect {
    dialect::by_name(conv.dialect).unwrap_or_else(dialect::fallback)
}

/// Calls and dangling calls per tool name.
pub fn tool_stats(a: &Analysed) -> BTreeMap<String, ToolStats> {
    let mut stats: BTreeMap<String, ToolStats> = BTreeMap::new();
    for (conv, defects) in a.doc.conversations.iter().zip(&a.defects) {
        for (_, call) in conv.calls().filter(|(_, c)| !c.server) {
            stats
                .entry(tool_key(call.name.as_deref()))
                .or_default()
                .calls += 1;
        }
        for d in defects {
            if let Defect::Dangling { call, .. } = d {
                stats
                    .entry(tool_key(call.call.name.as_deref()))
                    .or_default()
                    .dangling += 1;
            }
        }
    }
    stats
}

fn tool_key(name: Option<&str>) -> String {
    name.filter(|n| !n.is_empty())
        .unwrap_or("(no name)")
        .to_string()
}

/// Every finding of an analysed document, in reading order.
pub fn findings(path: &str, a: &Analysed) -> Vec<Finding> {
    let mut out: Vec<Finding> = a
        .doc
        .problems
        .iter()
        .map(|p| {
            let mut f = Finding::new(Rule::InvalidJson, path, p.message.clone());
            f.line = p.line;
            f.column = p.column;
            f
        })
        .collect();
    for (conv, defects) in a.doc.conversations.iter().zip(&a.defects) {
        let d = dialect_of(conv);
        out.extend(defects.iter().map(|defect| describe(path, conv, d, defect)));
    }
    out.sort_by_key(|f| (f.line, f.column, f.rule));
    out
}

fn place(f: &mut Finding, pos: &Pos, conv: &Conversation, message: usize) {
    f.line = pos.line;
    f.column = pos.column;
    f.pointer = pos.pointer.clone();
    f.conversation = Some(conv.index);
    f.message_index = Some(message);
}

fn from_call(
    rule: Rule,
    path: &str,
    conv: &Conversation,
    call: &CallAt,
    message: String,
) -> Finding {
    let mut f = Finding::new(rule, path, message);
    place(&mut f, &call.call.pos, conv, call.holder);
    f.tool_name = call.call.name.clone();
    f.call_id = call.call.id.clone();
    f
}

fn from_result(
    rule: Rule,
    path: &str,
    conv: &Conversation,
    r: &ResultAt,
    message: String,
) -> Finding {
    let mut f = Finding::new(rule, path, message);
    place(&mut f, &r.result.pos, conv, r.message);
    f.tool_name = r.result.name.clone();
    f.call_id = r.result.id.clone();
    f
}

fn fix(applicability: Applicability, description: impl Into<String>) -> Option<Fix> {
    Some(Fix {
        applicability,
        description: description.into(),
    })
}

fn quoted(s: Option<&str>) -> String {
    match s {
        Some(s) => format!("`{s}`"),
        None => "(missing)".into(),
    }
}

fn describe(path: &str, conv: &Conversation, dialect: &dyn Dialect, d: &Defect) -> Finding {
    let provider = dialect
        .provider_error(d)
        .map(|p| format!(". {p}"))
        .unwrap_or_default();
    let movable =
        |r: &ResultAt| r.result.whole_message && conv.messages[r.message].calls.is_empty();
    let mut f = match d {
        Defect::Dangling { call, cause } => {
            let why = match cause {
                DanglingCause::NoResult if call.message + 1 == conv.messages.len() => {
                    "the conversation ends right after it (interrupted run)".to_string()
                }
                DanglingCause::NoResult => "no result answers it".to_string(),
                DanglingCause::Shadowed { by } => {
                    format!("message {by} reuses its id before it was answered")
                }
            };
            let mut f = from_call(
                Rule::DanglingToolCall,
                path,
                conv,
                call,
                format!(
                    "tool call {} to {} has no result: {why}{provider}",
                    quoted(call.call.id.as_deref()),
                    quoted(call.call.name.as_deref())
                ),
            );
            f.fix = fix(
                Applicability::Safe,
                "insert a placeholder error result right after the calling message's results",
            );
            f
        }
        Defect::Orphan { result, later_call } => {
            let id = quoted(result.result.id.as_deref());
            match later_call {
                Some(call) => {
                    let mut f = from_result(
                        Rule::OrphanToolResult,
                        path,
                        conv,
                        result,
                        format!(
                            "tool result for {id} comes before its call (message {}){provider}",
                            call.holder
                        ),
                    );
                    if movable(result) {
                        f.fix = fix(Applicability::Safe, "move the result right after its call");
                    }
                    f
                }
                None => {
                    let mut f = from_result(
                        Rule::OrphanToolResult,
                        path,
                        conv,
                        result,
                        format!("tool result for {id} answers no call{provider}"),
                    );
                    if movable(result) {
                        f.fix = fix(
                            Applicability::Unsafe,
                            "drop it (--orphans drop) or keep its content as a note (--orphans note)",
                        );
                    }
                    f
                }
            }
        }
        Defect::Misplaced { call, result } => {
            let mut f = from_result(
                Rule::MisplacedToolResult,
                path,
                conv,
                result,
                format!(
                    "tool result for {} (called in message {}) is outside the call's answer window{provider}",
                    quoted(result.result.id.as_deref()),
                    call.holder
                ),
            );
            f.tool_name = call.call.name.clone().or(f.tool_name);
            if movable(result) {
                f.fix = fix(
                    Applicability::Safe,
                    format!("move it right after message {}'s results", call.message),
                );
            }
            f
        }
        Defect::DuplicateResult {
            call,
            first,
            result,
        } => {
            let mut f = from_result(
                Rule::DuplicateToolResult,
                path,
                conv,
                result,
                format!(
                    "second tool result for {}: the call was already answered in message {}{provider}",
                    quoted(result.result.id.as_deref()),
                    first.message
                ),
            );
            f.tool_name = call.call.name.clone().or(f.tool_name);
            if movable(result) && movable(first) {
                f.fix = fix(
                    Applicability::Unsafe,
                    "keep one result (--duplicates keep-first|keep-last)",
                );
            }
            f
        }
        Defect::DuplicateCallId { first, call } => {
            let mut f = from_call(
                Rule::DuplicateToolCallId,
                path,
                conv,
                call,
                format!(
                    "call id {} is used twice in message {} (calls {} and {}){provider}",
                    quoted(call.call.id.as_deref()),
                    call.holder,
                    first.slot,
                    call.slot
                ),
            );
            if call.call.id_span.is_some() {
                f.fix = fix(
                    Applicability::Unsafe,
                    "give the later call and its result a new id (--duplicate-ids re-id)",
                );
            }
            f
        }
        Defect::MissingCallId { call } => from_call(
            Rule::MissingToolCallId,
            path,
            conv,
            call,
            format!(
                "tool call to {} has no id, so no result can answer it{provider}",
                quoted(call.call.name.as_deref())
            ),
        ),
        Defect::MissingToolName { call } => from_call(
            Rule::MissingToolCallId,
            path,
            conv,
            call,
            format!(
                "tool call {} has an empty or missing tool name{provider}",
                quoted(call.call.id.as_deref())
            ),
        ),
        Defect::MissingResultId { result } => from_result(
            Rule::MissingToolCallId,
            path,
            conv,
            result,
            format!("tool result has no call id{provider}"),
        ),
    };
    if conv.container == crate::model::Container::Scattered {
        f.fix = None;
    }
    f
}
