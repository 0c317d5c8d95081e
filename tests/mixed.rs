//! Mixed dialects in one conversation give a clear finding and no repair (a guess could corrupt
//! the file), whether the file is one JSON document or JSON Lines (streamed or not).

use toolmend::Options as LintOptions;
use toolmend::RepairOptions;

const OPENAI_CALL: &str = r#"{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}"#;
const ANTHROPIC_RESULT: &str = r#"{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "ok"}]}"#;

fn check(name: &str, src: &str) {
    let a = toolmend::analyse(name, src.as_bytes(), &LintOptions::default());
    let findings = a.findings(name);
    let mixed: Vec<_> = findings.iter().filter(|f| f.code == "TM007").collect();
    assert_eq!(mixed.len(), 1, "{findings:#?}");
    assert!(
        mixed[0].message.contains("(anthropic)")
            && mixed[0].message.contains("read as openai-chat")
    );
    assert!(findings.iter().all(|f| f.fix.is_none()), "{findings:#?}");
    let out = a.repair(src.as_bytes(), &RepairOptions::default());
    assert!(!out.changed, "a mixed conversation must not be repaired");
}

#[test]
fn mixed_json_document() {
    check("m.json", &format!("[{OPENAI_CALL}, {ANTHROPIC_RESULT}]"));
}

#[test]
fn mixed_json_lines_whole_and_streamed() {
    let src = format!("{OPENAI_CALL}\n{ANTHROPIC_RESULT}\n");
    check("m.jsonl", &src);
    let streamed =
        toolmend::lint_lines("m.jsonl", src.as_bytes(), &LintOptions::default()).unwrap();
    let a = toolmend::analyse("m.jsonl", src.as_bytes(), &LintOptions::default());
    assert_eq!(streamed.findings, a.findings("m.jsonl"));
}
