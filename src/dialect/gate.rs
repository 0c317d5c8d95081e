//! A gate before [`Dialect::claims`]: one pass over a message object's members notes which of
//! the keys the dialects' claims look for it has ([`Keys`]), and each dialect states sets of
//! keys without one of which its claims is certainly `None` ([`Dialect::claim_keys`]). A
//! dialect whose sets the message lacks is not asked at all: a message of one dialect is
//! checked against all the others (a conversation mixing two formats is never repaired), and
//! most of them are ruled out by their key names alone.
//!
//! Soundness rests on each dialect's sets being necessary conditions of its claims, which its
//! `claim_keys` justifies next to `claims`; `read/gate_tests.rs` checks it over every object
//! of every fixture and corpus file and over generated messages, against the ungated answers.

use crate::json::{Kind, NodeId, Tree};

use super::Dialect;

/// A set of top-level member names of a message object (and two value shapes), one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Keys(u64);

/// The names [`Keys`] knows, in bit order.
const NAMES: [&str; 44] = [
    "type",
    "timestamp",
    "payload",
    "record_type",
    "id",
    "instructions",
    "git",
    "message",
    "event",
    "source",
    "kind",
    "action",
    "observation",
    "state",
    "messageID",
    "sessionID",
    "sessionId",
    "projectHash",
    "$set",
    "$rewindTo",
    "role",
    "time",
    "lc",
    "kwargs",
    "data",
    "content",
    "parts",
    "toolCalls",
    "summary",
    "encrypted_content",
    "call_id",
    "approval_request_id",
    "tool_call_ids",
    "agent",
    "message_type",
    "thought",
    "function_call",
    "tool_calls",
    "tool_call_id",
    "item",
    "tool_call_metadata",
    "part_kind",
    // Value shapes, set by `Keys::of` beside the name's own bit.
    "content: [...]",
    "role: \"function\"",
];

/// The bit of `NAMES[i]`.
const fn bit(i: usize) -> Keys {
    Keys(1 << i)
}

impl Keys {
    /// No key: as a condition, none (every message has it).
    pub const NONE: Keys = Keys(0);
    /// `type`
    pub const TYPE: Keys = bit(0);
    /// `timestamp`
    pub const TIMESTAMP: Keys = bit(1);
    /// `payload`
    pub const PAYLOAD: Keys = bit(2);
    /// `record_type`
    pub const RECORD_TYPE: Keys = bit(3);
    /// `id`
    pub const ID: Keys = bit(4);
    /// `instructions`
    pub const INSTRUCTIONS: Keys = bit(5);
    /// `git`
    pub const GIT: Keys = bit(6);
    /// `message`
    pub const MESSAGE: Keys = bit(7);
    /// `event`
    pub const EVENT: Keys = bit(8);
    /// `source`
    pub const SOURCE: Keys = bit(9);
    /// `kind`
    pub const KIND: Keys = bit(10);
    /// `action`
    pub const ACTION: Keys = bit(11);
    /// `observation`
    pub const OBSERVATION: Keys = bit(12);
    /// `state`
    pub const STATE: Keys = bit(13);
    /// `messageID`
    pub const MESSAGE_ID: Keys = bit(14);
    /// `sessionID` (OpenCode)
    pub const SESSION_ID_UPPER: Keys = bit(15);
    /// `sessionId` (Gemini CLI)
    pub const SESSION_ID_CAMEL: Keys = bit(16);
    /// `projectHash`
    pub const PROJECT_HASH: Keys = bit(17);
    /// `$set`
    pub const SET: Keys = bit(18);
    /// `$rewindTo`
    pub const REWIND_TO: Keys = bit(19);
    /// `role`
    pub const ROLE: Keys = bit(20);
    /// `time`
    pub const TIME: Keys = bit(21);
    /// `lc`
    pub const LC: Keys = bit(22);
    /// `kwargs`
    pub const KWARGS: Keys = bit(23);
    /// `data`
    pub const DATA: Keys = bit(24);
    /// `content`
    pub const CONTENT: Keys = bit(25);
    /// `parts`
    pub const PARTS: Keys = bit(26);
    /// `toolCalls`
    pub const TOOL_CALLS_CAMEL: Keys = bit(27);
    /// `summary`
    pub const SUMMARY: Keys = bit(28);
    /// `encrypted_content`
    pub const ENCRYPTED_CONTENT: Keys = bit(29);
    /// `call_id`
    pub const CALL_ID: Keys = bit(30);
    /// `approval_request_id`
    pub const APPROVAL_REQUEST_ID: Keys = bit(31);
    /// `tool_call_ids`
    pub const TOOL_CALL_IDS: Keys = bit(32);
    /// `agent`
    pub const AGENT: Keys = bit(33);
    /// `message_type`
    pub const MESSAGE_TYPE: Keys = bit(34);
    /// `thought`
    pub const THOUGHT: Keys = bit(35);
    /// `function_call`
    pub const FUNCTION_CALL: Keys = bit(36);
    /// `tool_calls`
    pub const TOOL_CALLS: Keys = bit(37);
    /// `tool_call_id`
    pub const TOOL_CALL_ID: Keys = bit(38);
    /// `item`
    pub const ITEM: Keys = bit(39);
    /// `tool_call_metadata`
    pub const TOOL_CALL_METADATA: Keys = bit(40);
    /// `part_kind`
    pub const PART_KIND: Keys = bit(41);
    /// Some member `content` is an array.
    pub const CONTENT_ARRAY: Keys = bit(42);
    /// Some member `role` is a string that may read `"function"` (it does, or has escapes).
    pub const ROLE_FUNCTION: Keys = bit(43);

