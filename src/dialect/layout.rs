//! How inserted JSON follows the file around it, shared by the dialects' repairs: key order
//! copied from the file's own objects, sorted keys where the file sorts them, and items
//! appended to an array in its own layout.

use crate::edit::{Edit, RepairCx};
use crate::json::{J, Kind, NodeId, Style, Tree};
use crate::model::Message;

/// The member names of object `node`, in source order.
pub(super) fn member_names(tree: &Tree<'_>, node: NodeId) -> Vec<String> {
    tree.members(node).map(|(k, _)| k.into_owned()).collect()
}

/// Are `keys` in sorted order (as `json.dumps(sort_keys=True)` writes them)? One key tells
/// nothing.
pub(super) fn keys_sorted(keys: &[String]) -> bool {
    keys.len() > 1 && keys.windows(2).all(|w| w[0] <= w[1])
}

/// Does the file sort its keys? Judged on the keys of a sample object, else on the calling
/// message.
pub(super) fn sorts_keys(cx: &RepairCx<'_>, sample: Option<&[String]>) -> bool {
    match sample {
        Some(keys) => keys_sorted(keys),
        None => cx
            .reparse(cx.owner)
            .is_some_and(|t| keys_sorted(&member_names(&t, t.root()))),
    }
}

/// `value` with the keys of every object in sorted order (as `sort_keys=True` writes them).
pub(super) fn sort_keys(value: J) -> J {
    match value {
        J::Obj(mut fields) => {
            fields.sort_by(|a, b| a.0.cmp(&b.0));
            J::Obj(fields.into_iter().map(|(k, v)| (k, sort_keys(v))).collect())
        }
        J::Arr(items) => J::Arr(items.into_iter().map(sort_keys).collect()),
        other => other,
    }
}

/// An object of `fields`: with every key sorted when the file sorts its keys, else in the
/// order of `like` (fields it lacks go last, in the given order).
pub(super) fn ordered<K: Into<String>>(
    fields: Vec<(K, J)>,
    like: Option<&[String]>,
    sorted: bool,
) -> J {
    let mut fields: Vec<(String, J)> = fields.into_iter().map(|(k, v)| (k.into(), v)).collect();
    if sorted {
        return sort_keys(J::Obj(fields));
    }
    if let Some(order) = like {
        fields.sort_by_key(|(k, _)| order.iter().position(|o| o == k).unwrap_or(order.len()));
    }
    J::Obj(fields)
}

/// `keys` in the order they have in `sample` (the ones it lacks follow in the given order).
pub(super) fn order_keys(sample: &[String], keys: &[&str]) -> Vec<String> {
    let mut order: Vec<String> = sample
        .iter()
        .filter(|k| keys.contains(&k.as_str()))
        .cloned()
        .collect();
    for k in keys {
        if !order.iter().any(|o| o == k) {
            order.push((*k).to_string());
        }
    }
    order
}

/// The order of `keys` in `msg` (the ones it lacks follow in the given order).
pub(super) fn key_order(cx: &RepairCx<'_>, msg: &Message, keys: &[&str]) -> Vec<String> {
    let sample = cx
        .reparse(msg)
        .map(|t| member_names(&t, t.root()))
        .unwrap_or_default();
    order_keys(&sample, keys)
}

/// A message object `{"role": role, key: value}`, its two keys in the order `like` has them.
pub(super) fn role_object(cx: &RepairCx<'_>, like: &Message, role: &str, key: &str, value: J) -> J {
    J::Obj(
        key_order(cx, like, &["role", key])
            .into_iter()
            .map(|k| {
                let v = if k == "role" {
                    J::str(role)
                } else {
                    value.clone()
                };
                (k, v)
            })
            .collect(),
    )
}

/// A JSON value on one line (as written when it does not parse strictly).
pub(super) fn compact(raw: &str) -> String {
    serde_json::from_str::<serde_json::Value>(raw)
        .map_or_else(|_| raw.to_string(), |v| v.to_string())
}

/// The whitespace right before offset `at` of `src` (what separates an element from the comma
/// before it).
pub(super) fn space_before(src: &[u8], at: usize) -> String {
    let start = src[..at]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    String::from_utf8_lossy(&src[start..at]).into_owned()
}

/// Append `items` at the end of the array under `key` of `msg`, laid out like its elements.
pub(super) fn append_to_array(
    cx: &RepairCx<'_>,
    msg: &Message,
    key: &str,
    items: &[J],
) -> Option<Edit> {
    let tree = cx.reparse(msg)?;
    let array = tree
        .get(tree.root(), key)
        .filter(|&a| tree.kind(a) == Kind::Array)?;
    let base = msg.span.start;
    let src = tree.src();
    let Some(last) = tree.children(array).last() else {
        let (start, _) = tree.span(array);
        let style = cx.style_of(msg);
        let body: Vec<String> = items.iter().map(|i| i.render(&style)).collect();
        return Some(Edit::insert(base + start + 1, body.join(&style.comma)));
    };
    let (start, end) = tree.span(last);
    let sep = space_before(src, start);
    let mut style = Style::like(&tree, last);
    if src.windows(2).any(|w| w == b"\r\n") || cx.src.windows(2).any(|w| w == b"\r\n") {
        style.newline = "\r\n".into();
    }
    let mut text = String::new();
    for item in items {
        text.push(',');
        text.push_str(&sep);
        text.push_str(&item.render(&style));
    }
    Some(Edit::insert(base + end, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn key_order_follows_the_sample() {
        let t =
            parse(br#"{"content":"x","is_error":false,"tool_use_id":"a","type":"tool_result"}"#)
                .unwrap();
        assert!(keys_sorted(&member_names(&t, 0)));
        let j = ordered(
            vec![("type", J::Null), ("b", J::Null), ("a", J::Null)],
            None,
            true,
        );
        assert_eq!(
            j.render(&Style::default()),
            r#"{"a":null,"b":null,"type":null}"#
        );
        let like = parse(br#"{"tool_use_id":1,"type":2}"#).unwrap();
        let j = ordered(
            vec![
                ("type", J::Null),
                ("is_error", J::Null),
                ("tool_use_id", J::Null),
            ],
            Some(&member_names(&like, 0)),
            false,
        );
        assert_eq!(
            j.render(&Style::default()),
            r#"{"tool_use_id":null,"type":null,"is_error":null}"#
        );
        assert_eq!(
            order_keys(&member_names(&like, 0), &["type", "id", "tool_use_id"]),
            ["tool_use_id", "type", "id"]
        );
    }
}
