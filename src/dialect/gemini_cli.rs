//! Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json`, and the newer
//! `.jsonl` form with one record per line): `messages[]` of `{type: user|gemini|info|error|
//! warning, content}`, where a `gemini` message keeps its calls as `toolCalls[]` records
//! `{id, name, args, result, status, …}` with the call's `functionResponse` parts inline in
//! `result`.
//!
//! Read as the client's `convertSessionToClientHistory` builds the request on `--resume`
//! (checked against Gemini CLI 0.56.0 run offline, `tests/gemini_resume`):
//! - a `gemini` record is a model turn: its `content` when that holds a `functionCall` or a
//!   thought part, else its text and one functionCall per `toolCalls` record; it is followed
//!   by a response turn of the records' `result` parts. A call whose record has no
//!   functionResponse in `result` (missing, `null`, empty) gets no response, and Gemini
//!   rejects the whole history;
//! - a `user` record's `functionResponse` parts are a response turn too. Gemini CLI records
//!   each response turn it sends that way, besides the record's `result`, and sends both on
//!   resume (google-gemini/gemini-cli#29365): the second copy is TM004;
//! - `info`, `error` and `warning` records, and user records whose text is blank or a command
//!   (`/`, `?`) or context note, are never sent: they are not messages here;
//! - consecutive model turns are merged into one content, answered by the next response turn.
//!
//! The repair fills a dangling call's record `result` with an error `functionResponse`, in
//! place (adding a record to `toolCalls` for a call of `content` without one); by policy
//! (`--duplicates keep-first`) it drops a response's second copy from its user record. The
//! `status` field is not consulted: resume does not consult it either.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, Kind, NodeId, Style, Tree};
use crate::model::{Call, Message, Role};
use crate::provider::Provider;

use super::common::{array_at, string};
use super::gemini::COUNT_ERROR;
use super::layout::{member_names, order_keys, space_before};
use super::{Dialect, ReadCx, RecordOp};

/// The Gemini CLI chat-recording dialect.
pub struct GeminiCli;

/// The `toolCalls` array of a `gemini` message.
fn tool_calls(tree: &Tree<'_>, node: NodeId) -> Option<NodeId> {
    if tree.kind(node) != Kind::Object || !tree.str_is(node, "type", "gemini") {
        return None;
    }
    array_at(tree, node, "toolCalls")
}

/// Does a record's `result` give the resumed history a functionResponse part?
fn answered(tree: &Tree<'_>, record: NodeId) -> bool {
    let Some(result) = tree.get(record, "result") else {
        return false;
    };
    let is_response =
        |p: NodeId| tree.kind(p) == Kind::Object && tree.get(p, "functionResponse").is_some();
    match tree.kind(result) {
        // A plain string becomes `{functionResponse: {response: {output: …}}}`; "" is dropped.
        Kind::String => tree.str(result).is_some_and(|s| !s.is_empty()),
        Kind::Array => tree.children(result).any(is_response),
        Kind::Object => is_response(result),
        _ => false,
    }
}

/// The parts of a record's `content` as the client reads them: a list, or one part.
struct Parts {
    nodes: Vec<NodeId>,
    /// `content` is a list (a part's pointer then carries its index).
    list: bool,
}

impl Parts {
    fn of(tree: &Tree<'_>, node: NodeId) -> Parts {
        let content = tree.get(node, "content");
        let list = content.is_some_and(|c| tree.kind(c) == Kind::Array);
        let nodes = match content {
            Some(c) if list => tree.children(c).collect(),
            Some(c) if tree.kind(c) == Kind::Object => vec![c],
            _ => Vec::new(),
        };
        Parts { nodes, list }
    }

    /// The pointer suffix of part `k`, then `tail`.
    fn suffix(&self, k: usize, tail: &str) -> String {
        if self.list {
            format!("/content/{k}{tail}")
        } else {
            format!("/content{tail}")
        }
    }
}