    /// Both sets.
    pub const fn and(self, other: Keys) -> Keys {
        Keys(self.0 | other.0)
    }

    /// Does this set hold any key of `some`?
    pub const fn any(self, some: Keys) -> bool {
        self.0 & some.0 != 0
    }

    /// Does this set hold every key of `need`?
    pub fn holds(self, need: Keys) -> bool {
        self.0 & need.0 == need.0
    }

    /// The keys of the members of `node` (none when it is not an object), each member looked
    /// at as [`Tree::get`] compares keys: raw when the key has no escapes, decoded otherwise.
    /// A key that repeats adds the shapes of all its values, so the set holds whatever the
    /// first one (the one `get` finds) has.
    pub fn of(tree: &Tree<'_>, node: NodeId) -> Keys {
        let mut keys = Keys::NONE;
        if tree.kind(node) != Kind::Object {
            return keys;
        }
        for member in tree.children(node) {
            let Some((raw, escaped)) = tree.key_raw(member) else {
                continue;
            };
            let decoded;
            let name = if escaped {
                decoded = tree.key(member).unwrap_or_default();
                decoded.as_bytes()
            } else {
                raw
            };
            let Some(i) = index(name) else {
                continue;
            };
            let key = bit(i);
            keys = keys.and(key);
            if key == Keys::CONTENT && tree.kind(member) == Kind::Array {
                keys = keys.and(Keys::CONTENT_ARRAY);
            }
            if key == Keys::ROLE && may_read_function(tree.raw(member)) {
                keys = keys.and(Keys::ROLE_FUNCTION);
            }
        }
        keys
    }

    /// The member names that have a bit (not the value shapes).
    #[cfg(test)]
    pub(crate) fn plain_names() -> &'static [&'static str] {
        &NAMES[..NAMES.len() - 2]
    }

    /// The names of the keys in this set (for messages of tests).
    pub fn names(self) -> Vec<&'static str> {
        (0..NAMES.len())
            .filter(|&i| self.holds(bit(i)))
            .map(|i| NAMES[i])
            .collect()
    }
}

/// The bit of a member name among the plain names of [`NAMES`] (not the value shapes): by
/// length first, then among the few names of that length (compared as fixed-size words).
fn index(name: &[u8]) -> Option<usize> {
    Some(match name.len() {
        2 => match name {
            b"id" => 4,
            b"lc" => 22,
            _ => return None,
        },
        3 => match name {
            b"git" => 6,
            _ => return None,
        },
        4 => match name {
            b"item" => 39,
            b"type" => 0,
            b"kind" => 10,
            b"$set" => 18,
            b"role" => 20,
            b"time" => 21,
            b"data" => 24,
            _ => return None,
        },
        5 => match name {
            b"event" => 8,
            b"state" => 13,
            b"parts" => 26,
            b"agent" => 33,
            _ => return None,
        },
        6 => match name {
            b"source" => 9,
            b"action" => 11,
            b"kwargs" => 23,
            _ => return None,
        },
        7 => match name {
            b"payload" => 2,
            b"message" => 7,
            b"content" => 25,
            b"summary" => 28,
            b"call_id" => 30,
            b"thought" => 35,
            _ => return None,
        },
        9 => match name {
            b"timestamp" => 1,
            b"messageID" => 14,
            b"sessionID" => 15,
            b"sessionId" => 16,
            b"$rewindTo" => 19,
            b"toolCalls" => 27,
            b"part_kind" => 41,
            _ => return None,
        },
        10 => match name {
            b"tool_calls" => 37,
            _ => return None,
        },
        11 => match name {
            b"record_type" => 3,
            b"observation" => 12,
            b"projectHash" => 17,
            _ => return None,
        },
        12 => match name {
            b"instructions" => 5,
            b"message_type" => 34,
            b"tool_call_id" => 38,
            _ => return None,
        },
        13 => match name {
            b"tool_call_ids" => 32,
            b"function_call" => 36,
            _ => return None,
        },
        17 => match name {
            b"encrypted_content" => 29,
            _ => return None,
        },
        18 => match name {
            b"tool_call_metadata" => 40,
            _ => return None,
        },
        19 => match name {
            b"approval_request_id" => 31,
            _ => return None,
        },
        _ => return None,
    })
}

