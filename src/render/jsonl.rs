//! `--format jsonl`: one finding object per line (written with the `jsonl` crate).

use std::io::{self, Write};

use crate::finding::Finding;

pub(super) fn render(findings: &[Finding], out: &mut dyn Write) -> io::Result<()> {
    for f in findings {
        line(f, out)?;
    }
    Ok(())
}

/// Write one value as a JSON line.
pub(super) fn line<T: serde::Serialize>(value: &T, out: &mut dyn Write) -> io::Result<()> {
    jsonl::write(out, value).map_err(|e| match e {
        jsonl::WriteError::Io(e) => e,
        jsonl::WriteError::Serialize(e) => io::Error::other(e),
    })
}
