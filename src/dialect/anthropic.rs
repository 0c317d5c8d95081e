//! Anthropic Messages request bodies: `tool_use` blocks in an assistant message, answered by
//! `tool_result` blocks (`tool_use_id`, optional `is_error`) that must open the very next user
//! message. Server tools (`server_tool_use` with its `*_tool_result`, `mcp_tool_use` with
//! `mcp_tool_result`) carry their result inline in the same assistant message: they are never
//! dangling and never get placeholders, but an inline result whose server call is missing from
//! its message is still reported as an orphan.
//!
//! Placeholders are `tool_result` blocks with `is_error: true`, merged into the next user
//! message after its existing leading results. When that message has string content, a new
//! user message holding only the placeholders is inserted before it instead of rewriting the
//! string: the API joins consecutive user messages into one turn, so the results still open
//! it, and no existing byte changes.

use super::gate::Keys;
use crate::analysis::{CallAt, Defect, ResultAt, Window};
use crate::edit::{Edit, RepairCx};
use crate::json::{J, Kind, NodeId, Style, Tree, parse};
use crate::model::{Call, Message, Role, ToolResult};
use crate::provider::Provider;

use super::common::{array_at, role_message, string};
use super::layout::{member_names, ordered, sorts_keys};
use super::{Dialect, ReadCx};

/// The Anthropic Messages dialect (API request bodies, batch `params`, SDK histories).
pub struct Anthropic;

/// Block types of server-side calls, whose results sit in the same message.
fn is_server_call(ty: &str) -> bool {
    matches!(ty, "server_tool_use" | "mcp_tool_use")
}

/// Block types of inline server results (`web_search_tool_result`, `mcp_tool_result`, …).
fn is_server_result(ty: &str) -> bool {
    ty != "tool_result" && ty.ends_with("_tool_result")
}

/// The content array of a message object, if its content is a list of blocks.
pub(super) fn content_blocks(tree: &Tree<'_>, node: NodeId) -> Option<NodeId> {
    tree.get(node, "role")?;
    array_at(tree, node, "content")
}

