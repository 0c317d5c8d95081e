//! Configuration files, the way ruff finds them: for each input, its directory and then each
//! parent is searched for `.toolmend.toml`, `toolmend.toml`, or a `pyproject.toml` with a
//! `[tool.toolmend]` table; the closest wins and the search stops there. `--config FILE` uses
//! one file for every input, `--isolated` none. Flags given on the command line win over the
//! file.

mod file;
pub mod keys;

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, FromArgMatches, parser::ValueSource};
use globset::{Glob, GlobMatcher};

#[cfg(test)]
use file::Setting;
pub use file::{Config, Value, load, option, shown};

use super::args::{Cli, ConfigArgs};
use toolmend::io::inputs::Input;

/// The names searched in each directory, in order.
pub const NAMES: [&str; 3] = [".toolmend.toml", "toolmend.toml", "pyproject.toml"];

/// The configuration file that applies to files in `dir` (absolute or relative to the current
/// directory), if any.
pub fn discover(dir: &Path) -> Result<Option<Config>> {
    let dir = std::path::absolute(dir).context("cannot find the current directory")?;
    for d in dir.ancestors() {
        for name in NAMES {
            let candidate = d.join(name);
            if candidate.is_file()
                && let Some(config) = load(&candidate)?
            {
                return Ok(Some(config));
            }
        }
    }
    Ok(None)
}

/// The configuration for an input in `dir` under `how` (`--config`, `--isolated`).
pub fn for_dir(dir: &Path, how: &ConfigArgs) -> Result<Option<Config>> {
    if how.isolated {
        return Ok(None);
    }
    match &how.config {
        Some(path) => match load(path)? {
            Some(config) => Ok(Some(config)),
            None => bail!("{}: has no [tool.toolmend] table", shown(path)),
        },
        None => discover(dir),
    }
}

/// The directory whose configuration applies to `input` (the current one for standard input,
/// an OpenCode session's storage root for a session).
pub fn dir_of(input: &Input) -> PathBuf {
    if let Some(session) = &input.session {
        return session.root.clone();
    }
    match input.path.as_deref().and_then(Path::parent) {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The command line with `config`'s settings added for the options the user did not give, for
/// the subcommand being run (a key its subcommand has no option for is not used by it).
pub fn with_config(argv: &[OsString], config: Option<&Config>) -> Result<Cli> {
    let command = Cli::command();
    let matches = command.clone().try_get_matches_from(argv)?;
    let Some(config) = config else {
        return Ok(Cli::from_arg_matches(&matches)?);
    };
    let (name, given) = matches.subcommand().context("no subcommand")?;
    let sub = command
        .find_subcommand(name)
        .context("unknown subcommand")?;
    let mut extra: Vec<OsString> = Vec::new();
    for s in &config.settings {
        let Some(arg) = sub.get_arguments().find(|a| a.get_long() == Some(s.key)) else {
            continue;
        };
        if given.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine) {
            continue;
        }
        match &s.value {
            Value::Bool(true) => extra.push(format!("--{}", s.key).into()),
            value => extra.extend(
                value
                    .as_args()
                    .iter()
                    .map(|v| format!("--{}={v}", s.key).into()),
            ),
        }
    }
    // The subcommand is the first argument (the top level has no options of its own).
    let at = argv
        .iter()
        .skip(1)
        .position(|a| a.to_str() == Some(name))
        .map_or(argv.len(), |i| i + 2);
    let mut full = argv[..at].to_vec();
    full.extend(extra);
    full.extend_from_slice(&argv[at..]);
    Ok(<Cli as clap::Parser>::try_parse_from(&full)?)
}

/// Per-input settings: the command line with each input's configuration applied, made once
/// per configuration file.
pub struct Configured<T> {
    /// One per configuration in use (the first for inputs without one).
    pub groups: Vec<Group<T>>,
    of_input: HashMap<String, usize>,
}

/// The settings made from one configuration.
pub struct Group<T> {
    /// The configuration (none: defaults and flags only).
    pub config: Option<Arc<Config>>,
    /// What the subcommand made of the command line with it.
    pub settings: T,
    per_file: Vec<(GlobMatcher, bool, Vec<toolmend::Rule>)>,
}

impl<T> Configured<T> {
    /// Settings for each configuration used by `inputs`; `make` turns a command line (with
    /// that configuration applied) into the subcommand's settings. A configuration that cannot
    /// be used (a syntax error, an unknown key) is an error of the inputs it applies to, given
    /// once in the second list; those inputs are not [`Configured::covers`]ed, the others go on.
    pub fn resolve(
        argv: &[OsString],
        how: &ConfigArgs,
        inputs: &[Input],
        make: impl Fn(Cli) -> Result<T>,
    ) -> Result<(Configured<T>, Vec<anyhow::Error>)> {
        let mut by_dir: HashMap<PathBuf, Option<usize>> = HashMap::new();
        let mut by_file: HashMap<PathBuf, usize> = HashMap::new();
        let mut groups: Vec<Group<T>> = Vec::new();
        let mut of_input = HashMap::new();
        let mut errors: Vec<anyhow::Error> = Vec::new();
        let mut said: HashSet<String> = HashSet::new();
        let mut group_for = |dir: &Path, groups: &mut Vec<Group<T>>| -> Result<usize> {
            let config = for_dir(dir, how)?;
            let key = config.as_ref().map(|c| c.path.clone()).unwrap_or_default();
            if let Some(&i) = by_file.get(&key) {
                return Ok(i);
            }
            let settings = make(with_config(argv, config.as_ref())?)?;
            let per_file = match &config {
                Some(c) => per_file(c)?,
                None => Vec::new(),
            };
            groups.push(Group {
                config: config.map(Arc::new),
                settings,
                per_file,
            });
            by_file.insert(key, groups.len() - 1);
            Ok(groups.len() - 1)
        };
        // With nothing to read (only paths that could not be taken), the current directory's
        // configuration is still checked.
        if inputs.is_empty() {
            group_for(Path::new("."), &mut groups)?;
        }
        for input in inputs {
            let dir = dir_of(input);
            let group = match by_dir.get(&dir) {
                Some(&group) => group,
                None => {
                    let group = match group_for(&dir, &mut groups) {
                        Ok(i) => Some(i),
                        Err(e) => {
                            if said.insert(format!("{e:#}")) {
                                errors.push(e);
                            }
                            None
                        }
                    };
                    by_dir.insert(dir, group);
                    group
                }
            };
            if let Some(i) = group {
                of_input.insert(input.name.clone(), i);
            }
        }
        Ok((Configured { groups, of_input }, errors))
    }

    /// Whether `input` has settings (its configuration could be used).
    pub fn covers(&self, input: &Input) -> bool {
        self.of_input.contains_key(&input.name)
    }

    /// The settings of `input`.
    pub fn of(&self, input: &Input) -> &Group<T> {
        &self.groups[self.of_input.get(&input.name).copied().unwrap_or(0)]
    }
}

impl<T> Group<T> {
    /// The rules `per-file-ignores` turns off for `input`.
    pub fn ignored_for(&self, input: &Input) -> Vec<toolmend::Rule> {
        let (Some(config), Some(path)) = (&self.config, &input.path) else {
            return Vec::new();
        };
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.clone());
        let relative = abs.strip_prefix(config.dir()).unwrap_or(&abs);
        let name = path.file_name().map(Path::new);
        self.per_file
            .iter()
            .filter(|(glob, any_dir, _)| {
                glob.is_match(relative) || (*any_dir && name.is_some_and(|n| glob.is_match(n)))
            })
            .flat_map(|(_, _, rules)| rules.iter().copied())
            .collect()
    }
}