/// Is `v` true to JavaScript (not `false`, `null`, `0` or `""`)?
fn truthy(tree: &Tree<'_>, v: NodeId) -> bool {
    match tree.kind(v) {
        Kind::Null => false,
        Kind::Bool => tree.bool(v) == Some(true),
        Kind::String => tree.raw(v) != b"\"\"",
        Kind::Number => tree.raw(v).iter().any(|b| b.is_ascii_digit() && *b != b'0'),
        _ => true,
    }
}

/// The calls of a `gemini` record as the client sends them. When its `content` holds a
/// `functionCall` or a thought part (as in the checkpoints the client appends on resume),
/// `content` is the model turn and the calls are its `functionCall` parts; the `toolCalls`
/// records only give responses (each call's is the record of its id, and a record no call
/// takes is a response without a call). Otherwise the calls are the `toolCalls` records.
fn read_calls(tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>, msg: &mut Message) {
    let records = tool_calls(tree, node);
    let parts = Parts::of(tree, node);
    let in_content: Vec<(usize, NodeId)> = parts
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(k, &p)| Some((k, tree.get(p, "functionCall")?)))
        .collect();
    let thought = parts
        .nodes
        .iter()
        .any(|&p| tree.get(p, "thought").is_some_and(|t| truthy(tree, t)));
    if in_content.is_empty() && !thought {
        let Some(records) = records else { return };
        for (i, record) in tree.children(records).enumerate() {
            if tree.kind(record) != Kind::Object {
                continue;
            }
            let suffix = crate::model::indexed("/toolCalls/", i);
            msg.calls.push(Call {
                name: string(tree, tree.get(record, "name")),
                server: answered(tree, record),
                ..cx.call(tree, record, &suffix, tree.get(record, "id"), "toolCall")
            });
            further_responses(tree, record, &suffix, cx, msg);
        }
        return;
    }
    let mut taken = Vec::new();
    for (n, (k, call)) in in_content.into_iter().enumerate() {
        let suffix = parts.suffix(k, "/functionCall");
        // A call written without an id gets one from the client; its record is the one in
        // its place, whose id is taken.
        let id = tree
            .get(call, "id")
            .filter(|&i| tree.kind(i) == Kind::String);
        let record = match (records, id) {
            (Some(r), Some(i)) => record_of(tree, r, tree.str(i)),
            (Some(r), None) => tree.children(r).nth(n),
            (None, _) => None,
        };
        let id = id.or_else(|| record.and_then(|r| tree.get(r, "id")));
        msg.calls.push(Call {
            name: string(tree, tree.get(call, "name")),
            server: record.is_some_and(|r| answered(tree, r)),
            ..cx.call(tree, call, &suffix, id, "functionCall")
        });
        taken.extend(record);
    }
    // A record no call of `content` takes still gives the response turn its response: one
    // response more than the turn has calls, which Gemini refuses. It is read as a result of
    // its own, never leading (so it answers no earlier call in its window).
    for (i, record) in records.iter().flat_map(|&r| tree.children(r)).enumerate() {
        let is_taken = taken.contains(&record);
        if !is_taken && !answered(tree, record) {
            continue;
        }
        let suffix = crate::model::indexed("/toolCalls/", i);
        if !is_taken {
            msg.results.push(crate::model::ToolResult {
                name: string(tree, tree.get(record, "name")),
                leading: false,
                ..cx.result(tree, record, &suffix, tree.get(record, "id"))
            });
        }
        further_responses(tree, record, &suffix, cx, msg);
    }
}

/// The `functionResponse` parts of a record's `result` list after its first: the client
/// sends them all in the response turn, each one response more than the turn has calls. Each
/// is read as a result of its own, never leading, at `<suffix>/result/<k>`.
fn further_responses(
    tree: &Tree<'_>,
    record: NodeId,
    suffix: &str,
    cx: &ReadCx<'_>,
    msg: &mut Message,
) {
    let Some(list) = tree
        .get(record, "result")
        .filter(|&r| tree.kind(r) == Kind::Array)
    else {
        return;
    };
    let responses = tree.children(list).enumerate().filter_map(|(k, p)| {
        let response = (tree.kind(p) == Kind::Object)
            .then(|| tree.get(p, "functionResponse"))
            .flatten()?;
        Some((k, p, response))
    });
    for (k, part, response) in responses.skip(1) {
        let suffix = crate::model::indexed(&format!("{suffix}/result/"), k);
        msg.results.push(crate::model::ToolResult {
            name: string(tree, tree.get(response, "name")),
            leading: false,
            ..cx.result(tree, part, &suffix, tree.get(response, "id"))
        });
    }
}

