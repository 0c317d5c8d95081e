//! The `toolmend` command. Everything but the process exit lives in [`toolmend::cli`], which
//! the Python package's `toolmend` command runs too.

use std::process::ExitCode;

/// mimalloc: memory allocated on one worker thread and freed on another (the lines of a big
/// file are read on every thread, then walked on one) costs glibc's allocator a lock each time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` (mimalloc's `mimalloc.h`): how long freed memory stays with the
/// process before it is returned to the system.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> ExitCode {
    // Return freed memory after 10 ms (this build's default waits far longer): a growing
    // table leaves its old copy behind each time it doubles, and a streamed repair should
    // peak at what it holds. At once (0) costs a system call per free: 2-3x the system time.
    // SAFETY: setting an option is allowed at any time; this one is read on each purge.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 10) };
    ExitCode::from(toolmend::cli::main(std::env::args_os()))
}
