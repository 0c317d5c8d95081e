//! Discoverability and audit: every rule explains itself (with an example that really has the
//! defect), completions and the man page render and name every subcommand, and the audit
//! record of `repair --format json` is true to the bytes it describes.

use std::path::Path;

use sha2::{Digest, Sha256};

pub mod common;

use common::bin::{run, text};

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_rule_explains_itself_and_its_example_has_the_defect() {
    for rule in toolmend::RULES {
        let out = run(here(), &["explain", rule.code]);
        let said = text(&out);
        assert!(out.status.success(), "{}: {said}", rule.code);
        assert!(
            said.starts_with(&format!("{} {}", rule.code, rule.name)),
            "{said}"
        );
        for part in ["What: ", "Why: ", "Provider: ", "Fix: ", "Example"] {
            assert!(said.contains(part), "{}: no {part}", rule.code);
        }
        if toolmend::explain(rule.rule).example.is_some() {
            let lint = said
                .split("`toolmend lint` says:")
                .nth(1)
                .unwrap_or_else(|| panic!("{}: no lint output", rule.code));
            assert!(
                lint.contains(&format!(" {} ", rule.code)),
                "{}: its example does not show the rule:\n{said}",
                rule.code
            );
        }
        // By name, case-insensitively, too.
        let by_name = run(here(), &["explain", &rule.name.to_uppercase()]);
        assert_eq!(by_name.stdout, out.stdout);
    }
}

#[test]
fn the_examples_with_a_fix_are_repaired_clean_of_their_rule() {
    for rule in toolmend::RULES.iter().filter(|r| r.fixes.label() != "none") {
        let said = text(&run(here(), &["explain", rule.code]));
        assert!(
            said.contains("After `toolmend repair"),
            "{}: {said}",
            rule.code
        );
    }
}

#[test]
fn completions_render_for_every_shell_and_name_every_subcommand() {
    let subcommands: Vec<String> = common::bin::subcommands();
    assert!(subcommands.len() >= 9, "{subcommands:?}");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = run(here(), &["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let script = String::from_utf8(out.stdout).unwrap();
        for sub in &subcommands {
            assert!(script.contains(sub.as_str()), "{shell}: no {sub}");
        }
    }
}

#[test]
fn the_man_page_renders_and_names_every_subcommand() {
    let out = run(here(), &["man"]);
    assert!(out.status.success(), "{}", text(&out));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH toolmend"),
        "{page}"
    );
    assert!(page.contains(".SH SUBCOMMANDS"), "{page}");
    for sub in common::bin::subcommands() {
        assert!(
            page.contains(&format!("toolmend\\-{sub}")),
            "the man page does not name {sub}"
        );
    }
}

#[test]
fn the_audit_record_is_true_to_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let log = here().join("fixtures/cli/broken.jsonl");
    let input = std::fs::read(&log).unwrap();
    let target = dir.path().join("out.jsonl");
    let out = run(
        here(),
        &[
            "repair",
            "--isolated",
            "--format",
            "json",
            "-o",
            target.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let written = std::fs::read(&target).unwrap();
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file = &record[0];
    assert_eq!(file["input_sha256"], hex(&input));
    assert_eq!(file["output_sha256"], hex(&written));
    assert_eq!(file["written"], true);
    // The edits, applied to the input, give the output; each inserted hash is of its bytes.
    let repaired = toolmend::repair(
        "broken.jsonl",
        &input,
        &toolmend::Options::default(),
        &toolmend::RepairOptions::default(),
    );
    assert_eq!(repaired.output, written);
    let edits = file["edits"].as_array().unwrap();
    assert_eq!(edits.len(), repaired.edits.len());
    let mut rebuilt = input.clone();
    for (e, json) in repaired.edits.iter().zip(edits).rev() {
        assert_eq!(e.round, 1);
        assert_eq!(json["start"], e.start);
        assert_eq!(json["inserted_sha256"], hex(&e.inserted));
        assert_eq!(json["kind"], e.kind);
        rebuilt.splice(e.start..e.end, e.inserted.iter().copied());
    }
    assert_eq!(rebuilt, written);
    assert_eq!(edits[0]["kind"], "placeholder");
    assert_eq!(edits[0]["call_ids"][0], "call_b");
}