/// The `toolCalls` record of id `id`.
fn record_of(
    tree: &Tree<'_>,
    records: NodeId,
    id: Option<std::borrow::Cow<'_, str>>,
) -> Option<NodeId> {
    let id = id?;
    tree.children(records)
        .find(|&r| tree.get_str(r, "id").is_some_and(|i| i == id))
}

/// The `functionResponse` parts of a `user` record: since 0.44.0 Gemini CLI records each
/// response turn it sends as a record of its own, beside the `result` of the call's record,
/// and on resume sends both (google-gemini/gemini-cli#29365). A record of responses only is
/// a response turn, as Gemini reads contents.
fn read_responses(tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>, msg: &mut Message) {
    let parts = Parts::of(tree, node);
    for (k, &part) in parts.nodes.iter().enumerate() {
        let Some(response) = tree.get(part, "functionResponse") else {
            continue;
        };
        msg.results.push(crate::model::ToolResult {
            name: string(tree, tree.get(response, "name")),
            ..cx.result(tree, part, &parts.suffix(k, ""), tree.get(response, "id"))
        });
    }
    if !msg.results.is_empty() && msg.results.len() == parts.nodes.len() {
        msg.role = Role::Tool;
    }
}

/// Does the client send this `gemini` record? Not when it has no part at all: no `content`
/// (or an empty one), no thoughts and no `toolCalls` records.
fn sent_gemini(tree: &Tree<'_>, node: NodeId) -> bool {
    let list = |key| array_at(tree, node, key).is_some_and(|v| !tree.is_empty(v));
    let content = tree
        .get(node, "content")
        .is_some_and(|c| match tree.kind(c) {
            Kind::String => truthy(tree, c),
            Kind::Object => true,
            _ => false,
        });
    content || list("content") || list("thoughts") || list("toolCalls")
}

/// Does the client send this `user` record? It leaves out one whose text (its parts written
/// out, a non-text part as a bracketed summary) is blank or starts with `/`, `?`,
/// `<session_context>` or `<hook_context>`.
fn sent_user(tree: &Tree<'_>, node: NodeId) -> bool {
    let mut text = String::new();
    match tree.get(node, "content") {
        Some(c) if tree.kind(c) == Kind::String => {
            text = tree.str(c).unwrap_or_default().into_owned()
        }
        _ => {
            for p in Parts::of(tree, node).nodes {
                if !text.trim_start().is_empty() {
                    break;
                }
                text.push_str(&part_text(tree, p));
            }
        }
    }
    let text = text.trim_start();
    !(text.is_empty()
        || text.starts_with('/')
        || text.starts_with('?')
        || text.starts_with("<session_context>")
        || text.starts_with("<hook_context>"))
}

/// How the client writes a part out when it decides whether to send a user record.
fn part_text(tree: &Tree<'_>, p: NodeId) -> String {
    const SUMMARIZED: [&str; 8] = [
        "videoMetadata",
        "thought",
        "codeExecutionResult",
        "executableCode",
        "fileData",
        "functionCall",
        "functionResponse",
        "inlineData",
    ];
    if tree.kind(p) == Kind::String {
        return tree.str(p).unwrap_or_default().into_owned();
    }
    if SUMMARIZED.iter().any(|k| tree.get(p, k).is_some()) {
        return "[".into();
    }
    tree.get_str(p, "text").unwrap_or_default().into_owned()
}

