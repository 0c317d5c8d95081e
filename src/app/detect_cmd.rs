//! `toolmend detect`: which dialect each conversation is read as, where, and why.

use std::io::{BufWriter, Write};

use std::ffi::OsString;

use anyhow::{Result, bail};

use toolmend::Format;
use toolmend::render::escape_control as esc;

use super::args::{Command, DetectArgs};
use super::config::Configured;

use super::{Status, lint_options, report_errors};

pub fn run(a: DetectArgs, argv: &[OsString]) -> Result<Status> {
    lint_options(&a.input)?;
    let (mut inputs, mut errors) = super::expand(&a.input.paths)?;
    let (configured, config_errors) =
        Configured::resolve(argv, &a.input.config, &inputs, |cli| match cli.command {
            Command::Detect(d) => lint_options(&d.input),
            _ => bail!("not a detect command line"),
        })?;
    errors.extend(config_errors);
    inputs.retain(|i| configured.covers(i));
    let mut out = BufWriter::new(std::io::stdout().lock());
    for input in &inputs {
        if let Some(session) = &input.session
            && let Ok(a) = session.assemble()
            && !a.broken.is_empty()
        {
            writeln!(out, "{} (OpenCode session, not read)", esc(&input.name))?;
            for f in &a.broken {
                let at = format!("{}:{}:{}", f.path, f.line, f.column);
                writeln!(out, "  {}: {}", esc(&at), esc(&f.message))?;
            }
            continue;
        }
        let options = &configured.of(input).settings;
        if let Some(path) = input.path.as_deref()
            && super::db::is_database(input)
        {
            if let Err(e) = super::db::detect(path, &input.name, options, &mut out) {
                errors.push(e);
            }
            continue;
        }
        let Some(loaded) = super::load(input, &mut errors) else {
            continue;
        };
        let doc = toolmend::detect(&input.name, &loaded, options);
        let format = match doc.format {
            Some(Format::Lines) => "JSON Lines",
            _ => "JSON",
        };
        writeln!(out, "{} ({format})", esc(&input.name))?;
        for c in &doc.conversations {
            let calls = c.calls().count();
            let (messages, calls) = (
                plural(c.messages.len(), "message", "messages"),
                plural(calls, "tool call", "tool calls"),
            );
            writeln!(
                out,
                "  conversation {} at `{}`: {}, {messages}, {calls}\n    why: {}",
                c.index,
                esc(&c.pointer),
                c.dialect,
                esc(&c.detection)
            )?;
        }
        for p in &doc.problems {
            writeln!(out, "  line {}:{}: {}", p.line, p.column, esc(&p.message))?;
        }
        for n in &doc.notes {
            writeln!(out, "  note: {}", esc(n))?;
        }
    }
    out.flush()?;
    drop(out);
    report_errors(&errors);
    Ok(if errors.is_empty() {
        Status::Clean
    } else {
        Status::Failure
    })
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
