//! A finding's fix is decided once: the rule table, `lint` and `repair` say the same thing.

pub mod common;

use common::api;
use common::files;
use toolmend::{Applicability, Rule};
use toolmend::{OrphanPolicy, RepairOptions};

/// Every fixture file that is an input (not a pinned output).
fn fixture_inputs() -> Vec<std::path::PathBuf> {
    let root = files::dir("");
    let mut out = Vec::new();
    for set in std::fs::read_dir(&root).unwrap() {
        let set = set.unwrap().path();
        if !set.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&set).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            let ext = f.extension().map(|e| e.to_string_lossy().into_owned());
            if matches!(ext.as_deref(), Some("json" | "jsonl")) && !name.contains(".repaired.") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn tm002_fix_kind_is_the_same_in_rules_lint_and_repair() {
    let kinds = Rule::OrphanToolResult.fixes();
    // A result written before its call: lint offers a safe fix, and the default repair makes it.
    let before = files::read("openai-chat", "result-before-call.json");
    let found = api::findings("before.json", &before);
    let tm002 = found.iter().find(|f| f.code == "TM002").expect("a TM002");
    let fix = tm002.fix.as_ref().expect("a fix");
    assert_eq!(fix.applicability, Applicability::Safe);
    assert!(kinds.allows(Applicability::Safe));
    let out = api::repaired("before.json", &before);
    assert!(!api::codes("out.json", &out).contains(&"TM002"));

    // A result that answers no call: an unsafe fix, left alone by default, made by policy.
    let orphan = files::read("openai-chat", "orphan-misplaced-duplicate.json");
    let found = api::findings("orphan.json", &orphan);
    let tm002 = found.iter().find(|f| f.code == "TM002").expect("a TM002");
    assert_eq!(
        tm002.fix.as_ref().map(|f| f.applicability),
        Some(Applicability::Unsafe)
    );
    assert!(kinds.allows(Applicability::Unsafe));
    let kept = api::repaired("orphan.json", &orphan);
    assert!(api::codes("kept.json", &kept).contains(&"TM002"));
    let dropped = api::repair_with(
        "orphan.json",
        &orphan,
        &api::with_orphans(OrphanPolicy::Drop),
    );
    assert!(!api::codes("dropped.json", &dropped).contains(&"TM002"));
}

#[test]
fn every_fixture_finding_fix_is_one_its_rule_allows_and_repair_makes() {
    let inputs = fixture_inputs();
    assert!(inputs.len() > 40, "{}", inputs.len());
    for path in inputs {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let found = api::findings(&name, &bytes);
        for f in &found {
            if let Some(fix) = &f.fix {
                assert!(
                    f.rule.fixes().allows(fix.applicability),
                    "{name}: {} offers a {:?} fix, the table says {:?}",
                    f.code,
                    fix.applicability,
                    f.rule.fixes()
                );
            }
        }
        let safe = found
            .iter()
            .filter(|f| f.fix.as_ref().map(|x| x.applicability) == Some(Applicability::Safe))
            .count();
        let repaired = api::repair(&name, &bytes, &RepairOptions::default());
        let fixed: usize =
            repaired.fixed.iter().map(Vec::len).sum::<usize>() + repaired.fixed_later;
        assert_eq!(
            fixed, safe,
            "{name}: [*] on {safe} findings, repair fixed {fixed}"
        );
    }
}

/// One orphan ToolMessage in each of LangChain's three on-disk forms, after a clean turn.
const LANGCHAIN_ORPHANS: [&str; 3] = [
    r#"[{"type":"human","data":{"content":"hi","type":"human"}},{"type":"tool","data":{"content":"42 rows","type":"tool","tool_call_id":"call_gone","name":"sql"}}]"#,
    r#"[{"type":"human","content":"hi"},{"type":"tool","content":"42 rows","tool_call_id":"call_gone","name":"sql"}]"#,
    r#"[{"lc":1,"type":"constructor","id":["langchain","schema","messages","HumanMessage"],"kwargs":{"content":"hi","type":"human"}},{"lc":1,"type":"constructor","id":["langchain","schema","messages","ToolMessage"],"kwargs":{"content":"42 rows","type":"tool","tool_call_id":"call_gone","name":"sql"}}]"#,
];

#[test]
fn orphans_note_works_for_langchain() {
    for doc in LANGCHAIN_ORPHANS {
        assert_eq!(
            api::dialects("lc.json", doc.as_bytes()),
            ["langchain"],
            "{doc}"
        );
        let found = api::findings("lc.json", doc.as_bytes());
        let fix = found[0].fix.as_ref().expect("a fix");
        assert!(fix.description.contains("--orphans note"), "{fix:?}");
        let out = api::repair_with(
            "lc.json",
            doc.as_bytes(),
            &api::with_orphans(OrphanPolicy::Note),
        );
        let text = String::from_utf8(out.clone()).unwrap();
        assert_ne!(text, doc, "--orphans note changed nothing");
        assert!(api::findings("out.json", &out).is_empty(), "{text}");
        assert!(
            text.contains("tool result for unknown call call_gone] 42 rows"),
            "{text}"
        );
        let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        let note = &value[1];
        let kind = note["type"]
            .as_str()
            .filter(|t| *t != "constructor")
            .or(note["kwargs"]["type"].as_str());
        assert_eq!(kind, Some("human"), "{text}");
        assert_eq!(api::dialects("out.json", &out), ["langchain"], "{text}");
    }
}
