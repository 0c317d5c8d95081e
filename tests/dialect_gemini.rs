//! The Gemini dialects end to end: findings on our fixtures, repairs pinned byte for byte,
//! idempotence, a clean lint after repair, and an independent checker of Gemini's own rules
//! run on every repaired fixture and on the stored corpus (when it is there).

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolmend::lint::{self, LintOptions};
use toolmend::repair::{self, OrphanPolicy, RepairOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gemini")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `CODE id` per finding, in reading order.
fn findings(name: &str, bytes: &[u8]) -> Vec<String> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    lint::findings(name, &a)
        .iter()
        .map(|f| format!("{} {}", f.code, f.call_id.as_deref().unwrap_or("-")))
        .collect()
}

fn repaired_with(name: &str, bytes: &[u8], options: &RepairOptions) -> Vec<u8> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    repair::document(bytes, &a, options).output
}

fn repaired(name: &str, bytes: &[u8]) -> Vec<u8> {
    repaired_with(name, bytes, &RepairOptions::default())
}

/// The dialect each conversation was read as.
fn dialects(name: &str, bytes: &[u8]) -> Vec<&'static str> {
    let a = lint::analyse(name, bytes, &LintOptions::default());
    a.doc.conversations.iter().map(|c| c.dialect).collect()
}

/// Repair `name`, compare with `expected` (when given) byte for byte, and check that a second
/// repair changes nothing.
fn check_repair(name: &str, expected: Option<&str>) -> Vec<u8> {
    let input = read(name);
    let out = repaired(name, &input);
    match expected {
        Some(e) => {
            let want = read(e);
            assert!(
                out == want,
                "{name}: repair differs from {e}:\n{}",
                String::from_utf8_lossy(&out)
            );
        }
        None => assert_eq!(out, input, "{name}: repair changed a file it must keep"),
    }
    assert_eq!(
        repaired(name, &out),
        out,
        "{name}: repair is not idempotent"
    );
    out
}

// ---- an independent checker of Gemini's rules (formats.md §d) --------------------------------

