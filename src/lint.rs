//! Analysing a document: read it, walk every conversation, and describe each defect as a
//! [`Finding`]. Pure: takes bytes, returns data.

use std::collections::BTreeMap;

use crate::analysis::{self, CallAt, DanglingCause, Defect, ResultAt, WalkOptions};
use crate::dialect::{self, Dialect, TreeFinding, TreeFix};
use crate::finding::{Finding, Fix};
use crate::fix::fix_for;
use crate::model::{Call, Conversation, Foreign, Message, Pos, Unread};
use crate::read::{self, ReadDoc, ReadOptions};
use crate::rules::{Applicability, Rule, Severity};
use crate::target::{self, Judge, Provider};

/// Options of the analysis.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    /// How to read the documents.
    pub read: ReadOptions,
    /// Only the last N messages of each conversation.
    pub tail: Option<usize>,
    /// Reproduce DeerFlow's `DanglingToolCallMiddleware` check (`--profile deerflow`).
    pub deerflow: bool,
    /// Judge by this provider's rules instead of each dialect's own provider (`--target`).
    pub target: Option<Provider>,
    /// Linting JSON Lines as a stream ([`crate::lint_lines`]), keep no detection text for the
    /// conversations held one per line (`StreamReport::detections` then lists only the
    /// message-per-line threads), so that memory does not grow with their number.
    pub skip_detections: bool,
    /// Linting JSON Lines as a stream, count the pairing findings of the threads and
    /// conversations that are not Claude Code sessions instead of describing them:
    /// `StreamReport::findings` then lacks them and `StreamReport::counted` says how many there
    /// are. A streaming repair reads the defects themselves and reports only the number of
    /// findings, so it need not hold a text per defect.
    pub count_only: bool,
}

/// A document with the defects of each of its conversations.
#[derive(Debug, Default)]
pub struct Analysed {
    /// What was read.
    pub doc: ReadDoc,
    /// Defects, one list per conversation.
    pub defects: Vec<Vec<Defect>>,
    /// Tool calls checked (server-side ones, whose results are inline, included).
    pub calls_checked: usize,
    /// The options it was analysed with (a repair reads its own output again with them).
    pub options: LintOptions,
}

impl Analysed {
    /// Every finding, in reading order; `path` names the document in them.
    pub fn findings(&self, path: &str) -> Vec<Finding> {
        findings(path, self)
    }

    /// Calls and dangling calls per tool name.
    pub fn tool_stats(&self) -> BTreeMap<String, ToolStats> {
        tool_stats(self)
    }
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
            let (defects, n) = conversation_defects(bytes, conv, options);
            calls_checked += n;
            // Tool keys the dialect does not read: what the walk says is not to be trusted.
            if conv.unread.is_empty() {
                defects
            } else {
                Vec::new()
            }
        })
        .collect();
    Analysed {
        doc,
        defects,
        calls_checked,
        options: options.clone(),
    }
}

/// The defects of one conversation of `bytes` whose messages are all held (the last
/// `options.tail` of them, when given) that its app sends as they are, and the number of calls
/// checked. Tool keys left unread are not looked at here.
pub(crate) fn conversation_defects(
    bytes: &[u8],
    conv: &Conversation,
    options: &LintOptions,
) -> (Vec<Defect>, usize) {
    let start = options
        .tail
        .map_or(0, |n| conv.messages.len().saturating_sub(n));
    let messages = &conv.messages[start..];
    let d = dialect_of(conv);
    let (mut defects, n) = if options.deerflow {
        analysis::walk_deerflow(messages)
    } else {
        let judge = target::judge(d, options.target);
        let walk = WalkOptions {
            tail: options.tail.is_some(),
            unique_ids: judge.unique_ids,
        };
        let (defects, n) = analysis::walk(messages, judge.window, walk);
        (sent(d, defects), n)
    };
    defects.retain(|defect| !d.settled_by_app(bytes, conv, defect));
    (defects, n)
}

/// The defects the owning app of dialect `d` sends to the provider as they are (see
/// [`Dialect::sends`]): only those are findings.
pub fn sent(d: &dyn Dialect, mut defects: Vec<Defect>) -> Vec<Defect> {
    defects.retain(|defect| d.sends(defect));
    defects
}

/// The dialect a conversation was read as.
pub fn dialect_of(conv: &Conversation) -> &'static dyn Dialect {
    dialect::by_name(conv.dialect).unwrap_or_else(dialect::fallback)
}

