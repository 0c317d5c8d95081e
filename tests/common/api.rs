//! The one place tests wrap the library: lint and repair through its facade (`toolmend::…`),
//! with the default read options.

use toolmend::{
    Analysed, DuplicatePolicy, Finding, Options, OrphanPolicy, Provider, RepairOptions, Repaired,
};

/// `bytes`, named `name`, analysed with the default options.
pub fn analyse(name: &str, bytes: &[u8]) -> Analysed {
    toolmend::analyse(name, bytes, &Options::default())
}

/// `bytes`, named `name`, analysed as `--target target` would (the dialect's own provider
/// when `None`).
pub fn analyse_for(name: &str, bytes: &[u8], target: Option<Provider>) -> Analysed {
    let options = Options {
        target,
        ..Options::default()
    };
    toolmend::analyse(name, bytes, &options)
}

/// `CODE@line:call-id` per finding for `--target target`, in reading order.
pub fn code_line_ids_for(name: &str, bytes: &[u8], target: Option<Provider>) -> Vec<String> {
    analyse_for(name, bytes, target)
        .findings(name)
        .iter()
        .map(|f| {
            let id = f.call_id.as_deref().unwrap_or("-");
            format!("{}@{}:{id}", f.code, f.line)
        })
        .collect()
}

/// The output of repairing `bytes` for `--target target` with `options`.
pub fn repair_for(
    name: &str,
    bytes: &[u8],
    target: Option<Provider>,
    options: &RepairOptions,
) -> Vec<u8> {
    analyse_for(name, bytes, target)
        .repair(bytes, options)
        .output
}

/// The findings of `bytes`, in reading order.
pub fn findings(name: &str, bytes: &[u8]) -> Vec<Finding> {
    toolmend::lint(name, bytes, &Options::default())
}

/// Rule codes of the findings, in reading order.
pub fn codes(name: &str, bytes: &[u8]) -> Vec<&'static str> {
    findings(name, bytes).iter().map(|f| f.code).collect()
}

/// `CODE call-id` per finding (`-` without an id), in reading order.
pub fn code_ids(name: &str, bytes: &[u8]) -> Vec<String> {
    findings(name, bytes)
        .iter()
        .map(|f| format!("{} {}", f.code, f.call_id.as_deref().unwrap_or("-")))
        .collect()
}

/// `CODE@line:call-id` per finding (`-` without an id), in reading order.
pub fn code_line_ids(name: &str, bytes: &[u8]) -> Vec<String> {
    findings(name, bytes)
        .iter()
        .map(|f| {
            let id = f.call_id.as_deref().unwrap_or("-");
            format!("{}@{}:{id}", f.code, f.line)
        })
        .collect()
}

/// The dialect each conversation of `bytes` was read as.
pub fn dialects(name: &str, bytes: &[u8]) -> Vec<&'static str> {
    analyse(name, bytes)
        .doc
        .conversations
        .iter()
        .map(|c| c.dialect)
        .collect()
}

/// `bytes` repaired with `options`.
pub fn repair(name: &str, bytes: &[u8], options: &RepairOptions) -> Repaired {
    toolmend::repair(name, bytes, &Options::default(), options)
}

/// The output of repairing `bytes` with `options`.
pub fn repair_with(name: &str, bytes: &[u8], options: &RepairOptions) -> Vec<u8> {
    repair(name, bytes, options).output
}

/// The output of the default (safe) repair.
pub fn repaired(name: &str, bytes: &[u8]) -> Vec<u8> {
    repair_with(name, bytes, &RepairOptions::default())
}

/// The default repair, with the orphan policy `orphans`.
pub fn with_orphans(orphans: OrphanPolicy) -> RepairOptions {
    RepairOptions {
        orphans,
        ..RepairOptions::default()
    }
}

/// Every policy on, the unsafe ones too: orphans dropped, duplicates resolved keeping the
/// first.
pub fn everything() -> RepairOptions {
    RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepFirst),
        ..with_orphans(OrphanPolicy::Drop)
    }
}
