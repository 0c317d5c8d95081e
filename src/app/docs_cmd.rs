//! `toolmend explain`, `completions` and `man`: the documentation the binary carries.

use std::io::Write;

use anyhow::{Result, anyhow};
use clap::CommandFactory;

use toolmend::{DuplicatePolicy, OrphanPolicy, RepairOptions, Rule};

use super::Status;
use super::args::Cli;

/// Explain one rule (code or name) from the rule table and its prose, with the example run
/// through lint and repair as they are.
pub fn explain(selector: &str) -> Result<Status> {
    let rule = Rule::from_selector(selector).ok_or_else(|| {
        anyhow!(
            "unknown rule `{}` (see `toolmend rules`)",
            toolmend::escape_control(selector)
        )
    })?;
    let data = rule.data();
    let text = toolmend::explain(rule);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} {} ({}; fix: {})\n",
        data.code,
        data.name,
        format!("{:?}", data.severity).to_lowercase(),
        data.fixes.label()
    )?;
    writeln!(out, "What: {}.\n", data.summary)?;
    writeln!(out, "Why: {}\n", text.why)?;
    writeln!(out, "Provider: {}\n", text.provider)?;
    writeln!(out, "Fix: {}", text.fix)?;
    let Some(example) = text.example else {
        writeln!(
            out,
            "\nExample: this rule is about databases; see docs/databases.md."
        )?;
        return Ok(Status::Clean);
    };
    let (name, before) = (example.name, example.text);
    let options = toolmend::Options::default();
    let analysed = toolmend::analyse(name, before.as_bytes(), &options);
    let mut findings = analysed.findings(name);
    if rule == Rule::HitlDoubleExecutionRisk {
        let sets = toolmend::simulate::SetOptions {
            interrupting: Some(vec!["ask_user_question".into()]),
            ..Default::default()
        }
        .resolve();
        findings.extend(toolmend::hitl_findings(name, &analysed, &sets));
    }
    writeln!(out, "\nExample ({name}, before):\n")?;
    indent(&mut out, before)?;
    writeln!(out, "\n`toolmend lint` says:\n")?;
    for f in &findings {
        writeln!(out, "    {}:{} {} {}", f.line, f.column, f.code, f.message)?;
    }
    let (flags, repair) = policy(rule);
    let repaired = analysed.repair(before.as_bytes(), &repair);
    if repaired.changed {
        writeln!(out, "\nAfter `toolmend repair{flags}`:\n")?;
        indent(&mut out, &String::from_utf8_lossy(&repaired.output))?;
    } else {
        writeln!(out, "\n`toolmend repair` leaves it byte for byte as it is.")?;
    }
    Ok(Status::Clean)
}

/// The repair flags that make `rule`'s fix (its unsafe one, when it has one).
fn policy(rule: Rule) -> (&'static str, RepairOptions) {
    let mut options = RepairOptions::default();
    let flags = match rule {
        Rule::OrphanToolResult | Rule::OrphanServerToolResult => {
            options.orphans = OrphanPolicy::Drop;
            " --orphans drop"
        }
        Rule::DuplicateToolResult => {
            options.duplicates = Some(DuplicatePolicy::KeepFirst);
            " --duplicates keep-first"
        }
        Rule::SplitPair => {
            options.orphans = OrphanPolicy::Note;
            " --orphans note"
        }
        Rule::DuplicateToolCallId => {
            options.reid = true;
            " --duplicate-ids re-id"
        }
        _ => "",
    };
    (flags, options)
}

fn indent(out: &mut dyn Write, text: &str) -> Result<()> {
    for line in text.lines() {
        writeln!(out, "    {line}")?;
    }
    Ok(())
}

/// Print the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> Result<Status> {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "toolmend", &mut std::io::stdout().lock());
    Ok(Status::Clean)
}

/// Print the manual page (roff): synopsis, options, and every subcommand (`toolmend help
/// SUBCOMMAND` has each one's options).
pub fn man() -> Result<Status> {
    clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout().lock())?;
    Ok(Status::Clean)
}
