//! `--format json`: one array of finding objects.

use std::io::{self, Write};

use crate::finding::Finding;

pub(super) fn render(findings: &[Finding], out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, findings)?;
    writeln!(out)
}