/// Calls and dangling calls per tool name.
pub fn tool_stats(a: &Analysed) -> BTreeMap<String, ToolStats> {
    let mut stats: BTreeMap<String, ToolStats> = BTreeMap::new();
    for (conv, defects) in a.doc.conversations.iter().zip(&a.defects) {
        for (_, call) in conv.calls() {
            count_call(&mut stats, call);
        }
        for d in defects {
            count_dangling(&mut stats, d);
        }
    }
    stats
}

/// Count the calls of `m` under their tools' names.
pub(crate) fn count_calls(stats: &mut BTreeMap<String, ToolStats>, m: &Message) {
    for call in &m.calls {
        count_call(stats, call);
    }
}

fn count_call(stats: &mut BTreeMap<String, ToolStats>, call: &Call) {
    add_calls(stats, call.name.as_deref(), 1);
}

/// Count the calls of a skimmed conversation (see [`crate::model::Skimmed::names`]) under
/// their tools' names.
pub(crate) fn count_skimmed(stats: &mut BTreeMap<String, ToolStats>, names: &[(String, usize)]) {
    for (name, calls) in names {
        add_calls(stats, Some(name), *calls);
    }
}

/// Count `calls` calls of the tool `name` (missing or empty: counted as unnamed).
fn add_calls(stats: &mut BTreeMap<String, ToolStats>, name: Option<&str>, calls: usize) {
    // Looked up by the name first: a tool already counted costs no allocation.
    let name = name.filter(|n| !n.is_empty());
    match stats.get_mut(name.unwrap_or(NO_NAME)) {
        Some(counted) => counted.calls += calls,
        None => {
            stats.entry(tool_key(name)).or_default().calls += calls;
        }
    }
}

/// Count `defect` under its tool's name when it is a dangling call.
pub(crate) fn count_dangling(stats: &mut BTreeMap<String, ToolStats>, defect: &Defect) {
    if let Defect::Dangling { call, .. } = defect {
        stats
            .entry(tool_key(call.call.name.as_deref()))
            .or_default()
            .dangling += 1;
    }
}

/// The key of the calls of a tool without a name.
const NO_NAME: &str = "(no name)";

fn tool_key(name: Option<&str>) -> String {
    name.filter(|n| !n.is_empty())
        .unwrap_or(NO_NAME)
        .to_string()
}

/// Every finding of an analysed document, in reading order.
pub fn findings(path: &str, a: &Analysed) -> Vec<Finding> {
    let mut out = document_findings(path, &a.doc);
    for (conv, defects) in a.doc.conversations.iter().zip(&a.defects) {
        out.extend(conversation_findings(
            path,
            conv,
            &ConvInfo::of(conv),
            defects,
            a.options.target,
        ));
    }
    out.sort_by_key(|f| (f.line, f.column, f.rule));
    out
}

/// The findings of a document as a whole: lines or values that are not JSON, problems of its
/// tree, and no conversation found.
pub(crate) fn document_findings(path: &str, doc: &ReadDoc) -> Vec<Finding> {
    let mut out: Vec<Finding> = doc
        .problems
        .iter()
        .map(|p| {
            let mut f = Finding::new(Rule::InvalidJson, path, p.message.clone());
            f.line = p.line;
            f.column = p.column;
            f
        })
        .collect();
    out.extend(
        doc.tree
            .iter()
            .map(|(conv, f)| tree_finding(path, *conv, f)),
    );
    if doc.unrecognized() {
        out.push(no_conversation(path, doc.log_like));
    }
    out
}

/// The findings of one conversation: messages of another dialect, tool keys left unread, and
/// its `defects`.
pub(crate) fn conversation_findings(
    path: &str,
    conv: &Conversation,
    info: &ConvInfo,
    defects: &[Defect],
    target: Option<Provider>,
) -> Vec<Finding> {
    let d = dialect_of(conv);
    let judge = target::judge(d, target);
    let mut out: Vec<Finding> = conv
        .foreign
        .iter()
        .map(|f| foreign_finding(path, conv.index, f, conv.dialect))
        .collect();
    out.extend(unread_finding(path, conv.index, &conv.unread, conv.dialect));
    out.extend(
        defects
            .iter()
            .map(|defect| describe(path, info, d, &judge, defect)),
    );
    out
}

/// What describing a defect needs to know about its conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvInfo {
    /// Index of the conversation in its document.
    pub index: usize,
    /// Index of the last message that is not the continuation of an earlier one.
    pub last_turn: usize,
    /// Not repaired: gathered by `--at` from several places, of mixed dialects, of a format
    /// no app reads back, or not repairable in its dialect ([`Dialect::repairable`]).
    pub read_only: bool,
}