impl Dialect for GeminiCli {
    fn name(&self) -> &'static str {
        "gemini-cli"
    }

    /// Consecutive model turns are sent as one content (the client merges them), answered
    /// by the next response turn.
    fn window(&self) -> Window {
        Window::NextResponseTurn
    }

    fn provider(&self) -> Provider {
        Provider::Gemini
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let calls = tool_calls(tree, node)?;
        let first = tree.children(calls).next()?;
        (tree.kind(first) == Kind::Object && tree.get(first, "name").is_some())
            .then_some("a Gemini CLI chat record ({\"type\": \"gemini\", \"toolCalls\": [...]})")
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `tool_calls` needs `type` (`gemini`) and `toolCalls`.
        const NEEDS: &[Keys] = &[Keys::TYPE.and(Keys::TOOL_CALLS_CAMEL)];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        if tree.kind(node) != Kind::Object {
            return None;
        }
        // Only what the client sends is a message: `info`, `error` and `warning` records are
        // shown, never sent, and so is a user record that is a command or a context note.
        let role = match tree.get_str(node, "type")?.as_ref() {
            "gemini" if sent_gemini(tree, node) => Role::Assistant,
            "user" if sent_user(tree, node) => Role::User,
            _ => return None,
        };
        let mut msg = cx.message(tree, node, role);
        match role {
            Role::Assistant => read_calls(tree, node, cx, &mut msg),
            Role::User => read_responses(tree, node, cx, &mut msg),
            _ => {}
        }
        Some(msg)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        calls.iter().map(|c| fill_result(cx, c)).collect()
    }

    fn drop_copy(
        &self,
        cx: &RepairCx<'_>,
        first: &ResultAt,
        result: &ResultAt,
    ) -> Option<Vec<Edit>> {
        if !self.can_drop_copy(first, result) {
            return None;
        }
        drop_part(cx, result).map(|e| vec![e])
    }

    /// A later copy is a part of a `user` record's `content` list (a record's `content`
    /// that is one part, not a list, is left whole).
    fn can_drop_copy(&self, _first: &ResultAt, result: &ResultAt) -> bool {
        !result.result.pos.pointer.ends_with("/content")
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        match defect {
            Defect::Dangling { .. } => Some(format!(
                "on resume Gemini CLI sends the call without a response, and Gemini rejects it: \"{COUNT_ERROR}\""
            )),
            Defect::DuplicateResult { .. } => Some(format!(
                "on resume Gemini CLI sends the response twice, from the call's `toolCalls` record and from this record (google-gemini/gemini-cli#29365), and Gemini rejects it: \"{COUNT_ERROR}\""
            )),
            // Only the responses of `toolCalls` records that no call takes, or past a
            // record's first, are read as not leading.
            Defect::Orphan { result, .. }
                if !result.result.leading && result.result.pos.pointer.contains("/result/") =>
            {
                Some(format!(
                    "on resume Gemini CLI sends every `functionResponse` part of this record's `result` in the response turn, and this one is one response more than that turn has calls, so Gemini rejects it: \"{COUNT_ERROR}\""
                ))
            }
            Defect::Orphan { result, .. } if !result.result.leading => Some(format!(
                "on resume Gemini CLI sends this record's result in the response turn after its `content`, one response more than that turn has calls, and Gemini rejects it: \"{COUNT_ERROR}\""
            )),
            _ => None,
        }
    }

    /// A `.jsonl` recording without its header line is still a log of record updates.
    fn record_log(&self) -> bool {
        true
    }

    fn record_op(&self, tree: &Tree<'_>, node: NodeId) -> Option<RecordOp> {
        super::gemini_cli_jsonl::record_op(tree, node)
    }
}

/// The error `functionResponse` part for a dangling record, keys ordered like the file's own.
fn response_part(cx: &RepairCx<'_>, call: &Call, sample: &[String]) -> J {
    let mut response = vec![("error".to_string(), J::str(cx.text(call)))];
    if let Some(marker) = cx.marker() {
        response.push(("toolmend_synthetic".into(), marker));
    }
    let fields = order_keys(sample, &["id", "name", "response"])
        .into_iter()
        .filter_map(|k| {
            let v = match k.as_str() {
                "id" if call.id.is_none() => return None,
                "id" => cx.id_token(call),
                "name" => cx.name_value(call),
                _ => J::Obj(response.clone()),
            };
            Some((k, v))
        })
        .collect();
    J::obj([("functionResponse", J::Obj(fields))])
}

