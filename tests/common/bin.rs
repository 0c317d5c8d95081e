//! The one way tests run the `toolmend` binary (the `tests/cmd/*.toml` cases run it through
//! trycmd, which pins their output the same way the fixtures are pinned: see [`super::files`]).

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_toolmend");

/// Run `toolmend ARGS` in `dir`, with no standard input and `NO_COLOR` unset, so colour is
/// decided by the flags alone (output to a pipe is never coloured by default).
pub fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("run toolmend")
}

/// Standard output then standard error, as text (for messages and `contains` checks).
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The names of the subcommands, as `toolmend help` lists them (without `help`).
pub fn subcommands() -> Vec<String> {
    let out = run(Path::new("."), &["help"]);
    let help = String::from_utf8(out.stdout).expect("utf-8 help");
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}
