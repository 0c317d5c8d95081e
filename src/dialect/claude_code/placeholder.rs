//! Claude Code repair: placeholder result lines for dangling calls, spliced into the
//! `parentUuid` chain.

use std::borrow::Cow;

use crate::analysis::{CallAt, ResultAt};
use crate::dialect::DropLine;
use crate::edit::{Edit, RepairCx};
use crate::json::{J, Style, Tree, parse};
use crate::model::{Container, Span};

use crate::dialect::layout::{member_names, order_keys};

/// Envelope fields a placeholder copies from its calling line (timestamp included: repair
/// never reads the clock).
const ENVELOPE: &[&str] = &[
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "agentId",
    "slug",
    "entrypoint",
    "timestamp",
];

/// Key order of a placeholder line when the file has no result line to mirror (Claude Code's
/// own order for tool result lines).
const CANONICAL: &[&str] = &[
    "parentUuid",
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "agentId",
    "slug",
    "type",
    "message",
    "uuid",
    "timestamp",
    "toolUseResult",
];

/// Key order of a `tool_result` block when there is nothing to mirror.
const BLOCK: &[&str] = &["type", "tool_use_id", "content", "is_error"];

/// Edits inserting one placeholder line per dangling call of one API message (see the module
/// documentation of `claude_code` for where they go).
pub(super) fn insert(cx: &RepairCx<'_>, calls: &[&CallAt]) -> Option<Vec<Edit>> {
    let messages = &cx.conv.messages;
    let mut end = calls.iter().map(|c| c.holder).max()?;
    while messages.get(end + 1).is_some_and(|m| m.continuation) {
        end += 1;
    }
    let after = &messages[end];
    let after_tree = cx.reparse(after)?;
    let parent = after_tree
        .get_str(after_tree.root(), "uuid")
        .map(|s| s.into_owned());
    let sample = sample(cx);
    let mut items = Vec::with_capacity(calls.len());
    let mut prev = parent.clone();
    for call in calls {
        let holder = cx.reparse(&messages[call.holder])?;
        let uuid = derive_uuid(&holder, call);
        items.push(line(
            cx,
            &holder,
            sample.as_ref(),
            call,
            prev.as_deref(),
            &uuid,
        ));
        prev = Some(uuid);
    }
    let mut edits = vec![cx.insert_after(after, &items)];
    if let (Some(parent), Some(last)) = (parent, prev)
        && let Some(span) = next_link(cx, after, &parent)
    {
        let token = J::str(last).render(&Style::default());
        edits.push(Edit::replace(span.start, span.end, token));
    }
    Some(edits)
}

/// One placeholder line: the calling line's envelope, a user message with one error
/// `tool_result`, in the key order of the file's own result lines.
fn line(
    cx: &RepairCx<'_>,
    holder: &Tree<'_>,
    sample: Option<&Tree<'_>>,
    call: &CallAt,
    parent: Option<&str>,
    uuid: &str,
) -> J {
    let root = holder.root();
    let text = cx.text(&call.call);
    let mut order: Vec<String> = match sample {
        Some(t) => member_names(t, t.root()),
        None => CANONICAL.iter().map(|k| k.to_string()).collect(),
    };
    // Whatever the sample lacks still goes in, in canonical order (except `toolUseResult`,
    // which only follows the file's own lines).
    let extra: Vec<String> = CANONICAL[..CANONICAL.len() - 1]
        .iter()
        .filter(|k| !order.iter().any(|o| o == *k))
        .map(|k| k.to_string())
        .collect();
    order.extend(extra);
    let mut fields: Vec<(String, J)> = Vec::new();
    for key in order {
        let value = match key.as_str() {
            "parentUuid" => parent.map_or(J::Null, J::str),
            "uuid" => J::str(uuid),
            "type" => J::str("user"),
            "message" => J::obj([
                ("role", J::str("user")),
                ("content", J::Arr(vec![block(cx, sample, call, &text)])),
            ]),
            "toolUseResult" => J::str(format!("Error: {text}")),
            "sourceToolAssistantUUID" => match holder.get(root, "uuid") {
                Some(v) => J::Raw(holder.raw_str(v).into_owned()),
                None => continue,
            },
            "sourceToolUseID" => cx.id_token(&call.call),
            k if ENVELOPE.contains(&k) => match holder.get(root, k) {
                Some(v) => J::Raw(holder.raw_str(v).into_owned()),
                None => continue,
            },
            _ => continue,
        };
        if !fields.iter().any(|(k, _)| *k == key) {
            fields.push((key, value));
        }
    }
    if let Some(marker) = cx.marker() {
        fields.push(("toolmendSynthetic".into(), marker));
    }
    J::Obj(fields)
}

