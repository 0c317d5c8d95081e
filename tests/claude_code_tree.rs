//! Claude Code sessions read as the real client resumes them (fixtures/claude-code-tree, written
//! by tests/claude_resume/make_fixtures.py; what Claude Code 2.1.332 sends for each is in
//! docs/claude-code.md):
//! findings on the line that matters, the same from the streaming lint, and repairs that leave
//! only what has no fix.

pub mod common;

use common::{api, files};
use toolmend::{Finding, Options, OrphanPolicy, RepairOptions, Severity};

/// Each fixture and its findings as `CODE@line`.
const EXPECTED: &[(&str, &[&str])] = &[
    ("clean", &[]),
    ("parallel-branches", &[]),
    ("rewind-fork", &[]),
    ("leaf-choice", &[]),
    ("last-line-not-leaf", &[]),
    ("last-line-older-children", &[]),
    ("late-last-line", &[]),
    ("mid-dangling", &["TM001@2"]),
    ("rewind-dangling", &["TM001@2"]),
    ("trailing-call", &["TM001@2"]),
    ("orphan-result", &["TM002@3"]),
    ("torn-tail", &["TM007@4"]),
    ("missing-parent", &["TM010@3"]),
    ("missing-parent-gap", &["TM010@4"]),
    ("missing-parent-no-source", &["TM010@3"]),
    ("missing-parent-text", &["TM010@3"]),
    ("self-parent", &["TM011@1"]),
    ("cycle", &["TM011@1"]),
    ("dup-identical", &["TM012@4"]),
    ("dup-conflict", &["TM013@3", "TM012@4"]),
    ("fork-split", &["TM013@7"]),
    ("compact-split", &["TM013@5"]),
    ("server-orphan", &["TM014@2"]),
];

const SET: &str = "claude-code-tree";

/// A Claude Code session line: `uuid` hanging from `parent` (a JSON value), of type `ty`,
/// with message content `content`, written at second `second`.
fn line(uuid: &str, parent: &str, ty: &str, content: &str, second: u32) -> String {
    format!(
        r#"{{"parentUuid":{parent},"isSidechain":false,"userType":"external","sessionId":"s1","type":"{ty}","message":{{"role":"{ty}","content":{content}}},"timestamp":"2026-01-01T10:00:0{second}.000Z","uuid":"{uuid}"}}"#
    )
}

/// The default repair of `bytes` as a stream, or why it was refused.
fn streamed(name: &str, bytes: &[u8]) -> Result<Vec<u8>, toolmend::NotStreamed> {
    let open = || -> std::io::Result<Box<dyn std::io::BufRead + '_>> { Ok(Box::new(bytes)) };
    let mut out = Vec::new();
    toolmend::stream_lines(
        name,
        &open,
        &Options::default(),
        &RepairOptions::default(),
        &mut out,
    )?;
    Ok(out)
}

/// Line `a1`, hanging from `u1`: a call `toolu_x` to `Bash`.
fn call_line() -> String {
    line(
        "a1",
        r#""u1""#,
        "assistant",
        r#"[{"type":"tool_use","id":"toolu_x","name":"Bash","input":{}}]"#,
        1,
    )
}

/// The default repair but for the orphan policy.
fn orphans(policy: OrphanPolicy) -> RepairOptions {
    RepairOptions {
        orphans: policy,
        ..RepairOptions::default()
    }
}

fn fixture(name: &str) -> Vec<u8> {
    files::read(SET, &format!("{name}.jsonl"))
}

fn at_lines(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{}@{}", f.code, f.line))
        .collect()
}

#[test]
fn every_fixture_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(files::dir(SET))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".jsonl")
                .filter(|n| !n.contains(".repaired"))
                .map(str::to_string)
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = EXPECTED.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn findings_are_on_the_line_that_matters_whole_or_streamed() {
    for (name, want) in EXPECTED {
        let bytes = fixture(name);
        let file = format!("{name}.jsonl");
        assert_eq!(at_lines(&api::findings(&file, &bytes)), *want, "{name}");
        let streamed = toolmend::lint_lines(&file, &bytes[..], &Options::default()).unwrap();
        assert_eq!(at_lines(&streamed.findings), *want, "{name} (streamed)");
    }
}

