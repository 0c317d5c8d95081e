//! `lint_document` walks a JSON document's messages as they are read instead of keeping a model
//! of them: its findings, counts and detections must be exactly those of the whole analysis.

pub mod common;

use toolmend::{DocumentLint, Options, Provider, ReadConversation};

/// What the whole analysis says, in `DocumentLint`'s terms.
fn whole(name: &str, bytes: &[u8], options: &Options) -> DocumentLint {
    let a = toolmend::analyse(name, bytes, options);
    DocumentLint {
        findings: a.findings(name),
        conversations: a
            .doc
            .conversations
            .iter()
            .map(|c| ReadConversation {
                index: c.index,
                pointer: c.pointer.clone(),
                dialect: c.dialect,
                messages: c.messages.len(),
                detection: c.detection.clone(),
            })
            .collect(),
        notes: a.doc.notes.clone(),
        calls_checked: a.calls_checked,
        stats: a.tool_stats(),
        skippable: a.doc.skippable(),
    }
}

/// Lint `bytes` both ways under `options` and require the same answer; gives it back.
fn same(name: &str, bytes: &[u8], options: &Options) -> DocumentLint {
    let walked = toolmend::lint_document(name, bytes, options)
        .unwrap_or_else(|| panic!("{name}: not linted as a document"));
    let expected = whole(name, bytes, options);
    assert_eq!(walked.findings, expected.findings, "{name}: findings");
    assert_eq!(walked.conversations, expected.conversations, "{name}");
    assert_eq!(walked.notes, expected.notes, "{name}: notes");
    assert_eq!(walked.calls_checked, expected.calls_checked, "{name}");
    assert_eq!(walked.stats, expected.stats, "{name}: stats");
    assert_eq!(walked.skippable, expected.skippable, "{name}: skippable");
    walked
}

#[test]
fn every_fixture_and_corpus_document_lints_as_the_whole_analysis_does() {
    let files = common::files::all_with_extensions(&["json", "traj"]);
    assert!(files.len() > 50, "fixtures not found");
    let targets = [None, Some(Provider::OpenAi), Some(Provider::Anthropic)];
    let mut with_findings = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.to_string_lossy();
        for target in targets {
            let options = Options {
                target,
                ..Options::default()
            };
            let walked = same(&name, &bytes, &options);
            with_findings += usize::from(target.is_none() && !walked.findings.is_empty());
        }
    }
    assert!(with_findings > 20, "too few documents with findings");
}

/// A chat message list with a dangling call in the middle, one whose id and arguments carry
/// escapes, and an orphan result at the end.
fn chat(tag: &str) -> String {
    format!(
        r#"[
    {{"role": "user", "content": "say \"hi\" \u00e9\n"}},
    {{"role": "assistant", "content": null, "tool_calls": [
      {{"id": "call_\u0041{tag}", "type": "function", "function": {{"name": "run", "arguments": "{{\"q\": \"a\\\"b\"}}"}}}},
      {{"id": "call_2{tag}", "type": "function", "function": {{"name": "search", "arguments": "{{}}"}}}}
    ]}},
    {{"role": "tool", "tool_call_id": "call_A{tag}", "content": "ok \ud83d\ude00"}},
    {{"role": "assistant", "content": "done"}},
    {{"role": "tool", "tool_call_id": "call_9{tag}", "content": "late"}}
  ]"#
    )
}

