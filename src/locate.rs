//! Finding the message lists (conversations) inside a JSON value: known envelopes, records of
//! trajectories, or an explicit `--at` pointer with `*` wildcards.

use crate::json::{Kind, NodeId, Tree};
use crate::model::pointer_token;

/// A message list found in a value, or a set of message objects gathered by `--at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// JSON Pointer of the list (or of the first gathered message).
    pub pointer: String,
    /// The array holding the messages, or `None` when `messages` were gathered one by one.
    pub array: Option<NodeId>,
    /// Gathered message objects and their pointers (when `array` is `None`).
    pub messages: Vec<(NodeId, String)>,
    /// How it was found.
    pub how: String,
}

/// The keys `envelope` looks for, in the order tried: first the [`LISTS`] keys under which an
/// object keeps its message list, then the keys of wrapper objects whose inside is searched
/// again (LangGraph thread exports, batch request lines).
const ENVELOPE_KEYS: [&str; 15] = [
    "messages",
    "input",
    "contents",
    "history",
    "chat_history",
    "conversation",
    "traj",
    "trajectory",
    "items",
    "values",
    "body",
    "params",
    "request",
    "state",
    "data",
];

/// How many of [`ENVELOPE_KEYS`] name message lists (the rest name wrappers).
const LISTS: usize = 9;

/// The first member of the object `node` named each of `keys`, found in one pass over its
/// members (all `None` when `node` is not an object). Equivalent to calling
/// [`Tree::get`] once per key.
pub fn members_named<const N: usize>(
    tree: &Tree<'_>,
    node: NodeId,
    keys: &[&str; N],
) -> [Option<NodeId>; N] {
    // The lengths of the keys (one bit each, the last for 63 bytes and more): most members
    // are ruled out by their length alone.
    let bit = |len: usize| 1u64 << len.min(63);
    let lengths = keys.iter().fold(0, |m, k| m | bit(k.len()));
    members_by(tree, node, |key| {
        if lengths & bit(key.len()) == 0 {
            return None;
        }
        keys.iter()
            .position(|k| k.len() == key.len() && crate::json::same(k.as_bytes(), key))
    })
}

/// The first member of the object `node` that `slot` numbers, for each number below `N`, found
/// in one pass over its members (all `None` when `node` is not an object). `slot` sees each key
/// as written, or decoded when it has escapes (as [`Tree::get`] compares it).
#[inline(always)]
pub fn members_by<const N: usize>(
    tree: &Tree<'_>,
    node: NodeId,
    slot: impl Fn(&[u8]) -> Option<usize>,
) -> [Option<NodeId>; N] {
    let mut out = [None; N];
    if tree.kind(node) != Kind::Object {
        return out;
    }
    let mut left = N;
    for member in tree.children(node) {
        let hit = match tree.key_raw(member) {
            None => continue,
            Some((_, true)) => slot(tree.key(member).unwrap_or_default().as_bytes()),
            Some((raw, false)) => slot(raw),
        };
        if let Some(i) = hit
            && out[i].is_none()
        {
            out[i] = Some(member);
            left -= 1;
            if left == 0 {
                break;
            }
        }
    }
    out
}

/// Does `node` look like one message (or Responses item, or Gemini content)?
pub fn looks_like_message(tree: &Tree<'_>, node: NodeId) -> bool {
    if tree.kind(node) != Kind::Object {
        return false;
    }
    // Most messages start with their `role`: then nothing else is needed.
    if role_first(tree, node) {
        return true;
    }
    let [
        role,
        parts,
        lc,
        ty,
        content,
        data,
        call_id,
        summary,
        source,
        rest @ ..,
    ] = members_named(
        tree,
        node,
        &[
            "role",
            "parts",
            "lc",
            "type",
            "content",
            "data",
            "call_id",
            "summary",
            "source",
            EVENT_KEYS[0],
            EVENT_KEYS[1],
            EVENT_KEYS[2],
            EVENT_KEYS[3],
            EVENT_KEYS[4],
        ],
    );
    let event = source.is_some() && rest.iter().any(Option::is_some);
    role.is_some()
        || parts.is_some()
        || event
        || lc.is_some()
        || (ty.is_some()
            && (content.is_some() || data.is_some() || call_id.is_some() || summary.is_some()))
}

/// Does the object `node`'s first member name its `role`?
fn role_first(tree: &Tree<'_>, node: NodeId) -> bool {
    tree.children(node)
        .next()
        .and_then(|first| tree.key_raw(first))
        .is_some_and(|(key, _)| key == b"role")
}

/// The keys of which one, with `source`, makes an OpenHands event.
const EVENT_KEYS: [&str; 5] = [
    "action",
    "observation",
    "tool_call_id",
    "llm_message",
    "system_prompt",
];