impl Dialect for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn window(&self) -> Window {
        Window::NextMessage
    }

    fn provider(&self) -> Provider {
        Provider::Anthropic
    }

    fn claims(&self, tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
        let blocks = content_blocks(tree, node)?;
        tree.children(blocks).find_map(|b| {
            let ty = tree.get_str(b, "type")?;
            match ty.as_ref() {
                "tool_use" => Some("a message with `tool_use` content blocks"),
                "tool_result" => Some("a message with `tool_result` content blocks"),
                t if is_server_call(t) || is_server_result(t) => {
                    Some("a message with server tool content blocks")
                }
                _ => None,
            }
        })
    }

    fn claim_keys(&self) -> &'static [Keys] {
        // `content_blocks`: `role`, and `content` as an array.
        const NEEDS: &[Keys] = &[Keys::ROLE.and(Keys::CONTENT_ARRAY)];
        NEEDS
    }

    fn read(&self, tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
        let mut msg = role_message(tree, node, cx)?;
        let Some(blocks) = content_blocks(tree, node) else {
            return Some(msg);
        };
        // Results count as leading while only `tool_result` blocks precede them in a user turn.
        let mut leading = msg.role == Role::User;
        let mut server_ids: Vec<String> = Vec::new();
        for (i, b) in tree.children(blocks).enumerate() {
            let ty = tree.get_str(b, "type").unwrap_or_default();
            let suffix = crate::model::indexed("/content/", i);
            let server = is_server_call(&ty);
            if ty == "tool_use" || server {
                let call = Call {
                    name: string(tree, tree.get(b, "name")),
                    server,
                    ..cx.call(tree, b, &suffix, tree.get(b, "id"), &ty)
                };
                if server {
                    server_ids.extend(call.id.clone());
                }
                msg.calls.push(call);
            } else if ty == "tool_result" || is_server_result(&ty) {
                let result = cx.result(tree, b, &suffix, tree.get(b, "tool_use_id"));
                // An inline server result pairs with a server call earlier in its message; only
                // one without it enters the walk (where it is an orphan).
                let paired = is_server_result(&ty)
                    && result.id.as_ref().is_some_and(|id| server_ids.contains(id));
                if !paired {
                    msg.results.push(ToolResult {
                        leading: leading && ty == "tool_result",
                        ..result
                    });
                }
            }
            if ty != "tool_result" {
                leading = false;
            }
        }
        Some(msg)
    }

    fn insert_results(&self, cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
        let sample = sample_block(cx, |t, b| t.str_is(b, "type", "tool_result"));
        let blocks: Vec<J> = calls
            .iter()
            .map(|c| result_block(cx, &c.call, sample.as_ref()))
            .collect();
        // After the next message's leading `tool_result` blocks.
        let leading = |t: &Tree<'_>, elems: &[NodeId]| {
            elems
                .iter()
                .take_while(|&&b| t.str_is(b, "type", "tool_result"))
                .count()
        };
        let merged = cx
            .next
            .filter(|m| m.role == Role::User)
            .and_then(|next| merge_blocks(cx, next, leading, &blocks));
        Some(vec![merged.unwrap_or_else(|| new_user_message(cx, blocks))])
    }

    fn can_move_block(&self, call: &CallAt, result: &ResultAt) -> bool {
        result.message == call.message + 1 && !result.result.leading
    }

    /// A `tool_result` behind text in the very next user message moves in front of it (after
    /// the leading `tool_result` blocks), which is exactly what Anthropic asks for.
    fn move_block(&self, cx: &RepairCx<'_>, call: &CallAt, result: &ResultAt) -> Option<Vec<Edit>> {
        if !self.can_move_block(call, result) {
            return None;
        }
        let msg = &cx.conv.messages[result.message];
        if msg.role != Role::User {
            return None;
        }
        let tree = cx.reparse(msg)?;
        let base = msg.span.start;
        let blocks = content_blocks(&tree, tree.root())?;
        let elems: Vec<NodeId> = tree.children(blocks).collect();
        let first_other = elems
            .iter()
            .position(|&b| !tree.str_is(b, "type", "tool_result"))?;
        let at = elems.iter().position(|&b| {
            let (start, end) = tree.span(b);
            start + base == result.result.span.start && end + base == result.result.span.end
        })?;
        if at <= first_other {
            return None;
        }
        let prev_end = tree.span(elems[at - 1]).1;
        let (insert_at, _) = tree.span(elems[first_other]);
        // The separator the array uses after its commas.
        let (e0_end, e1_start) = (tree.span(elems[0]).1, tree.span(elems[1]).0);
        let between = &tree.src()[e0_end..e1_start];
        let sep = between.split(|&b| b == b',').nth(1).unwrap_or(b" ");
        let mut moved = cx.src[result.result.span.start..result.result.span.end].to_vec();
        moved.push(b',');
        moved.extend_from_slice(sep);
        Some(vec![
            Edit::delete(base + prev_end, result.result.span.end),
            Edit::insert(base + insert_at, moved),
        ])
    }

    fn provider_error(&self, defect: &Defect) -> Option<String> {
        let dangling = |id: &str| {
            format!(
                "Anthropic would reject this: \"`tool_use` ids were found without `tool_result` blocks immediately after: {id}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.\""
            )
        };
        Some(match defect {
            Defect::Dangling { call, .. } => dangling(call.call.id.as_deref().unwrap_or("")),
            Defect::Orphan { result, .. } => {
                let id = result.result.id.as_deref().unwrap_or("");
                if id.starts_with("srvtoolu_") || id.starts_with("mcptoolu_") {
                    return None;
                }
                format!(
                    "Anthropic would reject this: \"unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.\""
                )
            }
            Defect::Misplaced { call, result } if result.message == call.message + 1 => {
                "Anthropic would reject this: \"Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.\" (other content comes before this result)".into()
            }
            Defect::Misplaced { call, .. } => dangling(call.call.id.as_deref().unwrap_or("")),
            Defect::DuplicateResult { result, .. } => format!(
                "Anthropic would reject this: \"each tool_use must have a single result. Found multiple `tool_result` blocks with id: {}\"",
                result.result.id.as_deref().unwrap_or("")
            ),
            Defect::DuplicateCallId { .. } | Defect::ReusedCallId { .. } => {
                "Anthropic would reject this: \"`tool_use` ids must be unique\"".into()
            }
            Defect::MissingToolName { .. } => {
                "Anthropic would reject this: \"tool_use.name: String should have at least 1 character\"".into()
            }
            _ => return None,
        })
    }
}