#[test]
fn findings_say_what_claude_code_does_on_resume() {
    let message = |name: &str| api::findings(name, &fixture(name))[0].message.clone();
    assert!(message("mid-dangling").contains("drops the assistant message"));
    assert!(message("orphan-result").contains("silently drops this result"));
    assert!(message("fork-split").contains("another branch"));
    assert!(message("compact-split").contains("before the compact_boundary on line 3"));
    assert!(message("missing-parent-gap").contains("continues at line 3, the newest line written"));
    assert!(message("server-orphan").contains("the API rejects the request"));
    let dup = api::findings("d", &fixture("dup-identical"));
    assert_eq!(dup[0].severity, Severity::Warning);
    let dup = api::findings("d", &fixture("dup-conflict"));
    assert_eq!(dup[1].severity, Severity::Error);
}

#[test]
fn detect_names_the_line_resume_starts_from() {
    let why = |name: &str| {
        api::analyse(name, &fixture(name)).doc.conversations[0]
            .detection
            .clone()
    };
    assert!(why("late-last-line").contains("from line 3 (the newest line below line 6"));
    assert!(why("leaf-choice").contains("from line 6 (the file's last line)"));
    assert!(why("rewind-fork").contains("2 message line(s) off it"));
}

#[test]
fn repairs_leave_only_what_has_no_fix() {
    let note = orphans(OrphanPolicy::Note);
    let drop = orphans(OrphanPolicy::Drop);
    for (name, want) in EXPECTED {
        let bytes = fixture(name);
        for options in [&note, &drop] {
            let fixed = api::repair(name, &bytes, options);
            let left = api::codes(name, &fixed.output);
            let expected_left: Vec<&str> = want
                .iter()
                .map(|c| &c[..5])
                .filter(|c| {
                    // No fix: reading questions. Under `drop` a result line goes, and the
                    // lines hanging from it hang from its parent.
                    ["TM007", "TM010", "TM011"].contains(c)
                        || (*c == "TM012" && *name == "dup-conflict")
                })
                .collect();
            assert_eq!(left, expected_left, "{name} {:?}", options.orphans);
            assert_eq!(
                api::repair(name, &fixed.output, options).output,
                fixed.output,
                "{name}: not idempotent"
            );
        }
    }
}

