//! The `codex-rollout` dialect through the public API: detection, findings on `response_item`
//! lines only, placeholder lines pinned byte for byte, idempotence, and the strict Responses
//! rules on the repaired fixtures and on the shared corpus when it is there.

pub mod common;

use common::api;
use common::api::{code_line_ids, dialects, everything, findings, with_orphans};
use common::files::read;
use common::pinned::{check_repair, run_as};
use common::responses_strict::{
    assert_corpus_strict, assert_strict_after_everything, check_fixed, check_fixed_for, items,
};
use toolmend::{OrphanPolicy, Provider, RepairOptions};

const DIR: &str = "codex";

fn lint(name: &str) -> Vec<String> {
    code_line_ids(name, &read(DIR, name))
}

fn strict_after_everything(name: &str) {
    assert_strict_after_everything(DIR, name);
}

/// The lines a repair added, in order.
fn added_lines(before: &[u8], after: &[u8]) -> Vec<String> {
    let old: Vec<&str> = std::str::from_utf8(before).unwrap().lines().collect();
    std::str::from_utf8(after)
        .unwrap()
        .lines()
        .filter(|l| !old.contains(l))
        .map(str::to_string)
        .collect()
}

#[test]
fn rollouts_are_detected_before_any_other_dialect() {
    for name in ["clean.jsonl", "spawn.jsonl", "kinds.jsonl"] {
        assert_eq!(
            dialects(name, &read(DIR, name)),
            ["codex-rollout"],
            "{name}"
        );
    }
}

#[test]
fn clean_rollout_has_no_findings_and_is_left_alone() {
    assert_eq!(lint("clean.jsonl"), Vec::<String>::new());
    check_repair(DIR, "clean.jsonl", None);
    strict_after_everything("clean.jsonl");
}

#[test]
fn interrupted_call_gets_a_response_item_line_with_the_calls_timestamp() {
    let input = read(DIR, "interrupted.jsonl");
    let out = check_fixed(DIR, "interrupted.jsonl", &["TM001@5:call_t1"]);
    assert_eq!(
        added_lines(&input, &out),
        [
            r#"{"timestamp":"2026-03-01T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_t1","output":"[Tool call was interrupted and did not return a result.]"}}"#
        ]
    );
    // The process died right after the call: the file ends with it, without a final newline,
    // and still has none.
    assert!(!out.ends_with(b"\n"));
}

#[test]
fn partial_parallel_outputs_follow_the_existing_output_line() {
    check_fixed(
        DIR,
        "parallel.jsonl",
        &["TM001@4:call_x1", "TM001@6:call_x3"],
    );
}

#[test]
fn calls_completed_only_by_events_are_dangling() {
    // spawn_agent / wait_agent finish with event_msg lines carrying their call_id, but no
    // function_call_output item: the API would get the calls without outputs.
    let msg = &findings("spawn.jsonl", &read(DIR, "spawn.jsonl"))[0].message;
    assert!(
        msg.contains("\"No tool output found for function call call_sp.\""),
        "{msg}"
    );
    check_fixed(DIR, "spawn.jsonl", &["TM001@5:call_sp", "TM001@7:call_wt"]);
}

#[test]
fn outputs_as_string_object_and_list_with_an_orphan_and_a_duplicate() {
    assert_eq!(
        lint("outputs.jsonl"),
        ["TM004@7:call_o2", "TM002@8:call_gone"]
    );
    check_repair(DIR, "outputs.jsonl", None);
    run_as(
        DIR,
        "outputs.jsonl",
        "outputs.everything.repaired.jsonl",
        &everything(),
    );
    let note = with_orphans(OrphanPolicy::Note);
    run_as(DIR, "outputs.jsonl", "outputs.note.repaired.jsonl", &note);
    strict_after_everything("outputs.jsonl");
}

#[test]
fn each_kind_gets_the_output_codex_writes_for_it() {
    let input = read(DIR, "kinds.jsonl");
    let out = check_fixed(
        DIR,
        "kinds.jsonl",
        &[
            "TM001@3:call_ls",
            "TM001@4:call_ts",
            "TM001@5:call_ct",
            "TM002@6:call_other",
        ],
    );
    let types: Vec<String> = items(&out)
        .iter()
        .filter_map(|i| i["type"].as_str())
        .map(str::to_string)
        .collect();
    assert_eq!(
        types,
        [
            "message",
            "local_shell_call",
            "tool_search_call",
            "custom_tool_call",
            "custom_tool_call_output",
            "function_call_output",
            "tool_search_output",
            "custom_tool_call_output",
        ]
    );
    let marked = RepairOptions {
        mark_synthetic: true,
        ..RepairOptions::default()
    };
    let out = run_as(DIR, "kinds.jsonl", "kinds.marked.repaired.jsonl", &marked);
    assert_eq!(
        added_lines(&input, &out)
            .iter()
            .filter(|l| l.ends_with(r#","toolmend_synthetic":true}"#))
            .count(),
        3
    );
}

#[test]
fn output_after_other_items_is_fine_for_openai_and_moved_for_deepseek() {
    // OpenAI pairs by call_id anywhere after the call: a user message in between is fine.
    let input = read(DIR, "misplaced.jsonl");
    assert!(api::code_line_ids("misplaced.jsonl", &input).is_empty());
    assert_eq!(api::repaired("misplaced.jsonl", &input), input);
    // DeepSeek's Responses endpoint wants it in the call's run: moved there.
    check_fixed_for(
        DIR,
        "misplaced.jsonl",
        Provider::DeepSeek,
        &["TM003@5:call_m"],
        "misplaced.deepseek.repaired.jsonl",
    );
}

#[test]
fn corpus_is_strict_after_repair() {
    assert_corpus_strict("codex-rollout");
}
