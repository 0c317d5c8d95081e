//! The one list of *tool keys*: signs that a message carries tool calls or results in a form
//! a dialect must read to judge it. A message read as a dialect that does not read the sign
//! it carries is not judged at all (TM009 `unrecognized-log`, never repaired): reading it as
//! plain chat would report healthy calls as dangling, or pass a broken log in silence.
//!
//! A dialect that reads one of these keys says so with [`Dialect::reads`] (and claims such
//! messages before the dialects that do not, by its place in [`super::all`]).
//!
//! Where the signs are looked for: the message object itself, the objects under its envelope
//! keys ([`ENVELOPES`]), and the elements of their `parts` / `content` arrays. Tool output
//! nested deeper (a Claude Code `toolUseResult`, LangChain `additional_kwargs`) is not looked
//! at: it is content, not structure.

use crate::json::{Kind, NodeId, Tree};

use super::Dialect;
use super::gate::Keys;
use crate::locate::members_named;

/// A sign of tool calls or results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolKey {
    /// The sign's name, as [`Dialect::reads`] is asked about it: the key, or `key: value`.
    pub name: &'static str,
    /// The object key.
    pub key: &'static str,
    /// The string values that make it a sign (empty: any non-empty value).
    pub values: &'static [&'static str],
    /// What it is, for the finding's message.
    pub what: &'static str,
}

/// Every tool key toolmend knows to look for.
pub const TOOL_KEYS: &[ToolKey] = &[
    ToolKey {
        name: "tool_call_ids",
        key: "tool_call_ids",
        values: &[],
        what: "a list of answered call ids (SWE-agent trajectories)",
    },
    ToolKey {
        name: "tool_call_metadata",
        key: "tool_call_metadata",
        values: &[],
        what: "tool call metadata of an agent event stream (OpenHands)",
    },
    ToolKey {
        name: "function_call",
        key: "function_call",
        values: &[],
        what: "a legacy OpenAI `function_call`",
    },
    ToolKey {
        name: "role: function",
        key: "role",
        values: &["function"],
        what: "a legacy OpenAI `role: \"function\"` result",
    },
    ToolKey {
        name: "part_kind",
        key: "part_kind",
        values: &[
            "tool-call",
            "tool-return",
            "retry-prompt",
            "builtin-tool-call",
            "builtin-tool-return",
        ],
        what: "pydantic-ai tool parts",
    },
    ToolKey {
        name: "type: tool.call",
        key: "type",
        values: &["tool.call", "tool.result", "ToolCall", "ToolResult"],
        what: "tool call / tool result events (Kimi Code wire log)",
    },
    ToolKey {
        name: "event: tool.call",
        key: "event",
        values: &["tool.call", "tool.result"],
        what: "tool call / tool result events",
    },
];

/// Keys whose object is searched like the message itself (line and item envelopes).
pub const ENVELOPES: [&str; 6] = ["message", "data", "kwargs", "payload", "item", "event"];

/// Arrays whose object elements are searched (content parts and blocks).
const PART_LISTS: [&str; 2] = ["parts", "content"];

