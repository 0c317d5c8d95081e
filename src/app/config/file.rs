//! Reading one configuration file: `toolmend.toml`, `.toolmend.toml`, or the
//! `[tool.toolmend]` table of a `pyproject.toml`. Every error names the file and line.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::CommandFactory;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::keys::{self, Kind, PER_FILE_IGNORES};
use crate::cli::args::Cli;

/// A setting's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A flag.
    Bool(bool),
    /// A number.
    Int(u64),
    /// A string.
    Str(String),
    /// A list of strings.
    List(Vec<String>),
}

impl Value {
    /// The value as command-line values of its option (none for a flag set to `false`).
    pub fn as_args(&self) -> Vec<String> {
        match self {
            Value::Bool(_) => Vec::new(),
            Value::Int(n) => vec![n.to_string()],
            Value::Str(s) => vec![s.clone()],
            Value::List(items) => items.clone(),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Str(s) => write!(f, "{}", quote(s)),
            Value::List(items) => {
                let items: Vec<String> = items.iter().map(|s| quote(s)).collect();
                write!(f, "[{}]", items.join(", "))
            }
        }
    }
}

/// A TOML basic string (what `toolmend config` prints).
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// One key set in a file.
#[derive(Debug, Clone)]
pub struct Setting {
    /// The key, e.g. `max-line-bytes`.
    pub key: &'static str,
    /// Its value.
    pub value: Value,
    /// The line it is set on.
    pub line: usize,
}

/// One `per-file-ignores` entry.
#[derive(Debug, Clone)]
pub struct PerFile {
    /// The glob, relative to the file's directory.
    pub glob: String,
    /// The rules (codes, names or prefixes) ignored for files it matches.
    pub rules: Vec<String>,
    /// The line it is on.
    pub line: usize,
}

/// A configuration file read.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file (absolute).
    pub path: PathBuf,
    /// Its settings, in file order.
    pub settings: Vec<Setting>,
    /// Its per-file ignores, in file order.
    pub per_file: Vec<PerFile>,
}

impl Config {
    /// The directory `per-file-ignores` globs are relative to.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("/"))
    }

    /// The file as shown to the user: relative to the current directory when under it.
    pub fn shown(&self) -> String {
        shown(&self.path)
    }
}

/// `path` relative to the current directory when it is under it.
pub fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let p = path.strip_prefix(&cwd).unwrap_or(path);
    toolmend::escape_control(&p.display().to_string())
}

/// Is `path` a `pyproject.toml` (whose settings are under `[tool.toolmend]`)?
fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "pyproject.toml")
}

/// Read the configuration in `path`; `None` for a `pyproject.toml` without `[tool.toolmend]`.
pub fn load(path: &Path) -> Result<Option<Config>> {
    let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let name = shown(&path);
    let text = std::fs::read_to_string(&path).with_context(|| format!("{name}: cannot read"))?;
    let at = |offset: usize| format!("{name}:{}", line_of(&text, offset));
    let doc = DeTable::parse(&text).map_err(|e| {
        anyhow!(
            "{}: {}",
            at(e.span().map_or(0, |s| s.start)),
            e.message().trim_end()
        )
    })?;
    let table = if is_pyproject(&path) {
        let Some(tool) = entry(doc.get_ref(), "tool") else {
            return Ok(None);
        };
        let DeValue::Table(tool) = tool.get_ref() else {
            return Ok(None);
        };
        let Some(ours) = entry(tool, "toolmend") else {
            return Ok(None);
        };
        match ours.get_ref() {
            DeValue::Table(t) => t,
            _ => bail!("{}: `tool.toolmend` must be a table", at(ours.span().start)),
        }
    } else {
        doc.get_ref()
    };
    let mut config = Config {
        path: path.clone(),
        settings: Vec::new(),
        per_file: Vec::new(),
    };
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (key, value) in entries {
        let line = line_of(&text, key.span().start);
        let here = format!("{name}:{line}");
        let key = key.get_ref().as_ref();
        if key == PER_FILE_IGNORES {
            config.per_file = per_file(value, &text, &name)?;
            continue;
        }
        let Some((key, kind)) = keys::KEYS.iter().find(|(k, _)| *k == key).copied() else {
            let known: Vec<&str> = keys::KEYS.iter().map(|(k, _)| *k).collect();
            bail!(
                "{here}: unknown key `{}` (known keys: {}, {PER_FILE_IGNORES})",
                toolmend::escape_control(key),
                known.join(", ")
            );
        };
        let value = typed(value.get_ref(), kind).ok_or_else(|| {
            anyhow!(
                "{here}: `{key}` must be {}, not {}",
                kind.noun(),
                type_name(value.get_ref())
            )
        })?;
        for v in value.as_args() {
            check(key, &v).map_err(|why| anyhow!("{here}: `{key}`: {why}"))?;
        }
        config.settings.push(Setting { key, value, line });
    }
    Ok(Some(config))
}

