//! `--format human`: `path:line:col: CODE [name] message`, then a summary.

use std::collections::BTreeMap;
use std::io::{self, Write};

use colored::Colorize;

use crate::finding::Finding;
use crate::rules::{Rule, Severity};
use crate::terminal::escape_control;

use super::Totals;

pub(super) fn render(
    findings: &[Finding],
    totals: &Totals,
    color: bool,
    quiet: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let paint = |s: String, f: fn(&str) -> colored::ColoredString| -> String {
        if color { f(&s).to_string() } else { s }
    };
    for f in findings {
        let code = match f.severity {
            Severity::Error => paint(f.code.to_string(), |s| s.red().bold()),
            Severity::Warning => paint(f.code.to_string(), |s| s.yellow().bold()),
        };
        let place = match f.place_in_store() {
            Some(at) => format!("{} [{}]:", escape_control(&f.path), escape_control(&at)),
            None => format!("{}:{}:{}:", escape_control(&f.path), f.line, f.column),
        };
        let place = paint(place, |s| s.bold());
        let fixable = match &f.fix {
            Some(fix) if fix.applicability == crate::rules::Applicability::Safe => {
                paint(" [*]".into(), |s| s.cyan())
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "{place} {code} [{}] {}{fixable}",
            f.name,
            escape_control(&f.message)
        )?;
    }
    if !quiet {
        writeln!(out, "{}", summary_line(findings, totals))?;
        let safe = findings
            .iter()
            .filter(|f| {
                f.fix
                    .as_ref()
                    .is_some_and(|x| x.applicability == crate::rules::Applicability::Safe)
            })
            .count();
        if safe > 0 {
            writeln!(out, "[*] {safe} fixable with `toolmend repair`.")?;
        }
    }
    Ok(())
}

/// `Checked 2 files, 3 conversations, 40 tool calls: 3 findings (TM001: 2, TM002: 1).`, then
/// `2 files skipped: no conversation.` when a directory walk skipped some.
pub fn summary_line(findings: &[Finding], totals: &Totals) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let checked = format!(
        "Checked {}, {}, {}",
        plural(totals.files, "file", "files"),
        plural(totals.conversations, "conversation", "conversations"),
        plural(totals.calls, "tool call", "tool calls"),
    );
    let skipped = match totals.skipped {
        0 => String::new(),
        n => format!(" {} skipped: no conversation.", plural(n, "file", "files")),
    };
    if findings.is_empty() {
        return format!("{checked}: no findings.{skipped}");
    }
    let mut by_rule: BTreeMap<Rule, usize> = BTreeMap::new();
    for f in findings {
        *by_rule.entry(f.rule).or_default() += 1;
    }
    let parts: Vec<String> = by_rule
        .iter()
        .map(|(r, n)| format!("{}: {n}", r.code()))
        .collect();
    format!(
        "{checked}: {} ({}).{skipped}",
        plural(findings.len(), "finding", "findings"),
        parts.join(", ")
    )
}
