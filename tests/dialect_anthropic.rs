//! The Anthropic Messages dialect end to end through the library API: pinned repairs of the
//! fixtures in `fixtures/anthropic`, the strict provider rules on their output, the
//! shared corpus when present, detection against OpenAI chat and Bedrock, and repair options.

pub mod common;

use common::anthropic_strict as strict;
use common::{api, docs, files, pinned};
use toolmend::RepairOptions;

const SET: &str = "anthropic";

/// Strict violations of a JSON document, or of every line of a JSON Lines one.
fn strict_of(name: &str, bytes: &[u8]) -> Vec<String> {
    docs::values(name, bytes)
        .iter()
        .flat_map(strict::violations)
        .collect()
}

const CASES: &[pinned::Case] = &[
    ("clean.json", &[], &[], &[]),
    ("dangling-trailing.json", &["TM001"], &[], &[]),
    ("dangling-next-text.json", &["TM001"], &[], &[]),
    ("dangling-string-next.json", &["TM001"], &[], &[]),
    ("dangling-next-assistant.json", &["TM001"], &[], &[]),
    ("partial-parallel.json", &["TM001", "TM001"], &[], &[]),
    ("batch.jsonl", &["TM001", "TM001"], &[], &[]),
    (
        "orphan.json",
        &["TM002"],
        &["TM002"],
        &["messages.2.content.0: orphan `tool_result` toolu_01Gone"],
    ),
    ("misplaced-text-first.json", &["TM003"], &[], &[]),
    (
        "misplaced-later.json",
        &["TM003"],
        &["TM003"],
        &[
            "messages.1: `tool_use` toolu_01Ping is not answered",
            "messages.4.content.0: orphan `tool_result` toolu_01Ping",
        ],
    ),
    (
        "duplicate-result.json",
        &["TM004"],
        &["TM004"],
        &["messages.2.content.1: duplicate `tool_result` for toolu_01Die"],
    ),
    ("server-tools.json", &[], &[], &[]),
    (
        "server-tools-broken.json",
        &["TM002", "TM001"],
        &["TM002"],
        &["messages.1.content.1: `web_fetch_tool_result` without its server tool call"],
    ),
    (
        "reused-ids.json",
        &["TM005"],
        &["TM005"],
        &["messages.5.content.0: id `toolu_01Same` is not unique in the request"],
    ),
    (
        "reused-id-across-turns.json",
        &["TM005"],
        &["TM005"],
        &["messages.5.content.0: id `toolu_vrtx_01DJp4W3Xk7MZ` is not unique in the request"],
    ),
];

#[test]
fn fixtures_repair_as_pinned_and_meet_the_strict_rules() {
    pinned::run_cases(SET, "anthropic", CASES, strict_of);
}

#[test]
fn every_fixture_is_in_the_table() {
    pinned::assert_every_fixture_listed(SET, CASES);
}

#[test]
fn corpus_files_are_clean_and_meet_the_strict_rules() {
    for path in files::corpus("anthropic-messages") {
        let name = path.to_string_lossy().into_owned();
        let input = std::fs::read(&path).unwrap();
        assert_eq!(api::dialects(&name, &input), ["anthropic"], "{name}");
        assert!(api::codes(&name, &input).is_empty(), "{name}");
        let fixed = api::repair(&name, &input, &RepairOptions::default());
        let output = fixed.output;
        assert!(
            output == input && fixed.placeholders == 0,
            "{name}: repair changed a clean file"
        );
        assert_eq!(strict_of(&name, &output), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn detection_keeps_openai_chat_and_bedrock_apart() {
    let openai = br#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]}"#;
    assert_eq!(api::dialects("o.json", openai), ["openai-chat"]);
    let anthropic = br#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "x"}]}, {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "f", "input": {}}]}]"#;
    assert_eq!(api::dialects("a.json", anthropic), ["anthropic"]);
    let bedrock = br#"[{"role": "user", "content": [{"text": "hi"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}]"#;
    assert_eq!(api::dialects("b.json", bedrock), ["bedrock"]);
}

fn repaired(src: &str, options: &RepairOptions) -> String {
    String::from_utf8(api::repair_with("t.json", src.as_bytes(), options)).unwrap()
}

#[test]
fn seed_profile_and_template() {
    let src = r#"[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}},{"type":"tool_use","id":"t2","name":"b","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}]"#;
    let options = RepairOptions {
        before_results: true,
        placeholder: "{name} ({id}) was cancelled".into(),
        ..RepairOptions::default()
    };
    assert_eq!(
        repaired(src, &options),
        r#"[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}},{"type":"tool_use","id":"t2","name":"b","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a (t1) was cancelled","is_error":true},{"type":"tool_result","tool_use_id":"t2","content":"ok"}]}]"#
    );
}

#[test]
fn empty_content_arrays_are_filled_in_their_layout() {
    let compact = r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": []}]"#;
    assert_eq!(
        repaired(compact, &RepairOptions::default()),
        r#"[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "[Tool call was interrupted and did not return a result.]", "is_error": true}]}]"#
    );
    let pretty = "[\n  {\n    \"role\": \"assistant\",\n    \"content\": [\n      {\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"a\", \"input\": {}}\n    ]\n  },\n  {\n    \"role\": \"user\",\n    \"content\": []\n  }\n]\n";
    let out = repaired(pretty, &RepairOptions::default());
    assert!(
        out.contains("    \"content\": [\n      {\n        \"type\": \"tool_result\",\n        \"tool_use_id\": \"t1\",\n"),
        "{out}"
    );
    assert!(
        out.ends_with("        \"is_error\": true\n      }\n    ]\n  }\n]\n"),
        "{out}"
    );
}

#[test]
fn duplicate_call_ids_can_be_re_id() {
    let src = r#"[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}},{"type":"tool_use","id":"t1","name":"a","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1"},{"type":"tool_result","tool_use_id":"t1","content":"2"}]}]"#;
    // One result answers the repeated id; the second reads as a duplicate until re-id.
    assert_eq!(api::codes("t.json", src.as_bytes()), ["TM005", "TM004"]);
    let options = RepairOptions {
        reid: true,
        ..RepairOptions::default()
    };
    let out = repaired(src, &options);
    assert!(api::codes("t.json", out.as_bytes()).is_empty(), "{out}");
    assert!(strict::violations(&serde_json::from_str(&out).unwrap()).is_empty());
    assert!(
        out.contains(r#""tool_use_id":"t1_2","content":"2""#),
        "{out}"
    );
}
