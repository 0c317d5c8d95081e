//! The public corpus (`../shared/corpus`, when present): every file is read without a TM007 or
//! a panic, its findings are the ones checked by hand (see the README's corpus notes), and its
//! repair leaves no dangling or misplaced call, keeps every original line, and is idempotent.

pub mod common;

use std::path::Path;

use common::generate::{is_subsequence, needs_moves};

use toolmend::Options as LintOptions;
use toolmend::RepairOptions;

/// File name (unique within the corpus) → rule codes lint reports, in order.
const EXPECTED: &[(&str, &[&str])] = &[
    (
        "agent-sessions--Resources__Fixtures__stage0__agents__claude__small.jsonl",
        &["TM006", "TM006", "TM006", "TM001"],
    ),
    (
        "codemie-code--claude__incremental-subagents__turn-1.jsonl",
        &["TM001"],
    ),
    (
        "agent-sessions--Resources__Fixtures__stage0__agents__codex__small.jsonl",
        &["TM002"],
    ),
    (
        "codemie-code--codex__turn-spawn-skill.jsonl",
        &["TM001", "TM001"],
    ),
];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.file_name().is_some_and(|n| n != "SOURCES.tsv") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_files_are_read_without_loss() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !root.is_dir() {
        eprintln!("skipped: {} is not here", root.display());
        return;
    }
    let mut all = Vec::new();
    files(&root, &mut all);
    all.sort();
    assert!(all.len() >= 30, "only {} corpus files", all.len());
    for path in all {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let analysed = toolmend::analyse(&name, &bytes, &LintOptions::default());
        let codes: Vec<&str> = analysed.findings(&name).iter().map(|f| f.code).collect();
        let want = EXPECTED
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(&[][..], |(_, c)| *c);
        assert_eq!(codes, want, "{name}");
        assert!(
            !analysed.doc.conversations.is_empty() || name.contains("replay"),
            "{name}: no conversation"
        );

        let out = analysed.repair(&bytes, &RepairOptions::default()).output;
        if !needs_moves(&analysed) {
            assert!(
                is_subsequence(&bytes, &out),
                "{name}: the safe repair removed bytes"
            );
        }
        let again = toolmend::analyse(&name, &out, &LintOptions::default());
        let left: Vec<&str> = again
            .findings(&name)
            .iter()
            .map(|f| f.code)
            .filter(|c| *c == "TM001" || *c == "TM003" || *c == "TM007")
            .collect();
        assert!(left.is_empty(), "{name}: {left:?} after repair");
        let twice = again.repair(&out, &RepairOptions::default()).output;
        assert!(twice == out, "{name}: repair is not idempotent");
        // Every original line is still there; a Claude Code line re-parented to an inserted
        // placeholder may differ in its parentUuid value only.
        let text = String::from_utf8_lossy(&out);
        let reparented: Vec<String> = text.lines().map(without_parent).collect();
        for line in String::from_utf8_lossy(&bytes).lines() {
            assert!(
                text.contains(line) || reparented.contains(&without_parent(line)),
                "{name}: lost the line {line:?}"
            );
        }
    }
}

/// The line with the value of its `"parentUuid"` member blanked out.
fn without_parent(line: &str) -> String {
    let key = "\"parentUuid\":";
    let Some(at) = line.find(key) else {
        return line.to_string();
    };
    let rest = &line[at + key.len()..];
    let end = if let Some(body) = rest.strip_prefix('"') {
        body.find('"').map_or(rest.len(), |k| k + 2)
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    format!("{}{}{}", &line[..at + key.len()], "_", &rest[end..])
}

#[test]
fn replay_fixture_outputs_gathered_with_at() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/langchain/deer-flow--backend__replay__write_read_file.ultra.json");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipped: no corpus");
        return;
    };
    let mut options = LintOptions::default();
    options.read.at = Some("/turns/*/output".into());
    let analysed = toolmend::analyse("replay.json", &bytes, &options);
    let findings = analysed.findings("replay.json");
    let got: Vec<(&str, Option<&str>)> = findings
        .iter()
        .map(|f| (f.code, f.tool_name.as_deref()))
        .collect();
    assert_eq!(
        got,
        [("TM001", Some("write_file")), ("TM001", Some("read_file"))]
    );
    // Gathered from several places: reported, never repaired.
    assert!(findings.iter().all(|f| f.fix.is_none()));
}
