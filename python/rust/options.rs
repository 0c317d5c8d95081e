//! Keyword arguments into library options, with the command line's error messages.

use pyo3::PyResult;

use toolmend::{
    DuplicatePolicy, Format, Options, OrphanPolicy, Provider, ReadOptions, RepairOptions,
    SEED_PLACEHOLDER,
};

use crate::ToolmendError;

/// The command line's `--max-line-bytes` default.
const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// The `--target` names, as the command line spells them.
pub const TARGETS: [&str; 5] = ["openai", "deepseek", "anthropic", "gemini", "bedrock"];

/// Lint options from `dialect=`, `target=`, `at=` and `input_format=`.
pub fn lint_options(
    dialect: Option<&str>,
    target: Option<&str>,
    at: Option<String>,
    input_format: Option<&str>,
) -> PyResult<Options> {
    let mut read = ReadOptions {
        dialect: None,
        at,
        max_line_bytes: MAX_LINE_BYTES,
        format: input_format.map(format_by_name).transpose()?,
    };
    if let Some(name) = dialect
        && !toolmend::force_dialect(&mut read, name)
    {
        return Err(ToolmendError::new_err(format!(
            "unknown dialect `{name}` (expected one of: {})",
            toolmend::dialect_names().join(", ")
        )));
    }
    Ok(Options {
        read,
        target: target.map(provider_by_name).transpose()?,
        ..Options::default()
    })
}

fn provider_by_name(name: &str) -> PyResult<Provider> {
    Ok(match name {
        "openai" => Provider::OpenAi,
        "deepseek" => Provider::DeepSeek,
        "anthropic" => Provider::Anthropic,
        "gemini" => Provider::Gemini,
        "bedrock" => Provider::Bedrock,
        other => return Err(invalid("target", other, &TARGETS)),
    })
}

fn format_by_name(name: &str) -> PyResult<Format> {
    match name {
        "json" => Ok(Format::Json),
        "jsonl" => Ok(Format::Lines),
        other => Err(invalid("input_format", other, &["json", "jsonl"])),
    }
}

/// Repair options from the keyword arguments of `toolmend.repair`.
pub fn repair_options(
    placeholder: Option<String>,
    mark_synthetic: bool,
    orphans: Option<&str>,
    duplicates: Option<&str>,
) -> PyResult<RepairOptions> {
    Ok(RepairOptions {
        placeholder: placeholder.unwrap_or_else(|| SEED_PLACEHOLDER.into()),
        mark_synthetic,
        orphans: match orphans.unwrap_or("keep") {
            "keep" => OrphanPolicy::Keep,
            "drop" => OrphanPolicy::Drop,
            "note" => OrphanPolicy::Note,
            other => return Err(invalid("orphans", other, &["keep", "drop", "note"])),
        },
        duplicates: match duplicates {
            None => None,
            Some("keep-first") => Some(DuplicatePolicy::KeepFirst),
            Some("keep-last") => Some(DuplicatePolicy::KeepLast),
            Some(other) => {
                return Err(invalid("duplicates", other, &["keep-first", "keep-last"]));
            }
        },
        ..RepairOptions::default()
    })
}

/// The command line's wording for a value outside a fixed set.
pub fn invalid(option: &str, value: &str, possible: &[&str]) -> pyo3::PyErr {
    ToolmendError::new_err(format!(
        "invalid value '{value}' for '{option}' [possible values: {}]",
        possible.join(", ")
    ))
}
