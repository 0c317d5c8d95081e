//! Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json`, and the newer
//! `.jsonl` form with one record per line): `messages[]` of `{type: user|gemini|info|error|
//! warning, content}`, where a `gemini` message keeps its calls as `toolCalls[]` records
//! `{id, name, args, result, status, …}` with the call's `functionResponse` parts inline in
//! `result`.
//!
//! On `--resume` Gemini CLI turns each `gemini` message into a model turn with one
//! functionCall per record, followed by one response turn made of the records' `result`
//! parts; a record without a functionResponse in `result` (missing, `null`, empty) adds a call
//! but no response, so Gemini rejects the whole history. Such a record is dangling; the
//! repair fills its `result` with an error `functionResponse`, in place. Records with a
//! result are answered inline and never dangling. The `status` field is not consulted: resume
//! does not consult it either.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, Window};
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

impl Dialect for GeminiCli {
    fn name(&self) -> &'static str {
        "gemini-cli"
    }

    fn window(&self) -> Window {
        Window::NextMessage
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
        let role = match tree.get_str(node, "type")?.as_ref() {
            "gemini" => Role::Assistant,
            "user" => Role::User,
            _ => Role::Other,
        };
        let mut msg = cx.message(tree, node, role);
        if let Some(calls) = tool_calls(tree, node) {
            for (i, record) in tree.children(calls).enumerate() {
                if tree.kind(record) != Kind::Object {
                    continue;
                }
                let suffix = crate::model::indexed("/toolCalls/", i);
                msg.calls.push(Call {
                    name: string(tree, tree.get(record, "name")),
                    server: answered(tree, record),
                    ..cx.call(tree, record, &suffix, tree.get(record, "id"), "toolCall")
                });
            }
        }
        Some(msg)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        calls.iter().map(|c| fill_result(cx, c)).collect()
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        match defect {
            Defect::Dangling { .. } => Some(format!(
                "on resume Gemini CLI sends the call without a response, and Gemini rejects it: \"{COUNT_ERROR}\""
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
    let records = tool_calls(&tree, tree.root())?;
    let record = tree
        .children(records)
        .find(|&r| tree.span(r).0 + base == call.call.pos.offset)?;
    let src = tree.src();
    let part = response_part(cx, &call.call, &sample_order(cx));
    let mut style = Style::like(&tree, record);
    if cx.src.windows(2).any(|w| w == b"\r\n") {
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
