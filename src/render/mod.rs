//! One renderer per output format. Renderers write to any `io::Write`; they never decide where
//! output goes or whether to colour it.

mod github;
mod human;
mod json;
mod jsonl;
mod sarif;

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::finding::Finding;
use crate::lint::ToolStats;

pub use crate::terminal::escape_control;
pub use human::summary_line;

/// The output formats for findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Readable lines with a summary (coloured on a terminal).
    Human,
    /// One JSON array of finding objects.
    Json,
    /// One finding object per line.
    Jsonl,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

/// What was checked, for the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// Files read.
    pub files: usize,
    /// Conversations found.
    pub conversations: usize,
    /// Tool calls checked.
    pub calls: usize,
    /// Files of a directory walk skipped: nothing in them is shaped like a log.
    pub skipped: usize,
}

/// Render findings in `format`.
pub fn findings(
    format: Format,
    findings: &[Finding],
    totals: &Totals,
    color: bool,
    quiet: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => human::render(findings, totals, color, quiet, out),
        Format::Json => json::render(findings, out),
        Format::Jsonl => jsonl::render(findings, out),
        Format::Github => github::render(findings, out),
        Format::Sarif => sarif::render(findings, out),
    }
}

/// Render per-tool statistics (`--statistics`): a table, or JSON for the machine formats.
pub fn statistics(
    format: Format,
    stats: &BTreeMap<String, ToolStats>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let rate = |s: &ToolStats| {
        if s.calls == 0 {
            0.0
        } else {
            s.dangling as f64 / s.calls as f64
        }
    };
    match format {
        Format::Human | Format::Github => {
            let width = stats
                .keys()
                .map(|k| escape_control(k).chars().count())
                .max()
                .unwrap_or(4)
                .max(4);
            writeln!(
                out,
                "{:<width$}  {:>7}  {:>8}  {:>6}",
                "tool", "calls", "dangling", "rate"
            )?;
            for (name, s) in stats {
                writeln!(
                    out,
                    "{:<width$}  {:>7}  {:>8}  {:>5.1}%",
                    escape_control(name),
                    s.calls,
                    s.dangling,
                    rate(s) * 100.0
                )?;
            }
            Ok(())
        }
        Format::Json | Format::Jsonl | Format::Sarif => {
            let rows: Vec<_> = stats
                .iter()
                .map(|(name, s)| {
                    serde_json::json!({"tool": name, "calls": s.calls, "dangling": s.dangling, "rate": rate(s)})
                })
                .collect();
            if format == Format::Jsonl {
                for row in rows {
                    jsonl::line(&row, out)?;
                }
                Ok(())
            } else {
                serde_json::to_writer_pretty(&mut *out, &rows)?;
                writeln!(out)
            }
        }
    }
}
