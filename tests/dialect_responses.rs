//! The `openai-responses` dialect through the public API: detection, findings, repairs pinned
//! byte for byte, idempotence, and the strict adjacent-run rules on every repaired fixture and
//! on the shared corpus when it is there.

pub mod common;

use common::api;
use common::api::{code_line_ids, dialects, everything, findings, repair_with, with_orphans};
use common::files::read;
use common::pinned::{check_repair, run_as};
use common::responses_strict::{
    assert_corpus_strict, assert_strict_after_everything, check_fixed, check_fixed_for, items,
    strict_violations,
};
use toolmend::{OrphanPolicy, Provider, RepairOptions};

const DIR: &str = "openai-responses";

fn lint(name: &str) -> Vec<String> {
    code_line_ids(name, &read(DIR, name))
}

fn strict_after_everything(name: &str) {
    assert_strict_after_everything(DIR, name);
}

#[test]
fn detected_as_responses_and_chat_is_never_claimed() {
    for name in ["clean.json", "partial-parallel.jsonl", "reasoning.json"] {
        assert_eq!(
            dialects(name, &read(DIR, name)),
            ["openai-responses"],
            "{name}"
        );
    }
    let chat = br#"[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]"#;
    assert_eq!(dialects("c.json", chat), ["openai-chat"]);
    // That no chat message is claimed item by item is a unit test of the dialect.
}

#[test]
fn clean_and_self_contained_items_have_no_findings() {
    for name in ["clean.json", "self-contained.json"] {
        assert_eq!(lint(name), Vec::<String>::new(), "{name}");
        check_repair(DIR, name, None);
        strict_after_everything(name);
    }
}

#[test]
fn dangling_single_call_gets_its_output_right_after_it() {
    let msg = &findings("dangling.json", &read(DIR, "dangling.json"))[0].message;
    assert!(
        msg.contains("\"No tool output found for function call call_book.\""),
        "{msg}"
    );
    check_fixed(DIR, "dangling.json", &["TM001@14:call_book"]);
}

#[test]
fn partial_parallel_outputs_go_after_the_existing_output() {
    check_fixed(
        DIR,
        "partial-parallel.jsonl",
        &["TM001@3:call_a", "TM001@5:call_c"],
    );
}

#[test]
fn orphan_is_reported_and_only_removed_by_policy() {
    assert_eq!(lint("orphan.json"), ["TM002@7:call_ghost"]);
    let msg = &findings("orphan.json", &read(DIR, "orphan.json"))[0].message;
    assert!(
        msg.contains("No tool call found for function call output with call_id call_ghost."),
        "{msg}"
    );
    check_repair(DIR, "orphan.json", None);
    run_as(
        DIR,
        "orphan.json",
        "orphan.drop.repaired.json",
        &everything(),
    );
    let note = with_orphans(OrphanPolicy::Note);
    run_as(DIR, "orphan.json", "orphan.note.repaired.json", &note);
    strict_after_everything("orphan.json");
}

#[test]
fn misplaced_output_is_fine_for_openai_and_moved_for_deepseek() {
    let input = read(DIR, "misplaced.json");
    assert!(api::code_line_ids("misplaced.json", &input).is_empty());
    assert_eq!(api::repaired("misplaced.json", &input), input);
    check_fixed_for(
        DIR,
        "misplaced.json",
        Provider::DeepSeek,
        &["TM003@18:call_ls"],
        "misplaced.deepseek.repaired.json",
    );
}

#[test]
fn duplicate_output_is_reported_and_resolved_by_policy() {
    assert_eq!(lint("duplicate.jsonl"), ["TM004@4:call_t"]);
    check_repair(DIR, "duplicate.jsonl", None);
    run_as(
        DIR,
        "duplicate.jsonl",
        "duplicate.keep-first.repaired.jsonl",
        &everything(),
    );
    strict_after_everything("duplicate.jsonl");
}

