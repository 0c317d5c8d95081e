//! Repaired OpenAI-chat logs meet the strictest reading of OpenAI's rules: the fixtures after a
//! repair with every policy on, and the corpus files as they are and after repair.

pub mod common;

use common::api::{everything, repair_with};
use common::docs::values;
use common::{files, openai_strict};

fn strict(name: &str, bytes: &[u8]) -> Vec<String> {
    if name.ends_with(".jsonl") {
        // One message per line: the lines together are the conversation.
        let msgs = values(name, bytes);
        openai_strict::violations(&msgs)
    } else {
        values(name, bytes)
            .iter()
            .flat_map(openai_strict::document)
            .collect()
    }
}

#[test]
fn the_checker_sees_the_defects() {
    let broken = files::read("openai-chat", "orphan-misplaced-duplicate.json");
    assert!(!strict("x.json", &broken).is_empty());
    let dangling = files::read("openai-chat", "single-dangling.jsonl");
    assert_eq!(
        strict("x.jsonl", &dangling),
        ["messages.1: tool_call_id call_1 has no response message"]
    );
}

#[test]
fn every_fixture_repaired_with_every_policy_is_accepted() {
    let mut checked = 0;
    for entry in std::fs::read_dir(files::dir("openai-chat")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.ends_with(".json") || name.ends_with(".jsonl")) || name.contains(".repaired.") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let mut options = everything();
        options.reid = true;
        let out = repair_with(&name, &bytes, &options);
        // `tool_calls: []` is rejected by OpenAI but is no pairing defect: toolmend leaves it.
        let left: &[&str] = match name.as_str() {
            "tool-calls-missing-or-null.json" => &["messages.3: empty `tool_calls`"],
            _ => &[],
        };
        assert_eq!(strict(&name, &out), left, "{name}");
        checked += 1;
    }
    assert!(checked >= 8, "{checked}");
}

#[test]
fn the_corpus_meets_the_rules_before_and_after_repair() {
    for path in files::corpus("openai-chat") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(strict(&name, &bytes), Vec::<String>::new(), "{name}");
        let out = repair_with(&name, &bytes, &everything());
        assert_eq!(strict(&name, &out), Vec::<String>::new(), "{name}");
    }
}
