//! The `toolmend` command: parse arguments, run, map the outcome to an exit code
//! (0 clean, 1 findings or changes needed, 2 failure). A closed pipe is not a failure.

mod app;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = app::args::Cli::parse_from(&argv);
    match app::run(cli, &argv) {
        Ok(status) => ExitCode::from(status as u8),
        Err(err) if app::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            app::print_error(&err);
            ExitCode::from(2)
        }
    }
}
