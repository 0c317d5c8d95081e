//! `--format sarif`: a SARIF 2.1.0 log.

use std::io::{self, Write};

use serde_json::json;

use crate::finding::Finding;
use crate::rules::{Rule, Severity};

pub(super) fn render(findings: &[Finding], out: &mut dyn Write) -> io::Result<()> {
    let rules: Vec<_> = Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.code(),
                "name": r.name(),
                "shortDescription": {"text": r.summary()},
                "defaultConfiguration": {"level": level(r.severity())},
            })
        })
        .collect();
    let results: Vec<_> = findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": f.code,
                "level": level(f.severity),
                "message": {"text": f.located_message()},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path},
                        "region": {"startLine": f.line.max(1), "startColumn": f.column.max(1)},
                    },
                    "logicalLocations": [{"fullyQualifiedName": f.pointer, "kind": "member"}],
                }],
            })
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolmend",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}
