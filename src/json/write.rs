//! Writing inserted JSON in the style of the document around it.

use super::tree::{Kind, NodeId, Tree};

/// A JSON value to insert, with object keys kept in the order given.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    /// Source text copied verbatim (e.g. an id token exactly as the call spelled it).
    Raw(String),
    /// A string, escaped on output.
    Str(String),
    /// An object; keys in this order.
    Obj(Vec<(String, J)>),
    /// An array.
    Arr(Vec<J>),
    /// `true` / `false`.
    Bool(bool),
    /// `null`.
    Null,
}

impl J {
    /// Build an object from `(key, value)` pairs.
    pub fn obj<K: Into<String>>(pairs: impl IntoIterator<Item = (K, J)>) -> J {
        J::Obj(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// A string value.
    pub fn str(s: impl Into<String>) -> J {
        J::Str(s.into())
    }

    /// Render in `style`; the first line is not indented (it follows existing text).
    pub fn render(&self, style: &Style) -> String {
        let mut out = String::new();
        self.write(style, 0, &mut out);
        out
    }

    fn write(&self, style: &Style, depth: usize, out: &mut String) {
        match self {
            J::Raw(s) => out.push_str(s),
            J::Str(s) => out.push_str(&escape(s, style.ascii)),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Null => out.push_str("null"),
            J::Obj(members) => {
                let items: Vec<_> = members
                    .iter()
                    .map(|(k, v)| {
                        let mut s = escape(k, style.ascii);
                        s.push_str(&style.colon);
                        v.write(style, depth + 1, &mut s);
                        s
                    })
                    .collect();
                container(style, depth, ('{', '}'), items, out);
            }
            J::Arr(values) => {
                let items: Vec<_> = values
                    .iter()
                    .map(|v| {
                        let mut s = String::new();
                        v.write(style, depth + 1, &mut s);
                        s
                    })
                    .collect();
                container(style, depth, ('[', ']'), items, out);
            }
        }
    }
}

fn container(
    style: &Style,
    depth: usize,
    (open, close): (char, char),
    items: Vec<String>,
    out: &mut String,
) {
    out.push(open);
    if items.is_empty() {
        out.push(close);
        return;
    }
    match &style.indent {
        Some(unit) => {
            let inner = format!("{}{}{}", style.newline, style.base, unit.repeat(depth + 1));
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&inner);
                out.push_str(item);
            }
            out.push_str(&style.newline);
            out.push_str(&style.base);
            out.push_str(&unit.repeat(depth));
        }
        None => out.push_str(&items.join(&style.comma)),
    }
    out.push(close);
}

/// JSON string escaping; with `ascii`, non-ASCII characters are written as `\uXXXX` (as Python's
/// `json.dumps` does by default).
pub fn escape(s: &str, ascii: bool) -> String {
    let plain = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
    if !ascii || plain.is_ascii() {
        return plain;
    }
    let mut out = String::with_capacity(plain.len() + 8);
    for c in plain.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// How to lay out inserted JSON so that it looks like its neighbours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// Indentation unit for multi-line output; `None` writes everything on one line.
    pub indent: Option<String>,
    /// Line ending used between lines of multi-line output.
    pub newline: String,
    /// Text between a member name and its value (`":"` or `": "`).
    pub colon: String,
    /// Text between items on one line (`","` or `", "`).
    pub comma: String,
    /// Indentation of the line the value starts on (for multi-line output).
    pub base: String,
    /// Escape non-ASCII characters.
    pub ascii: bool,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            indent: None,
            newline: "\n".into(),
            colon: ":".into(),
            comma: ",".into(),
            base: String::new(),
            ascii: false,
        }
    }
}