#[test]
fn ids_reused_across_turns_are_a_finding() {
    // call_0 twice, each answered in its turn: the Responses API still rejects the request
    // ("Duplicate function_call_output for call_id"), TM005. call_1 twice in one run: the
    // first is also shadowed; its placeholder goes right after it, before the call that
    // reuses the id.
    check_fixed(
        DIR,
        "reused-ids.json",
        &["TM005@36:call_0", "TM001@65:call_1", "TM005@72:call_1"],
    );
}

#[test]
fn reasoning_items_are_kept_in_place() {
    let out = check_fixed(DIR, "reasoning.json", &["TM001@13:call_plan"]);
    let reasoning = |b: &[u8]| {
        items(b)
            .into_iter()
            .filter(|i| i["type"] == "reasoning")
            .collect::<Vec<_>>()
    };
    assert_eq!(reasoning(&out), reasoning(&read(DIR, "reasoning.json")));
}

#[test]
fn every_call_kind_gets_its_own_output_type() {
    let out = check_fixed(
        DIR,
        "all-kinds.json",
        &[
            "TM001@14:call_custom",
            "TM001@21:call_computer",
            "TM001@31:call_local",
            "TM001@44:call_shell",
            "TM001@55:call_patch",
            "TM001@65:call_search",
            "TM001@75:call_program",
            "TM001@82:mcpr_j1",
        ],
    );
    let types: Vec<String> = items(&out)
        .iter()
        .filter_map(|i| i["type"].as_str())
        .filter(|t| t.ends_with("_output") || t.ends_with("_response"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        types,
        [
            "function_call_output",
            "custom_tool_call_output",
            "computer_call_output",
            "local_shell_call_output",
            "shell_call_output",
            "apply_patch_call_output",
            "tool_search_output",
            "program_output",
            "mcp_approval_response",
        ]
    );
}

#[test]
fn outputs_of_a_stored_conversation_are_not_orphans() {
    assert_eq!(lint("stored-conversation.json"), Vec::<String>::new());
    // Without `previous_response_id` the same outputs answer nothing.
    let text = String::from_utf8(read(DIR, "stored-conversation.json")).unwrap();
    let full = text.replace("\"resp_123\"", "null");
    assert_eq!(
        code_line_ids("full.json", full.as_bytes()),
        ["TM002@5:call_prev_1", "TM002@10:call_prev_2"]
    );
}

#[test]
fn placeholder_template_is_used() {
    let options = RepairOptions {
        placeholder: "cancelled {name} ({id})".into(),
        ..RepairOptions::default()
    };
    let out = repair_with("dangling.json", &read(DIR, "dangling.json"), &options);
    let last = items(&out).pop().unwrap();
    assert_eq!(last["output"], "cancelled book_table (call_book)");
}

#[test]
fn corpus_is_strict_after_repair() {
    assert_corpus_strict(DIR);
}

#[test]
fn strict_checker_flags_every_broken_fixture() {
    assert_eq!(
        strict_violations(&items(&read(DIR, "clean.json"))),
        Vec::<String>::new()
    );
    for (name, want) in [
        ("dangling.json", "call call_book has no output"),
        (
            "partial-parallel.jsonl",
            "item 6 (message) comes between calls",
        ),
        (
            "orphan.json",
            "item 1: output for call_ghost has no call before it",
        ),
        ("misplaced.json", "item 2 (message) comes between calls"),
        ("duplicate.jsonl", "item 3: second output for call_t"),
        (
            "reused-ids.json",
            "item 10: call id call_1 reused while open",
        ),
    ] {
        let v = strict_violations(&items(&read(DIR, name)));
        assert!(v.iter().any(|m| m.starts_with(want)), "{name}: {v:?}");
    }
}

#[test]
fn a_file_with_sorted_keys_gets_sorted_placeholders() {
    // No output to copy: the calling items' sorted keys decide, nested objects included.
    check_fixed(
        DIR,
        "sorted-dangling.json",
        &["TM001@7:call_track", "TM001@14:call_screen"],
    );
}
