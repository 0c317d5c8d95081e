//! Reading the few members of a Claude Code line that the chain and the dialect use, in one
//! pass and without decoding what is plain: a line has a dozen members, nearly all of them
//! plain ASCII strings, and every line is read this way.

use std::borrow::Cow;

use crate::json::{Kind, NodeId, Tree};

/// The first member of the object `node` that `slot` numbers, for each number below `N` (all
/// `None` when `node` is not an object). `slot` sees each key as written, or decoded when it
/// has escapes (as [`Tree::get`] compares it).
#[inline]
pub(super) fn members<const N: usize>(
    tree: &Tree<'_>,
    node: NodeId,
    slot: impl Fn(&[u8]) -> Option<usize>,
) -> [Option<NodeId>; N] {
    let mut out = [None; N];
    if tree.kind(node) != Kind::Object {
        return out;
    }
    let mut left = N;
    // The members, read off the nodes as `Tree::children` and `Tree::key_raw` read them.
    let first = node as usize + 1;
    let inside = &tree.nodes[first..first + tree.nodes[node as usize].descendants() as usize];
    let mut at = 0;
    while let Some(n) = inside.get(at) {
        let member = (first + at) as NodeId;
        at += 1 + n.descendants() as usize;
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

/// The inside of the string `node` as written (`None` when it is not a string).
pub(super) fn inside<'a>(tree: &Tree<'a>, node: NodeId) -> Option<&'a [u8]> {
    tree.raw(node).strip_prefix(b"\"")?.strip_suffix(b"\"")
}

/// The inside of the string `node` as written, when it has no escapes; `None` when it is not
/// a string or needs decoding.
pub(super) fn plain<'a>(tree: &Tree<'a>, node: NodeId) -> Option<&'a [u8]> {
    inside(tree, node).filter(|b| memchr::memchr(b'\\', b).is_none())
}

/// The text of the string `node` (`None` when it is not a string): as written when it has no
/// escapes and is UTF-8, else decoded as [`Tree::str`] decodes it.
pub(super) fn text<'a>(tree: &Tree<'a>, node: NodeId) -> Option<Cow<'a, str>> {
    match plain(tree, node).map(std::str::from_utf8) {
        Some(Ok(text)) => Some(Cow::Borrowed(text)),
        _ => tree.str(node),
    }
}

/// Whether `node` is a string whose text is `want`.
pub(super) fn text_is(tree: &Tree<'_>, node: NodeId, want: &str) -> bool {
    match inside(tree, node) {
        Some(b) if b == want.as_bytes() => true,
        Some(b) if memchr::memchr(b'\\', b).is_some() => tree.str(node).is_some_and(|s| s == want),
        _ => false,
    }
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
        let found = members::<4>(&tree, tree.root(), slot);
        let want = ["a", "ba", "c", "d"].map(|k| tree.get(tree.root(), k));
        assert_eq!(found, want);
        assert!(found[1].is_some());
    }

    #[test]
    fn text_reads_plain_strings_as_written_and_decodes_the_rest() {
        let src = r#"["tool_use","tool\u005fuse","t\"x","é",1,"\ud800"]"#;
        let tree = parse(src.as_bytes()).unwrap();
        let nodes: Vec<NodeId> = tree.children(tree.root()).collect();
        for &n in &nodes {
            assert_eq!(text(&tree, n), tree.str(n));
        }
        assert!(plain(&tree, nodes[0]).is_some());
        assert!(plain(&tree, nodes[1]).is_none());
        assert!(plain(&tree, nodes[3]).is_some());
        assert!(plain(&tree, nodes[4]).is_none());
        assert!(text_is(&tree, nodes[0], "tool_use"));
        assert!(text_is(&tree, nodes[1], "tool_use"));
        assert!(!text_is(&tree, nodes[2], "tool_use"));
        assert!(!text_is(&tree, nodes[4], "1"));
    }
}
