//! Reading the few members of a Claude Code line that the chain and the dialect use, in one
//! pass and without decoding what is plain: a line has a dozen members, nearly all of them
//! plain ASCII strings, and every line is read this way.

use std::borrow::Cow;

use crate::json::{NodeId, Tree};

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