/// The `contents` lists of a document: `{contents}` objects, bare Content arrays, one per JSON
/// Lines line.
fn contents_lists(name: &str, bytes: &[u8]) -> Vec<Vec<Value>> {
    let values: Vec<Value> = if name.ends_with(".jsonl") {
        String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    } else {
        vec![serde_json::from_slice(bytes).expect("a JSON document")]
    };
    values
        .into_iter()
        .filter_map(|v| match v {
            Value::Array(items) => Some(items),
            Value::Object(mut o) => match o.remove("contents") {
                Some(Value::Array(items)) => Some(items),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn parts_with<'a>(content: &'a Value, key: &str) -> Vec<&'a Value> {
    content["parts"]
        .as_array()
        .map(|ps| ps.iter().filter_map(|p| p.get(key)).collect())
        .unwrap_or_default()
}

/// Gemini's rules: the response content comes right after the call content, holds only
/// functionResponse parts, as many as there were calls, with the calls' names (and ids, only
/// where the call had one); no response turn without a call turn before it.
fn strict_gemini(contents: &[Value]) -> Result<(), String> {
    for (i, content) in contents.iter().enumerate() {
        let calls = parts_with(content, "functionCall");
        let responses = parts_with(content, "functionResponse");
        if !responses.is_empty() {
            let before = i
                .checked_sub(1)
                .map(|j| parts_with(&contents[j], "functionCall"));
            if before.is_none_or(|c| c.is_empty()) {
                return Err(format!("content {i}: a response turn without a call turn"));
            }
        }
        if calls.is_empty() {
            continue;
        }
        let next = contents
            .get(i + 1)
            .ok_or(format!("content {i}: calls at the end"))?;
        if next["role"] != "user" {
            return Err(format!("content {}: not a user turn", i + 1));
        }
        let parts = next["parts"].as_array().ok_or("no parts")?;
        if parts.iter().any(|p| p.get("functionResponse").is_none()) {
            return Err(format!("content {}: mixes other parts in", i + 1));
        }
        if parts.len() != calls.len() {
            return Err(format!(
                "content {}: {} responses for {} calls",
                i + 1,
                parts.len(),
                calls.len()
            ));
        }
        let mut call_names: Vec<&Value> = calls.iter().map(|c| &c["name"]).collect();
        let mut resp_names: Vec<&Value> = parts
            .iter()
            .map(|p| &p["functionResponse"]["name"])
            .collect();
        call_names.sort_by_key(|v| v.to_string());
        resp_names.sort_by_key(|v| v.to_string());
        if call_names != resp_names {
            return Err(format!("content {}: names differ from the calls'", i + 1));
        }
        for p in parts {
            if let Some(id) = p["functionResponse"].get("id")
                && !calls.iter().any(|c| c.get("id") == Some(id))
            {
                return Err(format!(
                    "content {}: response id {id} is no call's id",
                    i + 1
                ));
            }
        }
        for c in &calls {
            if let Some(id) = c.get("id")
                && !parts
                    .iter()
                    .any(|p| p["functionResponse"].get("id") == Some(id))
            {
                return Err(format!(
                    "content {i}: call {id} has no response with its id"
                ));
            }
        }
    }
    Ok(())
}

fn assert_strict(name: &str, bytes: &[u8]) {
    let lists = contents_lists(name, bytes);
    assert!(!lists.is_empty(), "{name}: no contents found");
    for list in lists {
        if let Err(e) = strict_gemini(&list) {
            panic!("{name}: {e}\n{}", String::from_utf8_lossy(bytes));
        }
    }
}

#[test]
fn strict_checker_rejects_what_gemini_rejects() {
    for bad in [
        "dangling.json",
        "partial.json",
        "orphan.json",
        "misplaced.json",
        "duplicate.json",
        "mixed.json",
        "no_ids.json",
    ] {
        let bytes = read(bad);
        let lists = contents_lists(bad, &bytes);
        assert!(
            lists.iter().any(|l| strict_gemini(l).is_err()),
            "{bad} passed the checker"
        );
    }
}

// ---- Gemini API fixtures ---------------------------------------------------------------------

#[test]
fn clean_contents_have_no_findings_and_stay_untouched() {
    let bytes = read("clean.json");
    assert_eq!(dialects("clean.json", &bytes), ["gemini"]);
    assert!(findings("clean.json", &bytes).is_empty());
    check_repair("clean.json", None);
    assert_strict("clean.json", &bytes);
}

#[test]
fn trailing_call_gets_a_new_response_turn() {
    assert_eq!(
        findings("dangling.json", &read("dangling.json")),
        ["TM001 fc_capital"]
    );
    let out = check_repair("dangling.json", Some("dangling.repaired.json"));
    assert!(findings("dangling.json", &out).is_empty());
    assert_strict("dangling.json", &out);
}

#[test]
fn partial_parallel_answers_are_completed_in_the_response_turn() {
    assert_eq!(
        findings("partial.json", &read("partial.json")),
        ["TM001 t1", "TM001 t3"]
    );
    let out = check_repair("partial.json", Some("partial.repaired.json"));
    assert!(findings("partial.json", &out).is_empty());
    assert_strict("partial.json", &out);
}

#[test]
fn calls_without_ids_pair_by_name_and_position() {
    let bytes = read("no_ids.json");
    // The second `find` and the `weather` call have no response; the first `find` does.
    assert_eq!(
        findings("no_ids.json", &bytes),
        ["TM001 weather#0", "TM001 find#1"]
    );
    let out = check_repair("no_ids.json", Some("no_ids.repaired.json"));
    assert!(findings("no_ids.json", &out).is_empty());
    assert_strict("no_ids.json", &out);
    // The pairing keys are the analysis's own: no id is ever written.
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains('#') && !text.contains("\"id\""), "{text}");
}

#[test]
fn reused_ids_are_legal_until_one_is_left_unanswered() {
    assert_eq!(
        findings("reused_ids.json", &read("reused_ids.json")),
        ["TM001 call_0"]
    );
    let out = check_repair("reused_ids.json", Some("reused_ids.repaired.json"));
    assert!(findings("reused_ids.json", &out).is_empty());
    assert_strict("reused_ids.json", &out);
}

#[test]
fn misplaced_response_turn_is_moved_after_its_call() {
    assert_eq!(
        findings("misplaced.json", &read("misplaced.json")),
        ["TM003 r1"]
    );
    let out = check_repair("misplaced.json", Some("misplaced.repaired.json"));
    assert!(findings("misplaced.json", &out).is_empty());
    assert_strict("misplaced.json", &out);
}

#[test]
fn orphan_is_kept_by_default_and_dropped_or_noted_by_policy() {
    let bytes = read("orphan.json");
    assert_eq!(findings("orphan.json", &bytes), ["TM002 ghost"]);
    check_repair("orphan.json", None);
    let drop = RepairOptions {
        orphans: OrphanPolicy::Drop,
        ..RepairOptions::default()
    };
    let out = repaired_with("orphan.json", &bytes, &drop);
    assert!(findings("orphan.json", &out).is_empty());
    assert_strict("orphan.json", &out);
    let note = RepairOptions {
        orphans: OrphanPolicy::Note,
        ..RepairOptions::default()
    };
    let out = repaired_with("orphan.json", &bytes, &note);
    assert_eq!(out, read("orphan.note.repaired.json"));
    assert!(findings("orphan.json", &out).is_empty());
}

#[test]
fn duplicate_and_mixed_response_turns_are_reported_not_rewritten() {
    let bytes = read("duplicate.json");
    assert_eq!(findings("duplicate.json", &bytes), ["TM004 d1"]);
    check_repair("duplicate.json", None);

    let bytes = read("mixed.json");
    assert_eq!(findings("mixed.json", &bytes), ["TM003 m1"]);
    let a = lint::analyse("mixed.json", &bytes, &LintOptions::default());
    let f = &lint::findings("mixed.json", &a)[0];
    assert!(f.message.contains("mixes other parts"), "{}", f.message);
    assert!(f.fix.is_none());
    check_repair("mixed.json", None);
}

#[test]
fn tuning_lines_are_repaired_on_their_own_line() {
    let bytes = read("tuning.jsonl");
    assert_eq!(dialects("tuning.jsonl", &bytes), ["gemini", "gemini"]);
    assert_eq!(findings("tuning.jsonl", &bytes), ["TM001 now#0"]);
    let out = check_repair("tuning.jsonl", Some("tuning.repaired.jsonl"));
    assert_strict("tuning.jsonl", &out);
}

#[test]
fn synthetic_marker_goes_inside_the_free_form_response() {
    let bytes = read("dangling.json");
    let options = RepairOptions {
        mark_synthetic: true,
        ..RepairOptions::default()
    };
    let out = repaired_with("dangling.json", &bytes, &options);
    let v: Value = serde_json::from_slice(&out).unwrap();
    let part = &v["contents"][2]["parts"][0]["functionResponse"];
    assert_eq!(part["response"]["toolmend_synthetic"], true);
    assert_eq!(part["id"], "fc_capital");
    assert!(findings("dangling.json", &out).is_empty());
    assert_strict("dangling.json", &out);
}

// ---- detection boundaries ------------------------------------------------------------------

#[test]
fn neither_claims_the_others_messages() {
    let openai = br#"[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]"#;
    assert_eq!(dialects("a.json", openai), ["openai-chat"]);
    let ui_message = br#"[{"role":"user","parts":[{"type":"text","text":"hi"}]},{"role":"assistant","parts":[{"type":"text","text":"yo"}]}]"#;
    assert_ne!(dialects("b.json", ui_message), ["gemini"]);
    let gemini = br#"[{"role":"user","parts":[{"text":"hi"}]}]"#;
    assert_eq!(dialects("c.json", gemini), ["gemini"]);
}

// ---- Gemini CLI chat recordings --------------------------------------------------------------

#[test]
fn cli_records_without_a_response_are_dangling_and_filled_in_place() {
    let bytes = read("cli_session.json");
    assert_eq!(dialects("cli_session.json", &bytes), ["gemini-cli"]);
    // null result, missing result, empty result; a string result counts as answered.
    assert_eq!(
        findings("cli_session.json", &bytes),
        [
            "TM001 run_shell_command-1767348005001-bb22",
            "TM001 read_file-1767348123000-cc33",
            "TM001 glob-1767348123001-dd44",
        ]
    );
    let out = check_repair("cli_session.json", Some("cli_session.repaired.json"));
    assert!(findings("cli_session.json", &out).is_empty());
}

#[test]
fn cli_jsonl_records_are_filled_on_their_line() {
    let bytes = read("cli_session.jsonl");
    assert_eq!(
        findings("cli_session.jsonl", &bytes),
        ["TM001 run_shell_command-1769936402000-ff66"]
    );
    let out = check_repair("cli_session.jsonl", Some("cli_session.repaired.jsonl"));
    assert!(findings("cli_session.jsonl", &out).is_empty());
}

// ---- the stored corpus, when present -------------------------------------------------------

fn corpus(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    files
}

#[test]
fn corpus_gemini_api_files_satisfy_the_strict_rules_after_repair() {
    for path in corpus("gemini-api") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(dialects(&name, &bytes), ["gemini"], "{name}");
        let out = repaired(&name, &bytes);
        assert_strict(&name, &out);
        assert!(findings(&name, &out).is_empty(), "{name}");
    }
}

