//! The agent-log readers (SWE-agent, OpenHands, Kimi Code, legacy OpenAI functions,
//! pydantic-ai) on their fixtures in `fixtures/<dialect>/` (whose findings and repairs
//! `tests/fixtures.rs` pins): every input is read as its folder's dialect, `repair` changes only
//! what `lint` offers to fix, `detect` says what the owning app does with the log, and cut-off
//! runs follow the app. The shared corpus folders of these dialects, when present, must be read
//! the same way and left byte-identical.

use std::fs;
use std::path::{Path, PathBuf};

pub mod common;

use common::api::{analyse, code_ids, dialects, findings, repair_with, repaired, with_orphans};
use common::files;
use toolmend::OrphanPolicy;

const DIALECTS: &[&str] = &[
    "swe-agent",
    "openhands",
    "kimi-code",
    "openai-functions",
    "pydantic-ai",
];

fn dir(dialect: &str) -> PathBuf {
    files::dir(dialect)
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            [".json", ".jsonl", ".traj"]
                .iter()
                .any(|e| name.ends_with(e))
                && !name.contains(".repaired.")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn fixtures_are_read_as_their_dialect_and_changed_only_where_a_fix_is_offered() {
    let mut problems = Vec::new();
    for dialect in DIALECTS {
        let files = inputs(&dir(dialect));
        assert!(files.len() >= 3, "{dialect}: only {} fixtures", files.len());
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let bytes = fs::read(&path).unwrap();
            let found = dialects(&name, &bytes);
            if found.is_empty() || found.iter().any(|d| d != dialect) {
                problems.push(format!("{dialect}/{name}: read as {found:?}"));
            }
            let offered = findings(&name, &bytes).iter().any(|f| f.fix.is_some());
            if !offered && repaired(&name, &bytes) != bytes {
                problems.push(format!(
                    "{dialect}/{name}: no fix offered, yet repair changed it"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every reader explains itself, and says what the owning app does with what it records.
#[test]
fn detection_explains_what_the_app_sends() {
    let why = |dialect: &str, name: &str| {
        let bytes = fs::read(dir(dialect).join(name)).unwrap();
        analyse(name, &bytes).doc.conversations[0].detection.clone()
    };
    let cases = [
        ("swe-agent", "clean.traj", "tool_call_ids"),
        ("openhands", "cut-off.json", "observations are all recorded"),
        (
            "openhands",
            "sdk-paused.jsonl",
            "actions and observations that match",
        ),
        ("kimi-code", "crashed.jsonl", "closes open calls"),
        ("kimi-code", "legacy-cli.jsonl", "never sent to the model"),
        ("openai-functions", "no-result.json", "checks no pairing"),
        ("pydantic-ai", "interrupted.json", "closes open calls"),
    ];
    for (dialect, name, says) in cases {
        let detection = why(dialect, name);
        assert!(detection.contains(says), "{dialect}/{name}: {detection}");
    }
}

/// Cut-off runs that the owning app closes itself are read (their calls counted) but are no
/// findings; the same shape in SWE-agent, which sends its history as it is, is one.
#[test]
fn cut_off_runs_follow_the_owning_app() {
    for (dialect, name, calls) in [
        ("openhands", "cut-off.json", 1),
        ("openhands", "sdk-paused.jsonl", 2),
        ("kimi-code", "crashed.jsonl", 1),
        ("pydantic-ai", "pending-calls.json", 2),
        ("openai-functions", "no-result.json", 1),
    ] {
        let bytes = fs::read(dir(dialect).join(name)).unwrap();
        let a = analyse(name, &bytes);
        assert_eq!(a.calls_checked, calls, "{dialect}/{name}");
        assert!(findings(name, &bytes).is_empty(), "{dialect}/{name}");
    }
    let bytes = fs::read(dir("swe-agent").join("cut-off.traj")).unwrap();
    let codes: Vec<_> = findings("cut-off.traj", &bytes)
        .iter()
        .map(|f| f.code)
        .collect();
    assert_eq!(codes, ["TM001"]);
}

/// Real samples of these formats in `../shared/corpus/<dialect>/`, when there: detected as the
/// dialect and left byte-identical by the default repair.
#[test]
fn corpus_samples_are_read_and_left_alone() {
    for dialect in DIALECTS {
        for path in files::corpus(dialect) {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let bytes = fs::read(&path).unwrap();
            assert!(
                dialects(&name, &bytes).iter().all(|d| d == dialect),
                "{}",
                path.display()
            );
            assert!(repaired(&name, &bytes) == bytes, "{}", path.display());
        }
    }
}

/// `--orphans note` turns an orphan SWE-agent observation into a user observation of the same
/// agent, keeping its content, which SWE-agent sends as it is.
#[test]
fn a_swe_agent_orphan_becomes_a_note_of_its_agent() {
    let name = "wrong-id.traj";
    let bytes = fs::read(dir("swe-agent").join(name)).unwrap();
    let out = repair_with(name, &bytes, &with_orphans(OrphanPolicy::Note));
    let text = String::from_utf8(out.clone()).unwrap();
    assert!(text.contains(
        "\"role\": \"user\",\n      \"content\": \"[toolmend: tool result for unknown call call_Zz9] OBSERVATION:\\nsetup.py\\nsrc\",\n      \"agent\": \"main\""
    ), "{text}");
    let left = code_ids(name, &out);
    assert!(!left.iter().any(|c| c.starts_with("TM002")), "{left:?}");
}