/// An OpenHands event: `{"source", "action"}` or `{"source", "observation"}`, or an event of
/// the V1 SDK that is sent to the model (`{"kind", "source", "tool_call_id"|"llm_message"|…}`).
fn is_event(tree: &Tree<'_>, node: NodeId) -> bool {
    tree.get(node, "source").is_some() && EVENT_KEYS.iter().any(|k| tree.get(node, k).is_some())
}

fn is_message_list(tree: &Tree<'_>, node: NodeId) -> bool {
    tree.kind(node) == Kind::Array
        && (tree.is_empty(node) || tree.children(node).any(|c| looks_like_message(tree, c)))
}

/// The message list held by an object through its known keys and wrappers, found under
/// `pointer`.
fn envelope(tree: &Tree<'_>, node: NodeId, pointer: &str) -> Option<Found> {
    let path = envelope_path(tree, node, 0)?;
    let keys = &path.keys[..path.len];
    let mut at = pointer.to_owned();
    for key in keys {
        at.push('/');
        at.push_str(key);
    }
    let (list_key, wrappers) = keys.split_last()?;
    let mut how = format!("the `{list_key}` list");
    for key in wrappers.iter().rev() {
        how.push_str(" inside `");
        how.push_str(key);
        how.push('`');
    }
    Some(Found {
        pointer: at,
        array: Some(path.list),
        messages: Vec::new(),
        how,
    })
}

