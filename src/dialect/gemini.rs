//! Google Gemini `contents`: Content objects `{role: user|model, parts: [...]}`. Calls are
//! `functionCall` parts (`id` optional), results are `functionResponse` parts in the very
//! next content, which must hold only responses, as many as there were calls.
//!
//! Calls without an id pair by name and position: the k-th id-less call to `name` in a
//! content gets the pairing key `name#k`, and so does the k-th id-less response to `name` in
//! a content. Such keys only steer the analysis; they are never written out.

use super::gate;
use crate::analysis::{CallAt, Defect, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, Kind, NodeId, Tree, parse};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{array_at, object_at, string};
use super::layout::{append_to_array, compact, member_names, order_keys, role_object};
use super::{Dialect, ReadCx};

/// The Gemini API dialect (`generateContent` requests, tuning files, SDK history dumps).
pub struct Gemini;

/// Gemini's own words for a missing or extra response.
pub(crate) const COUNT_ERROR: &str = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
/// Gemini's own words for a response that is not right after its call.
const PLACE_ERROR: &str =
    "Please ensure that function response turn comes immediately after a function call turn.";

/// Keys a Gemini `Part` may have (a part never has a `type`, unlike Vercel UI parts).
const PART_KEYS: &[&str] = &[
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
    "thought",
    "thoughtSignature",
    "videoMetadata",
];

/// The `parts` array of a Content object.
fn parts(tree: &Tree<'_>, node: NodeId) -> Option<NodeId> {
    array_at(tree, node, "parts")
}

fn is_gemini_part(tree: &Tree<'_>, part: NodeId) -> bool {
    tree.kind(part) == Kind::Object
        && tree.get(part, "type").is_none()
        && tree
            .members(part)
            .any(|(k, _)| PART_KEYS.contains(&k.as_ref()))
}

/// The pairing key of a call or response: its id, or `name#k` for the k-th id-less one.
struct Keys(Vec<String>);

impl Keys {
    fn key(&mut self, tree: &Tree<'_>, obj: NodeId) -> (String, Option<NodeId>) {
        // An empty id is not "populated": such a call pairs by name and position too.
        let id = tree
            .get(obj, "id")
            .filter(|&v| tree.kind(v) == Kind::String);
        if let Some(v) = id
            && let Some(s) = tree.str(v).filter(|s| !s.is_empty())
        {
            return (s.into_owned(), Some(v));
        }
        let name = tree.get_str(obj, "name").unwrap_or_default().into_owned();
        let k = self.0.iter().filter(|n| **n == name).count();
        self.0.push(name.clone());
        (format!("{name}#{k}"), None)
    }
}

