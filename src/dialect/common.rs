//! Reading helpers shared by the dialects: member lookups by kind, the OpenAI-style role
//! names, and the neutral [`Message`], [`Call`] and [`ToolResult`] built from the nodes that
//! hold them.

use crate::json::{Kind, NodeId, Tree};
use crate::model::{Call, Message, Role, Span, ToolResult};

use super::{Cursor, ReadCx};

/// The role of an OpenAI-style message (also Anthropic's and Bedrock's role names).
pub(super) fn role_of(name: &str) -> Role {
    role_named(name.as_bytes())
}

/// [`role_of`] the name `name` (bytes that are not UTF-8 name no role).
pub(super) fn role_named(name: &[u8]) -> Role {
    match name {
        b"assistant" | b"ai" | b"model" => Role::Assistant,
        b"tool" => Role::Tool,
        b"user" | b"human" => Role::User,
        b"system" | b"developer" => Role::System,
        _ => Role::Other,
    }
}

/// The value of member `key` of `node` when it is an array.
pub(super) fn array_at(tree: &Tree<'_>, node: NodeId, key: &str) -> Option<NodeId> {
    tree.get(node, key).filter(|&v| tree.kind(v) == Kind::Array)
}

/// The value of member `key` of `node` when it is an object.
pub(super) fn object_at(tree: &Tree<'_>, node: NodeId, key: &str) -> Option<NodeId> {
    tree.get(node, key)
        .filter(|&v| tree.kind(v) == Kind::Object)
}

/// The decoded value of `node` when it is a string.
pub(super) fn string(tree: &Tree<'_>, node: Option<NodeId>) -> Option<String> {
    node.and_then(|v| tree.str(v)).map(|s| s.into_owned())
}

/// The message object `node` with its `role` read by [`role_of`] ([`Role::Other`] without
/// one); `None` when `node` is not an object.
pub(super) fn role_message(tree: &Tree<'_>, node: NodeId, cx: &ReadCx<'_>) -> Option<Message> {
    if tree.kind(node) != Kind::Object {
        return None;
    }
    // Compared as written unless it has escapes: a role is read for every message.
    let role = tree
        .get(node, "role")
        .map_or(Role::Other, |r| match tree.plain_bytes(r) {
            Some(name) => role_named(name),
            None => tree.str(r).map_or(Role::Other, |name| role_of(&name)),
        });
    Some(cx.message(tree, node, role))
}

impl<'a> ReadCx<'a> {
    /// The context of a tree whose source starts at byte `base` of the document, on line
    /// `line`, read from its root (an empty pointer).
    pub fn new(base: usize, line: usize, cursor: &'a Cursor) -> ReadCx<'a> {
        ReadCx {
            base,
            line,
            pointer: String::new(),
            cursor,
        }
    }

    /// An empty message of `role` at `node` (the element being read).
    pub fn message(&self, tree: &Tree<'_>, node: NodeId, role: Role) -> Message {
        Message::new(role, self.pos(tree, node, ""), self.span(tree, node))
    }

    /// Absolute span of `node` when it is a string (an id token copied verbatim on repair).
    pub fn string_span(&self, tree: &Tree<'_>, node: Option<NodeId>) -> Option<Span> {
        node.filter(|&v| tree.kind(v) == Kind::String)
            .map(|v| self.span(tree, v))
    }

    /// A client-side call of `kind` at `at` (pointer: the element's plus `suffix`), its id
    /// the string `id` (none when `id` is missing or not a string); no name yet.
    pub fn call(
        &self,
        tree: &Tree<'_>,
        at: NodeId,
        suffix: &str,
        id: Option<NodeId>,
        kind: &str,
    ) -> Call {
        Call {
            id: string(tree, id),
            name: None,
            pos: self.pos(tree, at, suffix),
            id_span: self.string_span(tree, id),
            kind: kind.to_string(),
            server: false,
        }
    }

    /// A leading result at `at` (pointer: the element's plus `suffix`) spanning `at`, its id
    /// the string `id`; no name, not the whole message.
    pub fn result(
        &self,
        tree: &Tree<'_>,
        at: NodeId,
        suffix: &str,
        id: Option<NodeId>,
    ) -> ToolResult {
        ToolResult {
            id: string(tree, id),
            name: None,
            pos: self.pos(tree, at, suffix),
            id_span: self.string_span(tree, id),
            span: self.span(tree, at),
            leading: true,
            whole_message: false,
            split: None,
        }
    }
}
