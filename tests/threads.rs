//! Many files on many threads: what is printed and written is the same as with one thread.

pub mod common;

use std::path::Path;
use std::process::Output;

use common::bin;

/// Every fixture directory at once, so there are many inputs with findings, errors and
/// clean files mixed.
fn fixtures() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn same_on(args: &[&str]) {
    let one = same_in(fixtures(), args, &["2", "4", "0"]);
    assert!(!one.stdout.is_empty(), "{args:?}: nothing printed");
}

/// Run `toolmend ARGS -j 1` in `dir`, then with each of `threads`, and require the same exit
/// status, standard output and standard error every time; the `-j 1` run is returned.
fn same_in(dir: &Path, args: &[&str], threads: &[&str]) -> Output {
    let one = bin::run(dir, &[args, &["-j", "1"]].concat());
    for threads in threads {
        let many = bin::run(dir, &[args, &["-j", threads]].concat());
        assert_eq!(
            one.status.code(),
            many.status.code(),
            "{args:?} -j {threads}: exit status"
        );
        assert!(
            one.stdout == many.stdout,
            "{args:?} -j {threads}: standard output differs"
        );
        assert!(
            one.stderr == many.stderr,
            "{args:?} -j {threads}: standard error differs"
        );
    }
    one
}

#[test]
fn lint_is_the_same_on_every_thread_count() {
    same_on(&["lint", "fixtures"]);
    same_on(&["lint", "--format", "json", "fixtures"]);
    same_on(&["lint", "--statistics", "fixtures"]);
}

#[test]
fn repair_is_the_same_on_every_thread_count() {
    same_on(&["repair", "--diff", "fixtures"]);
}

#[test]
fn in_place_repairs_the_same_files_on_every_thread_count() {
    let tree = |threads: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        for (i, entry) in std::fs::read_dir(fixtures().join("fixtures/openai-chat"))
            .expect("fixtures")
            .enumerate()
        {
            let path = entry.expect("entry").path();
            if path
                .extension()
                .is_some_and(|e| e == "json" || e == "jsonl")
            {
                std::fs::copy(
                    &path,
                    dir.path().join(format!(
                        "{i:03}-{}",
                        path.file_name().unwrap().to_string_lossy()
                    )),
                )
                .expect("copy");
            }
        }
        let out = bin::run(dir.path(), &["repair", "--in-place", "-j", threads, "."]);
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
            .expect("read back")
            .map(|e| {
                let p = e.expect("entry").path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).expect("file"),
                )
            })
            .collect();
        files.sort();
        (out.status.code(), out.stderr, files)
    };
    let one = tree("1");
    assert!(one.2.len() > 5, "too few fixtures copied");
    assert_eq!(one, tree("3"));
}