impl Dialect for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn window(&self) -> Window {
        Window::NextResponseTurn
    }

    fn provider(&self) -> Provider {
        Provider::Gemini
    }

    fn reads(&self, sign: &str) -> bool {
        // Older Gemini histories answer calls in a `role: "function"` content.
        sign == "role: function"
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let parts = parts(tree, node)?;
        if tree.children(parts).any(|p| {
            object_at(tree, p, "functionCall").is_some()
                || object_at(tree, p, "functionResponse").is_some()
        }) {
            return Some("a Content with `functionCall` / `functionResponse` parts");
        }
        let role = tree.get_str(node, "role")?;
        if matches!(role.as_ref(), "user" | "model")
            && !tree.is_empty(parts)
            && tree.children(parts).all(|p| is_gemini_part(tree, p))
        {
            return Some("a Content object ({\"role\": \"user\"|\"model\", \"parts\": [...]})");
        }
        None
    }

    fn claim_keys(&self) -> &'static [gate::Keys] {
        // Both branches need the `parts` array.
        const NEEDS: &[gate::Keys] = &[gate::Keys::PARTS];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let parts = parts(tree, node)?;
        let role_name = tree.get_str(node, "role");
        let model = role_name.as_deref() == Some("model");
        let count = tree.len(parts);
        let responses = tree
            .children(parts)
            .filter(|&p| object_at(tree, p, "functionResponse").is_some())
            .count();
        let role = match role_name.as_deref() {
            Some("model") => Role::Assistant,
            None | Some("user" | "function") if responses > 0 && responses == count => Role::Tool,
            None | Some("user" | "function") => Role::User,
            _ => Role::Other,
        };
        // A response turn must hold responses only, and must not be a model turn.
        let leading = !model && responses == count;
        let mut msg = cx.message(tree, node, role);
        let (mut call_keys, mut result_keys) = (Keys(Vec::new()), Keys(Vec::new()));
        for (i, part) in tree.children(parts).enumerate() {
            let suffix = crate::model::indexed("/parts/", i);
            if let Some(call) = object_at(tree, part, "functionCall") {
                let (id, id_node) = call_keys.key(tree, call);
                msg.calls.push(Call {
                    id: Some(id),
                    name: string(tree, tree.get(call, "name")),
                    ..cx.call(tree, part, &suffix, id_node, "functionCall")
                });
            }
            if let Some(resp) = object_at(tree, part, "functionResponse") {
                let (id, id_node) = result_keys.key(tree, resp);
                msg.results.push(ToolResult {
                    id: Some(id),
                    name: string(tree, tree.get(resp, "name")),
                    leading,
                    whole_message: count == 1,
                    ..cx.result(tree, part, &suffix, id_node)
                });
            }
        }
        Some(msg)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        let parts: Vec<J> = calls.iter().map(|c| response_part(cx, c)).collect();
        // The response turn ending the answer window (the anchor, or the content after the
        // model turns the window spans), else a new one right after them.
        let turn = Some(cx.anchor)
            .filter(|m| is_response_turn(m))
            .or_else(|| cx.conv.messages.get(cx.anchor.index + 1))
            .filter(|m| is_response_turn(m));
        if let Some(turn) = turn {
            return Some(vec![append_to_array(cx, turn, "parts", &parts)?]);
        }
        let content = role_object(cx, cx.owner, "user", "parts", J::Arr(parts));
        Some(vec![cx.insert_after(cx.anchor, &[content])])
    }

    fn can_note(&self) -> bool {
        true
    }

    fn note(&self, cx: &RepairCx<'_>, msg: &Message) -> Option<J> {
        let r = msg.results.first()?;
        let part = parse(&cx.src[r.span.start..r.span.end]).ok()?;
        let resp = object_at(&part, part.root(), "functionResponse")?;
        let what = match r.id_span {
            Some(_) => r.id.clone().unwrap_or_default(),
            None => format!("to {}", r.name.as_deref().unwrap_or("unknown")),
        };
        let body = part
            .get(resp, "response")
            .map(|v| compact(&part.raw_str(v)))
            .unwrap_or_default();
        let text = J::str(format!(
            "[toolmend: tool result for unknown call {what}] {body}"
        ));
        let parts = J::Arr(vec![J::obj([("text", text)])]);
        Some(role_object(cx, msg, "user", "parts", parts))
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let quote = |s: &str| format!("Gemini would reject this: \"{s}\"");
        Some(match defect {
            Defect::Dangling { .. } | Defect::DuplicateResult { .. } => quote(COUNT_ERROR),
            Defect::Orphan { .. } => quote(PLACE_ERROR),
            Defect::Misplaced { result, .. } if !result.result.leading => {
                "the response turn mixes other parts in with its functionResponse parts; Gemini rejects that with the misleading \"Requests ending with a model turn are not supported.\"".into()
            }
            Defect::Misplaced { .. } => quote(PLACE_ERROR),
            _ => return None,
        })
    }
}

/// A user content holding functionResponse parts (a function-response turn).
fn is_response_turn(m: &Message) -> bool {
    matches!(m.role, Role::Tool | Role::User) && !m.results.is_empty()
}

