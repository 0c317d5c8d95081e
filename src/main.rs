//! The `toolmend` command. Everything but the process exit lives in [`toolmend::cli`], which
//! the Python package's `toolmend` command runs too.

use std::process::ExitCode;

/// mimalloc: memory allocated on one worker thread and freed on another (the lines of a big
/// file are read on every thread, then walked on one) costs glibc's allocator a lock each time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(toolmend::cli::main(std::env::args_os()))
}
