//! Streaming lint of JSON Lines gives exactly the findings, counts and statistics of reading
//! the file whole: over every JSON Lines fixture, and the public corpus when it is present.

pub mod common;

use toolmend::Options as LintOptions;

#[test]
fn streaming_matches_whole_file_reading() {
    let files = common::files::all_jsonl();
    assert!(files.len() >= 10, "only {} JSON Lines files", files.len());
    let options = LintOptions::default();
    for path in files {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let whole = toolmend::analyse(&name, &bytes, &options);
        let streamed = toolmend::lint_lines(&name, std::io::Cursor::new(&bytes), &options).unwrap();
        assert_eq!(whole.findings(&name), streamed.findings, "{name}");
        assert_eq!(
            whole.doc.conversations.len(),
            streamed.conversations,
            "{name}"
        );
        assert_eq!(whole.calls_checked, streamed.calls_checked, "{name}");
        assert_eq!(whole.tool_stats(), streamed.stats, "{name}");
    }
}

#[test]
fn a_tiny_read_buffer_changes_nothing() {
    let src = b"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}\r\nnot json\n{\"role\":\"user\",\"content\":\"x\"}";
    let options = LintOptions::default();
    let whole = toolmend::analyse("t.jsonl", src, &options);
    let reader = std::io::BufReader::with_capacity(3, &src[..]);
    let streamed = toolmend::lint_lines("t.jsonl", reader, &options).unwrap();
    assert_eq!(whole.findings("t.jsonl"), streamed.findings);
    assert_eq!(streamed.findings.len(), 2);
}