/// Key order of the first functionResponse found in any record's `result`.
fn sample_order(cx: &RepairCx<'_>) -> Vec<String> {
    for m in &cx.conv.messages {
        let Some(tree) = cx.reparse(m) else { continue };
        let Some(calls) = tool_calls(&tree, tree.root()) else {
            continue;
        };
        for record in tree.children(calls) {
            let Some(result) = tree.get(record, "result") else {
                continue;
            };
            let parts: Vec<NodeId> = match tree.kind(result) {
                Kind::Array => tree.children(result).collect(),
                _ => vec![result],
            };
            for p in parts {
                if let Some(fr) = tree.get(p, "functionResponse") {
                    return member_names(&tree, fr);
                }
            }
        }
    }
    Vec::new()
}

/// The indentation of the line `at` is on, when only whitespace precedes it there.
fn line_lead(src: &[u8], at: usize) -> Option<String> {
    let start = memchr::memrchr(b'\n', &src[..at]).map_or(0, |i| i + 1);
    let lead = &src[start..at];
    lead.iter()
        .all(|b| *b == b' ' || *b == b'\t')
        .then(|| String::from_utf8_lossy(lead).into_owned())
}

/// Edit giving the dangling record of `call` an error result: set `result` when it is missing
/// or empty, or append the part to a `result` list that holds other parts.
fn fill_result(cx: &RepairCx<'_>, call: &CallAt) -> Option<Edit> {
    let msg = &cx.conv.messages[call.holder];
    let tree = cx.reparse(msg)?;
    let base = msg.span.start;
    let root = tree.root();
    let records = tool_calls(&tree, root);
    let part = response_part(cx, &call.call, &sample_order(cx));
    let crlf = cx.src.windows(2).any(|w| w == b"\r\n");
    // A call of the record list, or of `content` answered by the record of its id.
    let record = records.and_then(|list| {
        tree.children(list)
            .find(|&r| tree.span(r).0 + base == call.call.pos.offset)
            .or_else(|| record_of(&tree, list, call.call.id.as_deref().map(Into::into)))
    });
    let Some(record) = record else {
        return add_record(cx, &tree, base, call, part, records, crlf);
    };
    let src = tree.src();
    let mut style = Style::like(&tree, record);
    if crlf {
        style.newline = "\r\n".into();
    }
    // Members of the record sit one level deeper than the record itself.
    let member_base = tree
        .children(record)
        .next()
        .and_then(|m| line_lead(src, tree.key_span(m).map_or(tree.span(m).0, |k| k.0)));
    if let (Some(lead), Some(_)) = (&member_base, &style.indent) {
        style.base = lead.clone();
    }
    if let Some(result) = tree.get(record, "result") {
        let (start, end) = tree.span(result);
        if tree.kind(result) == Kind::Array && !tree.is_empty(result) {
            let last = tree.children(result).last()?;
            let (ls, le) = tree.span(last);
            let sep = space_before(src, ls);
            let mut inner = Style::like(&tree, last);
            inner.newline = style.newline.clone();
            let text = format!(",{sep}{}", part.render(&inner));
            return Some(Edit::insert(base + le, text));
        }
        let text = J::Arr(vec![part]).render(&style);
        return Some(Edit::replace(base + start, base + end, text));
    }
    // No `result` member: add one after `args` (else after `name`, else last).
    let after = tree
        .get(record, "args")
        .or_else(|| tree.get(record, "name"))
        .or_else(|| tree.children(record).last())?;
    let key = J::str("result").render(&style);
    let value = J::Arr(vec![part]).render(&style);
    let sep = match (&style.indent, &member_base) {
        (Some(_), Some(lead)) => format!(",{}{lead}", style.newline),
        _ => style.comma.clone(),
    };
    let text = format!("{sep}{key}{}{value}", style.colon);
    Some(Edit::insert(base + tree.span(after).1, text))
}