#[test]
fn no_progress_bar_when_standard_error_is_not_a_terminal() {
    let out = bin::run(fixtures(), &["lint", "fixtures"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("files"));
}

/// A filler sentence, so that a few thousand lines make megabytes.
const FILLER: &str =
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ";

/// An OpenAI chat log, one message per line: plain lines before the first tool call (so the
/// dialect is chosen late), then turns with a dangling call every 7th turn, orphan results,
/// blank and CRLF lines, lines that are not JSON, one overlong line and a torn final line.
fn chat_lines(plain: usize, turns: usize) -> String {
    let mut s = String::new();
    for i in 0..plain {
        s += &format!("{{\"role\":\"user\",\"content\":\"{FILLER}{i}\"}}\n");
        s += &format!("{{\"role\":\"assistant\",\"content\":\"noted {i}\"}}\n");
    }
    for i in 0..turns {
        let eol = if i % 5 == 0 { "\r\n" } else { "\n" };
        s += &format!("{{\"role\":\"user\",\"content\":\"{FILLER}{i}\"}}{eol}");
        s += &format!(
            "{{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{}]}}{eol}",
            ["a", "b"]
                .map(|c| format!(
                    "{{\"id\":\"call_{i}_{c}\",\"type\":\"function\",\"function\":{{\"name\":\"run_{c}\",\"arguments\":\"{{}}\"}}}}"
                ))
                .join(",")
        );
        for c in ["a", "b"] {
            if c == "a" || i % 7 != 3 {
                s += &format!(
                    "{{\"role\":\"tool\",\"tool_call_id\":\"call_{i}_{c}\",\"content\":\"{FILLER}\"}}{eol}"
                );
            }
        }
        if i % 11 == 5 {
            s += &format!(
                "{{\"role\":\"tool\",\"tool_call_id\":\"call_gone_{i}\",\"content\":\"late\"}}\n"
            );
        }
        if i % 13 == 0 {
            s += "\n   \r\n";
        }
        if i % 97 == 50 {
            s += "{\"role\": \"user\", \"content\": \n";
        }
        if i == turns / 2 {
            s += &format!(
                "{{\"role\":\"user\",\"content\":\"{}\"}}\n",
                FILLER.repeat(80)
            );
        }
        if i == turns / 3 {
            // Longer than a block: read through, not kept.
            s += &format!(
                "{{\"role\":\"user\",\"content\":\"{}\"}}\n",
                FILLER.repeat(8_000)
            );
        }
    }
    s + "{\"role\":\"assistant\",\"content\":\"cut off"
}

/// A Claude Code session: a `parentUuid` chain with unanswered tool uses, and sidechain lines
/// in threads named by `agentId` or joined through their parent.
fn claude_lines(turns: usize) -> String {
    let mut s = String::new();
    let mut parent = "null".to_string();
    // A sidechain line carries `agent` (an `agentId` member) or joins its parent's thread.
    let line = |uuid: &str, parent: &str, side: Option<&str>, ty: &str, content: &str| {
        format!(
            "{{\"parentUuid\":{parent},\"isSidechain\":{},{}\"sessionId\":\"s-1\",\"type\":\"{ty}\",\"message\":{{\"role\":\"{ty}\",\"content\":{content}}},\"uuid\":\"{uuid}\"}}\n",
            side.is_some(),
            side.unwrap_or_default()
        )
    };
    for i in 0..turns {
        let text = format!("\"{FILLER}{i}\"");
        let call = format!(
            "[{{\"type\":\"tool_use\",\"id\":\"toolu_{i}\",\"name\":\"Read\",\"input\":{{\"file\":\"{FILLER}\"}}}}]"
        );
        let result = format!(
            "[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{i}\",\"content\":\"{FILLER}\"}}]"
        );
        s += &line(&format!("u{i}"), &parent, None, "user", &text);
        s += &line(
            &format!("a{i}"),
            &format!("\"u{i}\""),
            None,
            "assistant",
            &call,
        );
        parent = format!("\"a{i}\"");
        if i % 9 != 4 {
            s += &line(&format!("r{i}"), &parent, None, "user", &result);
            parent = format!("\"r{i}\"");
        }
        if i % 10 == 0 {
            let agent = format!("\"agentId\":\"agent{}\",", i % 3);
            let side = format!("\"side{i}\"");
            s += &line(
                &format!("side{i}"),
                &parent,
                Some(&agent),
                "assistant",
                &call,
            );
            s += &line(&format!("sidex{i}"), &side, Some(""), "user", &text);
        }
        if i % 20 == 5 {
            s += &line(&format!("loose{i}"), &parent, Some(""), "assistant", &call);
        }
    }
    s
}

/// A uuid as Claude Code writes one (lowercase, hyphenated), numbered `k`.
fn uuid(k: usize) -> String {
    format!(
        "{:08x}-5e55-4a1b-8c2d-{k:012x}",
        k.wrapping_mul(2_654_435_761) as u32
    )
}

/// Writes the lines of a generated Claude Code session, chaining each main-thread line to
/// the one before unless told otherwise.
struct Session {
    text: String,
    /// Lines written (uuids are numbered by it).
    lines: usize,
    /// The uuid of the last main-thread line, JSON-quoted (`null` at first).
    last: String,
}

impl Session {
    /// Write one line of type `ty` with `uuid` (JSON-quoted) under `parent` (JSON), `extra`
    /// members (each followed by a comma), `message` (JSON, or none) and line ending `eol`.
    fn line(&mut self, ty: &str, uuid: &str, parent: &str, extra: &str, message: &str, eol: &str) {
        self.lines += 1;
        let n = self.lines;
        // Timestamps as Claude Code writes them, now and then missing or spelt otherwise.
        let stamp = match n % 41 {
            6 => String::new(),
            8 => format!("\"timestamp\":\"2026-01-01 10:{:02}\",", n % 60),
            _ => format!(
                "\"timestamp\":\"2026-01-{:02}T{:02}:{:02}:{:02}.{:03}Z\",",
                1 + n / 86_400,
                n / 3_600 % 24,
                n / 60 % 60,
                n % 60,
                n % 1000
            ),
        };
        let message = if message.is_empty() {
            String::new()
        } else {
            format!("\"message\":{message},")
        };
        self.text += &format!(
            "{{\"parentUuid\":{parent},\"isSidechain\":false,\"userType\":\"external\",\"sessionId\":\"5e55-s\",{extra}\"type\":\"{ty}\",{message}{stamp}\"uuid\":{uuid}}}{eol}"
        );
    }

    /// A main-thread message line chained to the last one; its uuid.
    fn next(&mut self, ty: &str, content: &str, id: Option<&str>, eol: &str) -> String {
        let uuid = format!("\"{}\"", uuid(self.lines + 1));
        let parent = self.last.clone();
        let id = id.map(|id| format!("\"id\":\"{id}\",")).unwrap_or_default();
        let message = format!("{{{id}\"role\":\"{ty}\",\"content\":{content}}}");
        self.line(ty, &uuid, &parent, "", &message, eol);
        self.last = uuid.clone();
        uuid
    }
}

/// A Claude Code session as the client writes it, over many blocks: split API messages (one
/// content block a line, sharing `message.id`) with parallel and unanswered tool uses,
/// subagent sidechains, /rewind forks whose call is answered on the resumed branch, lines
/// written twice byte for byte, parents that name no line, a compact boundary, server tool
/// uses with their results and an orphan one, uuids spelt otherwise (text, capitals, an
/// escape), CRLF line endings, unclaimed lines before the first message, an overlong line and
/// a torn final line. With `shared`, one uuid is also taken by three lines of different
/// content (the file is then read in file order).
fn claude_session(turns: usize, shared: bool) -> String {
    let mut s = Session {
        text: String::new(),
        lines: 0,
        last: "null".into(),
    };
    s.text += "{\"type\":\"summary\",\"summary\":\"generated\",\"leafUuid\":\"none\"}\n";
    s.text += "{\"type\":\"file-history-snapshot\",\"messageId\":\"m0\",\"snapshot\":{}}\n";
    for i in 0..turns {
        let eol = if i % 5 == 0 { "\r\n" } else { "\n" };
        let prompt = s.next("user", &format!("\"{FILLER}{i}\""), None, eol);
        if i % 23 == 7 {
            // A retry of the turn, abandoned: its call is answered on the resumed branch.
            let fork = format!("\"{}\"", uuid(s.lines + 1_000_000));
            let call = format!(
                "{{\"id\":\"msg_fork{i}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_fork{i}\",\"name\":\"Bash\",\"input\":{{}}}}]}}"
            );
            s.line("assistant", &fork, &prompt, "", &call, "\n");
        }
        let msg = format!("msg_{i}");
        s.next(
            "assistant",
            &format!("[{{\"type\":\"text\",\"text\":\"{FILLER}\"}}]"),
            Some(&msg),
            "\n",
        );
        let calls: Vec<String> = match i % 4 {
            1 => vec![format!("toolu_{i}a"), format!("toolu_{i}b")],
            _ => vec![format!("toolu_{i}")],
        };
        for id in &calls {
            s.next(
                "assistant",
                &format!(
                    "[{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Read\",\"input\":{{\"file\":\"{FILLER}\"}}}}]"
                ),
                Some(&msg),
                eol,
            );
        }
        if i % 37 == 19 {
            let server = format!(
                "[{{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_{i}\",\"name\":\"web_search\",\"input\":{{\"query\":\"q\"}}}},{{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_{i}\",\"content\":[{{\"title\":\"t\",\"url\":\"https://example.com/{i}\"}}]}}]"
            );
            s.next("assistant", &server, Some(&msg), "\n");
        }
        if i % 74 == 56 {
            let orphan = format!(
                "[{{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_gone{i}\",\"content\":\"stale\"}}]"
            );
            s.next("assistant", &orphan, Some(&msg), "\n");
        }
        for (k, id) in calls.iter().enumerate() {
            if i % 9 == 4 && k == 0 {
                continue;
            }
            s.next(
                "user",
                &format!(
                    "[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"content\":\"{FILLER}\"}}]"
                ),
                None,
                eol,
            );
        }
        if i % 23 == 7 {
            s.next(
                "user",
                &format!(
                    "[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_fork{i}\",\"content\":\"late\"}}]"
                ),
                None,
                "\n",
            );
        }
        if i % 29 == 11 {
            // Written twice, byte for byte.
            let last = s.text[..s.text.len() - 1].rfind('\n').map_or(0, |k| k + 1);
            let copy = s.text[last..].to_string();
            s.text += &copy;
            s.lines += 1;
        }
        if i % 31 == 13 {
            let gone = format!("\"{}\"", uuid(s.lines + 2_000_000));
            let next = format!("\"{}\"", uuid(s.lines + 1));
            let message = format!("{{\"role\":\"user\",\"content\":\"{FILLER}\"}}");
            s.line("user", &next, &gone, "", &message, "\n");
            s.last = next;
        }
        if i % 10 == 0 {
            // A subagent's lines, named by `agentId` or joining their parent's thread.
            let side = format!("\"{}\"", uuid(s.lines + 3_000_000));
            let call = format!(
                "{{\"id\":\"msg_side{i}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_side{i}\",\"name\":\"Grep\",\"input\":{{}}}}]}}"
            );
            let extra = format!("\"agentId\":\"agent{}\",", i % 3);
            let at = s.text.len();
            s.line("assistant", &side, "null", &extra, &call, "\n");
            let tail = s.text.split_off(at);
            s.text += &tail.replacen("\"isSidechain\":false", "\"isSidechain\":true", 1);
            if i % 20 == 0 {
                let at = s.text.len();
                let message = "{\"role\":\"user\",\"content\":\"side\"}";
                let next = format!("\"{}\"", uuid(s.lines + 4_000_000));
                s.line("user", &next, &side, "", message, "\n");
                let tail = s.text.split_off(at);
                s.text += &tail.replacen("\"isSidechain\":false", "\"isSidechain\":true", 1);
            }
        }
        match i % 17 {
            // Uuids spelt as text, in capitals, and a parent written with an escape.
            3 => {
                let text = format!("\"legacy-{i}\"");
                let message = "{\"role\":\"user\",\"content\":\"legacy\"}";
                let parent = s.last.clone();
                s.line("user", &text, &parent, "", message, "\n");
                s.last = text;
            }
            9 => {
                let upper = format!("\"{}\"", uuid(s.lines + 1).to_uppercase());
                let parent = s.last.clone();
                s.line(
                    "user",
                    &upper,
                    &parent,
                    "",
                    "{\"role\":\"user\",\"content\":\"x\"}",
                    "\n",
                );
                s.last = upper;
            }
            12 => {
                // The parent's first character written as an escape.
                let escaped = match s.last.chars().nth(1) {
                    Some(c) if s.last != "null" => {
                        format!("\"\\u{:04x}{}", c as u32, &s.last[2..])
                    }
                    _ => s.last.clone(),
                };
                let next = format!("\"{}\"", uuid(s.lines + 1));
                s.line(
                    "user",
                    &next,
                    &escaped,
                    "",
                    "{\"role\":\"user\",\"content\":\"y\"}",
                    "\n",
                );
                s.last = next;
            }
            _ => {}
        }
        if i == turns / 2 {
            let boundary = format!("\"{}\"", uuid(s.lines + 1));
            let extra = format!(
                "\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"logicalParentUuid\":{},",
                s.last
            );
            s.line("system", &boundary, "null", &extra, "", "\n");
            s.last = boundary;
        }
        if i == turns / 3 {
            // Longer than a block and than the line limit the tests give.
            s.next("user", &format!("\"{}\"", FILLER.repeat(4_000)), None, "\n");
        }
        if shared && i % 100 == 50 {
            // One uuid on three lines of different content.
            let uuid = s.last.clone();
            for k in 0..2 {
                let message = format!("{{\"role\":\"user\",\"content\":\"again {k}\"}}");
                s.line("user", &uuid, "null", "", &message, "\n");
            }
        }
    }
    s.text
        + "{\"parentUuid\":\"cut\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"cut off"
}

/// One conversation per line, with a dangling call in every third.
fn conversation_lines(count: usize) -> String {
    (0..count)
        .map(|i| {
            let answer = if i % 3 == 1 {
                String::new()
            } else {
                format!(",{{\"role\":\"tool\",\"tool_call_id\":\"c{i}\",\"content\":\"{FILLER}\"}}")
            };
            format!(
                "{{\"messages\":[{{\"role\":\"user\",\"content\":\"{}\"}},{{\"role\":\"assistant\",\"tool_calls\":[{{\"id\":\"c{i}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}{answer}]}}\n",
                FILLER.repeat(4)
            )
        })
        .collect()
}

/// Lines holding conversations of several dialects: two conversations on one line, a result
/// answering no call, a message of another dialect (reported, not walked), a line that is not
/// JSON, and dangling calls.
fn mixed_conversation_lines(count: usize) -> String {
    let call = |id: String| {
        format!(
            "{{\"role\":\"assistant\",\"tool_calls\":[{{\"id\":\"{id}\",\"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}"
        )
    };
    let user = format!("{{\"role\":\"user\",\"content\":\"{FILLER}\"}}");
    let tool_use = |id: String| {
        format!(
            "{{\"role\":\"assistant\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_{id}\",\"name\":\"g\",\"input\":{{}}}}]}}"
        )
    };
    (0..count)
        .map(|i| match i % 5 {
            0 => format!(
                "[{{\"messages\":[{user},{}]}},{{\"messages\":[{user}]}}]\n",
                call(format!("a{i}"))
            ),
            1 => format!("{{\"messages\":[{},{user}]}}\n", tool_use(format!("{i}"))),
            2 => format!(
                "{{\"messages\":[{user},{},{{\"role\":\"tool\",\"tool_call_id\":\"z{i}\",\"content\":\"r\"}}]}}\n",
                call(format!("b{i}"))
            ),
            3 => format!(
                "{{\"messages\":[{user},{},{{\"role\":\"assistant\",\"function_call\":{{\"name\":\"h\",\"arguments\":\"{{}}\"}}}}]}}\n",
                tool_use(format!("{i}"))
            ),
            _ if i % 15 == 4 => "{\"messages\":[\n".into(),
            _ => format!(
                "{{\"messages\":[{user},{},{{\"role\":\"tool\",\"tool_call_id\":\"c{i}\",\"content\":\"r\"}}]}}\n",
                call(format!("c{i}"))
            ),
        })
        .collect()
}

/// A Gemini CLI recording: records replaced by later lines with their id, and rewinds.
fn gemini_lines(turns: usize) -> String {
    let mut s = String::from(
        "{\"sessionId\":\"s-2\",\"projectHash\":\"ab\",\"startTime\":\"2026-03-09T08:30:00.000Z\",\"lastUpdated\":\"2026-03-09T08:30:00.000Z\",\"kind\":\"main\"}\n",
    );
    for i in 0..turns {
        let call = |status: &str, result: &str| {
            format!(
                "{{\"id\":\"g{i}\",\"type\":\"gemini\",\"content\":\"\",\"toolCalls\":[{{\"id\":\"read-{i}\",\"name\":\"read_file\",\"args\":{{\"path\":\"{FILLER}\"}}{result},\"status\":\"{status}\"}}]}}\n"
            )
        };
        s += &format!(
            "{{\"id\":\"u{i}\",\"type\":\"user\",\"content\":[{{\"text\":\"{FILLER}{i}\"}}]}}\n"
        );
        s += &call("executing", "");
        if i % 6 != 2 {
            s += &call(
                "success",
                &format!(
                    ",\"result\":[{{\"functionResponse\":{{\"id\":\"read-{i}\",\"name\":\"read_file\",\"response\":{{\"output\":\"{FILLER}\"}}}}}}]"
                ),
            );
        }
        if i % 50 == 49 {
            s += &format!("{{\"$rewindTo\":\"u{i}\"}}\n");
        }
    }
    s
}

/// Big JSON Lines files, read in many blocks of whole lines (256 KiB each, see `BLOCK_BYTES` in
/// src/stream.rs) whose lines are parsed on every thread: the findings are those of the
/// line-by-line reading of `-j 1`.
#[test]
fn big_files_read_in_parallel_blocks_lint_the_same_on_every_thread_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = [
        ("chat.jsonl", chat_lines(3_000, 2_000)),
        ("claude.jsonl", claude_lines(2_000)),
        ("conversations.jsonl", conversation_lines(2_000)),
        ("gemini.jsonl", gemini_lines(2_500)),
    ];
    for (name, text) in &files {
        assert!(text.len() > 1 << 20, "{name} is only {} bytes", text.len());
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    for (name, _) in &files {
        for args in [&[][..], &["--format", "json", "--explain-detection"]] {
            let all = [&["lint", "--max-line-bytes", "4000"], args, &[*name]].concat();
            let one = same_in(dir.path(), &all, &["2", "4", "0"]);
            assert!(!one.stdout.is_empty(), "{name} {args:?}: nothing printed");
        }
    }
}

/// Claude Code sessions of many blocks, whose lines are parsed and their links drafted on
/// every thread and taken in file order: lint (findings, the resumed chain's explanation,
/// statistics) and repair (the stream's two readings, and its bytes) are those of `-j 1`.
#[test]
fn claude_code_sessions_read_in_parallel_blocks_lint_and_repair_the_same_on_every_thread_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let files = [
        ("session.jsonl", claude_session(700, false)),
        ("shared.jsonl", claude_session(600, true)),
    ];
    for (name, text) in &files {
        assert!(text.len() > 1 << 20, "{name} is only {} bytes", text.len());
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let limit = ["--max-line-bytes", "100000"];
    let runs: [&[&str]; 6] = [
        &["lint"],
        &["lint", "--format", "json", "--explain-detection"],
        &["lint", "--statistics"],
        &["repair"],
        &["repair", "--diff", "--orphans", "drop"],
        &["repair", "--check"],
    ];
    for (name, _) in &files {
        for args in runs {
            let all = [args, &limit, &[*name]].concat();
            let one = same_in(dir.path(), &all, &["2", "4"]);
            assert!(
                !one.stdout.is_empty() || !one.stderr.is_empty(),
                "{name} {args:?}: nothing said"
            );
        }
    }
}

/// Conversations held by one line are walked on the threads that read them: the findings,
/// their numbering, the statistics and detections, a provider's rules, and a repair are those
/// of `-j 1`, which walks them in order.
#[test]
fn conversations_walked_as_they_are_read_lint_and_repair_the_same_on_every_thread_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = mixed_conversation_lines(6_000);
    assert!(text.len() > 1 << 20, "only {} bytes", text.len());
    std::fs::write(dir.path().join("mixed.jsonl"), text).expect("write");
    let runs: [&[&str]; 5] = [
        &["lint"],
        &["lint", "--format", "json", "--explain-detection"],
        &["lint", "--statistics"],
        &["lint", "--target", "openai"],
        &["repair", "--diff"],
    ];
    for args in runs {
        let one = same_in(
            dir.path(),
            &[args, &["mixed.jsonl"]].concat(),
            &["2", "4", "0"],
        );
        assert!(!one.stdout.is_empty(), "{args:?}: nothing printed");
    }
}