impl ConvInfo {
    /// The facts about `conv`.
    pub fn of(conv: &Conversation) -> ConvInfo {
        ConvInfo {
            index: conv.index,
            last_turn: conv
                .messages
                .iter()
                .rposition(|m| !m.continuation)
                .unwrap_or(0),
            read_only: conv.container == crate::model::Container::Scattered
                || !conv.foreign.is_empty()
                || !conv.unread.is_empty()
                || !dialect_of(conv).repairs()
                || !dialect_of(conv).repairable(conv),
        }
    }
}

fn place(f: &mut Finding, pos: &Pos, conv: &ConvInfo, message: usize) {
    f.line = pos.line;
    f.column = pos.column;
    f.pointer = pos.pointer.clone();
    f.conversation = Some(conv.index);
    f.message_index = Some(message);
}

fn from_call(rule: Rule, path: &str, conv: &ConvInfo, call: &CallAt, message: String) -> Finding {
    let mut f = Finding::new(rule, path, message);
    place(&mut f, &call.call.pos, conv, call.holder);
    f.tool_name = call.call.name.clone();
    f.call_id = call.call.id.clone();
    f
}

fn from_result(rule: Rule, path: &str, conv: &ConvInfo, r: &ResultAt, message: String) -> Finding {
    let mut f = Finding::new(rule, path, message);
    place(&mut f, &r.result.pos, conv, r.message);
    f.tool_name = r.result.name.clone();
    f.call_id = r.result.id.clone();
    f
}

fn quoted(s: Option<&str>) -> String {
    match s {
        Some(s) => format!("`{s}`"),
        None => "(missing)".into(),
    }
}

/// A finding about a Claude Code file's `parentUuid` tree (TM010–TM014).
pub fn tree_finding(path: &str, conversation: usize, t: &TreeFinding) -> Finding {
    let mut f = Finding::new(t.rule, path, t.message.clone());
    if t.warning {
        f.severity = Severity::Warning;
    }
    f.line = t.line;
    f.column = t.column;
    f.conversation = Some(conversation);
    f.fix = t.fix.as_ref().and_then(|fix| match fix {
        // The last main-chain line goes only with the placeholders put after it.
        TreeFix::DropCopy { last: true, .. } => None,
        TreeFix::DropCopy { .. } => Some(Fix {
            applicability: Applicability::Safe,
            description: "delete the repeated line".into(),
        }),
        TreeFix::Orphan { drop, .. } => Some(Fix {
            applicability: Applicability::Unsafe,
            description: if drop.is_some() {
                "keep its content as a text note (--orphans note), or remove the line and hang the lines below it from its parent (--orphans drop)"
            } else {
                "keep its content as a text note (--orphans note)"
            }
            .into(),
        }),
    });
    f
}

/// TM007 for a message written in another dialect than its conversation was read as.
pub fn foreign_finding(path: &str, conversation: usize, f: &Foreign, read_as: &str) -> Finding {
    let mut finding = Finding::new(
        Rule::InvalidJson,
        path,
        format!(
            "this message is {} ({}), but its conversation was read as {read_as}: it was not \
             analysed and the conversation is not repaired (keep one format per conversation, \
             or give --dialect)",
            f.why, f.dialect
        ),
    );
    finding.line = f.pos.line;
    finding.column = f.pos.column;
    finding.pointer = f.pos.pointer.clone();
    finding.conversation = Some(conversation);
    finding
}

/// TM009 for a document in which no conversation was found. `log_like`: something in it is
/// message- or tool-shaped.
pub fn no_conversation(path: &str, log_like: bool) -> Finding {
    let what = if log_like {
        "it holds messages or tool calls, but in a form no dialect toolmend knows reads"
    } else {
        "nothing in it is shaped like a message or a tool call"
    };
    let mut f = Finding::new(
        Rule::UnrecognizedLog,
        path,
        format!(
            "no conversation found: {what}, so nothing was checked (give the place with --at \
             POINTER or the format with --dialect NAME; --ignore TM009 for unrelated JSON)"
        ),
    );
    f.line = 1;
    f.column = 1;
    f
}

/// TM009 for a conversation holding messages whose tool keys its dialect does not read (one
/// finding, at the first such message).
pub fn unread_finding(
    path: &str,
    conversation: usize,
    unread: &[Unread],
    read_as: &str,
) -> Option<Finding> {
    let first = unread.first()?;
    let reader = if read_as == crate::read::UNRECOGNIZED {
        "which no dialect toolmend knows reads".to_string()
    } else {
        format!("which {read_as} does not read")
    };
    let mut f = Finding::new(
        Rule::UnrecognizedLog,
        path,
        format!(
            "{} message(s) carry {} (key `{}`), {reader}: this conversation was not checked \
             and will not be repaired",
            unread.len(),
            first.what,
            first.key
        ),
    );
    f.line = first.pos.line;
    f.column = first.pos.column;
    f.pointer = first.pos.pointer.clone();
    f.conversation = Some(conversation);
    Some(f)
}