/// The call as the document wrote it: a synthetic pairing key is not an id.
fn real(call: &Call) -> Call {
    let mut c = call.clone();
    if c.id_span.is_none() {
        c.id = None;
    }
    c
}

/// The member names of the `key` object of the part starting at `offset` in `msg`.
fn part_keys(cx: &RepairCx<'_>, msg: &Message, offset: usize, key: &str) -> Option<Vec<String>> {
    let t = cx.reparse(msg)?;
    let parts = parts(&t, t.root())?;
    let part = t
        .children(parts)
        .find(|&p| t.span(p).0 + msg.span.start == offset)?;
    Some(member_names(&t, object_at(&t, part, key)?))
}

/// The placeholder `functionResponse` part for a dangling call. Its keys follow the file's
/// first response, else the call's own `functionCall`.
fn response_part(cx: &RepairCx<'_>, call: &CallAt) -> J {
    let c = real(&call.call);
    let mut response = vec![("error".to_string(), J::str(cx.text(&c)))];
    if let Some(marker) = cx.marker() {
        response.push(("toolmend_synthetic".into(), marker));
    }
    let sample = cx
        .conv
        .messages
        .iter()
        .find_map(|m| {
            let r = m.results.first()?;
            part_keys(cx, m, r.span.start, "functionResponse")
        })
        .or_else(|| {
            let holder = &cx.conv.messages[call.holder];
            part_keys(cx, holder, c.pos.offset, "functionCall")
        })
        .unwrap_or_default();
    let fields = order_keys(&sample, &["name", "id", "response"])
        .into_iter()
        .filter_map(|k| {
            let v = match k.as_str() {
                "name" => cx.name_value(&c),
                "id" if c.id_span.is_some() => cx.id_token(&c),
                "id" => return None,
                _ => J::Obj(response.clone()),
            };
            Some((k, v))
        })
        .collect();
    J::obj([("functionResponse", J::Obj(fields))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Span;

    fn read(src: &str) -> Message {
        let tree = parse(src.as_bytes()).unwrap();
        let cursor = crate::dialect::Cursor::default();
        let cx = ReadCx::new(0, 1, &cursor);
        Gemini.read(&tree, tree.root(), &cx).unwrap()
    }

    fn ids(m: &Message) -> (Vec<String>, Vec<String>) {
        (
            m.calls.iter().map(|c| c.id.clone().unwrap()).collect(),
            m.results.iter().map(|r| r.id.clone().unwrap()).collect(),
        )
    }

    #[test]
    fn pairing_keys_count_id_less_calls_per_name() {
        let src = r#"{"role":"model","parts":[{"functionCall":{"name":"f"}},{"functionCall":{"name":"f","id":"x"}},{"functionCall":{"name":"g","id":""}},{"functionCall":{"name":"f"}}]}"#;
        let m = read(src);
        assert_eq!(m.role, Role::Assistant);
        assert_eq!(ids(&m).0, ["f#0", "x", "g#0", "f#1"]);
        let x = src.find("\"x\"").unwrap();
        assert_eq!(
            m.calls[1].id_span,
            Some(Span {
                start: x,
                end: x + 3
            })
        );
        assert!(m.calls[2].id_span.is_none());
        assert_eq!(m.calls[3].pos.pointer, "/parts/3");
    }

    #[test]
    fn response_turns_and_mixed_turns() {
        let m = read(
            r#"{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},{"functionResponse":{"name":"f","id":"x","response":{}}}]}"#,
        );
        assert_eq!(m.role, Role::Tool);
        assert_eq!(ids(&m).1, ["f#0", "x"]);
        assert!(m.results.iter().all(|r| r.leading && !r.whole_message));
        let m = read(
            r#"{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},{"text":"and"}]}"#,
        );
        assert_eq!(m.role, Role::User);
        assert!(!m.results[0].leading);
    }
}