/// Damaged variants of a real `{contents}` document, built in memory: cut after each call
/// turn (an interrupted run), and drop the first response of every response turn.
fn damaged(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let doc: Value = serde_json::from_slice(bytes).unwrap();
    let contents = doc["contents"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (i, c) in contents.iter().enumerate() {
        if !parts_with(c, "functionCall").is_empty() {
            let mut d = doc.clone();
            d["contents"] = Value::Array(contents[..=i].to_vec());
            out.push((
                format!("cut after {i}"),
                serde_json::to_vec_pretty(&d).unwrap(),
            ));
        }
        if !parts_with(c, "functionResponse").is_empty() {
            let mut d = doc.clone();
            d["contents"][i]["parts"].as_array_mut().unwrap().remove(0);
            out.push((
                format!("drop 1st of {i}"),
                serde_json::to_vec_pretty(&d).unwrap(),
            ));
        }
    }
    out
}

#[test]
fn corpus_gemini_api_damage_is_repaired_to_the_strict_rules() {
    for path in corpus("gemini-api") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (how, bytes) in damaged(&std::fs::read(&path).unwrap()) {
            let what = format!("{name} ({how})");
            assert!(
                findings(&name, &bytes)
                    .iter()
                    .any(|f| f.starts_with("TM001")),
                "{what}: damage not found"
            );
            let out = repaired(&name, &bytes);
            assert_strict(&what, &out);
            assert!(findings(&name, &out).is_empty(), "{what}");
            assert_eq!(repaired(&name, &out), out, "{what}: not idempotent");
        }
    }
}

#[test]
fn corpus_gemini_cli_files_lint_clean() {
    for path in corpus("gemini-cli") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(dialects(&name, &bytes), ["gemini-cli"], "{name}");
        assert!(findings(&name, &bytes).is_empty(), "{name}");
        assert_eq!(repaired(&name, &bytes), bytes, "{name}");
    }
}