impl Style {
    /// The style of an existing value `sample` in `tree` (a sibling of what will be inserted).
    pub fn like(tree: &Tree<'_>, sample: NodeId) -> Style {
        let src = tree.src();
        let (start, end) = tree.span(sample);
        let raw = &src[start..end];
        let newline = if memchr::memmem::find(src, b"\r\n").is_some() {
            "\r\n"
        } else {
            "\n"
        };
        let line_start = memchr::memrchr(b'\n', &src[..start]).map_or(0, |i| i + 1);
        let lead = &src[line_start..start];
        let base = if lead.iter().all(|b| *b == b' ' || *b == b'\t') {
            String::from_utf8_lossy(lead).into_owned()
        } else {
            String::new()
        };
        let mut style = Style {
            newline: newline.into(),
            base: base.clone(),
            ascii: raw.is_ascii() && memchr::memmem::find(raw, b"\\u").is_some(),
            ..Style::default()
        };
        if let Some((colon, comma)) = separators(tree, sample) {
            style.colon = colon;
            style.comma = comma;
        }
        if memchr::memchr(b'\n', raw).is_some() {
            // Indentation of the first member's line, minus the base.
            if let Some(first) = tree.children(sample).next() {
                let at = tree.key_span(first).map_or(tree.span(first).0, |k| k.0);
                let ls = memchr::memrchr(b'\n', &src[..at]).map_or(0, |i| i + 1);
                let lead = String::from_utf8_lossy(&src[ls..at]).into_owned();
                let unit = lead
                    .strip_prefix(base.as_str())
                    .unwrap_or(&lead)
                    .to_string();
                if !unit.is_empty() && unit.chars().all(|c| c == ' ' || c == '\t') {
                    style.indent = Some(unit);
                } else {
                    style.indent = Some("  ".into());
                }
            }
        }
        style
    }
}

/// The colon and comma spelling used inside `id` (or its first object descendant).
fn separators(tree: &Tree<'_>, id: NodeId) -> Option<(String, String)> {
    let src = tree.src();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        if tree.kind(n) == Kind::Object {
            let mut kids = tree.children(n);
            if let Some(first) = kids.next() {
                let (_, kend) = tree.key_span(first)?;
                let (vstart, vend) = tree.span(first);
                let colon = String::from_utf8_lossy(&src[kend..vstart]).into_owned();
                let comma = kids
                    .next()
                    .and_then(|second| tree.key_span(second))
                    .map(|(k2, _)| String::from_utf8_lossy(&src[vend..k2]).into_owned())
                    .filter(|c| !c.contains('\n'))
                    .unwrap_or_else(|| if colon.ends_with(' ') { ", " } else { "," }.into());
                return Some((colon.trim_start().to_string(), comma));
            }
        }
        if matches!(tree.kind(n), Kind::Object | Kind::Array) {
            let kids: Vec<_> = tree.children(n).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn sample() -> J {
        J::obj([
            ("role", J::str("tool")),
            ("ids", J::Arr(vec![J::Raw("1e5".into()), J::Null])),
        ])
    }

    #[test]
    fn compact_and_python_spacing() {
        let t = parse(br#"[{"a": 1, "b": 2}]"#).unwrap();
        let s = Style::like(&t, t.index(0, 0).unwrap());
        assert_eq!(
            sample().render(&s),
            r#"{"role": "tool", "ids": [1e5, null]}"#
        );
        let t = parse(br#"[{"a":1,"b":2}]"#).unwrap();
        let s = Style::like(&t, t.index(0, 0).unwrap());
        assert_eq!(sample().render(&s), r#"{"role":"tool","ids":[1e5,null]}"#);
    }

    #[test]
    fn pretty_follows_indentation() {
        let src = b"{\n    \"m\": [\n        {\n            \"a\": 1\n        }\n    ]\n}";
        let t = parse(src).unwrap();
        let el = t.index(t.get(0, "m").unwrap(), 0).unwrap();
        let s = Style::like(&t, el);
        assert_eq!(s.base, "        ");
        assert_eq!(s.indent.as_deref(), Some("    "));
        let out = sample().render(&s);
        assert_eq!(
            out,
            "{\n            \"role\": \"tool\",\n            \"ids\": [\n                1e5,\n                null\n            ]\n        }"
        );
    }

    #[test]
    fn ascii_escaping_when_the_document_escapes() {
        assert_eq!(escape("é😀", true), "\"\\u00e9\\ud83d\\ude00\"");
        assert_eq!(escape("é", false), "\"é\"");
    }
}