/// The `per-file-ignores` table: glob → array of rules.
fn per_file(value: &Spanned<DeValue<'_>>, text: &str, name: &str) -> Result<Vec<PerFile>> {
    let here = |offset: usize| format!("{name}:{}", line_of(text, offset));
    let DeValue::Table(table) = value.get_ref() else {
        bail!(
            "{}: `{PER_FILE_IGNORES}` must be a table of glob = [rules]",
            here(value.span().start)
        );
    };
    let mut out = Vec::new();
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (glob, rules) in entries {
        let line = line_of(text, glob.span().start);
        let glob = glob.get_ref().to_string();
        let Some(Value::List(rules)) = typed(rules.get_ref(), Kind::List) else {
            bail!("{name}:{line}: `{PER_FILE_IGNORES}` `{glob}` must be an array of rules");
        };
        globset::Glob::new(&glob).map_err(|e| anyhow!("{name}:{line}: {e}"))?;
        toolmend::select_rules(&rules).map_err(|e| anyhow!("{name}:{line}: {e}"))?;
        out.push(PerFile { glob, rules, line });
    }
    Ok(out)
}

/// The member `key` of `table`.
fn entry<'a, 'i>(table: &'a DeTable<'i>, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
    table
        .iter()
        .find(|(k, _)| k.get_ref().as_ref() == key)
        .map(|(_, v)| v)
}

/// `value` as a `kind`, or `None` when it is of another type.
fn typed(value: &DeValue<'_>, kind: Kind) -> Option<Value> {
    match (kind, value) {
        (Kind::Bool, DeValue::Boolean(b)) => Some(Value::Bool(*b)),
        (Kind::Int, DeValue::Integer(n)) => u64::from_str_radix(n.as_str(), n.radix())
            .ok()
            .map(Value::Int),
        (Kind::Str, DeValue::String(s)) => Some(Value::Str(s.to_string())),
        (Kind::List, DeValue::Array(items)) => items
            .iter()
            .map(|i| match i.get_ref() {
                DeValue::String(s) => Some(s.to_string()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(Value::List),
        _ => None,
    }
}

/// What a TOML value is, for an error message.
fn type_name(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(n) if n.as_str().starts_with('-') => "a negative integer",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array (of strings only?)",
        DeValue::Table(_) => "a table",
    }
}

/// Is `value` one the option `key` takes? Checked with the option's own parser (so a choice
/// lists its possible values), and for rules and dialects against what toolmend knows.
fn check(key: &str, value: &str) -> Result<(), String> {
    match key {
        "select" | "ignore" => return toolmend::select_rules(&[value.into()]).map(|_| ()),
        "dialect" if !toolmend::dialect_names().contains(&value) => {
            return Err(format!(
                "unknown dialect `{value}` (expected one of: {})",
                toolmend::dialect_names().join(", ")
            ));
        }
        _ => {}
    }
    let cli = Cli::command();
    let Some((cmd, arg)) = option(&cli, key) else {
        return Ok(());
    };
    let flag = format!("--{key}={value}");
    if cmd
        .clone()
        .try_get_matches_from([cmd.get_name(), flag.as_str()])
        .is_ok()
    {
        return Ok(());
    }
    let choices: Vec<String> = arg
        .get_possible_values()
        .iter()
        .map(|p| p.get_name().to_string())
        .collect();
    Err(if choices.is_empty() {
        format!("invalid value `{}`", toolmend::escape_control(value))
    } else {
        format!(
            "invalid value `{}` (expected one of: {})",
            toolmend::escape_control(value),
            choices.join(", ")
        )
    })
}

/// The first subcommand with the long option `long`, and the option.
pub fn option<'c>(
    cli: &'c clap::Command,
    long: &str,
) -> Option<(&'c clap::Command, &'c clap::Arg)> {
    cli.get_subcommands().find_map(|sub| {
        sub.get_arguments()
            .find(|a| a.get_long() == Some(long))
            .map(|a| (sub, a))
    })
}

/// The 1-based line of byte `offset`.
fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() + 1
}
