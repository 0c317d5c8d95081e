//! The one sanitizer for text shown on a terminal: every human-facing output (lint, repair,
//! detect, simulate, error messages) passes text from a log or the system through it.

use std::fmt::Write as _;

/// Make text safe for a terminal: control characters (ESC, CR, BEL…) and bidirectional
/// controls (U+202E…) become visible escapes, so nothing from a log can move the cursor,
/// recolour the screen or reorder the line. `\n`, `\t`, `\r` become those two-character
/// escapes, anything else `\u{…}`.
pub fn escape_control(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// Unicode bidi embedding, override and isolate controls (and the marks), which are not
/// `char::is_control` but can visually reorder a line.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(escape_control("a\u{1b}[31mb\r"), "a\\u{1b}[31mb\\r");
        assert_eq!(
            escape_control("send\u{202e}liame\n"),
            "send\\u{202e}liame\\n"
        );
        assert_eq!(escape_control("plain"), "plain");
    }
}
