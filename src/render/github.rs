//! `--format github`: workflow commands that GitHub Actions turns into annotations.

use std::io::{self, Write};

use crate::finding::Finding;
use crate::rules::Severity;

/// Escape a message (the part after `::`).
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
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
            data(&f.message)
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(data("a%b\nc\r"), "a%25b%0Ac%0D");
        assert_eq!(property("x:y,z"), "x%3Ay%2Cz");
    }
}
