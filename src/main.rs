//! The `toolmend` command. Everything but the process exit lives in [`toolmend::cli`], which
//! the Python package's `toolmend` command runs too.

use std::process::ExitCode;

/// mimalloc, tuned by [`toolmend::cli::tune_allocator`].
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    toolmend::cli::tune_allocator();
    ExitCode::from(toolmend::cli::main(std::env::args_os()))
}
