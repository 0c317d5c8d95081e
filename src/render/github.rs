//! `--format github`: workflow commands that GitHub Actions turns into annotations.

use std::io::{self, Write};

use crate::finding::Finding;
use crate::render::escape_control;
use crate::rules::Severity;

/// Escape a message (the part after `::`). GitHub's rules escape `%`, CR and LF; here every
/// control character from the log (CR, LF, ESC, BEL…) is first made visible by
/// [`escape_control`], since the workflow log is a terminal too, so only `%` is left to escape.
fn data(s: &str) -> String {
    escape_control(s).replace('%', "%25")
}

/// Escape a property value (`file=`, `title=`).
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

pub(super) fn render(findings: &[Finding], out: &mut dyn Write) -> io::Result<()> {
    for f in findings {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        writeln!(
            out,
            "::{level} file={},line={},col={},title={}::{}",
            property(&f.path),
            f.line.max(1),
            f.column.max(1),
            property(&format!("{} {}", f.code, f.name)),
            data(&f.located_message())
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(data("a%b\nc\r"), "a%25b\\nc\\r");
        assert_eq!(data("a\u{1b}[31m\u{7}"), "a\\u{1b}[31m\\u{7}");
        assert_eq!(property("x:y,z"), "x%3Ay%2Cz");
    }
}