#[test]
fn several_and_nested_conversations_with_escapes_are_walked_one_by_one() {
    let several = format!(
        "[\n  {{\"messages\": {}}},\n  {{\"messages\": {}}}\n]\n",
        chat("x"),
        chat("y")
    );
    let walked = same("runs.json", several.as_bytes(), &Options::default());
    assert_eq!(walked.conversations.len(), 2);
    assert_eq!(walked.conversations[1].pointer, "/1/messages");
    assert_eq!(walked.conversations[1].messages, 5);
    let codes: Vec<(&str, usize, Option<usize>)> = walked
        .findings
        .iter()
        .map(|f| (f.code, f.line, f.conversation))
        .collect();
    // The dangling call (the escaped first id was answered) and the orphan, in each.
    assert_eq!(
        codes,
        [
            ("TM001", 6, Some(0)),
            ("TM002", 10, Some(0)),
            ("TM001", 16, Some(1)),
            ("TM002", 20, Some(1)),
        ]
    );
    assert_eq!(walked.findings[0].call_id.as_deref(), Some("call_2x"));
    assert_eq!(walked.findings[0].pointer, "/0/messages/1/tool_calls/1");
    assert_eq!(walked.stats["run"].calls, 2);
    assert_eq!(walked.stats["search"].dangling, 2);

    let nested = format!(
        "{{\"data\": {{\"state\": {{\"messages\": {}}}}}}}",
        chat("z")
    );
    let walked = same("nested.json", nested.as_bytes(), &Options::default());
    assert_eq!(walked.conversations.len(), 1);
    assert!(
        walked
            .findings
            .iter()
            .all(|f| f.pointer.starts_with("/data/"))
    );
}

#[test]
fn a_malformed_element_is_reported_at_its_line() {
    let text = chat("m").replace(
        r#"{"role": "assistant", "content": "done"}"#,
        r#"{"role": "assistant" "content": "done"}"#,
    );
    let walked = same("bad.json", text.as_bytes(), &Options::default());
    assert!(walked.conversations.is_empty());
    assert_eq!(walked.findings.len(), 1);
    assert_eq!(walked.findings[0].code, "TM007");
    assert_eq!(walked.findings[0].line, 8);
}

#[test]
fn options_that_need_every_message_and_json_lines_are_left_to_the_whole_analysis() {
    let doc = chat("t");
    let tail = Options {
        tail: Some(2),
        ..Options::default()
    };
    assert!(toolmend::lint_document("t.json", doc.as_bytes(), &tail).is_none());
    let deerflow = Options {
        deerflow: true,
        ..Options::default()
    };
    assert!(toolmend::lint_document("t.json", doc.as_bytes(), &deerflow).is_none());
    let lines = b"{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"assistant\", \"content\": \"yo\"}\n";
    assert!(toolmend::lint_document("t.jsonl", lines, &Options::default()).is_none());
}

#[test]
fn a_pretty_document_saved_as_jsonl_lints_as_the_whole_analysis_does() {
    // Read whole as the document it is, and walked as `lint_document` walks a `.json`.
    let files = common::files::all_with_extensions(&["json"]);
    let mut documents = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = format!("{}.jsonl", path.display());
        let options = Options::default();
        // Read into room for its size when the size is known, into a growing buffer when not;
        // a wrong size changes nothing but the room.
        let size = bytes.len() as u64;
        let report =
            toolmend::lint_lines_sized(&name, std::io::Cursor::new(&bytes), size, &options)
                .unwrap();
        for hint in [0, size / 2, size * 2] {
            let other =
                toolmend::lint_lines_sized(&name, std::io::Cursor::new(&bytes), hint, &options)
                    .unwrap();
            assert_eq!(
                (&other.findings, &other.detections),
                (&report.findings, &report.detections),
                "{name}, size {hint}"
            );
        }
        let whole = toolmend::analyse(&name, &bytes, &options);
        if whole.doc.format != Some(toolmend::Format::Json) {
            continue;
        }
        documents += 1;
        assert_eq!(report.findings, whole.findings(&name), "{name}");
        assert_eq!(report.calls_checked, whole.calls_checked, "{name}");
        assert_eq!(report.stats, whole.tool_stats(), "{name}");
        assert_eq!(
            report.conversations,
            whole.doc.conversations.len(),
            "{name}"
        );
        assert_eq!(report.skippable, whole.doc.skippable(), "{name}");
        let detections: Vec<String> = whole
            .doc
            .conversations
            .iter()
            .map(|c| {
                format!(
                    "`{}`: {} ({} messages) — one JSON document; {}",
                    c.pointer,
                    c.dialect,
                    c.messages.len(),
                    c.detection
                )
            })
            .collect();
        assert_eq!(report.detections, detections, "{name}");
    }
    assert!(documents > 50, "{documents} pretty documents");
}