/// Could the value token `raw` decode to the string `function`?
fn may_read_function(raw: &[u8]) -> bool {
    raw == b"\"function\"" || (raw.first() == Some(&b'"') && memchr::memchr(b'\\', raw).is_some())
}

/// May `d` claim a message with `keys`? `false` means its claims is certainly `None`.
pub fn may_claim(d: &dyn Dialect, keys: Keys) -> bool {
    d.claim_keys().iter().any(|&need| keys.holds(need))
}

/// The dialects of [`super::all`] that may claim a message with `keys` (see [`may_claim`]),
/// in their order. Each dialect's key sets are gathered once, filed under the first key each
/// needs, so a message looks only at the sets filed under the few keys it has, not at every
/// dialect's.
pub fn claimants(keys: Keys) -> impl Iterator<Item = &'static dyn Dialect> {
    static GATES: std::sync::OnceLock<Gates> = std::sync::OnceLock::new();
    let gates = GATES.get_or_init(Gates::new);
    let mut may = gates.always;
    let mut bits = keys.0;
    while bits != 0 {
        let key = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        for &(need, d) in
            &gates.sets[usize::from(gates.starts[key])..usize::from(gates.starts[key + 1])]
        {
            if keys.holds(need) {
                may |= 1 << d;
            }
        }
    }
    std::iter::from_fn(move || {
        (may != 0).then(|| {
            let d = may.trailing_zeros() as usize;
            may &= may - 1;
            super::all()[d]
        })
    })
}

/// Every dialect's key sets, filed under the lowest key of each (see [`claimants`]).
struct Gates {
    /// The dialects (as bits of their place in [`super::all`]) with a set that needs no key.
    always: u64,
    /// The sets and their dialects, by lowest key: those of key `k` are
    /// `sets[starts[k]..starts[k + 1]]`.
    sets: Vec<(Keys, u8)>,
    starts: [u16; 65],
}

impl Gates {
    fn new() -> Gates {
        let dialects = super::all();
        assert!(dialects.len() <= 64, "a dialect is a bit of a word");
        let mut always = 0;
        let mut sets = Vec::new();
        for (d, dialect) in dialects.iter().enumerate() {
            for &need in dialect.claim_keys() {
                if need == Keys::NONE {
                    always |= 1 << d;
                } else {
                    sets.push((need, d as u8));
                }
            }
        }
        sets.sort_by_key(|(need, _)| need.0.trailing_zeros());
        let mut starts = [0u16; 65];
        for (k, start) in starts.iter_mut().enumerate() {
            *start = sets
                .partition_point(|(need, _)| (need.0.trailing_zeros() as usize) < k)
                .try_into()
                .expect("few key sets");
        }
        Gates {
            always,
            sets,
            starts,
        }
    }
}

/// The first of `dialects` that claims `node`, with why, asking only those the gate lets
/// through: the same answer as asking each in turn.
pub fn first_claim(
    dialects: &[&'static dyn Dialect],
    tree: &Tree<'_>,
    node: NodeId,
    keys: Keys,
) -> Option<(&'static dyn Dialect, &'static str)> {
    dialects
        .iter()
        .filter(|d| may_claim(**d, keys))
        .find_map(|d| d.claims(tree, node).map(|why| (*d, why)))
}

#[cfg(test)]
mod tests {
    use super::{Keys, NAMES, index};
    use crate::json::parse;

    #[test]
    fn every_name_has_its_bit() {
        for (i, name) in NAMES.iter().enumerate() {
            let plain = i < NAMES.len() - 2;
            assert_eq!(index(name.as_bytes()), plain.then_some(i), "{name}");
        }
        assert_eq!(index(b"types"), None);
        assert_eq!(index(b""), None);
    }

    #[test]
    fn keys_are_read_as_get_reads_them() {
        let t =
            parse(br#"{"r\u006fle":"fun\u0063tion","content":"x","content":[],"x":{"type":1}}"#)
                .unwrap();
        let keys = Keys::of(&t, t.root());
        assert_eq!(
            keys.names(),
            ["role", "content", "content: [...]", "role: \"function\""]
        );
        let t = parse(br#"[{"role":"function"}]"#).unwrap();
        assert_eq!(Keys::of(&t, t.root()), Keys::NONE);
        let t = parse(br#"{"role":"user","role":"function"}"#).unwrap();
        assert!(Keys::of(&t, t.root()).holds(Keys::ROLE_FUNCTION));
    }
}