/// A directory of many small files, more than the batches worked ahead at once (16 inputs per
/// thread each): logs with and without findings, JSON that is no log, a file that is not
/// JSON, and names whose order is byte order (`A` < `a`, ` ` < `-` < `.`), with files before
/// the subdirectories they sort among. Lint and `repair --check` print the same on every
/// thread count, and the files come in that order.
#[test]
fn many_small_files_are_worked_and_taken_in_walk_order_on_every_thread_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dangling = |i: usize| {
        format!(
            r#"{{"messages":[{{"role":"user","content":"go {i}"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"run","arguments":"{{}}"}}}}]}}]}}"#
        )
    };
    let answered = |i: usize| {
        format!(
            r#"{{"messages":[{{"role":"user","content":"go {i}"}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"run","arguments":"{{}}"}}}}]}},{{"role":"tool","tool_call_id":"c{i}","content":"ok"}}]}}"#
        )
    };
    let sub = dir.path().join("logs");
    std::fs::create_dir_all(sub.join("m")).expect("dirs");
    for i in 0..400 {
        let text = match i % 7 {
            0 => r#"{"name":"not a log","version":"1.0.0"}"#.to_string(),
            3 => "{ torn".to_string(),
            1 | 4 => answered(i),
            _ => dangling(i),
        };
        let at = if i % 5 == 0 {
            sub.join("m")
        } else {
            sub.clone()
        };
        std::fs::write(at.join(format!("run-{i:04}.json")), text).expect("write");
    }
    for name in [
        "A.json", "a.json", "a b.json", "a-b.json", "a.b.json", "m.json", "ma.json",
    ] {
        std::fs::write(sub.join(name), dangling(name.len())).expect("write");
    }
    for args in [
        &["lint"][..],
        &["lint", "--format", "json"],
        &["repair", "--check"],
    ] {
        let one = same_in(dir.path(), &[args, &["logs"]].concat(), &["2", "3", "0"]);
        assert!(
            !one.stdout.is_empty() || !one.stderr.is_empty(),
            "{args:?}: nothing said"
        );
    }
    let text = String::from_utf8(bin::run(dir.path(), &["lint", "-j", "2", "logs"]).stdout)
        .expect("utf-8");
    let order: Vec<&str> = [
        "A.json",
        "a b.json",
        "a-b.json",
        "a.b.json",
        "a.json",
        "m.json",
        "ma.json",
        "run-0002.json",
        "run-0398.json",
        "m/run-0005.json",
    ]
    .into_iter()
    .collect();
    let at: Vec<usize> = order
        .iter()
        .map(|name| {
            text.find(&format!("logs/{name}:"))
                .unwrap_or_else(|| panic!("no finding for {name}:\n{text}"))
        })
        .collect();
    assert!(
        at.is_sorted(),
        "files out of walk order: {order:?} at {at:?}"
    );
}
