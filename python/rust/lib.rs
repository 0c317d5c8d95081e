//! `toolmend._toolmend`, the native half of the `toolmend` Python package: the command line
//! ([`main`]) and the engine calls behind `toolmend.lint`, `toolmend.repair` and
//! `toolmend.simulate`. The Python half (`python/toolmend/`) turns Python values into
//! document bytes and back; everything here takes bytes or strings, does its work without the
//! GIL, and gives bytes or JSON text.

mod engine;
mod options;
mod sim;

use std::ffi::OsString;

use pyo3::prelude::*;

/// mimalloc, as in the `toolmend` binary, tuned by [`toolmend::cli::tune_allocator`] when the
/// module is loaded: the engine's threads allocate and free as they do there. Only the
/// extension's own memory comes from it; Python objects keep Python's allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pyo3::create_exception!(
    _toolmend,
    ToolmendError,
    pyo3::exceptions::PyValueError,
    "A request toolmend cannot carry out (unknown dialect, invalid scenario, …); the message \
     is the command line's."
);

/// Run the `toolmend` command line with `args` (the first is the program name) and return
/// its exit status. Output goes to the process's standard output and error.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<OsString>) -> u8 {
    py.detach(|| toolmend::cli::main(args))
}

/// The native module.
#[pymodule]
fn _toolmend(m: &Bound<'_, PyModule>) -> PyResult<()> {
    toolmend::cli::tune_allocator();
    m.add("ToolmendError", m.py().get_type::<ToolmendError>())?;
    m.add("SEED_PLACEHOLDER", toolmend::SEED_PLACEHOLDER)?;
    m.add("DIALECTS", toolmend::dialect_names())?;
    m.add("TARGETS", options::TARGETS.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(engine::lint, m)?)?;
    m.add_function(wrap_pyfunction!(engine::repair, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate_calls, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate_histories, m)?)?;
    Ok(())
}
