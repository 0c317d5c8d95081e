//! The `toolmend` command. Everything but the process exit lives in [`toolmend::cli`], which
//! the Python package's `toolmend` command runs too.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(toolmend::cli::main(std::env::args_os()))
}