/// Describe one defect as a finding, naming the provider whose rule `judge` applies, with the
/// fix [`fix_for`] offers.
pub fn describe(
    path: &str,
    conv: &ConvInfo,
    dialect: &dyn Dialect,
    judge: &Judge,
    d: &Defect,
) -> Finding {
    let provider = format!(". {}", judge.provider_error(dialect, d));
    let on_call = |rule, call: &CallAt, message| from_call(rule, path, conv, call, message);
    let on_result =
        |rule, result: &ResultAt, message| from_result(rule, path, conv, result, message);
    // A result of a known call: the call's tool name when the result has none.
    let on_answer = |rule, call: &CallAt, result: &ResultAt, message| {
        let mut f = on_result(rule, result, message);
        f.tool_name = call.call.name.clone().or(f.tool_name);
        f
    };
    let mut f = match d {
        Defect::Dangling { call, cause } => on_call(
            Rule::DanglingToolCall,
            call,
            format!(
                "tool call {} to {} has no result: {}{provider}",
                quoted(call.call.id.as_deref()),
                quoted(call.call.name.as_deref()),
                dangling_cause(conv, call, *cause)
            ),
        ),
        Defect::Orphan { result, later_call } => {
            let id = quoted(result.result.id.as_deref());
            let (rule, what) = match (later_call, &result.result.split) {
                (Some(call), _) => (
                    Rule::OrphanToolResult,
                    format!("comes before its call (message {})", call.holder),
                ),
                (None, Some(why)) => (
                    Rule::SplitPair,
                    format!("is on the resumed history, but {why}"),
                ),
                (None, None) => (Rule::OrphanToolResult, "answers no call".to_string()),
            };
            on_result(
                rule,
                result,
                format!("tool result for {id} {what}{provider}"),
            )
        }
        Defect::Misplaced { call, result } => on_answer(
            Rule::MisplacedToolResult,
            call,
            result,
            format!(
                "tool result for {} (called in message {}) is outside the call's answer window{provider}",
                quoted(result.result.id.as_deref()),
                call.holder
            ),
        ),
        Defect::DuplicateResult {
            call,
            first,
            result,
        } => on_answer(
            Rule::DuplicateToolResult,
            call,
            result,
            format!(
                "second tool result for {}: the call was already answered in message {}{provider}",
                quoted(result.result.id.as_deref()),
                first.message
            ),
        ),
        Defect::DuplicateCallId { first, call } => on_call(
            Rule::DuplicateToolCallId,
            call,
            format!(
                "call id {} is used twice in message {} (calls {} and {}){provider}",
                quoted(call.call.id.as_deref()),
                call.holder,
                first.slot,
                call.slot
            ),
        ),
        Defect::MissingCallId { call } => on_call(
            Rule::MissingToolCallId,
            call,
            format!(
                "tool call to {} has no id, so no result can answer it{provider}",
                quoted(call.call.name.as_deref())
            ),
        ),
        Defect::MissingToolName { call } => on_call(
            Rule::MissingToolCallId,
            call,
            format!(
                "tool call {} has an empty or missing tool name{provider}",
                quoted(call.call.id.as_deref())
            ),
        ),
        Defect::MissingResultId { result } => on_result(
            Rule::MissingToolCallId,
            result,
            format!("tool result has no call id{provider}"),
        ),
        Defect::ReusedCallId { first, call } => on_call(
            Rule::DuplicateToolCallId,
            call,
            format!(
                "call id {} is reused in the request: message {} already used it; {} wants every call id unique{provider}",
                quoted(call.call.id.as_deref()),
                first.holder,
                judge.provider.display()
            ),
        ),
    };
    f.fix = fix_for(dialect, d, conv.read_only);
    f
}

/// Why a call is dangling, in words.
fn dangling_cause(conv: &ConvInfo, call: &CallAt, cause: DanglingCause) -> String {
    match cause {
        DanglingCause::NoResult if conv.last_turn <= call.holder => {
            "the conversation ends right after it (interrupted run)".to_string()
        }
        DanglingCause::NoResult => "no result answers it".to_string(),
        DanglingCause::Shadowed { by } => {
            format!("message {by} reuses its id before it was answered")
        }
    }
}
