//! Looking several members of one object up in a single pass over its members, instead of one
//! scan per key.

use crate::json::{Kind, NodeId, Tree};

/// The first member of the object `node` named each of `keys`, found in one pass over its
/// members (all `None` when `node` is not an object). Equivalent to calling
/// [`Tree::get`] once per key.
pub(crate) fn members_named<const N: usize>(
    tree: &Tree<'_>,
    node: NodeId,
    keys: &[&str; N],
) -> [Option<NodeId>; N] {
    let mut out = [None; N];
    if tree.kind(node) != Kind::Object {
        return out;
    }
    let src = tree.src();
    let mut left = N;
    for member in tree.children(node) {
        let Some((start, end)) = tree.key_span(member) else {
            continue;
        };
        let raw = &src[start + 1..end - 1];
        // A key with escapes is compared decoded, as `Tree::get` does.
        let hit = if raw.contains(&b'\\') {
            let key = tree.key(member).unwrap_or_default();
            keys.iter().position(|k| *k == key)
        } else {
            keys.iter().position(|k| k.as_bytes() == raw)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

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
}
