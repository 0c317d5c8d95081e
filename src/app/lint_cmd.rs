//! `toolmend lint`.

use std::io::{BufWriter, Write};

use anyhow::{Result, anyhow};

use toolmend::lint::{self, ToolStats};
use toolmend::render::{self, Totals};
use toolmend::rules::{self, Rule};

use super::args::LintArgs;
use super::{Status, inputs, lint_options, report_errors, stdout_color, tool_sets};

pub fn run(a: LintArgs) -> Result<Status> {
    let options = lint_options(&a.input)?;
    let selected: Vec<Rule> = if a.select.is_empty() {
        Rule::ALL.to_vec()
    } else {
        rules::select(&a.select).map_err(|e| anyhow!(e))?
    };
    let ignored = rules::select(&a.ignore).map_err(|e| anyhow!(e))?;
    // TM008 is on only when interrupting tools are named (plain lint stays quiet).
    let hitl = a.hitl.interrupting.is_some().then(|| tool_sets(&a.hitl));
    let (inputs, mut errors) = inputs::expand(&a.input.paths);
    let mut findings = Vec::new();
    let mut totals = Totals::default();
    let mut stats: std::collections::BTreeMap<String, ToolStats> = Default::default();
    for input in &inputs {
        let loaded = match inputs::load(input) {
            Ok(l) => l,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let analysed = lint::analyse(&input.name, &loaded.bytes, &options);
        totals.files += 1;
        totals.conversations += analysed.doc.conversations.len();
        totals.calls += analysed.calls_checked;
        if a.explain_detection {
            for note in &analysed.doc.notes {
                eprintln!("{}: {note}", input.name);
            }
            for c in &analysed.doc.conversations {
                eprintln!(
                    "{}: conversation {} at `{}`: {} ({} messages) — {}",
                    input.name,
                    c.index,
                    c.pointer,
                    c.dialect,
                    c.messages.len(),
                    c.detection
                );
            }
        }
        for (tool, s) in lint::tool_stats(&analysed) {
            let e = stats.entry(tool).or_default();
            e.calls += s.calls;
            e.dangling += s.dangling;
        }
        let mut found = lint::findings(&input.name, &analysed);
        if let Some(sets) = &hitl {
            found.extend(toolmend::batches::hitl_findings(
                &input.name,
                &analysed,
                sets,
            ));
            found.sort_by_key(|f| (f.line, f.column, f.rule));
        }
        findings.extend(
            found
                .into_iter()
                .filter(|f| selected.contains(&f.rule) && !ignored.contains(&f.rule)),
        );
    }
    let color = stdout_color(a.color);
    let mut out = BufWriter::new(std::io::stdout().lock());
    if a.statistics {
        render::statistics(a.format, &stats, &mut out)?;
    } else {
        render::findings(a.format, &findings, &totals, color, a.quiet, &mut out)?;
    }
    out.flush()?;
    drop(out);
    report_errors(&errors);
    Ok(if !errors.is_empty() {
        Status::Failure
    } else if !findings.is_empty() && !a.exit_zero {
        Status::Findings
    } else {
        Status::Clean
    })
}