/// The placeholder `tool_result` block for one dangling call. Key order (and whether
/// `content` is a string or a list of text blocks) follows the file's own results. No synthetic
/// marker is added: the API rejects unknown fields in content blocks.
fn result_block(cx: &RepairCx<'_>, call: &Call, sample: Option<&Tree<'_>>) -> J {
    let text = cx.text(call);
    let list = sample.is_some_and(|t| {
        t.get(t.root(), "content")
            .is_some_and(|c| t.kind(c) == Kind::Array)
    });
    let like = sample.map(|t| member_names(t, t.root()));
    let sorted = sorts_keys(cx, like.as_deref());
    let content = if list {
        J::Arr(vec![ordered(
            vec![("type", J::str("text")), ("text", J::str(text))],
            None,
            sorted,
        )])
    } else {
        J::str(text)
    };
    ordered(
        vec![
            ("type", J::str("tool_result")),
            ("tool_use_id", cx.id_token(call)),
            ("content", content),
            ("is_error", J::Bool(true)),
        ],
        like.as_deref(),
        sorted,
    )
}

/// The first result block of the conversation accepted by `want`, parsed on its own: the
/// model for the placeholders' key order and layout.
pub(super) fn sample_block<'a>(
    cx: &RepairCx<'a>,
    want: impl Fn(&Tree<'a>, NodeId) -> bool,
) -> Option<Tree<'a>> {
    cx.conv
        .messages
        .iter()
        .flat_map(|m| &m.results)
        .filter(|r| !r.whole_message)
        .filter_map(|r| parse(&cx.src[r.span.start..r.span.end]).ok())
        .find(|t| want(t, t.root()))
}

/// A new user message holding `blocks`, inserted right after the calling message (`role` and
/// `content` in that message's order).
pub(super) fn new_user_message(cx: &RepairCx<'_>, blocks: Vec<J>) -> Edit {
    let like = cx.reparse(cx.anchor).map(|t| member_names(&t, t.root()));
    let fields = vec![("role", J::str("user")), ("content", J::Arr(blocks))];
    let msg = ordered(fields, like.as_deref(), false);
    cx.insert_after(cx.anchor, &[msg])
}

