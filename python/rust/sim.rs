//! `toolmend simulate`: the three sources of batches (a scenario, ad-hoc calls, histories)
//! run through the replay model; the result is the JSON that `--format json` prints (docs/simulate.md).

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;

use toolmend::simulate::{
    Batch, BatchCall, Mode, Report, SetOptions, Strategy, ToolSets, parse_scenario,
};

use crate::ToolmendError;
use crate::options::lint_options;

/// Simulate a scenario (the `--spec` file's JSON text), labelled `source`.
#[pyfunction]
#[pyo3(signature = (text, *, source, strategy))]
pub fn simulate_scenario(
    py: Python<'_>,
    text: &str,
    source: &str,
    strategy: &str,
) -> PyResult<String> {
    let strategies = strategies(strategy)?;
    let scenario =
        parse_scenario(text).map_err(|e| ToolmendError::new_err(format!("{source}: {e}")))?;
    let batch = scenario.batch(source);
    Ok(py.detach(|| Report::run(&scenario.sets, &[batch], &strategies).to_json()))
}

/// Simulate one batch calling the tools `names` in order (ids `c1`, `c2`, …), like `--calls`.
#[pyfunction]
#[pyo3(signature = (names, *, strategy, mode=None, direct=None, interrupting=None, guard=None, approval=None))]
#[allow(clippy::too_many_arguments)] // one per keyword of `toolmend.simulate`
pub fn simulate_calls(
    py: Python<'_>,
    names: Vec<String>,
    strategy: &str,
    mode: Option<&str>,
    direct: Option<Vec<String>>,
    interrupting: Option<Vec<String>>,
    guard: Option<Vec<String>>,
    approval: Option<Vec<String>>,
) -> PyResult<String> {
    let strategies = strategies(strategy)?;
    let sets = tool_sets(mode, direct, interrupting, guard, approval)?;
    let calls = names
        .into_iter()
        .enumerate()
        .map(|(i, n)| BatchCall::new(format!("c{}", i + 1), n))
        .collect();
    let batch = Batch::new("--calls", calls);
    Ok(py.detach(|| Report::run(&sets, &[batch], &strategies).to_json()))
}

/// Simulate every batch (model message with two or more calls) of a history document.
#[pyfunction]
#[pyo3(signature = (
    data, *, path, strategy, dialect=None, at=None, input_format=None, mode=None, direct=None,
    interrupting=None, guard=None, approval=None,
))]
#[allow(clippy::too_many_arguments)] // one per keyword of `toolmend.simulate`
pub fn simulate_histories(
    py: Python<'_>,
    data: PyBackedBytes,
    path: String,
    strategy: &str,
    dialect: Option<&str>,
    at: Option<String>,
    input_format: Option<&str>,
    mode: Option<&str>,
    direct: Option<Vec<String>>,
    interrupting: Option<Vec<String>>,
    guard: Option<Vec<String>>,
    approval: Option<Vec<String>>,
) -> PyResult<String> {
    let strategies = strategies(strategy)?;
    let sets = tool_sets(mode, direct, interrupting, guard, approval)?;
    let options = lint_options(dialect, None, at, input_format)?;
    Ok(py.detach(|| {
        let analysed = toolmend::analyse(&path, &data, &options);
        let batches: Vec<Batch> = toolmend::find_batches(&path, &analysed)
            .into_iter()
            .map(|f| f.batch)
            .collect();
        Report::run(&sets, &batches, &strategies).to_json()
    }))
}

fn strategies(list: &str) -> PyResult<Vec<Strategy>> {
    Strategy::parse_list(list).map_err(|e| ToolmendError::new_err(format!("--strategy: {e}")))
}

/// The tool sets from keywords, with the replay model's defaults (as the command line's flags).
fn tool_sets(
    mode: Option<&str>,
    direct: Option<Vec<String>>,
    interrupting: Option<Vec<String>>,
    guard: Option<Vec<String>>,
    approval: Option<Vec<String>>,
) -> PyResult<ToolSets> {
    let mode = mode
        .map(|m| m.parse::<Mode>())
        .transpose()
        .map_err(|e| ToolmendError::new_err(e.to_string()))?;
    Ok(SetOptions {
        mode,
        direct,
        interrupting,
        guard,
        approval,
    }
    .resolve())
}
