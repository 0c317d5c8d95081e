//! Repairing JSON Lines as a stream writes exactly what repairing the file whole writes: over
//! every JSON Lines fixture and corpus file under each repair policy, and over generated logs
//! (one message per line, one conversation per line, broken in every way the generator
//! knows).

pub mod common;

use std::io::{self, BufRead};

use common::generate::*;
use proptest::prelude::*;
use toolmend::{
    DuplicatePolicy, NotStreamed, Options as LintOptions, Provider, RepairOptions, Streamed,
};

/// A reader giving at most 7 bytes at a time, however much is asked for (a `BufReader` with a
/// small buffer hands a large read straight to what it reads).
struct Trickle<'a>(&'a [u8]);

impl io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(7);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

impl BufRead for Trickle<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.0[..self.0.len().min(7)])
    }

    fn consume(&mut self, n: usize) {
        self.0 = &self.0[n..];
    }
}

/// Repair `bytes` both ways; `Err` carries why the stream was refused.
fn compare(
    name: &str,
    bytes: &[u8],
    lint: &LintOptions,
    options: &RepairOptions,
) -> Result<(), String> {
    compared(name, bytes, lint, options).map(|_| ())
}

/// [`compare`], giving what the streaming repair did.
fn compared(
    name: &str,
    bytes: &[u8],
    lint: &LintOptions,
    options: &RepairOptions,
) -> Result<Streamed, String> {
    let whole = toolmend::repair(name, bytes, lint, options);
    let open = || -> io::Result<Box<dyn BufRead + '_>> {
        // Tiny reads, so lines arrive in many pieces.
        Ok(Box::new(Trickle(bytes)))
    };
    let mut out = Vec::new();
    let streamed = match toolmend::stream_lines(name, &open, lint, options, &mut out) {
        Ok(s) => s,
        Err(NotStreamed::Whole(why)) => return Err(why),
        Err(NotStreamed::Io(e)) => panic!("{name}: {e}"),
    };
    // Checked without output: the same counts.
    let checked = match toolmend::check_lines(name, &open, lint, options) {
        Ok(s) => s,
        Err(e) => panic!("{name}: checked, not streamed: {e}"),
    };
    assert_eq!(checked, streamed, "{name}");
    let findings = toolmend::analyse(name, bytes, lint).findings(name).len();
    assert!(
        out == whole.output,
        "{name}: streamed output differs\n--- whole\n{}\n--- streamed\n{}",
        String::from_utf8_lossy(&whole.output),
        String::from_utf8_lossy(&out)
    );
    assert_eq!(streamed.changed, whole.changed, "{name}");
    assert_eq!(streamed.placeholders, whole.placeholders, "{name}");
    let fixed = whole.fixed.iter().map(Vec::len).sum::<usize>()
        + whole.fixed_later
        + usize::from(whole.torn_tail.is_some());
    assert_eq!(streamed.fixed, fixed, "{name}");
    assert_eq!(streamed.torn_tail, whole.torn_tail, "{name}");
    assert_eq!(streamed.findings, findings, "{name}");
    Ok(streamed)
}

#[test]
fn streaming_repair_matches_whole_file_repair() {
    let files = common::files::all_jsonl();
    let (mut streamed, mut refused) = (0, Vec::new());
    // Repairs that changed the file reading only some of its lines again.
    let mut skipped = 0;
    for path in &files {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        for target in [None, Some(Provider::DeepSeek), Some(Provider::Anthropic)] {
            let lint = LintOptions {
                target,
                ..LintOptions::default()
            };
            for (policy, options) in common::policies::all() {
                match compared(&name, &bytes, &lint, &options) {
                    Ok(s) => {
                        streamed += 1;
                        skipped += usize::from(s.changed && s.lines_reread < line_count(&bytes));
                    }
                    Err(why) => refused.push(format!("{name} ({policy}): {why}")),
                }
            }
        }
    }
    // Most files stream; the rest (Claude Code sessions, Gemini CLI record logs, pretty
    // documents saved as `.jsonl`, a session whose uuids do not identify lines, a Claude Code
    // result line dropped by policy) are refused for a stated reason, never silently.
    assert!(
        streamed >= 500,
        "{streamed} streamed; refused:\n{}",
        refused.join("\n")
    );
    assert!(skipped >= 100, "{skipped} repairs skipped lines");
    for why in &refused {
        assert!(
            why.contains("judged on the whole file")
                || why.contains("one JSON document")
                || why.contains("in each other's way")
                || why.contains("read in file order")
                || why.contains("an orphan result line is dropped"),
            "{why}"
        );
    }
}

