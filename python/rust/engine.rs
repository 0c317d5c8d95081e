//! Lint and repair of one document, as `toolmend lint --format json` and `toolmend repair`
//! do for one input.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::PyBytes;

use toolmend::{Finding, Options, analyse};

use crate::options::{lint_options, repair_options};

/// The findings of `data` (named `path` in them), as the JSON array `lint --format json`
/// prints.
#[pyfunction]
#[pyo3(signature = (data, *, path, dialect=None, target=None, at=None, input_format=None))]
pub fn lint(
    py: Python<'_>,
    data: PyBackedBytes,
    path: String,
    dialect: Option<&str>,
    target: Option<&str>,
    at: Option<String>,
    input_format: Option<&str>,
) -> PyResult<String> {
    let options = lint_options(dialect, target, at, input_format)?;
    Ok(py.detach(|| to_json(&findings(&path, &data, &options))))
}

/// `data` repaired, and the findings the repair made go away (as JSON, positions those of
/// `data`).
#[pyfunction]
#[pyo3(signature = (
    data, *, path, dialect=None, target=None, at=None, input_format=None, placeholder=None,
    mark_synthetic=false, orphans=None, duplicates=None,
))]
#[allow(clippy::too_many_arguments)] // one per keyword of `toolmend.repair`
pub fn repair<'py>(
    py: Python<'py>,
    data: PyBackedBytes,
    path: String,
    dialect: Option<&str>,
    target: Option<&str>,
    at: Option<String>,
    input_format: Option<&str>,
    placeholder: Option<String>,
    mark_synthetic: bool,
    orphans: Option<&str>,
    duplicates: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, String)> {
    let options = lint_options(dialect, target, at, input_format)?;
    let policy = repair_options(placeholder, mark_synthetic, orphans, duplicates)?;
    let (output, fixed) = py.detach(|| {
        let analysed = analyse(&path, &data, &options);
        let before = analysed.findings(&path);
        let repaired = analysed.repair(&data, &policy);
        if !repaired.changed {
            return (repaired.output, to_json(&[]));
        }
        let mut after = options.clone();
        after.read.format = analysed.doc.format;
        let left = findings(&path, &repaired.output, &after);
        (repaired.output, to_json(&gone(before, &left)))
    });
    Ok((PyBytes::new(py, &output), fixed))
}

fn findings(path: &str, data: &[u8], options: &Options) -> Vec<Finding> {
    toolmend::lint(path, data, options)
}

fn to_json(findings: &[Finding]) -> String {
    serde_json::to_string(findings).expect("findings always serialize")
}

/// The findings of `before` that `after` no longer has. Positions move when a repair inserts
/// or removes messages, so a finding is known by what it is about: rule, conversation, call
/// id and tool name (counted, for repeats).
fn gone(before: Vec<Finding>, after: &[Finding]) -> Vec<Finding> {
    fn key(f: &Finding) -> (&'static str, Option<usize>, Option<String>, Option<String>) {
        (
            f.code,
            f.conversation,
            f.call_id.clone(),
            f.tool_name.clone(),
        )
    }
    let mut left: HashMap<_, usize> = HashMap::new();
    for f in after {
        *left.entry(key(f)).or_default() += 1;
    }
    before
        .into_iter()
        .filter(|f| match left.get_mut(&key(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}
