//! The Bedrock Converse dialect end to end through the library API: pinned repairs of the
//! fixtures in `tests/fixtures/bedrock`, the strict provider rules on their output, and
//! detection against Anthropic and OpenAI chat.

#[path = "common/pinned.rs"]
mod pinned;
#[path = "common/bedrock_strict.rs"]
mod strict;

use serde_json::Value;
use toolmend::repair::RepairOptions;

const SET: &str = "bedrock";

fn strict_of(bytes: &[u8]) -> Vec<String> {
    strict::violations(&serde_json::from_slice::<Value>(bytes).unwrap())
}

/// (fixture, findings before repair, findings after, strict violations left after repair).
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

const CASES: &[Case] = &[
    ("clean.json", &[], &[], &[]),
    ("dangling_trailing.json", &["TM001"], &[], &[]),
    ("dangling_next_text.json", &["TM001"], &[], &[]),
    ("dangling_next_assistant.json", &["TM001"], &[], &[]),
    ("partial_parallel.json", &["TM001", "TM001"], &[], &[]),
    // Converse takes results anywhere in the next user message: text first is fine.
    ("text_before_result.json", &["TM001"], &[], &[]),
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
        "misplaced_later.json",
        &["TM003"],
        &["TM003"],
        &[
            "messages.2: expected a toolResult for tooluse_Oslo01",
            "messages.4.content: more toolResult blocks than toolUse blocks",
            "messages.4.content.0.toolResult: orphan toolResult tooluse_Oslo01",
        ],
    ),
    (
        "duplicate_result.json",
        &["TM004"],
        &["TM004"],
        &[
            "messages.2.content: more toolResult blocks than toolUse blocks",
            "messages.2.content.1.toolResult: duplicate toolResult for tooluse_Oslo01",
        ],
    ),
    (
        "reused_ids.json",
        &[],
        &[],
        &["messages.5.content.0.toolUse: toolUseId `tooluse_X` is not unique in the request"],
    ),
];

#[test]
fn fixtures_repair_as_pinned_and_meet_the_strict_rules() {
    for &(file, before, after, left) in CASES {
        let (input, output) = pinned::run(SET, file, before, after);
        assert!(
            pinned::dialects(file, &input)
                .iter()
                .all(|d| *d == "bedrock"),
            "{file}: not read as bedrock"
        );
        let got = strict_of(&output);
        assert_eq!(got.len(), left.len(), "{file}: {got:#?}");
        for (g, want) in got.iter().zip(left) {
            assert!(g.starts_with(want), "{file}: `{g}` is not `{want}…`");
        }
        if !before.is_empty() {
            assert!(
                !strict_of(&input).is_empty(),
                "{file}: strict check missed it"
            );
        }
    }
}

#[test]
fn every_fixture_is_in_the_table() {
    for entry in std::fs::read_dir(pinned::dir(SET)).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.contains(".repaired.") {
            assert!(CASES.iter().any(|c| c.0 == name), "{name} has no case");
        }
    }
}

#[test]
fn detection_keeps_anthropic_and_openai_chat_apart() {
    // A conversation mixing both block styles is Bedrock as soon as a camelCase block shows.
    let mixed = br#"[{"role": "user", "content": [{"text": "hi"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}, {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "ok"}]}}]}]"#;
    assert_eq!(pinned::dialects("b.json", mixed), ["bedrock"]);
    let openai = br#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]"#;
    assert_eq!(pinned::dialects("o.json", openai), ["openai-chat"]);
}

#[test]
fn error_placeholders_have_content_and_template_text() {
    let src = r#"{"messages": [{"role": "user", "content": [{"text": "go"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]}]}"#;
    let options = RepairOptions {
        placeholder: "{name} was stopped".into(),
        ..RepairOptions::default()
    };
    let (out, n) = pinned::repair_with("t.json", src.as_bytes(), &options);
    assert_eq!(n, 1);
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
