//! Documents read as `serde_json` values, and the small accessors the strict checkers share.

use serde_json::Value;

/// The non-blank lines of a JSON Lines document (a `\r` before a line's `\n` is kept).
pub fn lines(bytes: &[u8]) -> Vec<&str> {
    std::str::from_utf8(bytes)
        .unwrap()
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// The values of a document named `name`: one per non-blank line for `.jsonl`, else the one
/// document. Panics on invalid JSON.
pub fn values(name: &str, bytes: &[u8]) -> Vec<Value> {
    if name.ends_with(".jsonl") {
        lines(bytes)
            .iter()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    } else {
        vec![serde_json::from_slice(bytes).expect("a JSON document")]
    }
}

/// The lists a document holds: the document itself when it is an array, else the arrays at
/// `pointers` (e.g. `/messages`).
pub fn lists<'a>(doc: &'a Value, pointers: &[&str]) -> Vec<&'a [Value]> {
    match doc {
        Value::Array(list) => vec![list.as_slice()],
        Value::Object(_) => pointers
            .iter()
            .filter_map(|p| doc.pointer(p).and_then(Value::as_array))
            .map(Vec::as_slice)
            .collect(),
        _ => Vec::new(),
    }
}

/// The array under `key` of `v`; empty when there is none.
pub fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The string under `key` of `v`; empty when there is none.
pub fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The `role` of a message; empty when it has none.
pub fn role(m: &Value) -> &str {
    str_of(m, "role")
}

/// Message `at` of `msgs`, when there is one and its role is `want` (e.g. the next user
/// message, or the previous assistant message).
pub fn message_if<'a>(msgs: &'a [Value], at: Option<usize>, want: &str) -> Option<&'a Value> {
    at.and_then(|i| msgs.get(i)).filter(|m| role(m) == want)
}