#[test]
fn a_server_result_without_its_call_goes_as_a_whole_line() {
    let bytes = fixture("server-orphan");
    let drop = orphans(OrphanPolicy::Drop);
    let out = api::repair("s", &bytes, &drop).output;
    let lines = |b: &[u8]| -> Vec<serde_json::Value> {
        String::from_utf8_lossy(b)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (before, after) = (lines(&bytes), lines(&out));
    assert_eq!(after.len(), before.len() - 1);
    // The line below hangs from the removed line's parent now.
    assert_eq!(after[1]["parentUuid"], before[1]["parentUuid"]);
    assert_eq!(after[1]["uuid"], before[2]["uuid"]);
}

#[test]
fn only_a_torn_final_line_is_dropped_and_only_when_asked() {
    let bytes = fixture("torn-tail");
    let kept = api::repair("t.jsonl", &bytes, &RepairOptions::default());
    assert_eq!(kept.output, bytes);
    assert_eq!(kept.torn_tail, None);
    let drop = RepairOptions {
        drop_torn_tail: true,
        ..RepairOptions::default()
    };
    let dropped = api::repair("t.jsonl", &bytes, &drop);
    let cut = bytes.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    assert_eq!(dropped.output, &bytes[..cut]);
    assert_eq!(dropped.torn_tail, Some((4, bytes.len() - cut)));
    assert!(api::codes("t.jsonl", &dropped.output).is_empty());
    // The same torn line with a line after it is not a torn tail: never dropped.
    let mut middle = bytes.clone();
    middle.extend_from_slice(b"\n{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"x\"}\n");
    let fixed = api::repair("m.jsonl", &middle, &drop);
    assert_eq!(fixed.torn_tail, None);
    assert_eq!(fixed.output, middle);
}

/// Found by seed exploration (spliced sessions): the file's last line repeats an earlier line
/// byte for byte, and the reading starts there, then moves down to a newer line hanging from
/// it. Dropping that copy would start the reading at the line before it, on another branch
/// (here an unanswered call): the copy is reported and left, and the repair is a fixed point.
#[test]
fn a_copy_that_is_the_last_line_is_not_dropped() {
    let call =
        |id: &str| format!(r#"[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{}}}}]"#);
    let result = r#"[{"type":"tool_result","tool_use_id":"toolu_x","content":"ok"}]"#;
    let copied = line("r1", r#""a1""#, "user", result, 2);
    let lines = [
        line("u1", "null", "user", r#""go""#, 0),
        line("a1", r#""u1""#, "assistant", &call("toolu_x"), 1),
        copied.clone(),
        line("u4", r#""r1""#, "user", r#""next""#, 5),
        line("a5", r#""u1""#, "assistant", &call("toolu_y"), 3),
        copied,
    ];
    let bytes = lines.map(|l| l + "\n").concat().into_bytes();
    let found = api::findings("copy", &bytes);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].code, found[0].line), ("TM012", 6));
    assert!(found[0].fix.is_none(), "{found:?}");
    let fixed = api::repair("copy", &bytes, &RepairOptions::default());
    assert!(!fixed.changed);
    assert_eq!(fixed.output, bytes);
}

/// The texts of the messages of the history Claude Code resumes from `bytes`.
fn resumed_texts(bytes: &[u8]) -> String {
    let a = api::analyse("s.jsonl", bytes);
    a.doc.conversations[0]
        .messages
        .iter()
        .map(|m| String::from_utf8_lossy(&bytes[m.span.start..m.span.end]).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A placeholder relinks the line the resumed history goes on with, which is not always the
/// first later line hanging from the call: after a `/rewind` the abandoned reply comes first,
/// and when the call line is copied at the end of the file its reply comes before the copy.
/// Relinking the first later child left the live reply hanging from the call (still
/// unanswered, and a second repair added a second placeholder with the same uuid), or took
/// the reply off the resumed history. The streamed repair writes the same bytes, or, when
/// the reply comes before the line the placeholder follows, leaves the file to the
/// whole-file repair, saying why.
#[test]
fn a_placeholder_relinks_the_reply_the_history_goes_on_with() {
    let call = call_line();
    let copied = [
        line("u1", "null", "user", r#""go""#, 0),
        call.clone(),
        line("u2", r#""a1""#, "user", r#""and then?""#, 2),
        call,
    ];
    let copied = copied.map(|l| l + "\n").concat().into_bytes();
    for (name, bytes, live, gone) in [
        (
            "rewind-dangling",
            fixture("rewind-dangling"),
            "what is in the cache?",
            Some("wait, keep the cache"),
        ),
        ("copied-call", copied, "and then?", None),
    ] {
        assert!(resumed_texts(&bytes).contains(live), "{name}");
        let fixed = api::repair(name, &bytes, &RepairOptions::default());
        assert_eq!(fixed.placeholders, 1, "{name}");
        let history = resumed_texts(&fixed.output);
        assert!(history.contains(live), "{name}: {history}");
        assert!(history.contains("interrupted"), "{name}: {history}");
        assert!(
            gone.is_none_or(|g| !history.contains(g)),
            "{name}: {history}"
        );
        let left = api::codes(name, &fixed.output);
        assert!(!left.contains(&"TM001"), "{name}: {left:?}");
        let again = api::repair(name, &fixed.output, &RepairOptions::default());
        assert_eq!(again.placeholders, 0, "{name}");
        match streamed(name, &bytes) {
            Ok(out) if name == "rewind-dangling" => assert!(out == fixed.output, "{name}"),
            Err(toolmend::NotStreamed::Whole(why)) if name == "copied-call" => {
                assert!(why.contains("copied line"), "{why}")
            }
            other => panic!("{name}: streamed: {other:?}"),
        }
    }
}

/// A copy that is the file's last main-chain line stays while the reading starts there, but
/// placeholders put right after it start the reading then: it goes with them, in the same
/// repair, so that a second repair has nothing left to do (it deleted the copy before). With or
/// without a final line ending, whole and streamed, and resumed as the same history.
#[test]
fn a_last_line_copy_goes_with_the_placeholders_after_it() {
    let call = call_line();
    let start = line("u1", "null", "user", r#""go""#, 0);
    for ending in ["\n", "\r\n", ""] {
        let bytes = format!("{start}\n{call}\n{call}{ending}").into_bytes();
        let found = api::codes("c.jsonl", &bytes);
        assert_eq!(found, ["TM012", "TM001"], "{ending:?}");
        let fixed = api::repair("c.jsonl", &bytes, &RepairOptions::default());
        let out = String::from_utf8(fixed.output.clone()).unwrap();
        assert_eq!(out.matches(r#""uuid":"a1""#).count(), 1, "{out}");
        assert_eq!(out.lines().count(), 3, "{out}");
        assert!(api::codes("c.jsonl", &fixed.output).is_empty(), "{out}");
        assert!(
            resumed_texts(&fixed.output).contains("interrupted"),
            "{out}"
        );
        let again = api::repair("c.jsonl", &fixed.output, &RepairOptions::default());
        assert!(!again.changed, "{ending:?}: a second repair changed more");
        let out = streamed("c.jsonl", &bytes).unwrap();
        assert!(out == fixed.output, "{ending:?}: streamed differs");
    }
}

/// Line `uuid` of the API message `msg`, hanging from `parent`: a call `id` to `Bash`.
fn split_call(uuid: &str, parent: &str, msg: &str, id: &str, second: u32) -> String {
    format!(
        r#"{{"parentUuid":"{parent}","isSidechain":false,"userType":"external","sessionId":"s1","type":"assistant","message":{{"id":"{msg}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{}}}}]}},"timestamp":"2026-01-01T10:00:0{second}.000Z","uuid":"{uuid}"}}"#
    )
}

/// A result line answering `id`, hanging from `parent`.
fn result_line(uuid: &str, parent: &str, id: &str, second: u32) -> String {
    let content = format!(r#"[{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}]"#);
    line(uuid, &format!(r#""{parent}""#), "user", &content, second)
}

/// One API message written as three call lines, the middle call's result hanging from its own
/// line (as Claude Code writes parallel results) and the other two unanswered. The client sends
/// a result that hangs from another result of the message too (checked with the real client:
/// the repaired file below resumed with all three results after the calls), so a placeholder
/// chained after the first is read as sent, and the repair is a fixed point. Before, the
/// second placeholder was read as missing: a second repair added it again under the same uuid.
#[test]
fn placeholders_chained_after_a_split_message_are_read_as_sent() {
    let head = [
        line("u1", "null", "user", r#""go""#, 0),
        split_call("a1", "u1", "msg_1", "toolu_x", 1),
        split_call("a2", "a1", "msg_1", "toolu_y", 2),
        split_call("a3", "a2", "msg_1", "toolu_z", 3),
    ];
    let answered = result_line("ry", "a2", "toolu_y", 4);
    let broken = [head.as_slice(), std::slice::from_ref(&answered)].concat();
    let broken = (broken.join("\n") + "\n").into_bytes();
    assert_eq!(api::codes("p.jsonl", &broken), ["TM001", "TM001"]);
    let chained = [
        head.as_slice(),
        &[
            result_line("px", "a3", "toolu_x", 4),
            result_line("pz", "px", "toolu_z", 4),
            answered,
        ],
    ]
    .concat();
    let chained = (chained.join("\n") + "\n").into_bytes();
    assert!(api::codes("c.jsonl", &chained).is_empty());
    let fixed = api::repair("p.jsonl", &broken, &RepairOptions::default());
    assert_eq!(fixed.placeholders, 2);
    let left = api::codes("p.jsonl", &fixed.output);
    assert!(left.is_empty(), "{left:?}");
    let again = api::repair("p.jsonl", &fixed.output, &RepairOptions::default());
    assert!(!again.changed, "a second repair changed more");
    assert!(streamed("p.jsonl", &broken).unwrap() == fixed.output);
}

/// A call on the resumed history whose result is elsewhere in the file: the client finds the
/// result by its id and sends it right after the call (checked with the real client for each
/// shape below), so toolmend reads the pair as answered, not as a dangling call to repair. A
/// result on a sidechain is not found: the call stays dangling.
#[test]
fn a_result_found_by_its_id_elsewhere_answers_the_call() {
    let head = [
        line("u1", "null", "user", r#""hi""#, 0),
        line("u2", r#""u1""#, "user", r#""run ls""#, 1),
        split_call("a1", "u2", "msg_1", "toolu_ls", 2),
        result_line("r1", "a1", "toolu_ls", 3),
        line("u3", r#""u1""#, "user", r#""run pwd instead""#, 4),
        split_call("a2", "u3", "msg_2", "toolu_pwd", 5),
    ];
    let done = line(
        "a3",
        r#""a2""#,
        "assistant",
        r#"[{"type":"text","text":"Done."}]"#,
        7,
    );
    let result = |parent: &str| result_line("r2", parent, "toolu_pwd", 6);
    let sidechain = result("r1").replace(r#""isSidechain":false"#, r#""isSidechain":true"#);
    for (name, lines, expected) in [
        (
            "on the abandoned branch",
            [&head[..], &[result("r1"), done.clone()]].concat(),
            &[][..],
        ),
        (
            "written before its call",
            [
                &head[..4],
                &[result("r1")],
                &head[4..],
                std::slice::from_ref(&done),
            ]
            .concat(),
            &[],
        ),
        (
            "with no parent",
            [
                &head[..],
                &[result("u0").replace(r#""u0""#, "null"), done.clone()],
            ]
            .concat(),
            &[],
        ),
        (
            "on a sidechain",
            [&head[..], &[sidechain, done.clone()]].concat(),
            &["TM001", "TM002"],
        ),
    ] {
        let bytes = (lines.join("\n") + "\n").into_bytes();
        assert_eq!(api::codes("e.jsonl", &bytes), expected, "{name}");
        let streamed = toolmend::lint_lines("e.jsonl", &bytes[..], &Options::default()).unwrap();
        let codes: Vec<_> = streamed.findings.iter().map(|f| f.code).collect();
        assert_eq!(codes, expected, "{name} (streamed)");
    }
}

/// `--orphans drop` removes a Claude Code line that holds only a result without its call, and
/// the lines below it hang from its parent: the history keeps them (the client, which dropped
/// the result itself, sent `(no content)` for the line when it stayed). The stream leaves the
/// file to the whole-file repair, which reads the lines hanging from it wherever they are.
#[test]
fn a_dropped_orphan_line_hands_its_children_to_its_parent() {
    let bytes = fixture("orphan-result");
    let drop = orphans(OrphanPolicy::Drop);
    let fixed = api::repair("o.jsonl", &bytes, &drop);
    let out = String::from_utf8(fixed.output.clone()).unwrap();
    assert!(!out.contains("toolu_01OrpGone"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[2].contains(r#""parentUuid":"06722140-6f15-5297-827a-8256f0160bad""#));
    assert_eq!(resumed_texts(&fixed.output), lines.join("\n"));
    let fix = api::findings("o.jsonl", &bytes)[0].fix.clone().unwrap();
    assert!(
        fix.description.contains("--orphans drop"),
        "{}",
        fix.description
    );
    let open = || -> std::io::Result<Box<dyn std::io::BufRead + '_>> { Ok(Box::new(&bytes[..])) };
    let streamed = toolmend::stream_lines(
        "o.jsonl",
        &open,
        &Options::default(),
        &drop,
        &mut Vec::new(),
    );
    match streamed {
        Err(toolmend::NotStreamed::Whole(why)) => assert!(why.contains("orphan result line")),
        other => panic!("streamed: {other:?}"),
    }
}

/// `line`, written at the time `at` (`HH:MM:SS.mmm` on 2026-01-01, UTC).
fn line_at(uuid: &str, parent: &str, ty: &str, content: &str, at: &str) -> String {
    line(uuid, parent, ty, content, 0).replace("10:00:00.000", at)
}

/// A `parentUuid` that names no line: the client goes on at the newest line written at most
/// 5 s before it, by timestamp (5.000 s joins, 5.001 s does not), whatever the order of the
/// lines in the file, and else starts the history at that line (checked with the real client,
/// 57 runs: see docs/claude-code.md). So a call before the break is on the history, and its
/// unanswered state a finding, only within 5 s; past them a result after the break answers a
/// call the client no longer sends (TM013).
#[test]
fn a_broken_parent_joins_the_newest_line_of_the_5_seconds_before_it() {
    let call = r#"[{"type":"tool_use","id":"toolu_x","name":"Bash","input":{}}]"#;
    let result = r#"[{"type":"tool_result","tool_use_id":"toolu_x","content":"ok"}]"#;
    let session = |gap: &str, text_after: bool| {
        let after = if text_after {
            line_at("u2", r#""gone""#, "user", r#""next""#, gap)
        } else {
            line_at("r1", r#""gone""#, "user", result, gap)
        };
        let lines = [
            line_at("u1", "null", "user", r#""go""#, "10:00:00.000"),
            line_at("a1", r#""u1""#, "assistant", call, "10:00:01.000"),
            after,
        ];
        (lines.join("\n") + "\n").into_bytes()
    };
    for (gap, text_after, expected) in [
        ("10:00:06.000", true, &["TM001", "TM010"][..]),
        ("10:00:06.001", true, &["TM010"]),
        ("10:00:06.000", false, &["TM010"]),
        ("10:00:06.001", false, &["TM010", "TM013"]),
    ] {
        let bytes = session(gap, text_after);
        let name = format!("{gap} {text_after}");
        assert_eq!(api::codes("b.jsonl", &bytes), expected, "{name}");
        let streamed = toolmend::lint_lines("b.jsonl", &bytes[..], &Options::default()).unwrap();
        let codes: Vec<_> = streamed.findings.iter().map(|f| f.code).collect();
        assert_eq!(codes, expected, "{name} (streamed)");
    }
    let tm010 = |gap| {
        let found = api::findings("b.jsonl", &session(gap, true));
        found
            .into_iter()
            .find(|f| f.code == "TM010")
            .unwrap()
            .message
    };
    assert!(tm010("10:00:06.000").contains("continues at line 2"));
    assert!(tm010("10:00:06.001").contains("starts the history here"));
    // The newest line by time, not the line before in the file: a line written earlier in the
    // file but 1 s before the break is the one joined; the call 18 s before is left out.
    let lines = [
        line_at("u1", "null", "user", r#""go""#, "10:00:00.000"),
        line_at("b1", r#""u1""#, "user", r#""branch""#, "10:00:17.000"),
        line_at("a1", r#""u1""#, "assistant", call, "10:00:00.500"),
        line_at("u2", r#""gone""#, "user", r#""next""#, "10:00:18.000"),
    ];
    let bytes = (lines.join("\n") + "\n").into_bytes();
    let found = api::findings("t.jsonl", &bytes);
    assert_eq!(at_lines(&found), ["TM010@4"]);
    assert!(
        found[0].message.contains("continues at line 2"),
        "{}",
        found[0].message
    );
}

/// The client never goes on at a `progress` line or a `file_snapshot` line past a broken
/// parent (checked with the real client): with only such a line in the 5 s before, the
/// history starts at the broken line, so the call before it is not on the history.
#[test]
fn a_broken_parent_never_joins_a_progress_or_snapshot_line() {
    let call = r#"[{"type":"tool_use","id":"toolu_x","name":"Bash","input":{}}]"#;
    let progress = r#"{"parentUuid":"a1","isSidechain":false,"sessionId":"s1","type":"progress","data":{},"timestamp":"2026-01-01T10:00:09.000Z","uuid":"p1"}"#;
    let snapshot = r#"{"parentUuid":"a1","isSidechain":false,"sessionId":"s1","type":"system","subtype":"file_snapshot","timestamp":"2026-01-01T10:00:09.000Z","uuid":"p1"}"#;
    let turn = snapshot.replace("file_snapshot", "turn_duration");
    for (name, between, expected) in [
        ("progress", progress, &["TM010"][..]),
        ("file_snapshot", snapshot, &["TM010"]),
        ("another system line", &turn, &["TM001", "TM010"]),
    ] {
        let lines = [
            line_at("u1", "null", "user", r#""go""#, "10:00:00.000"),
            line_at("a1", r#""u1""#, "assistant", call, "10:00:01.000"),
            between.to_string(),
            line_at("u2", r#""gone""#, "user", r#""next""#, "10:00:10.000"),
        ];
        let bytes = (lines.join("\n") + "\n").into_bytes();
        assert_eq!(api::codes("p.jsonl", &bytes), expected, "{name}");
    }
}

/// A result line cut off by a broken parent (the client starts the history at it, so its call
/// is gone: TM013) is not dropped under `--orphans drop`: the line below it would then hang
/// from the missing parent and go on from another time (see the test above), joining history
/// the client left out. It stays, and the repair is a fixed point; `--orphans note` keeps its
/// content as text. Before, the drop made a second repair add placeholders to that history.
#[test]
fn a_result_line_with_a_broken_parent_is_not_dropped() {
    let call = r#"[{"type":"tool_use","id":"toolu_x","name":"Bash","input":{}}]"#;
    let result = r#"[{"type":"tool_result","tool_use_id":"toolu_x","content":"ok"}]"#;
    let lines = [
        line_at("u1", "null", "user", r#""go""#, "10:00:00.000"),
        line_at("a1", r#""u1""#, "assistant", call, "10:00:01.000"),
        line_at("r1", r#""gone""#, "user", result, "10:00:06.001"),
        line_at("u2", r#""r1""#, "user", r#""next""#, "10:00:06.500"),
    ];
    let bytes = (lines.join("\n") + "\n").into_bytes();
    assert_eq!(api::codes("g.jsonl", &bytes), ["TM010", "TM013"]);
    let fixed = api::repair("g.jsonl", &bytes, &orphans(OrphanPolicy::Drop));
    assert!(!fixed.changed);
    let noted = api::repair("g.jsonl", &bytes, &orphans(OrphanPolicy::Note));
    assert_eq!(api::codes("g.jsonl", &noted.output), ["TM010"]);
    assert!(!api::repair("g.jsonl", &noted.output, &orphans(OrphanPolicy::Note)).changed);
}