/// The error `tool_result` block, keys in the order of the sample's first block.
fn block(cx: &RepairCx<'_>, sample: Option<&Tree<'_>>, call: &CallAt, text: &str) -> J {
    let first = sample
        .and_then(|t| {
            let first = t.index(t.path(t.root(), &["message", "content"])?, 0)?;
            Some(member_names(t, first))
        })
        .unwrap_or_default();
    J::Obj(
        order_keys(&first, BLOCK)
            .into_iter()
            .map(|k| {
                let value = match k.as_str() {
                    "type" => J::str("tool_result"),
                    "tool_use_id" => cx.id_token(&call.call),
                    "content" => J::str(text),
                    _ => J::Bool(true),
                };
                (k, value)
            })
            .collect(),
    )
}

/// A UUID-shaped id derived from the session, the calling line and the call: the same call
/// always gets the same placeholder id, so repair stays deterministic.
pub(crate) fn derive_uuid(holder: &Tree<'_>, call: &CallAt) -> String {
    let root = holder.root();
    let field = |k: &str| holder.get_str(root, k).unwrap_or_default().into_owned();
    let input = format!(
        "toolmend\0{}\0{}\0{}\0{}",
        field("sessionId"),
        field("uuid"),
        call.slot,
        call.call.id.as_deref().unwrap_or("")
    );
    // FNV-1a, 128 bits.
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for b in input.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    // Shape it as a version 8 (custom) UUID with the RFC 4122 variant.
    h = (h & !(0xf << 76)) | (0x8 << 76);
    h = (h & !(0x3 << 62)) | (0x2 << 62);
    super::intern::uuid_text(h)
}

/// A result line of the file to mirror: the conversation's own first, else the first in the
/// document (a subagent may have none of its own yet).
fn sample<'a>(cx: &RepairCx<'a>) -> Option<Tree<'a>> {
    if let Some(tree) = cx.sample_result().and_then(|m| cx.reparse(m)) {
        return Some(tree);
    }
    records(cx, 0).find_map(|(start, end)| {
        let bytes = &cx.src[start..end];
        memchr::memmem::find(bytes, b"tool_result")?;
        let tree = parse(bytes).ok()?;
        is_result_line(&tree).then_some(tree)
    })
}

/// Is the parsed line `tree` one a placeholder mirrors when its conversation has no result
/// message of its own: a message whose content is one `tool_result` block?
pub(crate) fn is_result_line(tree: &Tree<'_>) -> bool {
    let Some(content) = tree.path(tree.root(), &["message", "content"]) else {
        return false;
    };
    tree.index(content, 0)
        .is_some_and(|block| tree.len(content) == 1 && tree.str_is(block, "type", "tool_result"))
}

/// The `parentUuid` of the line the resumed history continues with after `after`, when that
/// line hangs from it (`parent` is its uuid): the first later line that names it, unless the
/// chain found another (see `Chain::next_lines`).
fn next_link(cx: &RepairCx<'_>, after: &crate::model::Message, parent: &str) -> Option<Span> {
    let line = memchr::memrchr(b'\n', &cx.src[..after.span.start]).map_or(0, |k| k + 1);
    match super::chain::next_line_of(&cx.conv.next_lines, line, after.span.start) {
        Some(start) => {
            let (_, end) = records(cx, start).next()?;
            parent_link(&cx.src[start..end], parent).map(|s| s.shift(start))
        }
        None => child_link(cx, after.span.end, parent),
    }
}

/// The span of the `parentUuid` value of the first record after `from` whose parent is
/// `parent`: the line the placeholders are spliced in front of.
fn child_link(cx: &RepairCx<'_>, from: usize, parent: &str) -> Option<Span> {
    // Quick byte search first; escaped spellings are compared after parsing.
    let needle = parent.as_bytes();
    let plain = !parent.contains(['\\', '"']) && !parent.chars().any(char::is_control);
    let next_line = memchr::memchr(b'\n', &cx.src[from..]).map_or(cx.src.len(), |k| from + k + 1);
    let from = match cx.conv.container {
        Container::Lines => next_line,
        _ => from,
    };
    records(cx, from).find_map(|(start, end)| {
        let bytes = &cx.src[start..end];
        if plain && memchr::memmem::find(bytes, needle).is_none() {
            return None;
        }
        parent_link(bytes, parent).map(|s| s.shift(start))
    })
}

/// The span (within `record`) of the `parentUuid` value of the record `record` when that
/// value is the string `parent`.
pub(crate) fn parent_link(record: &[u8], parent: &str) -> Option<Span> {
    let tree = parse(record).ok()?;
    let link = tree
        .get(tree.root(), "parentUuid")
        .filter(|&v| tree.str(v).is_some_and(|p| p == parent))?;
    Some(Span::new(tree.span(link)))
}