/// The compiled `per-file-ignores` of `config`: a glob without `/` also matches a file name in
/// any directory (as in ruff).
fn per_file(config: &Config) -> Result<Vec<(GlobMatcher, bool, Vec<toolmend::Rule>)>> {
    config
        .per_file
        .iter()
        .map(|p| {
            let glob = Glob::new(&p.glob)?.compile_matcher();
            let rules = toolmend::select_rules(&p.rules).map_err(anyhow::Error::msg)?;
            Ok((glob, !p.glob.contains('/'), rules))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_go_after_the_subcommand_and_flags_win() {
        let config = Config {
            path: PathBuf::from("/p/toolmend.toml"),
            settings: vec![
                Setting {
                    key: "ignore",
                    value: Value::List(vec!["TM001".into()]),
                    line: 1,
                },
                Setting {
                    key: "max-line-bytes",
                    value: Value::Int(10),
                    line: 2,
                },
                Setting {
                    key: "placeholder",
                    value: Value::Str("x".into()),
                    line: 3,
                },
            ],
            per_file: Vec::new(),
        };
        let argv: Vec<OsString> = ["lint", "lint", "--ignore", "TM002", "a.jsonl"]
            .map(OsString::from)
            .to_vec();
        let cli = with_config(&argv, Some(&config)).unwrap();
        let crate::cli::args::Command::Lint(a) = cli.command else {
            panic!("not lint");
        };
        assert_eq!(a.ignore, ["TM002"]);
        assert_eq!(a.input.max_line_bytes, 10);
        assert_eq!(a.input.paths, [PathBuf::from("a.jsonl")]);
    }

    #[test]
    fn every_key_is_an_option_of_a_subcommand() {
        let cli = Cli::command();
        for (key, kind) in keys::KEYS {
            let (_, arg) = option(&cli, key).unwrap_or_else(|| panic!("no option --{key}"));
            let is_flag = matches!(arg.get_action(), clap::ArgAction::SetTrue);
            assert_eq!(is_flag, *kind == keys::Kind::Bool, "--{key}");
        }
    }
}