/// The way from an object to the message list it holds: the keys of its wrappers, then the
/// list's key.
struct EnvelopePath {
    /// The key taken at each depth (the first `len`).
    keys: [&'static str; MAX_DEPTH + 2],
    len: usize,
    list: NodeId,
}

/// How many wrappers deep a message list is looked for.
const MAX_DEPTH: usize = 3;

/// The [`EnvelopePath`] from `node`, `depth` wrappers deep, to its message list (nothing is
/// written for the wrappers tried in vain).
fn envelope_path(tree: &Tree<'_>, node: NodeId, depth: usize) -> Option<EnvelopePath> {
    if tree.kind(node) != Kind::Object || depth > MAX_DEPTH {
        return None;
    }
    // Both kinds of key in one pass over the members: lists first, then wrappers.
    let found = members_named(tree, node, &ENVELOPE_KEYS);
    let (keys, nodes) = (ENVELOPE_KEYS.split_at(LISTS), found.split_at(LISTS));
    for (key, list) in keys.0.iter().zip(nodes.0) {
        if let Some(list) = *list
            && is_message_list(tree, list)
        {
            let mut path = EnvelopePath {
                keys: [""; MAX_DEPTH + 2],
                len: depth + 1,
                list,
            };
            path.keys[depth] = key;
            return Some(path);
        }
    }
    for (key, inner) in keys.1.iter().zip(nodes.1) {
        if let Some(inner) = *inner
            && let Some(mut path) = envelope_path(tree, inner, depth + 1)
        {
            path.keys[depth] = key;
            return Some(path);
        }
    }
    None
}

/// Is `node` (a whole line of JSON Lines) a conversation rather than a single message?
pub fn is_conversation(tree: &Tree<'_>, node: NodeId) -> bool {
    match tree.kind(node) {
        Kind::Array => true,
        // The cheapest test first: a message starting with its role is none; then the
        // envelope, which most other lines (a Claude Code session's) lack.
        Kind::Object => {
            !role_first(tree, node)
                && envelope_path(tree, node, 0).is_some()
                && !looks_like_message(tree, node)
        }
        _ => false,
    }
}

/// Find the conversations in a value automatically.
pub fn auto(tree: &Tree<'_>, root: NodeId) -> Vec<Found> {
    match tree.kind(root) {
        Kind::Array => {
            if is_message_list(tree, root) {
                return vec![Found {
                    pointer: String::new(),
                    array: Some(root),
                    messages: Vec::new(),
                    how: "a top-level array of messages".into(),
                }];
            }
            let records: Vec<Found> = tree
                .children(root)
                .enumerate()
                .filter_map(|(i, rec)| {
                    envelope(tree, rec, &format!("/{i}")).map(|mut f| {
                        f.how = format!("{} of record {i}", f.how);
                        f
                    })
                })
                .collect();
            records
        }
        Kind::Object => match envelope(tree, root, "") {
            Some(f) => vec![f],
            // A SWE-agent retry run saved before it chose an attempt: `{"attempts": [{"history":
            // […]}, …]}` (once chosen, the top-level `history` is a copy of the best one).
            None if tree
                .get(root, "attempts")
                .is_some_and(|a| tree.kind(a) == Kind::Array) =>
            {
                let attempts = tree.get(root, "attempts").unwrap_or(root);
                tree.children(attempts)
                    .enumerate()
                    .filter_map(|(i, rec)| {
                        envelope(tree, rec, &format!("/attempts/{i}")).map(|mut f| {
                            f.how = format!("{} of attempt {i}", f.how);
                            f
                        })
                    })
                    .collect()
            }
            // OpenHands keeps one event per file (`sessions/<id>/events/<n>.json`).
            None if is_event(tree, root) => vec![Found {
                pointer: String::new(),
                array: None,
                messages: vec![(root, String::new())],
                how: "one OpenHands event (OpenHands keeps one event per file)".into(),
            }],
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// Find the conversations at `--at POINTER` (`*` matches every array element or member).
/// Arrays found are message lists; objects found are gathered, in order, into one list.
pub fn at(tree: &Tree<'_>, root: NodeId, pattern: &str) -> Result<Vec<Found>, String> {
    if !pattern.is_empty() && !pattern.starts_with('/') {
        return Err(format!(
            "--at `{pattern}` is not a JSON Pointer (it must start with `/`)"
        ));
    }
    let tokens: Vec<String> = pattern
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut hits = vec![(root, String::new())];
    for tok in &tokens {
        let mut next = Vec::new();
        for (node, ptr) in hits {
            match tree.kind(node) {
                Kind::Array if tok == "*" => next.extend(
                    tree.children(node)
                        .enumerate()
                        .map(|(i, c)| (c, format!("{ptr}/{i}"))),
                ),
                Kind::Array => {
                    if let Some(c) = tok.parse().ok().and_then(|i| tree.index(node, i)) {
                        next.push((c, format!("{ptr}/{tok}")));
                    }
                }
                Kind::Object if tok == "*" => next.extend(
                    tree.members(node)
                        .map(|(k, c)| (c, format!("{ptr}/{}", pointer_token(&k)))),
                ),
                Kind::Object => {
                    if let Some(c) = tree.get(node, tok) {
                        next.push((c, format!("{ptr}/{}", pointer_token(tok))));
                    }
                }
                _ => {}
            }
        }
        hits = next;
    }
    if hits.is_empty() {
        return Err(format!("--at `{pattern}` matches nothing"));
    }
    let (arrays, objects): (Vec<_>, Vec<_>) = hits
        .into_iter()
        .partition(|(n, _)| tree.kind(*n) == Kind::Array);
    let mut found: Vec<Found> = arrays
        .into_iter()
        .map(|(n, p)| Found {
            pointer: p,
            array: Some(n),
            messages: Vec::new(),
            how: format!("--at {pattern}"),
        })
        .collect();
    if !objects.is_empty() {
        found.push(Found {
            pointer: objects[0].1.clone(),
            array: None,
            messages: objects.clone(),
            how: format!("{} messages gathered by --at {pattern}", objects.len()),
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn members_are_found_as_tree_get_finds_them() {
        let src = br#"{"a":1,"b\u0061":2,"a":3,"c":"x","bb":4}"#;
        let tree = parse(src).unwrap();
        let slot = |k: &[u8]| match k {
            b"a" => Some(0),
            b"ba" => Some(1),
            b"c" => Some(2),
            b"d" => Some(3),
            _ => None,
        };
        let found = members_by::<4>(&tree, tree.root(), slot);
        let want = ["a", "ba", "c", "d"].map(|k| tree.get(tree.root(), k));
        assert_eq!(found, want);
        assert!(found[1].is_some());
    }

    #[test]
    fn agrees_with_get() {
        let t = parse(br#"{"a":1,"b":2,"a":3,"c\u0064":4,"":5,"\u00e9":6}"#).unwrap();
        let r = t.root();
        let keys = ["a", "b", "cd", "", "é", "z"];
        let got = members_named(&t, r, &keys);
        for (k, g) in keys.iter().zip(got) {
            assert_eq!(g, t.get(r, k), "{k}");
        }
        let arr = parse(b"[1]").unwrap();
        assert_eq!(members_named(&arr, arr.root(), &["a"]), [None]);
    }

    #[test]
    fn envelopes() {
        let t = parse(br#"{"values": {"messages": [{"type": "ai", "content": ""}]}}"#).unwrap();
        let f = auto(&t, 0);
        assert_eq!(f[0].pointer, "/values/messages");
        let t =
            parse(br#"[{"task_id": 1, "traj": [{"role": "user", "content": "x"}]}, {"traj": []}]"#)
                .unwrap();
        let f = auto(&t, 0);
        assert_eq!(
            f.iter().map(|f| f.pointer.as_str()).collect::<Vec<_>>(),
            ["/0/traj", "/1/traj"]
        );
        let t = parse(br#"{"custom_id": "a", "body": {"model": "m", "messages": []}}"#).unwrap();
        assert_eq!(auto(&t, 0)[0].pointer, "/body/messages");
    }

    #[test]
    fn at_pointer_with_wildcards() {
        let t = parse(br#"{"turns": [{"output": {"type": "ai", "content": ""}}, {"output": {"type": "ai", "content": ""}}]}"#).unwrap();
        let f = at(&t, 0, "/turns/*/output").unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].messages.len(), 2);
        assert!(at(&t, 0, "/nope").is_err());
        assert!(at(&t, 0, "turns").is_err());
    }
}