/// The first tool key found in `node` (see the module comment for where).
pub fn find(tree: &Tree<'_>, node: NodeId) -> Option<&'static ToolKey> {
    if !may_hold_a_sign(tree.raw(node)) {
        return None;
    }
    find_in(tree, node)
}

/// [`find`], looking at the members and parts whatever the text.
fn find_in(tree: &Tree<'_>, node: NodeId) -> Option<&'static ToolKey> {
    // The message's envelopes, signs and part lists, found in one pass over its members.
    let own = members_named(tree, node, &MESSAGE_KEYS);
    // The message and the objects under its envelope keys, in that order.
    let mut objects = [node; 1 + ENVELOPES.len()];
    let mut count = 1;
    for inner in own[..ENVELOPES.len()].iter().flatten() {
        if tree.kind(*inner) == Kind::Object {
            objects[count] = *inner;
            count += 1;
        }
    }
    let objects = &objects[..count];
    let signs = std::array::from_fn(|i| own[MESSAGE_SIGN_AT[i]]);
    if let Some(k) = sign_among(tree, node, &signs) {
        return Some(k);
    }
    if let Some(k) = objects[1..].iter().find_map(|&o| sign_in(tree, o)) {
        return Some(k);
    }
    for (i, &o) in objects.iter().enumerate() {
        let lists = match i {
            0 => [own[MESSAGE_KEYS.len() - 2], own[MESSAGE_KEYS.len() - 1]],
            _ => members_named(tree, o, &PART_LISTS),
        };
        for list in lists.into_iter().flatten() {
            if tree.kind(list) != Kind::Array {
                continue;
            }
            for part in tree.children(list) {
                if tree.kind(part) == Kind::Object
                    && let Some(k) = sign_in(tree, part)
                {
                    return Some(k);
                }
            }
        }
    }
    None
}

/// Can the JSON text `raw` hold a tool key at all? A sign is a member name or a string value
/// equal to a name or value of [`TOOL_KEYS`]. None of those holds `"`, `\`, `/` or a control
/// character, what the escapes `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r` and `\t` stand for;
/// so a string equal to one is written as that very text, or with another escape (`\u`, or
/// one the tolerant reading takes as the character after the backslash). Text with neither
/// holds no sign, and a search over its bytes (most lines of a session) saves looking at
/// every member and part.
fn may_hold_a_sign(raw: &[u8]) -> bool {
    static NEEDLES: std::sync::LazyLock<Needles> = std::sync::LazyLock::new(Needles::new);
    let other_escape = || {
        memchr::memchr_iter(b'\\', raw).any(|at| {
            !matches!(
                raw.get(at + 1),
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
            )
        })
    };
    NEEDLES.in_(raw) || other_escape()
}

/// How many bytes each of [`sign_texts`] leaves out. Most tool keys begin with `tool` (and the
/// search looks for the first bytes first): searched whole, every `tool_use` and `tool_result`
/// of a Claude message would be a candidate to check.
const UNSEARCHED: usize = 3;

/// The search for [`sign_texts`]: vector instructions where the machine has them (most of a
/// message is text that holds none, which a byte-by-byte automaton would step through).
enum Needles {
    Packed(aho_corasick::packed::Searcher),
    Automaton(aho_corasick::AhoCorasick),
    /// Never built (it cannot fail for these few short texts): every text may hold a sign.
    None,
}

impl Needles {
    fn new() -> Needles {
        let texts = sign_texts();
        if let Some(s) = aho_corasick::packed::Searcher::new(texts.iter()) {
            return Needles::Packed(s);
        }
        aho_corasick::AhoCorasick::new(texts).map_or(Needles::None, Needles::Automaton)
    }

    fn in_(&self, raw: &[u8]) -> bool {
        match self {
            Needles::Packed(s) => s.find(raw).is_some(),
            Needles::Automaton(a) => a.is_match(raw),
            Needles::None => true,
        }
    }
}

/// What [`may_hold_a_sign`] searches for: the key of each tool key that any value makes a sign,
/// and the values of the others, each without its first [`UNSEARCHED`] bytes (what holds a text
/// holds its end); none that holds another (`function_call` holds `function`).
fn sign_texts() -> Vec<&'static str> {
    let mut texts = Vec::new();
    for k in TOOL_KEYS {
        match k.values {
            [] => texts.push(k.key),
            values => texts.extend_from_slice(values),
        }
    }
    for t in &mut texts {
        *t = t
            .get(UNSEARCHED..)
            .filter(|end| end.len() >= 4)
            .unwrap_or(t);
    }
    let all = texts.clone();
    texts.retain(|t| !all.iter().any(|o| o != t && t.contains(o)));
    texts.sort_unstable();
    texts.dedup();
    texts
}

/// What [`find`] looks up in the message itself: [`ENVELOPES`], then [`SIGN_KEYS`] but
/// `event` (an envelope too), then [`PART_LISTS`].
const MESSAGE_KEYS: [&str; 14] = [
    "message",
    "data",
    "kwargs",
    "payload",
    "item",
    "event",
    "tool_call_ids",
    "tool_call_metadata",
    "function_call",
    "role",
    "part_kind",
    "type",
    "parts",
    "content",
];

/// Where each of [`SIGN_KEYS`] is in [`MESSAGE_KEYS`].
const MESSAGE_SIGN_AT: [usize; SIGN_KEYS.len()] = [6, 7, 8, 9, 10, 11, 5];

/// The distinct keys of [`TOOL_KEYS`], looked up together.
const SIGN_KEYS: [&str; 7] = [
    "tool_call_ids",
    "tool_call_metadata",
    "function_call",
    "role",
    "part_kind",
    "type",
    "event",
];

/// Where the key of each of [`TOOL_KEYS`] is in [`SIGN_KEYS`] (`usize::MAX`: not there).
const SIGN_AT: [usize; TOOL_KEYS.len()] = {
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    let mut at = [usize::MAX; TOOL_KEYS.len()];
    let mut k = 0;
    while k < TOOL_KEYS.len() {
        let mut s = 0;
        while s < SIGN_KEYS.len() {
            if same(TOOL_KEYS[k].key, SIGN_KEYS[s]) {
                at[k] = s;
            }
            s += 1;
        }
        k += 1;
    }
    at
};

/// The tool key `obj` carries as one of its own members.
fn sign_in(tree: &Tree<'_>, obj: NodeId) -> Option<&'static ToolKey> {
    sign_among(tree, obj, &members_named(tree, obj, &SIGN_KEYS))
}

/// [`sign_in`], given the members of `obj` named each of [`SIGN_KEYS`].
fn sign_among(
    tree: &Tree<'_>,
    obj: NodeId,
    found: &[Option<NodeId>; SIGN_KEYS.len()],
) -> Option<&'static ToolKey> {
    TOOL_KEYS.iter().zip(SIGN_AT).find_map(|(k, at)| {
        let v = match found.get(at) {
            Some(&v) => v,
            None => tree.get(obj, k.key),
        };
        let v = v?;
        let sign = if k.values.is_empty() {
            !empty(tree, v)
        } else {
            one_of(tree, v, k.values)
        };
        sign.then_some(k)
    })
}

/// Is `v` a string equal to one of `values`? Compared raw when it has no escapes (the raw
/// bytes equal an ASCII value exactly when the decoded text does), decoded otherwise.
fn one_of(tree: &Tree<'_>, v: NodeId, values: &[&str]) -> bool {
    if tree.kind(v) != Kind::String {
        return false;
    }
    let raw = tree.raw(v);
    let inside = &raw[1..raw.len() - 1];
    if memchr::memchr(b'\\', inside).is_none() {
        return values.iter().any(|x| x.as_bytes() == inside);
    }
    tree.str(v).is_some_and(|s| values.contains(&s.as_ref()))
}

fn empty(tree: &Tree<'_>, v: NodeId) -> bool {
    match tree.kind(v) {
        Kind::Null => true,
        Kind::String => tree.str(v).is_none_or(|s| s.is_empty()),
        Kind::Array | Kind::Object => tree.is_empty(v),
        _ => false,
    }
}

/// The tool key `node` carries that `dialect` does not read, if any.
pub fn unread(tree: &Tree<'_>, node: NodeId, dialect: &dyn Dialect) -> Option<&'static ToolKey> {
    find(tree, node).filter(|k| !dialect.reads(k.name))
}

/// The message keys without one of which [`find`] finds nothing: the message's own signs (a
/// `role` only when it may read `function`), its envelopes, and its part lists (`content`
/// only as an array).
const FIND_NEEDS: Keys = Keys::TOOL_CALL_IDS
    .and(Keys::TOOL_CALL_METADATA)
    .and(Keys::FUNCTION_CALL)
    .and(Keys::ROLE_FUNCTION)
    .and(Keys::PART_KIND)
    .and(Keys::TYPE)
    .and(Keys::EVENT)
    .and(Keys::MESSAGE)
    .and(Keys::DATA)
    .and(Keys::KWARGS)
    .and(Keys::PAYLOAD)
    .and(Keys::ITEM)
    .and(Keys::PARTS)
    .and(Keys::CONTENT_ARRAY);

/// May [`find`] find a tool key in a message with `keys` (its [`Keys::of`])? `false` means it
/// certainly finds none, so the search over its members and parts can be skipped.
pub fn may_find(keys: Keys) -> bool {
    keys.any(FIND_NEEDS)
}

/// [`unread`], given the message's keys: skipped when they rule every tool key out.
pub fn unread_with(
    tree: &Tree<'_>,
    node: NodeId,
    dialect: &dyn Dialect,
    keys: Keys,
) -> Option<&'static ToolKey> {
    if !may_find(keys) {
        return None;
    }
    unread(tree, node, dialect)
}

/// Does the value `node` hold anything message- or tool-shaped, at any depth? (A directory
/// walk skips JSON files without: a `package.json`, a `tsconfig.json`.)
pub fn log_like(tree: &Tree<'_>, node: NodeId) -> bool {
    let mut todo = vec![node];
    while let Some(n) = todo.pop() {
        match tree.kind(n) {
            Kind::Object => {
                if crate::locate::looks_like_message(tree, n)
                    || sign_in(tree, n).is_some()
                    || CALL_KEYS.iter().any(|k| tree.get(n, k).is_some())
                {
                    return true;
                }
                todo.extend(tree.members(n).map(|(_, c)| c));
            }
            Kind::Array => todo.extend(tree.children(n)),
            _ => {}
        }
    }
    false
}

/// Keys the dialects read calls and results from: a value holding one is a log.
const CALL_KEYS: &[&str] = &[
    "tool_calls",
    "tool_call_id",
    "tool_use_id",
    "call_id",
    "functionCall",
    "functionResponse",
    "toolUse",
    "toolResult",
    "toolCallId",
    "toolCalls",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn sign(src: &str) -> Option<&'static str> {
        let t = parse(src.as_bytes()).unwrap();
        find(&t, t.root()).map(|k| k.key)
    }

    #[test]
    fn sign_texts_hold_nothing_json_escapes_but_with_u() {
        for text in sign_texts() {
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii() && !b.is_ascii_control() && !b"\"\\/".contains(&b)),
                "{text}"
            );
        }
    }

    #[test]
    fn both_searches_find_the_same_texts() {
        // The vector search where the machine has it, the automaton elsewhere: the one this
        // machine does not use is checked against the one it does.
        let texts = sign_texts();
        let automaton = Needles::Automaton(aho_corasick::AhoCorasick::new(&texts).unwrap());
        let packed = aho_corasick::packed::Searcher::new(texts.iter()).map(Needles::Packed);
        let filler = "an assistant wrote tool_use and tool_result blocks here; ";
        for t in &texts {
            for hay in [
                t.to_string(),
                format!("{filler}{t}"),
                format!("{filler}{}", &t[1..]),
                filler.repeat(4),
            ] {
                let want = texts.iter().any(|n| hay.contains(n));
                assert_eq!(automaton.in_(hay.as_bytes()), want, "{hay}");
                if let Some(p) = &packed {
                    assert_eq!(p.in_(hay.as_bytes()), want, "{hay}");
                }
            }
        }
    }

    #[test]
    fn the_search_over_the_text_never_hides_a_sign() {
        // Each sign's name and value, spelled plainly, with a `\u` escape, with a backslash the
        // tolerant reading drops, and with escapes that cannot stand for a sign's character.
        let spell = |text: &str, how: usize| -> String {
            let mut out = String::new();
            for (i, c) in text.chars().enumerate() {
                match (how, i) {
                    (1, 2) => out.push_str(&format!("\\u{:04x}", c as u32)),
                    (2, 3) => out.push_str(&format!("\\{c}")),
                    (3, 1) => out.push_str(&format!("{c}\\n")),
                    _ => out.push(c),
                }
            }
            out
        };
        let mut checked = 0;
        for k in TOOL_KEYS {
            let values: Vec<&str> = match k.values {
                [] => vec!["x", ""],
                v => v.to_vec(),
            };
            for value in values {
                for how in 0..4 {
                    for (key, value) in [
                        (spell(k.key, how), value.to_string()),
                        (k.key.to_string(), spell(value, how)),
                    ] {
                        for doc in [
                            format!(r#"{{"{key}": "{value}", "text": "a\nb"}}"#),
                            format!(r#"{{"message": {{"content": [{{"{key}": "{value}"}}]}}}}"#),
                            format!(
                                r#"{{"content": [{{"type": "text"}}, {{"{key}": "{value}"}}]}}"#
                            ),
                        ] {
                            let t = parse(doc.as_bytes()).unwrap();
                            let root = t.root();
                            assert_eq!(find(&t, root), find_in(&t, root), "{doc}");
                            checked += usize::from(find_in(&t, root).is_some());
                        }
                    }
                }
            }
        }
        assert!(checked > 100, "{checked}");
        for plain in [
            r#"{"role": "assistant", "content": [{"type": "tool_use", "text": "a\n\"b\"\/"}]}"#,
            r#"{"role": "user", "content": "functio"}"#,
        ] {
            let t = parse(plain.as_bytes()).unwrap();
            assert!(!may_hold_a_sign(t.raw(t.root())), "{plain}");
        }
    }

    #[test]
    fn the_message_keys_hold_envelopes_signs_and_part_lists_in_place() {
        assert_eq!(MESSAGE_KEYS[..ENVELOPES.len()], ENVELOPES);
        for (i, key) in SIGN_KEYS.iter().enumerate() {
            assert_eq!(MESSAGE_KEYS[MESSAGE_SIGN_AT[i]], *key);
        }
        assert_eq!(MESSAGE_KEYS[MESSAGE_KEYS.len() - 2..], PART_LISTS);
    }

    #[test]
    fn sign_values_are_ascii_so_raw_comparison_holds() {
        assert!(
            TOOL_KEYS
                .iter()
                .flat_map(|k| k.values)
                .all(|v| v.is_ascii())
        );
        let t =
            parse(br#"[{"role":"fun\u0063tion"},{"role":"function"},{"role":"functio"}]"#).unwrap();
        let signs: Vec<_> = t
            .children(t.root())
            .map(|m| find(&t, m).is_some())
            .collect();
        assert_eq!(signs, [true, true, false]);
    }

    #[test]
    fn signs_in_messages_envelopes_and_parts() {
        assert_eq!(
            sign(r#"{"role":"tool","content":"x","tool_call_ids":["c1"]}"#),
            Some("tool_call_ids")
        );
        assert_eq!(
            sign(
                r#"{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}}"#
            ),
            Some("function_call")
        );
        assert_eq!(
            sign(r#"{"role":"function","name":"f","content":"1"}"#),
            Some("role")
        );
        assert_eq!(
            sign(
                r#"{"kind":"response","parts":[{"part_kind":"tool-call","tool_name":"f","tool_call_id":"c"}]}"#
            ),
            Some("part_kind")
        );
        assert_eq!(
            sign(r#"{"timestamp":1,"message":{"type":"tool.call","id":"c"}}"#),
            Some("type")
        );
        assert_eq!(
            sign(r#"{"id":3,"action":"run","tool_call_metadata":{"tool_call_id":"c"}}"#),
            Some("tool_call_metadata")
        );
    }

    #[test]
    fn empty_or_plain_values_are_no_sign() {
        for plain in [
            r#"{"role":"assistant","content":"hi","function_call":null,"tool_calls":[]}"#,
            r#"{"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi"}]}"#,
            r#"{"role":"user","content":[{"type":"text","text":"function_call"}]}"#,
            r#"{"type":"user","message":{"role":"user","content":"x"},"toolUseResult":{"function_call":{"a":1}}}"#,
        ] {
            assert_eq!(sign(plain), None, "{plain}");
        }
    }

    /// A dialect that reads `tool_call_ids` (as a SWE-agent reader would).
    struct ReadsIds;

    impl Dialect for ReadsIds {
        fn name(&self) -> &'static str {
            "reads-ids"
        }
        fn window(&self) -> crate::analysis::Window {
            crate::analysis::Window::ToolRun
        }
        fn provider(&self) -> crate::provider::Provider {
            crate::provider::Provider::OpenAi
        }
        fn claims(&self, _: &Tree<'_>, _: NodeId) -> Option<&'static str> {
            None
        }
        fn read(
            &self,
            _: &Tree<'_>,
            _: NodeId,
            _: &super::super::ReadCx<'_>,
        ) -> Option<crate::model::Message> {
            None
        }
        fn reads(&self, key: &str) -> bool {
            key == "tool_call_ids"
        }
    }

    #[test]
    fn a_dialect_that_reads_a_key_is_not_told_it_does_not() {
        let t = parse(br#"{"role":"tool","content":"x","tool_call_ids":["c1"]}"#).unwrap();
        assert_eq!(unread(&t, t.root(), &ReadsIds), None);
        assert_eq!(
            unread(&t, t.root(), &super::super::OpenAiChat).map(|k| k.key),
            Some("tool_call_ids")
        );
    }

    #[test]
    fn package_json_is_not_log_like() {
        let t = parse(br#"{"name":"x","version":"1.0.0","type":"module","scripts":{"test":"node t"},"dependencies":{"a":"^1"}}"#).unwrap();
        assert!(!log_like(&t, t.root()));
        let t = parse(br#"{"events":[{"id":1,"source":"agent","tool_call_metadata":{"function_name":"run"}}]}"#).unwrap();
        assert!(log_like(&t, t.root()));
    }
}