/// Insert `blocks` into the content array of the user message `next` at the element index
/// chosen by `position` (after its existing results; the front with `--profile deerflow`'s
/// `before_results`), in the array's own layout. `None` when its content is not an array.
pub(super) fn merge_blocks(
    cx: &RepairCx<'_>,
    next: &Message,
    position: impl Fn(&Tree<'_>, &[NodeId]) -> usize,
    blocks: &[J],
) -> Option<Edit> {
    let tree = cx.reparse(next)?;
    let array = content_blocks(&tree, tree.root())?;
    let src = tree.src();
    let base = next.span.start;
    let elems: Vec<NodeId> = tree.children(array).collect();
    let Some(&first) = elems.first() else {
        return Some(fill_empty(cx, next, &tree, array, blocks, base));
    };
    let style = Style::like(&tree, first);
    // The separator between two elements; with a single element, a line break like the one
    // after `[`, or the file's own comma spelling.
    let between = match elems.get(1) {
        Some(&second) => bytes_text(&src[tree.span(first).1..tree.span(second).0]),
        None => {
            let lead = bytes_text(&src[tree.span(array).0 + 1..tree.span(first).0]);
            if lead.contains('\n') {
                format!(",{lead}")
            } else {
                style.comma.clone()
            }
        }
    };
    let at = if cx.options.before_results {
        0
    } else {
        position(&tree, &elems).min(elems.len())
    };
    let rendered: Vec<String> = blocks.iter().map(|b| b.render(&style)).collect();
    Some(if at == 0 {
        let mut text = rendered.join(&between);
        text.push_str(&between);
        Edit::insert(base + tree.span(first).0, text)
    } else {
        let text: String = rendered.iter().map(|r| format!("{between}{r}")).collect();
        Edit::insert(base + tree.span(elems[at - 1]).1, text)
    })
}

/// Fill an empty content array (`[]`) with `blocks`, laid out like the message around it.
fn fill_empty(
    cx: &RepairCx<'_>,
    next: &Message,
    tree: &Tree<'_>,
    array: NodeId,
    blocks: &[J],
    base: usize,
) -> Edit {
    let mut style = cx.style_of(next);
    let (start, end) = tree.span(array);
    let text = match style.indent.clone() {
        Some(unit) => {
            let close = format!("{}{}{}", style.newline, style.base, unit);
            style.base = format!("{}{unit}{unit}", style.base);
            let open = format!("{}{}", style.newline, style.base);
            let items: Vec<String> = blocks.iter().map(|b| b.render(&style)).collect();
            format!("[{open}{}{close}]", items.join(&format!(",{open}")))
        }
        None => {
            let items: Vec<String> = blocks.iter().map(|b| b.render(&style)).collect();
            format!("[{}]", items.join(&style.comma))
        }
    };
    Edit::replace(base + start, base + end, text)
}

fn bytes_text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn claims(src: &str) -> Option<&'static str> {
        let t = parse(src.as_bytes()).unwrap();
        Anthropic.claims(&t, t.root())
    }

    #[test]
    fn claims_block_messages_only() {
        assert!(
            claims(r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}"#)
                .is_some()
        );
        assert!(
            claims(r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}"#)
                .is_some()
        );
        assert!(
            claims(r#"{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"s"}]}"#)
                .is_some()
        );
        for openai in [
            r#"{"role":"user","content":"hi"}"#,
            r#"{"role":"user","content":[{"type":"text","text":"hi"}]}"#,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}"#,
            r#"{"role":"tool","tool_call_id":"c","content":"ok"}"#,
            r#"{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"n","input":{}}}]}"#,
        ] {
            assert_eq!(claims(openai), None, "{openai}");
        }
    }

    #[test]
    fn reads_leading_results_and_server_tools() {
        let src = br#"[{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_9","content":{}},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1"},{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"toolu_2"}]}]"#;
        let t = parse(src).unwrap();
        let cursor = super::super::Cursor::default();
        let cx = ReadCx {
            pointer: "/0".into(),
            ..ReadCx::new(0, 1, &cursor)
        };
        let a = Anthropic.read(&t, t.index(0, 0).unwrap(), &cx).unwrap();
        assert_eq!(a.role, Role::Assistant);
        let servers: Vec<_> = a
            .calls
            .iter()
            .map(|c| (c.kind.as_str(), c.server))
            .collect();
        assert_eq!(servers, [("server_tool_use", true), ("tool_use", false)]);
        // Only the unpaired inline server result enters the walk.
        assert_eq!(a.results.len(), 1);
        assert_eq!(a.results[0].id.as_deref(), Some("srvtoolu_9"));
        assert_eq!(a.calls[1].pos.pointer, "/0/content/3");
        let u = Anthropic.read(&t, t.index(0, 1).unwrap(), &cx).unwrap();
        let leading: Vec<_> = u.results.iter().map(|r| r.leading).collect();
        assert_eq!(leading, [true, false]);
        let s = Anthropic
            .read(
                &parse(br#"{"role":"user","content":"hi"}"#).unwrap(),
                0,
                &cx,
            )
            .unwrap();
        assert!(s.results.is_empty() && s.calls.is_empty());
    }
}
