//! Databases on the command line: `lint`, `detect` and `repair` of an SQLite file holding a
//! known session store.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, anyhow};

use toolmend::Options as LintOptions;
use toolmend::RepairOptions;
use toolmend::escape_control as esc;
use toolmend::store::{self, Content, pipeline};

/// Whether an input is a database: a `postgres://` URL, or an SQLite header. A file named on
/// the command line is sniffed whatever its extension; a directory walk has already sniffed
/// the files it took by a database extension, and took the others as logs by theirs (so the
/// thousands of files of a walk are not each opened once more).
pub fn is_database(input: &toolmend::io::inputs::Input) -> bool {
    postgres_url(input).is_some()
        || input.path.as_deref().is_some_and(|p| {
            if input.walked {
                toolmend::io::inputs::named_like_database(p)
            } else {
                store::sqlite::is_sqlite(p)
            }
        })
}

/// The `postgres://` URL an input names, if it names one.
pub fn postgres_url(input: &toolmend::io::inputs::Input) -> Option<&str> {
    input
        .path
        .as_deref()
        .and_then(|p| p.to_str())
        .filter(|s| store::postgres::is_url(s))
}

/// Lint a database read-only: an SQLite file, or a `postgres://` URL; `None` when it holds no
/// session store toolmend knows.
pub fn read(path: &Path, name: &str, options: &LintOptions) -> Result<Option<pipeline::Report>> {
    Ok(match path.to_str().filter(|s| store::postgres::is_url(s)) {
        Some(url) => store::postgres::lint(url, name, options)
            .with_context(|| format!("{}: cannot read the database", esc(name)))?,
        None => {
            let conn = store::sqlite::open_read_only(path)
                .with_context(|| format!("{}: cannot open the database", esc(name)))?;
            pipeline::lint(name, &conn, options)
                .with_context(|| format!("{}: cannot read the database", esc(name)))?
        }
    })
}

/// [`read`], with a database holding no known store as an error.
pub fn lint(path: &Path, name: &str, options: &LintOptions) -> Result<pipeline::Report> {
    read(path, name, options)?.ok_or_else(|| {
        anyhow!(
            "{}: a database, but no session store toolmend knows (known: {})",
            esc(name),
            store::all()
                .iter()
                .map(|s| s.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// `detect` for a database: the store, why, and each conversation.
pub fn detect(path: &Path, name: &str, options: &LintOptions, out: &mut dyn Write) -> Result<()> {
    let report = lint(path, name, options)?;
    let kind = if path.to_str().is_some_and(store::postgres::is_url) {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    writeln!(out, "{} ({kind} database: {})", esc(name), report.store)?;
    writeln!(out, "  why: {}", esc(&report.why))?;
    for (i, c) in report.conversations.iter().enumerate() {
        let place = esc(&c.stored.location.to_string());
        match &c.stored.content {
            Content::Unreadable(why) => {
                writeln!(out, "  conversation {i}: {place}: unreadable: {}", esc(why))?;
            }
            Content::Messages(m) => {
                let conv = c
                    .analysed
                    .as_ref()
                    .and_then(|a| a.doc.conversations.first());
                let messages = conv.map_or(0, |c| c.messages.len());
                let calls = conv.map_or(0, |c| c.calls().count());
                let mut line =
                    format!("  conversation {i}: {place}: {messages} messages, {calls} tool calls");
                if let Some(s) = store::by_name(report.store).filter(|_| !m.paused.is_empty()) {
                    line.push_str(&format!(", {}", s.paused_note(m.paused.len())));
                }
                if let Some(why) = &m.read_only {
                    line.push_str(&format!(", read-only: {why}"));
                }
                writeln!(out, "{line}")?;
            }
        }
    }
    Ok(())
}

/// `repair --in-place` (or `--check`) of a database; returns whether something changed (or
/// would).
pub fn repair(
    path: &Path,
    name: &str,
    lint_options: &LintOptions,
    options: &RepairOptions,
    write: &pipeline::WriteOptions,
    quiet: bool,
) -> Result<bool> {
    let name = esc(name);
    if path.to_str().is_some_and(store::postgres::is_url) {
        anyhow::bail!("{name}: PostgreSQL stores are linted only (read-only); nothing written");
    }
    let done = pipeline::repair(path, lint_options, options, write)
        .with_context(|| format!("{name}: not repaired"))?;
    let changed = !done.repaired.is_empty();
    if quiet {
        return Ok(changed);
    }
    if !changed {
        super::say(format_args!(
            "{name}: no conversation needs a repair; left untouched"
        ));
    }
    let verb = if write.dry_run {
        "would be repaired"
    } else {
        "repaired"
    };
    for loc in &done.repaired {
        super::say(format_args!("{name}: {}: {verb}", esc(&loc.to_string())));
    }
    if changed {
        let rows = if write.dry_run {
            String::new()
        } else {
            format!(", {} row(s) written in one transaction", done.rows)
        };
        super::say(format_args!(
            "{name}: {} placeholder tool result(s) for dangling tool calls in {} conversation(s){rows}; {} left untouched",
            done.placeholders,
            done.repaired.len(),
            done.untouched
        ));
    }
    if !done.left.is_empty() && !write.dry_run {
        super::say(format_args!(
            "{name}: {} finding(s) left after the write (see `toolmend lint {name}`)",
            done.left.len()
        ));
    }
    Ok(changed)
}