/// A generated log as one conversation per line.
fn conversation_lines(convs: &[Vec<Msg>], l: &Layout) -> Vec<u8> {
    let one = Layout {
        lines: false,
        indent: None,
        final_newline: false,
        ..l.clone()
    };
    let mut out = Vec::new();
    for msgs in convs {
        out.extend(render_doc(msgs, &one));
        out.extend_from_slice(l.newline.as_bytes());
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn generated_message_lines(
        msgs in valid_conversation(),
        b in breaks(),
        l in layout(),
        policy in 0usize..5,
    ) {
        let l = Layout { lines: true, ..l };
        let bytes = render_doc(&apply(msgs, &b), &l);
        let (_, options) = common::policies::all().swap_remove(policy);
        if let Err(why) = compare("log.jsonl", &bytes, &LintOptions::default(), &options) {
            prop_assert!(why.contains("in each other's way"), "{why}");
        }
    }

    #[test]
    fn generated_conversation_lines(
        convs in prop::collection::vec((valid_conversation(), breaks()), 1..4),
        l in layout(),
        policy in 0usize..5,
    ) {
        let convs: Vec<Vec<Msg>> = convs.into_iter().map(|(m, b)| apply(m, &b)).collect();
        let bytes = conversation_lines(&convs, &l);
        let (_, options) = common::policies::all().swap_remove(policy);
        if let Err(why) = compare("log.jsonl", &bytes, &LintOptions::default(), &options) {
            prop_assert!(why.contains("in each other's way"), "{why}");
        }
    }
}

/// A message-per-line chat log of about `size` bytes in which every tenth turn leaves a call
/// without its result.
fn chat_log(size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut turn = 0;
    while out.len() < size {
        out.extend_from_slice(
            format!("{{\"role\":\"user\",\"content\":\"turn {turn}\"}}\n").as_bytes(),
        );
        out.extend_from_slice(format!("{{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{{\"id\":\"c{turn}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}\n").as_bytes());
        if turn % 10 != 3 {
            out.extend_from_slice(
                format!(
                    "{{\"role\":\"tool\",\"tool_call_id\":\"c{turn}\",\"content\":\"{}\"}}\n",
                    "x".repeat(200)
                )
                .as_bytes(),
            );
        }
        turn += 1;
    }
    out
}

/// A file big enough for its second reading to be read ahead on a thread of its own (with
/// more than one thread) is repaired to the same bytes, to a file and to standard output, and a
/// clean one is copied unchanged.
#[test]
fn a_big_file_read_ahead_repairs_the_same() {
    use common::bin::run;
    let dir = tempfile::tempdir().unwrap();
    let bytes = chat_log(5 << 20);
    let whole = toolmend::repair(
        "big.jsonl",
        &bytes,
        &LintOptions::default(),
        &RepairOptions::default(),
    );
    std::fs::write(dir.path().join("big.jsonl"), &bytes).unwrap();
    for threads in ["1", "2"] {
        let o = run(dir.path(), &["repair", "-j", threads, "big.jsonl"]);
        assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
        assert!(o.stdout == whole.output);
        let o = run(
            dir.path(),
            &["repair", "-j", threads, "big.jsonl", "-o", "out.jsonl"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
        assert!(std::fs::read(dir.path().join("out.jsonl")).unwrap() == whole.output);
        let o = run(dir.path(), &["repair", "-j", threads, "out.jsonl"]);
        assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
        assert!(o.stdout == whole.output);
    }
}

#[test]
fn the_command_streams_files_and_standard_input_and_in_place_with_a_backup() {
    use common::bin::{BIN, run};
    let dir = tempfile::tempdir().unwrap();
    let bytes = chat_log(1 << 20);
    let whole = toolmend::repair(
        "log.jsonl",
        &bytes,
        &LintOptions::default(),
        &RepairOptions::default(),
    );
    assert!(whole.placeholders > 100);
    let log = dir.path().join("log.jsonl");
    std::fs::write(&log, &bytes).unwrap();
    let o = run(dir.path(), &["repair", "log.jsonl"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout == whole.output);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("read whole"));
    // Standard input, given its format.
    let o = std::process::Command::new(BIN)
        .args([
            "repair",
            "--duplicate-ids",
            "re-id",
            "--input-format",
            "jsonl",
            "-",
        ])
        .stdin(std::fs::File::open(&log).unwrap())
        .output()
        .unwrap();
    assert!(o.stdout == whole.output);
    let o = run(dir.path(), &["repair", "--check", "log.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    let o = run(
        dir.path(),
        &["repair", "--in-place", "--backup", ".orig", "log.jsonl"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
    assert!(std::fs::read(&log).unwrap() == whole.output);
    assert!(std::fs::read(dir.path().join("log.jsonl.orig")).unwrap() == bytes);
    // Repaired: a second run changes nothing.
    let o = run(dir.path(), &["repair", "--check", "log.jsonl"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_large_file_read_whole_says_so() {
    use common::bin::run;
    let dir = tempfile::tempdir().unwrap();
    // A Claude Code session of 17 MiB: streamed, unless a policy renames across the file.
    let mut session = Vec::new();
    let mut parent = "null".to_string();
    let mut n = 0;
    while session.len() < 17 << 20 {
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let (kind, content) = if n % 2 == 0 {
            ("user", format!("\"{}\"", "y".repeat(400)))
        } else {
            (
                "assistant",
                "[{\"type\":\"text\",\"text\":\"ok\"}]".to_string(),
            )
        };
        session.extend_from_slice(format!("{{\"parentUuid\":{parent},\"isSidechain\":false,\"type\":\"{kind}\",\"message\":{{\"role\":\"{kind}\",\"content\":{content}}},\"uuid\":\"{uuid}\",\"sessionId\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\"}}\n").as_bytes());
        parent = format!("\"{uuid}\"");
        n += 1;
    }
    std::fs::write(dir.path().join("session.jsonl"), &session).unwrap();
    let o = run(dir.path(), &["repair", "--check", "session.jsonl"]);
    let text = common::bin::text(&o);
    assert!(!text.contains("read whole"), "{text}");
    let o = run(
        dir.path(),
        &[
            "repair",
            "--check",
            "--duplicate-ids",
            "re-id",
            "session.jsonl",
        ],
    );
    let text = common::bin::text(&o);
    assert!(
        text.contains(
            "read whole, not as a stream (--reid renames calls across the whole conversation)"
        ),
        "{text}"
    ); // A chat log that would stream, asked for a diff.
    std::fs::write(dir.path().join("chat.jsonl"), chat_log(17 << 20)).unwrap();
    let o = run(dir.path(), &["repair", "--diff", "chat.jsonl"]);
    let text = String::from_utf8_lossy(&o.stderr);
    assert!(
        text.contains(
            "read whole, not as a stream (--diff and --format json need both versions whole)"
        ),
        "{text}"
    );
}

#[test]
fn standard_input_that_cannot_stream_is_repaired_whole_from_its_copy() {
    // Standard input is kept in a temporary file for the streaming attempt; a Claude Code
    // session whose calls are renamed is then repaired whole from that copy (standard input
    // cannot be read again).
    let bytes = common::files::read("claude-code", "interrupted.jsonl");
    let lint = LintOptions {
        read: toolmend::ReadOptions {
            format: Some(toolmend::Format::Lines),
            ..toolmend::ReadOptions::default()
        },
        ..LintOptions::default()
    };
    let reid = RepairOptions {
        reid: true,
        ..RepairOptions::default()
    };
    let whole = toolmend::repair("-", &bytes, &lint, &reid);
    assert!(whole.changed);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::write(&input, &bytes).unwrap();
    let o = std::process::Command::new(common::bin::BIN)
        .args([
            "repair",
            "--duplicate-ids",
            "re-id",
            "--input-format",
            "jsonl",
            "-",
        ])
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
    assert!(o.stdout == whole.output, "{}", common::bin::text(&o));
}

/// Lines of an OpenAI chat log, by kind: `u` a user turn, `c` a call answered by the next `r`
/// line, `d` a call never answered, `o` a result whose call never came, `2` a second result for
/// the last answered call, `b` a blank line, `t` a torn last line.
fn chat(kinds: &str, newline: &str) -> Vec<u8> {
    let mut out = String::new();
    let mut call = 0;
    for (n, kind) in kinds.chars().enumerate() {
        let line = match kind {
            'u' => format!(r#"{{"role":"user","content":"turn {n}"}}"#),
            'c' | 'd' => {
                call += 1;
                format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{call}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]}}"#
                )
            }
            'r' | '2' => {
                format!(r#"{{"role":"tool","tool_call_id":"c{call}","content":"ok {n}"}}"#)
            }
            'o' => format!(r#"{{"role":"tool","tool_call_id":"gone{n}","content":"late"}}"#),
            'b' => String::new(),
            't' => r#"{"role":"user","content":"cut of"#.to_string(),
            other => panic!("no line kind {other}"),
        };
        out.push_str(&line);
        if kind != 't' {
            out.push_str(newline);
        }
    }
    out.into_bytes()
}

/// Compare the streamed repair of `bytes` with the whole one under every policy and target;
/// gives what each policy's repair streamed with no target.
fn compare_everywhere(name: &str, bytes: &[u8]) -> Vec<Streamed> {
    let mut streamed = Vec::new();
    for target in [None, Some(Provider::DeepSeek), Some(Provider::Anthropic)] {
        let lint = LintOptions {
            target,
            ..LintOptions::default()
        };
        for (policy, options) in common::policies::all() {
            match compared(name, bytes, &lint, &options) {
                Ok(s) if target.is_none() => streamed.push(s),
                Ok(_) => {}
                Err(why) => panic!("{name} ({policy}): not streamed: {why}"),
            }
        }
    }
    streamed
}

/// The number of lines of `bytes`.
fn line_count(bytes: &[u8]) -> usize {
    bytes.split_inclusive(|&b| b == b'\n').count()
}

#[test]
fn the_second_reading_parses_only_the_lines_fixes_need() {
    let answered = "ucrucrucrucrucr";
    let cases = [
        // A fix at the first line, and at the last.
        ("first line", format!("du{answered}")),
        ("last line", format!("{answered}ud")),
        // Fixes separated by lines no fix needs.
        ("apart", format!("ucr{answered}dudu{answered}du")),
        ("next to each other", format!("{answered}duduud{answered}")),
        ("blank lines", format!("bb{answered}bbdbbub{answered}bb")),
        ("an orphan result", format!("{answered}uo{answered}")),
    ];
    for newline in ["\n", "\r\n"] {
        for (case, kinds) in &cases {
            let bytes = chat(kinds, newline);
            let name = format!("{case} ({newline:?}).jsonl");
            let streamed = compare_everywhere(&name, &bytes);
            assert!(streamed.iter().any(|s| s.changed), "{name}");
            let lines = line_count(&bytes);
            for s in streamed {
                assert!(
                    s.lines_reread <= lines / 2,
                    "{name}: {} of {lines} lines read again",
                    s.lines_reread
                );
            }
        }
    }
}

/// Found by a generated 9 MB Anthropic messages log (seed exploration, `lint`/`repair` on
/// random multi-block files): when the file ends with a message whose calls all dangle, the
/// stream planned each call's placeholder as a group of its own and wrote three user messages,
/// where the whole-file repair writes one user message holding the three results.
#[test]
fn dangling_calls_of_the_last_message_are_answered_in_one_message() {
    let call = r#"{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"f","input":{}},{"type":"tool_use","id":"toolu_b","name":"f","input":{}},{"type":"tool_use","id":"toolu_c","name":"f","input":{}}]}"#;
    let user = r#"{"role":"user","content":"go"}"#;
    let cases = [
        ("alone.jsonl", format!("{call}\n")),
        ("after a turn.jsonl", format!("{user}\r\n{call}\r\n")),
        ("no final newline.jsonl", format!("{user}\n{user}\n{call}")),
    ];
    for (name, text) in &cases {
        let bytes = text.as_bytes();
        for s in compare_everywhere(name, bytes) {
            assert_eq!(s.placeholders, 3, "{name}");
        }
        let whole = toolmend::repair(
            name,
            bytes,
            &LintOptions::default(),
            &RepairOptions::default(),
        );
        assert_eq!(
            line_count(&whole.output),
            line_count(bytes) + 1,
            "{name}: one message answers the three calls\n{}",
            String::from_utf8_lossy(&whole.output)
        );
    }
}

/// Found by seed exploration on generated logs mixing dialects: a file holding a conversation
/// toolmend cannot read (TM009: Kimi Code events) and another with a dangling call was left
/// whole by the streamed repair, while the whole-file repair leaves only the unread
/// conversation alone and repairs the other (docs/verdicts.md: such a conversation is left byte
/// for byte). Conversations held by one line, and a Claude Code sidechain followed by such a
/// line (read as the main thread).
#[test]
fn a_conversation_toolmend_cannot_read_leaves_the_others_repaired() {
    let event = r#"{"type":"tool.result","time":1.5,"turnId":"t_01","toolCallId":"Shell:0","result":{"output":"14","isError":false}}"#;
    let conversations = format!(
        "{{\"messages\":[{{\"role\":\"user\",\"content\":\"x\"}},{event}]}}\n{}\n",
        r#"{"messages":[{"role":"user","content":"y"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#
    );
    let line = |uuid: &str, parent: &str, ty: &str, content: &str| {
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":true,"type":"{ty}","message":{{"role":"{ty}","content":{content}}},"uuid":"{uuid}","sessionId":"s-1","timestamp":"2026-01-01T00:00:00.000Z"}}"#
        )
    };
    let session = [
        line(
            "00000000-0000-4000-8000-000000000001",
            "null",
            "user",
            r#""go""#,
        ),
        line(
            "00000000-0000-4000-8000-000000000002",
            r#""00000000-0000-4000-8000-000000000001""#,
            "assistant",
            r#"[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]"#,
        ),
        event.to_string(),
    ]
    .join("\n")
        + "\n";
    for (name, text) in [
        ("conversations.jsonl", conversations),
        ("session.jsonl", session),
    ] {
        let bytes = text.as_bytes();
        let findings = toolmend::analyse(name, bytes, &LintOptions::default()).findings(name);
        assert!(findings.iter().any(|f| f.code == "TM009"), "{name}");
        let s = compared(
            name,
            bytes,
            &LintOptions::default(),
            &RepairOptions::default(),
        )
        .unwrap_or_else(|why| panic!("{name}: not streamed: {why}"));
        assert_eq!(s.placeholders, 1, "{name}");
        assert!(
            s.refused.is_some(),
            "{name}: the unread conversation is still named"
        );
    }
}

#[test]
fn a_torn_last_line_is_read_again_and_dropped_when_asked() {
    let bytes = chat("ucrucrucrdrucrucrucrt", "\n");
    let streamed = compare_everywhere("torn.jsonl", &bytes);
    assert!(
        streamed
            .iter()
            .all(|s| s.lines_reread < line_count(&bytes) / 2)
    );
    let options = RepairOptions {
        drop_torn_tail: true,
        ..RepairOptions::default()
    };
    let streamed = compared("torn.jsonl", &bytes, &LintOptions::default(), &options).unwrap();
    assert!(streamed.torn_tail.is_some());
}

#[test]
fn a_fix_the_first_pass_cannot_place_is_read_from_the_start() {
    // A second result names a call the walk remembers without its place: every line up to
    // that result is read (the first pass cannot say where the fix starts), the rest skipped.
    let bytes = chat("ucrucrucr2ucrucrucrucrucrucr", "\n");
    let options = RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepFirst),
        ..RepairOptions::default()
    };
    let streamed = compared("dup.jsonl", &bytes, &LintOptions::default(), &options).unwrap();
    assert!(streamed.changed);
    assert!(
        (10..line_count(&bytes) / 2 + 4).contains(&streamed.lines_reread),
        "{}",
        streamed.lines_reread
    );
    compare_everywhere("dup.jsonl", &bytes);
}

#[test]
fn a_clean_file_is_read_once_when_checked() {
    let bytes = chat("ucrucrucrucr", "\n");
    let opened = std::cell::Cell::new(0);
    let open = || -> io::Result<Box<dyn BufRead + '_>> {
        opened.set(opened.get() + 1);
        Ok(Box::new(io::BufReader::new(&bytes[..])))
    };
    let (lint, options) = (LintOptions::default(), RepairOptions::default());
    let checked = toolmend::check_lines("clean.jsonl", &open, &lint, &options).unwrap();
    assert!(!checked.changed);
    assert_eq!(checked.lines_reread, 0);
    // Its first lines, which tell the dialect, and the lint.
    assert_eq!(opened.get(), 2);
    let mut out = Vec::new();
    toolmend::stream_lines("clean.jsonl", &open, &lint, &options, &mut out).unwrap();
    assert!(out == bytes);
}

/// One OpenAI conversation of the message `kinds` (see `chat`), as one line's record.
fn conversation(kinds: &str) -> String {
    let messages: Vec<String> = chat(kinds, "\n")
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| String::from_utf8(l.to_vec()).unwrap())
        .collect();
    format!(r#"{{"messages":[{}]}}"#, messages.join(","))
}

#[test]
fn a_file_of_conversations_is_not_read_ahead_for_its_dialect() {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    // One conversation per line: no message line names the file's dialect, so its first look
    // stops at the first line rather than reading on (up to a MiB) for one.
    let line = format!("{}\n", conversation("ucrucr"));
    let bytes = line.repeat(200);
    /// Counts the bytes read through it.
    struct Counted<'a>(&'a [u8], Rc<Cell<usize>>);
    impl io::Read for Counted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.read(buf)?;
            self.1.set(self.1.get() + n);
            Ok(n)
        }
    }
    let reads: RefCell<Vec<Rc<Cell<usize>>>> = RefCell::default();
    let open = || -> io::Result<Box<dyn BufRead + '_>> {
        let counter = Rc::new(Cell::new(0));
        reads.borrow_mut().push(counter.clone());
        let counted = Counted(bytes.as_bytes(), counter);
        Ok(Box::new(io::BufReader::with_capacity(64, counted)))
    };
    let (lint, options) = (LintOptions::default(), RepairOptions::default());
    let checked = toolmend::check_lines("convs.jsonl", &open, &lint, &options).unwrap();
    assert!(!checked.changed);
    let read: Vec<usize> = reads.borrow().iter().map(|c| c.get()).collect();
    // The first look and the lint; the lint reads it all, the first look one line.
    assert_eq!(read.len(), 2);
    assert_eq!(read[1], bytes.len());
    assert!(read[0] <= line.len() + 64, "{read:?}");
}

