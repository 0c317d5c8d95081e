//! The Bedrock Converse dialect end to end through the library API: pinned repairs of the
//! fixtures in `fixtures/bedrock`, the strict provider rules on their output, and
//! detection against Anthropic and OpenAI chat.

pub mod common;

use common::bedrock_strict as strict;
use common::{api, pinned};
use serde_json::Value;
use toolmend::RepairOptions;

const SET: &str = "bedrock";

fn strict_of(bytes: &[u8]) -> Vec<String> {
    strict::violations(&serde_json::from_slice::<Value>(bytes).unwrap())
}

const CASES: &[pinned::Case] = &[
    ("clean.json", &[], &[], &[]),
    ("dangling-trailing.json", &["TM001"], &[], &[]),
    ("dangling-next-text.json", &["TM001"], &[], &[]),
    ("dangling-next-assistant.json", &["TM001"], &[], &[]),
    ("partial-parallel.json", &["TM001", "TM001"], &[], &[]),
    // Converse takes results anywhere in the next user message: text first is fine.
    ("text-before-result.json", &["TM001"], &[], &[]),
    (
        "orphan.json",
        &["TM002"],
        &["TM002"],
        &[
            "messages.2.content: more toolResult blocks than toolUse blocks",
            "messages.2.content.0.toolResult: orphan toolResult tooluse_Gone",
        ],
    ),
    (
        "misplaced-later.json",
        &["TM003"],
        &["TM003"],
        &[
            "messages.2: expected a toolResult for tooluse_Oslo01",
            "messages.4.content: more toolResult blocks than toolUse blocks",
            "messages.4.content.0.toolResult: orphan toolResult tooluse_Oslo01",
        ],
    ),
    (
        "duplicate-result.json",
        &["TM004"],
        &["TM004"],
        &[
            "messages.2.content: more toolResult blocks than toolUse blocks",
            "messages.2.content.1.toolResult: duplicate toolResult for tooluse_Oslo01",
        ],
    ),
    (
        "reused-ids.json",
        &["TM005"],
        &["TM005"],
        &["messages.5.content.0.toolUse: toolUseId `tooluse_X` is not unique in the request"],
    ),
    // Nova's code interpreter: a server tool use with its result inline (Bedrock answered 200).
    ("nova-code-interpreter.json", &[], &[], &[]),
];

#[test]
fn fixtures_repair_as_pinned_and_meet_the_strict_rules() {
    pinned::run_cases(SET, "bedrock", CASES, |_, bytes| strict_of(bytes));
}

#[test]
fn every_fixture_is_in_the_table() {
    pinned::assert_every_fixture_listed(SET, CASES);
}

#[test]
fn detection_keeps_anthropic_and_openai_chat_apart() {
    // A conversation mixing both block styles is Bedrock as soon as a camelCase block shows.
    let mixed = br#"[{"role": "user", "content": [{"text": "hi"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}, {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}}]}]"#;
    assert_eq!(api::dialects("b.json", mixed), ["bedrock"]);
    let openai = br#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]"#;
    assert_eq!(api::dialects("o.json", openai), ["openai-chat"]);
}

#[test]
fn error_placeholders_have_content_and_template_text() {
    let src = r#"{"messages": [{"role": "user", "content": [{"text": "go"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}]}"#;
    let options = RepairOptions {
        placeholder: "{name} was stopped".into(),
        ..RepairOptions::default()
    };
    let fixed = api::repair("t.json", src.as_bytes(), &options);
    let out = fixed.output;
    assert_eq!(fixed.placeholders, 1);
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        r#"{"messages": [{"role": "user", "content": [{"text": "go"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}, {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "f was stopped"}], "status": "error"}}]}]}"#
    );
    assert!(strict_of(&out).is_empty());
    // The checker catches an error result without content.
    let bad = br#"{"messages": [{"role": "user", "content": [{"text": "go"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}, {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [], "status": "error"}}]}]}"#;
    assert_eq!(
        strict_of(bad),
        ["messages.2.content.0.toolResult: content cannot be empty when status value is error"]
    );
}
