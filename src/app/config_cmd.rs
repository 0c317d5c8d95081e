//! `toolmend config [PATH]`: the settings in effect for a path, and where each came from.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::CommandFactory;

use super::Status;
use super::args::{Cli, ConfigCmdArgs};
use super::config::{self, Value, keys};

pub fn run(a: ConfigCmdArgs) -> Result<Status> {
    let path = a.path.clone().unwrap_or_else(|| PathBuf::from("."));
    let dir = if path.is_dir() {
        path.clone()
    } else {
        match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    };
    let found = config::for_dir(&dir, &a.config)?;
    let cli = Cli::command();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "# settings for {}",
        toolmend::escape_control(&path.display().to_string())
    )?;
    match (&found, a.config.isolated) {
        (Some(c), _) => writeln!(out, "# from {}", c.shown())?,
        (None, true) => writeln!(out, "# --isolated: no configuration file read")?,
        (None, false) => writeln!(
            out,
            "# no configuration file found from {} upwards",
            toolmend::escape_control(&dir.display().to_string())
        )?,
    }
    let source = |line: usize| {
        found
            .as_ref()
            .map(|c| format!("{}:{line}", c.shown()))
            .unwrap_or_default()
    };
    for (key, kind) in keys::KEYS {
        let set = found
            .as_ref()
            .and_then(|c| c.settings.iter().find(|s| s.key == *key));
        let line = match set {
            Some(s) => format!("{key} = {}", s.value),
            None => match default(&cli, key, *kind) {
                Some(v) => format!("{key} = {v}"),
                None => format!("# {key} (not set)"),
            },
        };
        let from = match set {
            Some(s) => source(s.line),
            None => "default".into(),
        };
        writeln!(out, "{line:<40} # {from}")?;
    }
    if let Some(c) = found.as_ref().filter(|c| !c.per_file.is_empty()) {
        writeln!(out, "\n[{}]", keys::PER_FILE_IGNORES)?;
        for p in &c.per_file {
            let line = format!(
                "{} = {}",
                Value::Str(p.glob.clone()),
                Value::List(p.rules.clone())
            );
            writeln!(out, "{line:<40} # {}", source(p.line))?;
        }
        let relative = Path::new(&c.shown())
            .parent()
            .map(|d| d.display().to_string())
            .filter(|d| !d.is_empty())
            .unwrap_or_else(|| ".".into());
        writeln!(
            out,
            "# globs are matched against paths relative to {}",
            toolmend::escape_control(&relative)
        )?;
    }
    Ok(Status::Clean)
}

/// The option's default, as a value of `kind` (`None` when it has none).
fn default(cli: &clap::Command, key: &str, kind: keys::Kind) -> Option<Value> {
    let (_, arg) = config::option(cli, key)?;
    let given = arg
        .get_default_values()
        .first()
        .map(|v| v.to_string_lossy().into_owned());
    match (kind, given) {
        (keys::Kind::Bool, _) => Some(Value::Bool(false)),
        (keys::Kind::List, _) => Some(Value::List(Vec::new())),
        (keys::Kind::Int, Some(v)) => v.parse().ok().map(Value::Int),
        (keys::Kind::Str, Some(v)) => Some(Value::Str(v)),
        (_, None) => None,
    }
}