#[test]
fn only_the_conversations_with_fixes_are_read_again() {
    // One conversation per line, several messages each; one line in five leaves a call
    // unanswered, and one holds two conversations.
    let conv = |broken: bool| conversation(if broken { "ucrud" } else { "ucrucr" });
    let mut bytes = String::new();
    for n in 0..20 {
        let line = match n {
            7 => format!("[{},{}]", conv(false), conv(true)),
            n => conv(n % 5 == 2),
        };
        bytes.push_str(&line);
        bytes.push('\n');
    }
    let streamed = compare_everywhere("convs.jsonl", bytes.as_bytes());
    assert!(streamed[0].changed);
    // The four lines holding a broken conversation (one of them holding two), and the last.
    assert_eq!(streamed[0].lines_reread, 5);
}

/// A small deterministic random source (xorshift), so the generated logs below are the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// One message-per-line log of about `size` bytes in `dialect` (`chat`, `anthropic`,
/// `langchain`; `conversations`: one OpenAI conversation per line), broken the ways the seed
/// exploration broke its logs: calls left dangling, results after a user turn, duplicated,
/// orphaned (after a turn's results and among them), ids reused and doubled in one message, blank, whitespace and CRLF lines, a torn
/// line, a conversation no dialect reads, and a last message whose calls all dangle or a torn
/// final line.
fn generated_log(seed: u64, dialect: &str, size: usize) -> Vec<u8> {
    let mut r = Rng(seed);
    let filler = "lorem ipsum dolor sit amet ";
    let call = |ids: &[String]| -> String {
        match dialect {
            "anthropic" => format!(
                r#"{{"role":"assistant","content":[{}]}}"#,
                ids.iter()
                    .map(|id| format!(r#"{{"type":"tool_use","id":"{id}","name":"f","input":{{}}}}"#))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            "langchain" => format!(
                r#"{{"type":"ai","data":{{"content":"","tool_calls":[{}]}}}}"#,
                ids.iter()
                    .map(|id| format!(r#"{{"name":"f","args":{{}},"id":"{id}","type":"tool_call"}}"#))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            _ => format!(
                r#"{{"role":"assistant","content":null,"tool_calls":[{}]}}"#,
                ids.iter()
                    .map(|id| format!(r#"{{"id":"{id}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}"#))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    };
    let result = |id: &str, text: &str| match dialect {
        "anthropic" => format!(
            r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"{text}"}}]}}"#
        ),
        "langchain" => format!(
            r#"{{"type":"tool","data":{{"content":"{text}","tool_call_id":"{id}","name":"f"}}}}"#
        ),
        _ => format!(r#"{{"role":"tool","tool_call_id":"{id}","content":"{text}"}}"#),
    };
    let user = |text: &str| match dialect {
        "langchain" => format!(r#"{{"type":"human","data":{{"content":"{text}"}}}}"#),
        _ => format!(r#"{{"role":"user","content":"{text}"}}"#),
    };
    let mut messages: Vec<String> = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    let mut bytes = 0;
    while bytes < size {
        let before = messages.len();
        let text = filler.repeat(r.below(6));
        if r.chance(25) {
            messages.push(user(&format!("{text}{}", messages.len())));
        } else {
            let mut turn = Vec::new();
            for _ in 0..1 + r.below(3) {
                let id = if !ids.is_empty() && r.chance(3) {
                    ids[r.below(ids.len())].clone()
                } else {
                    format!("call_{}", ids.len() + turn.len())
                };
                turn.push(id);
            }
            if r.chance(2) {
                turn.push(turn[0].clone());
            }
            ids.extend(turn.iter().cloned());
            messages.push(call(&turn));
            for id in &turn {
                match r.below(100) {
                    0..8 => continue,
                    8..10 => messages.push(user("between")),
                    10..12 => messages.push(result(id, "again")),
                    // An orphan inside the answer window: its note must leave the window.
                    12..14 => messages.push(result(&format!("stray_{}", messages.len()), "x")),
                    _ => {}
                }
                messages.push(result(id, &text));
            }
            if r.chance(3) {
                messages.push(result(&format!("gone_{}", ids.len()), "late"));
            }
        }
        bytes += messages[before..].iter().map(String::len).sum::<usize>();
    }
    if r.chance(50) {
        let last = (0..3).map(|k| format!("last_{k}")).collect::<Vec<_>>();
        messages.push(call(&last));
    }
    let mut lines = if dialect == "conversations" {
        let mut lines = Vec::new();
        let mut rest = &messages[..];
        while !rest.is_empty() {
            let n = (1 + r.below(12)).min(rest.len());
            lines.push(format!(r#"{{"messages":[{}]}}"#, rest[..n].join(",")));
            rest = &rest[n..];
        }
        let at = r.below(lines.len());
        lines.insert(
            at,
            r#"{"messages":[{"role":"user","content":"x"},{"type":"tool.result","time":1.5,"turnId":"t_01","toolCallId":"Shell:0","result":{"output":"14","isError":false}}]}"#.to_string(),
        );
        lines
    } else {
        messages
    };
    let torn = r.below(lines.len());
    let half = lines[torn].len() / 2;
    lines[torn].truncate(half);
    let crlf = r.chance(20);
    let mut out = String::new();
    for line in &lines {
        out.push_str(line);
        out.push_str(if crlf || r.chance(2) { "\r\n" } else { "\n" });
        if r.chance(1) {
            out.push_str(["\n", "   \n", "\t\r\n"][r.below(3)]);
        }
    }
    match r.below(3) {
        0 => {
            let cut = out.trim_end().len() - 5;
            out.truncate(cut);
        }
        1 => out.truncate(out.trim_end().len()),
        _ => {}
    }
    out.into_bytes()
}

/// Generated logs bigger than the property tests draw (more than one 256 KiB block, hundreds of
/// fixes): the streamed repair writes what the whole-file repair writes under every policy, a
/// repair is a fixed point, and lint prints the same on one thread and two. The seed
/// exploration that found the three pinned bugs above used logs like these.
///
/// CI draws the four logs from fixed seeds; `TOOLMEND_SEED_BASE=N` draws others, to explore
/// outside the gate (pin what they find).
#[test]
fn bigger_generated_logs_stream_as_they_repair_whole() {
    let dir = tempfile::tempdir().unwrap();
    let base: u64 = std::env::var("TOOLMEND_SEED_BASE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    for (seed, dialect) in [
        (1, "chat"),
        (2, "anthropic"),
        (3, "langchain"),
        (4, "conversations"),
    ] {
        let seed = seed + base;
        let name = format!("{dialect}-{seed}.jsonl");
        let bytes = generated_log(
            0x9E37_79B9_7F4A_7C15_u64.wrapping_mul(seed),
            dialect,
            300_000,
        );
        let lint = LintOptions::default();
        // Three of the policies, to stay within a few seconds.
        for (policy, options) in common::policies::all().into_iter().step_by(2) {
            if let Err(why) = compare(&name, &bytes, &lint, &options) {
                // Fixes made in rounds: the file is repaired whole, as stated.
                assert!(
                    why.contains("in each other's way"),
                    "{name} ({policy}): {why}"
                );
            }
            // Under every policy a repair is a fixed point of that policy.
            let once = toolmend::repair(&name, &bytes, &lint, &options);
            let twice = toolmend::repair(&name, &once.output, &lint, &options);
            assert!(
                !twice.changed,
                "{name} ({policy}): a second repair changed more"
            );
        }
        let once = toolmend::repair(&name, &bytes, &lint, &RepairOptions::default());
        assert!(once.placeholders > 50, "{name}: {}", once.placeholders);
        let twice = toolmend::repair(&name, &once.output, &lint, &RepairOptions::default());
        assert!(!twice.changed, "{name}: a second repair changed more");
        std::fs::write(dir.path().join(&name), &bytes).unwrap();
        let lint_on = |threads: &str| {
            common::bin::run(
                dir.path(),
                &["lint", "--format", "json", "-j", threads, &name],
            )
        };
        let (one, two) = (lint_on("1"), lint_on("2"));
        assert_eq!(one.status.code(), Some(1), "{name}");
        assert!(
            one.stdout == two.stdout,
            "{name}: lint -j 1 and -j 2 differ"
        );
    }
}

/// A one-conversation-per-line log of `lines` lines, each about `width` bytes long, where only
/// the lines in `broken` leave a call unanswered.
fn sparse_conversations(lines: usize, width: usize, broken: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..lines {
        let call = format!(
            "{{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{{\"id\":\"c{i}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}"
        );
        let result = format!("{{\"role\":\"tool\",\"tool_call_id\":\"c{i}\",\"content\":\"ok\"}}");
        let tail = if broken.contains(&i) {
            String::new()
        } else {
            format!(",{result}")
        };
        let text = "t".repeat(width);
        out.extend_from_slice(
            format!(
                "{{\"messages\":[{{\"role\":\"user\",\"content\":\"{text}\"}},{call}{tail}]}}\n"
            )
            .as_bytes(),
        );
    }
    out
}

/// The output goes out in large runs, read straight into the second reading's buffer and
/// written past the output's buffer: long runs of untouched lines, lines longer than one read,
/// and fixes at either end give the whole-file repair's bytes into a regular file (`-o`, and
/// standard output redirected to one), a pipe, a named pipe and `/dev/null`, with one thread
/// and two.
#[test]
fn large_runs_reach_every_kind_of_output_unchanged() {
    use common::bin::{BIN, run, text};
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    // About 3 MB: short lines with a few fixes far apart, then lines of 300 KB (more than one
    // read of the second reading) with fixes between them.
    let mut bytes = sparse_conversations(6_000, 200, &[0, 3_000, 3_001, 5_999]);
    bytes.extend(sparse_conversations(4, 300_000, &[1, 3]));
    let (lint, options) = (LintOptions::default(), RepairOptions::default());
    let whole = toolmend::repair("big.jsonl", &bytes, &lint, &options);
    assert!(whole.changed);
    assert_eq!(whole.placeholders, 6);
    std::fs::write(dir.path().join("big.jsonl"), &bytes).unwrap();
    let fifo = dir.path().join("out.pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for threads in ["1", "2"] {
        let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
        // A pipe (the test reads standard output).
        let o = run(dir.path(), &["repair", "-j", threads, "big.jsonl"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(o.stdout == whole.output, "pipe, -j {threads}");
        // A regular file: `-o`, and standard output redirected.
        let o = run(
            dir.path(),
            &["repair", "-j", threads, "big.jsonl", "-o", "out.jsonl"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(read("out.jsonl") == whole.output, "-o file, -j {threads}");
        let o = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "\"{BIN}\" repair -j {threads} big.jsonl > redirected.jsonl"
            ))
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(
            read("redirected.jsonl") == whole.output,
            "> file, -j {threads}"
        );
        // A named pipe, read by another thread.
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let o = run(
            dir.path(),
            &["repair", "-j", threads, "big.jsonl", "-o", "out.pipe"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(
            reader.join().unwrap() == whole.output,
            "-o fifo, -j {threads}"
        );
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        // A device.
        let o = run(
            dir.path(),
            &["repair", "-j", threads, "big.jsonl", "-o", "/dev/null"],
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(null.file_type().is_char_device());
    }
}

/// A file that changed between the two readings (a line added before the fixes, so every
/// later line moved) is never written from the second reading as if it had not: the messages
/// the fixes need are not where the first reading placed them, so the stream gives up and the
/// file is read whole.
#[test]
fn a_file_changed_between_the_readings_is_read_whole() {
    let before = chat_log(200 << 10);
    let mut after = b"{\"role\":\"user\",\"content\":\"added\"}\n".to_vec();
    after.extend_from_slice(&before);
    assert_streams_whole_when_changed(&before, &after);
}

/// Streams a repair of a file that is `before` for its first two readings (its head, which
/// settles the dialect, and the lint) and `after` for the third (the one that writes), and
/// requires the stream to give up for the whole-file repair.
fn assert_streams_whole_when_changed(before: &[u8], after: &[u8]) {
    let opened = std::cell::Cell::new(0);
    let open = || -> io::Result<Box<dyn BufRead + '_>> {
        opened.set(opened.get() + 1);
        let bytes = if opened.get() <= 2 { before } else { after };
        Ok(Box::new(io::BufReader::new(bytes)))
    };
    let (lint, options) = (LintOptions::default(), RepairOptions::default());
    let mut out = Vec::new();
    let got = toolmend::stream_lines("moved.jsonl", &open, &lint, &options, &mut out);
    assert_eq!(opened.get(), 3);
    assert!(matches!(got, Err(NotStreamed::Whole(_))), "{got:?}");
}

/// The same for a log of one conversation per line, whose fixed conversations the second
/// reading finds by their offset: a line added before them moves them, and the stream gives up
/// rather than leave their fixes unmade.
#[test]
fn conversations_moved_between_the_readings_are_read_whole() {
    let before = sparse_conversations(2_000, 200, &[1_500]);
    let mut after = sparse_conversations(1, 50, &[]);
    after.extend_from_slice(&before);
    assert_streams_whole_when_changed(&before, &after);
    // Unchanged, it streams.
    let (lint, options) = (LintOptions::default(), RepairOptions::default());
    compare("kept.jsonl", &before, &lint, &options).unwrap();
}