/// Byte ranges of the records (lines, or array elements) that start at or after `from` (for
/// lines, `from` is the start of a line).
fn records<'s>(cx: &RepairCx<'s>, from: usize) -> Box<dyn Iterator<Item = (usize, usize)> + 's> {
    let src = cx.src;
    match cx.conv.container {
        Container::Lines => {
            let mut at = from;
            Box::new(std::iter::from_fn(move || {
                if at >= src.len() {
                    return None;
                }
                let nl = memchr::memchr(b'\n', &src[at..]).map_or(src.len(), |k| at + k);
                let end = if nl > at && src[nl - 1] == b'\r' {
                    nl - 1
                } else {
                    nl
                };
                let line = (at, end);
                at = nl + 1;
                Some(line)
            }))
        }
        Container::Array { span } => {
            let Ok(tree) = parse(&src[span.start..span.end]) else {
                return Box::new(std::iter::empty());
            };
            let elements: Vec<(usize, usize)> = tree
                .children(tree.root())
                .map(|c| Span::new(tree.span(c)).shift(span.start))
                .filter(|s| s.start >= from)
                .map(|s| (s.start, s.end))
                .collect();
            Box::new(elements.into_iter())
        }
        Container::Scattered => Box::new(std::iter::empty()),
    }
}

/// The orphan result `result` removed with its line, when the line holds nothing else (a
/// line of one `tool_result` block): the lines hanging from it hang from its parent instead, so
/// the history below it stays. `None` (kept) otherwise.
pub fn drop_result(cx: &RepairCx<'_>, result: &ResultAt) -> Option<Vec<Edit>> {
    if cx.conv.container != Container::Lines {
        return None;
    }
    let at = result.result.span.start;
    let start = memchr::memrchr(b'\n', &cx.src[..at]).map_or(0, |k| k + 1);
    let (_, end) = records(cx, start).next()?;
    let tree = parse(&cx.src[start..end]).ok()?;
    if !is_result_line(&tree) {
        return None;
    }
    let root = tree.root();
    let uuid = tree.get(root, "uuid").and_then(|u| tree.str(u))?;
    let parent = match tree.get(root, "parentUuid") {
        Some(p) if tree.kind(p) != crate::json::Kind::Null => Some(tree.str(p)?),
        _ => None,
    };
    // One pass over the other lines: those hanging from it, and whether its parent is one.
    let mut children = Vec::new();
    let mut parent_found = parent.is_none();
    for (s, e) in records(cx, 0).filter(|&(s, _)| s != start) {
        let bytes = &cx.src[s..e];
        // A quick byte search first; a text with escapes or quotes may be written otherwise.
        let has = |text: &str| {
            text.contains(['\\', '"'])
                || text.chars().any(char::is_control)
                || memchr::memmem::find(bytes, text.as_bytes()).is_some()
        };
        if let Some(p) = parent.as_deref().filter(|&p| !parent_found && has(p)) {
            parent_found =
                parse(bytes).is_ok_and(|t| t.get_str(t.root(), "uuid").as_deref() == Some(p));
        }
        if has(&uuid)
            && let Some(link) = parent_link(bytes, &uuid)
        {
            let link = link.shift(s);
            children.push((link.start, link.end));
        }
    }
    // A parent that names no other line is where the client's walk goes on by time (see
    // `chain::Joins`): the lines below would go on from another time, so the line stays.
    if !parent_found || parent.as_deref() == Some(&*uuid) {
        return None;
    }
    let drop = DropLine {
        line: (start, end),
        children,
        parent: parent.map(Cow::into_owned),
    };
    Some(drop.edits(&|e| crate::edit::line_ending(cx.src, e)))
}

/// The orphan result block `result` as a plain text block keeping its content, in place (the
/// line, its uuid and its place in the chain stay): the model reads what the tool returned
/// without a result that answers no call.
pub fn note_result(cx: &RepairCx<'_>, result: &ResultAt) -> Option<Vec<Edit>> {
    let span = result.result.span;
    let tree = parse(cx.src.get(span.start..span.end)?).ok()?;
    let block = tree.root();
    let content = match tree.get(block, "content") {
        None => String::new(),
        Some(c) => match tree.str(c) {
            Some(s) => s.into_owned(),
            None => tree
                .children(c)
                .filter_map(|b| tree.get_str(b, "text"))
                .collect::<Vec<_>>()
                .join("\n"),
        },
    };
    let id = result.result.id.as_deref().unwrap_or("");
    let note = J::obj([
        ("type", J::str("text")),
        (
            "text",
            J::str(format!(
                "[Result of tool call {id}, whose call is not in this history:]\n{content}"
            )),
        ),
    ]);
    let style = Style::like(&tree, block);
    Some(vec![Edit::replace(
        span.start,
        span.end,
        note.render(&style),
    )])
}