/// Edit giving a call of a record's `content` that no `toolCalls` record answers a record of
/// its own (`{id, name, args, result, status}`), where the client looks for its response: at
/// the end of the record's `toolCalls`, or in a `toolCalls` member added after `content`.
fn add_record(
    cx: &RepairCx<'_>,
    tree: &Tree<'_>,
    base: usize,
    call: &CallAt,
    part: J,
    records: Option<NodeId>,
    crlf: bool,
) -> Option<Edit> {
    let at = call.call.pos.offset.checked_sub(base)?;
    let root = tree.root();
    let function_call = Parts::of(tree, root)
        .nodes
        .into_iter()
        .filter_map(|p| tree.get(p, "functionCall"))
        .find(|&c| tree.span(c).0 == at)?;
    let mut fields = Vec::new();
    if call.call.id.is_some() {
        fields.push(("id", cx.id_token(&call.call)));
    }
    fields.push(("name", cx.name_value(&call.call)));
    if let Some(args) = tree.get(function_call, "args") {
        fields.push((
            "args",
            J::Raw(String::from_utf8_lossy(tree.raw(args)).into_owned()),
        ));
    }
    fields.push(("result", J::Arr(vec![part])));
    fields.push(("status", J::str("error")));
    let record = J::obj(fields);
    let mut style = Style::like(tree, root);
    if crlf {
        style.newline = "\r\n".into();
    }
    match records {
        Some(list) => match tree.children(list).last() {
            Some(last) => {
                // Spaced as the list's items are, or as the record's members when it has one.
                let sep = match space_before(tree.src(), tree.span(last).0) {
                    sep if sep.is_empty() && tree.len(list) == 1 => style.comma.clone(),
                    sep => format!(",{sep}"),
                };
                let inner = Style::like(tree, last);
                let text = format!("{sep}{}", record.render(&inner));
                Some(Edit::insert(base + tree.span(last).1, text))
            }
            None => {
                let (start, end) = tree.span(list);
                let text = J::Arr(vec![record]).render(&style);
                Some(Edit::replace(base + start, base + end, text))
            }
        },
        None => {
            let content = tree.get(root, "content")?;
            let key = J::str("toolCalls").render(&style);
            let value = J::Arr(vec![record]).render(&style);
            let lead = line_lead(tree.src(), tree.key_span(content).map_or(0, |k| k.0));
            let sep = match (&style.indent, lead) {
                (Some(_), Some(lead)) => format!(",{}{lead}", style.newline),
                _ => style.comma.clone(),
            };
            let text = format!("{sep}{key}{}{value}", style.colon);
            Some(Edit::insert(base + tree.span(content).1, text))
        }
    }
}

/// Edit removing the `functionResponse` part `result` from its `user` record's `content`
/// (an emptied list stays: the client leaves out a record without text).
fn drop_part(cx: &RepairCx<'_>, result: &ResultAt) -> Option<Edit> {
    let msg = &cx.conv.messages[result.message];
    let tree = cx.reparse(msg)?;
    let base = msg.span.start;
    let list = tree
        .get(tree.root(), "content")
        .filter(|&c| tree.kind(c) == Kind::Array)?;
    let items: Vec<NodeId> = tree.children(list).collect();
    let k = items
        .iter()
        .position(|&p| tree.span(p).0 + base == result.result.span.start)?;
    let (start, end) = match (k.checked_sub(1), items.get(k + 1)) {
        (_, Some(&next)) => (tree.span(items[k]).0, tree.span(next).0),
        (Some(prev), None) => (tree.span(items[prev]).1, tree.span(items[k]).1),
        (None, None) => {
            let (start, end) = tree.span(list);
            return Some(Edit::replace(base + start, base + end, "[]"));
        }
    };
    Some(Edit::replace(base + start, base + end, ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn answered_results() {
        let cases = [
            (r#"{"result": [{"functionResponse": {"id": "a"}}]}"#, true),
            (r#"{"result": {"functionResponse": {}}}"#, true),
            (r#"{"result": "done"}"#, true),
            (r#"{"result": ""}"#, false),
            (r#"{"result": null}"#, false),
            (r#"{"result": []}"#, false),
            (r#"{"result": [{"text": "x"}]}"#, false),
            (r#"{"status": "executing"}"#, false),
        ];
        for (src, want) in cases {
            let t = parse(src.as_bytes()).unwrap();
            assert_eq!(answered(&t, t.root()), want, "{src}");
        }
    }
}
