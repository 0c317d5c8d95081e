//! `toolmend simulate`: batches from a scenario file, `--calls`, or histories, run through the
//! replay model under the chosen strategies.

use std::io::Write;

use anyhow::{Context, Result, anyhow, bail};

use toolmend::simulate::{
    Batch, BatchCall, Report, Strategy, parse_scenario, render_mermaid, render_table,
};
use toolmend::{Options as LintOptions, ReadOptions};

use super::args::{SimFormat, SimulateArgs};

use super::{Status, report_errors, stdout_color, tool_sets};

pub fn run(a: SimulateArgs) -> Result<Status> {
    let strategies = Strategy::parse_list(&a.strategy).map_err(|e| anyhow!("--strategy: {e}"))?;
    let mut errors = Vec::new();
    let (sets, batches) = if let Some(spec) = &a.spec {
        let text = std::fs::read_to_string(spec)
            .with_context(|| format!("{}: cannot read the scenario", spec.display()))?;
        let scenario = parse_scenario(&text).map_err(|e| anyhow!("{}: {e}", spec.display()))?;
        let batch = scenario.batch(spec.display().to_string());
        (scenario.sets, vec![batch])
    } else if let Some(names) = &a.calls {
        let calls = names
            .iter()
            .enumerate()
            .map(|(i, n)| BatchCall::new(format!("c{}", i + 1), n.clone()))
            .collect();
        (tool_sets(&a.hitl), vec![Batch::new("--calls", calls)])
    } else {
        if a.histories.is_empty() {
            bail!("nothing to simulate: give HISTORY files, --spec FILE or --calls NAMES");
        }
        let mut options = LintOptions {
            read: ReadOptions {
                dialect: None,
                at: a.at.clone(),
                max_line_bytes: 64 * 1024 * 1024,
                format: None,
            },
            ..LintOptions::default()
        };
        if let Some(name) = &a.dialect
            && !toolmend::force_dialect(&mut options.read, name)
        {
            bail!("unknown dialect `{name}`");
        }
        let (list, errs) = super::expand(&a.histories)?;
        errors = errs;
        let mut found = Vec::new();
        for input in &list {
            if let Some(loaded) = super::load(input, &mut errors) {
                let analysed = toolmend::analyse(&input.name, &loaded, &options);
                found.extend(
                    toolmend::find_batches(&input.name, &analysed)
                        .into_iter()
                        .map(|f| f.batch),
                );
            }
        }
        (tool_sets(&a.hitl), found)
    };
    let report = Report::run(&sets, &batches, &strategies);
    let color = stdout_color(a.color);
    let text = match a.format {
        SimFormat::Table if report.batches.is_empty() => {
            "No batch with two or more tool calls found.\n".to_string()
        }
        SimFormat::Table => render_table(&report, &a.non_idempotent, color),
        SimFormat::Json => report.to_json(),
        SimFormat::Mermaid => render_mermaid(&report),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    report_errors(&errors);
    Ok(if !errors.is_empty() {
        Status::Failure
    } else if report.has_non_idempotent_double_execution(&a.non_idempotent) {
        Status::Findings
    } else {
        Status::Clean
    })
}
