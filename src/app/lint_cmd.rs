//! `toolmend lint`.

use std::io::{BufWriter, Write};

use anyhow::{Result, anyhow};

use toolmend::lint::{self, ToolStats};
use toolmend::render::{self, Totals, escape_control as esc};
use toolmend::rules::{self, Rule};

use super::args::LintArgs;
use toolmend::io::inputs;

use super::{Status, lint_options, report_errors, stdout_color};

pub fn run(a: LintArgs) -> Result<Status> {
    let options = lint_options(&a.input)?;
    let selected: Vec<Rule> = if a.select.is_empty() {
        Rule::ALL.to_vec()
    } else {
        rules::select(&a.select).map_err(|e| anyhow!(e))?
    };
    let ignored = rules::select(&a.ignore).map_err(|e| anyhow!(e))?;
    let (inputs, errors) = inputs::expand(&a.input.paths);
    let mut errors: Vec<anyhow::Error> = errors.into_iter().map(Into::into).collect();
    let mut findings = Vec::new();
    let mut totals = Totals::default();
    let mut stats: std::collections::BTreeMap<String, ToolStats> = Default::default();
    for input in &inputs {
        let loaded = match inputs::load(input) {
            Ok(l) => l,
            Err(e) => {
                errors.push(e.into());
                continue;
            }
        };
        let analysed = lint::analyse(&input.name, &loaded, &options);
        totals.files += 1;
        totals.conversations += analysed.doc.conversations.len();
        totals.calls += analysed.calls_checked;
        if a.explain_detection {
            let name = esc(&input.name);
            for note in &analysed.doc.notes {
                super::say(format_args!("{name}: {}", esc(note)));
            }
            for c in &analysed.doc.conversations {
                super::say(format_args!(
                    "{name}: conversation {} at `{}`: {} ({} messages) — {}",
                    c.index,
                    esc(&c.pointer),
                    c.dialect,
                    c.messages.len(),
                    esc(&c.detection)
                ));
            }
        }
        for (tool, s) in lint::tool_stats(&analysed) {
            let e = stats.entry(tool).or_default();
            e.calls += s.calls;
            e.dangling += s.dangling;
        }
        findings.extend(
            lint::findings(&input.name, &analysed)
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
