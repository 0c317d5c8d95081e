//! Issue 8: verdicts follow what the provider accepts, and toolmend fails closed. Each of the
//! six misses found on real logs is pinned by a fixture written in the shape of the real log
//! (`fixtures/<dialect>/`, sources in `fixtures/SOURCES.md`).

pub mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::api::{analyse_for, code_line_ids_for, repair_for};
use toolmend::{Options, Provider, RepairOptions};

const BIN: &str = env!("CARGO_BIN_EXE_toolmend");

fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn bytes(rel: &str) -> Vec<u8> {
    std::fs::read(path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Rule codes for `--target target`.
fn codes(rel: &str, target: Option<Provider>) -> Vec<String> {
    code_line_ids_for(rel, &bytes(rel), target)
        .into_iter()
        .map(|c| c[..5].to_string())
        .collect()
}

/// The messages of the findings for `--target target`.
fn messages(rel: &str, target: Option<Provider>) -> Vec<String> {
    let input = bytes(rel);
    analyse_for(rel, &input, target)
        .findings(rel)
        .into_iter()
        .map(|f| f.message)
        .collect()
}

/// The default repair for `target` leaves the fixture byte for byte as it is.
fn kept(rel: &str, target: Option<Provider>) {
    let input = bytes(rel);
    assert!(
        repair_for(rel, &input, target, &RepairOptions::default()) == input,
        "{rel}: repair changed a file it must keep"
    );
}

/// Is some conversation of the fixture read by a dialect that claims it (not the plain-chat
/// fallback, and not `unrecognized`)? The agent-log readers make these fixtures readable.
fn read_by_a_dialect(rel: &str) -> bool {
    toolmend::detect(rel, &bytes(rel), &Options::default())
        .conversations
        .iter()
        .any(|c| !["openai-chat", "unrecognized"].contains(&c.dialect))
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run toolmend")
}

fn out(o: &Output) -> (i32, String, String) {
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Miss 1: Codex records `developer` messages between a call and its output; OpenAI accepts
/// that. Only a stricter server (DeepSeek) wants the output in the call's run.
#[test]
fn codex_output_after_a_developer_message_is_healthy_for_openai() {
    let rel = "codex/developer-between.jsonl";
    assert!(codes(rel, None).is_empty());
    assert!(codes(rel, Some(Provider::OpenAi)).is_empty());
    kept(rel, None);
    assert_eq!(codes(rel, Some(Provider::DeepSeek)), ["TM003", "TM003"]);
    assert!(
        messages(rel, Some(Provider::DeepSeek))
            .iter()
            .all(|m| m.contains("DeepSeek"))
    );
    // For DeepSeek the repair moves the outputs into their runs, and that is all it does.
    let input = bytes(rel);
    let moved = repair_for(
        rel,
        &input,
        Some(Provider::DeepSeek),
        &RepairOptions::default(),
    );
    assert_ne!(moved, input);
    assert!(code_line_ids_for(rel, &moved, Some(Provider::DeepSeek)).is_empty());
    let sorted = |b: &[u8]| {
        let mut l: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
        l.sort();
        l.into_iter().map(<[u8]>::to_vec).collect::<Vec<_>>()
    };
    assert_eq!(sorted(&moved), sorted(&input), "the move kept every line");
    // The streamed lint (a named .jsonl) says the same.
    let (code, stdout, _) = out(&run(&["lint", &path(rel).to_string_lossy()]));
    assert_eq!(code, 0, "{stdout}");
}

/// Miss 2: two consecutive model turns with calls, answered together by one user content
/// holding both responses: Gemini answered 200.
#[test]
fn gemini_model_turns_answered_together_are_healthy() {
    let rel = "gemini/grouped-model-turns.json";
    assert!(codes(rel, None).is_empty());
    assert!(codes(rel, Some(Provider::Gemini)).is_empty());
    kept(rel, None);
    // Anthropic wants each call answered by the very next message.
    assert_eq!(codes(rel, Some(Provider::Anthropic)), ["TM003"]);
    // lint and repair --check agree: no safe fix is offered, and repair changes nothing.
    kept(rel, Some(Provider::Anthropic));
}

/// A dangling call inside a group of Gemini model turns gets its placeholder in the group's
/// response turn.
#[test]
fn gemini_dangling_call_in_a_group_is_answered_in_its_response_turn() {
    let src = r#"{"contents": [
    {"role": "user", "parts": [{"text": "go"}]},
    {"role": "model", "parts": [{"functionCall": {"name": "a", "id": "c1", "args": {}}}, {"functionCall": {"name": "b", "id": "c2", "args": {}}}]},
    {"role": "model", "parts": [{"functionCall": {"name": "c", "id": "c3", "args": {}}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "a", "id": "c1", "response": {}}}, {"functionResponse": {"name": "c", "id": "c3", "response": {}}}]}
]}"#;
    let got = code_line_ids_for("g.json", src.as_bytes(), None);
    assert_eq!(got, ["TM001@3:c2"]);
    let fixed = repair_for("g.json", src.as_bytes(), None, &RepairOptions::default());
    assert!(code_line_ids_for("g.json", &fixed, None).is_empty());
    let text = String::from_utf8(fixed).unwrap();
    let responses = text.lines().nth(4).unwrap();
    assert!(responses.contains("\"c2\""), "{text}");
}

/// Miss 3: a Bedrock `server_tool_use` (Nova's code interpreter) with its `toolResult` inline
/// in the same assistant message.
#[test]
fn bedrock_server_tool_use_with_inline_result_is_healthy() {
    let rel = "bedrock/nova-code-interpreter.json";
    assert!(codes(rel, None).is_empty());
    kept(rel, None);
    let input = bytes(rel);
    let analysed = analyse_for(rel, &input, None);
    assert_eq!(analysed.calls_checked, 1, "the server call is counted");
}

/// Miss 4: SWE-agent tool messages answer through `tool_call_ids`. Read as plain OpenAI chat
/// that gave 16 false TM001 and TM006 and 16 inserted placeholders; now it is reported as
/// unread (TM009) and never repaired, unless a dialect that reads `tool_call_ids` claims it.
#[test]
fn swe_agent_tool_call_ids_are_never_read_as_plain_chat() {
    let rel = "swe-agent/tool-call-ids.traj";
    let got = codes(rel, None);
    assert!(!got.iter().any(|c| c == "TM001" || c == "TM006"), "{got:?}");
    let read = read_by_a_dialect(rel);
    if read {
        assert!(got.is_empty(), "{got:?}");
    } else {
        assert_eq!(got, ["TM009"]);
        assert!(messages(rel, None)[0].contains("tool_call_ids"));
    }
    kept(rel, None);
    let (code, _, stderr) = out(&run(&["repair", "--check", &path(rel).to_string_lossy()]));
    assert_eq!(code, 0);
    if !read {
        assert!(stderr.contains("not repaired"), "{stderr}");
    }
}

/// Miss 5: a Kimi Code wire log and an OpenHands event stream passed in silence. A format
/// toolmend does not read makes `lint` exit 1 and say so.
#[test]
fn unread_agent_logs_are_reported_not_passed() {
    for rel in ["kimi/wire.jsonl", "openhands/events.json"] {
        let read = read_by_a_dialect(rel);
        if read {
            continue;
        }
        assert_eq!(codes(rel, None), ["TM009"], "{rel}");
        kept(rel, None);
        let (code, stdout, _) = out(&run(&["lint", &path(rel).to_string_lossy()]));
        assert_eq!(code, 1, "{rel}: {stdout}");
        assert!(stdout.contains("TM009 [unrecognized-log]"), "{stdout}");
        let (code, stdout, _) = out(&run(&[
            "lint",
            "--ignore",
            "TM009",
            &path(rel).to_string_lossy(),
        ]));
        assert_eq!(code, 0, "{rel}: {stdout}");
    }
}

/// Miss 6: a call id reused in a later turn is legal in OpenAI chat, but Anthropic ("`tool_use`
/// ids must be unique") and the Responses API ("Duplicate function_call_output for call_id")
/// reject it.
#[test]
fn reused_ids_are_judged_by_the_provider() {
    let rel = "anthropic/reused-id-across-turns.json";
    assert_eq!(codes(rel, None), ["TM005"]);
    assert!(messages(rel, None)[0].contains("\"`tool_use` ids must be unique\""));
    kept(rel, None);

    let rel = "openai-responses/reused-call-id.json";
    assert_eq!(codes(rel, None), ["TM005"]);
    assert!(messages(rel, None)[0].contains("Duplicate function_call_output for call_id"));
    // Re-id (unsafe, asked for) gives the later call and its own output a new id.
    let input = bytes(rel);
    let options = RepairOptions {
        reid: true,
        ..RepairOptions::default()
    };
    let fixed = repair_for(rel, &input, None, &options);
    assert!(code_line_ids_for(rel, &fixed, None).is_empty());
    let text = String::from_utf8(fixed).unwrap();
    assert_eq!(text.matches("\"terminal:0_m5\"").count(), 2, "{text}");

    let rel = "openai-chat/reused-id-across-turns.json";
    assert!(codes(rel, None).is_empty());
    assert!(codes(rel, Some(Provider::OpenAi)).is_empty());
    assert_eq!(codes(rel, Some(Provider::Anthropic)), ["TM005"]);
    assert_eq!(codes(rel, Some(Provider::Bedrock)), ["TM005"]);
}

/// Every finding names the provider whose rule it applies.
#[test]
fn every_finding_names_its_provider() {
    let names = [
        "OpenAI",
        "DeepSeek",
        "Anthropic",
        "Gemini",
        "Bedrock",
        "LangGraph",
    ];
    for (rel, target) in [
        ("codex/developer-between.jsonl", Some(Provider::DeepSeek)),
        ("codex/developer-between.jsonl", Some(Provider::Bedrock)),
        ("gemini/grouped-model-turns.json", Some(Provider::OpenAi)),
        (
            "openai-chat/reused-id-across-turns.json",
            Some(Provider::Anthropic),
        ),
        ("cli/pretty-saved-as.jsonl", None),
        ("cli/pretty-saved-as.jsonl", Some(Provider::Gemini)),
    ] {
        let got = messages(rel, target);
        assert!(!got.is_empty(), "{rel}");
        for m in got {
            assert!(names.iter().any(|n| m.contains(n)), "{rel}: {m}");
            if let Some(t) = target {
                assert!(m.contains(t.display()), "{rel}: {m}");
            }
        }
    }
}

/// A pretty-printed JSON document saved as `.jsonl` is read as the document it is, by `lint`
/// (which streams JSON Lines) and `repair` alike.
#[test]
fn pretty_json_saved_as_jsonl_is_one_document() {
    let rel = "cli/pretty-saved-as.jsonl";
    assert_eq!(codes(rel, None), ["TM001"]);
    let (code, stdout, _) = out(&run(&["lint", &path(rel).to_string_lossy()]));
    assert_eq!(code, 1);
    assert!(
        stdout.contains("TM001") && !stdout.contains("TM007"),
        "{stdout}"
    );
    let (_, diff, _) = out(&run(&["repair", "--diff", &path(rel).to_string_lossy()]));
    assert!(
        diff.contains("+    {") && diff.contains("call_oslo1"),
        "{diff}"
    );
}

/// In a directory walk, JSON with nothing message- or tool-shaped (package.json, tsconfig) is
/// skipped and counted; named on the command line, it is TM009.
#[test]
fn directory_walks_skip_json_that_is_no_log() {
    let (code, stdout, _) = out(&run(&["lint", &path("walk").to_string_lossy()]));
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("Checked 1 file, 1 conversation, 1 tool call: no findings. 2 files skipped: no conversation."),
        "{stdout}"
    );
    let (code, stdout, _) = out(&run(&[
        "lint",
        &path("walk/package.json").to_string_lossy(),
    ]));
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("TM009"), "{stdout}");
    // A log-shaped file toolmend cannot read is not skipped, even in a walk.
    let (code, stdout, _) = out(&run(&["lint", &path("kimi").to_string_lossy()]));
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("TM009"), "{stdout}");
    // repair over the walk has nothing to change.
    let (code, _, stderr) = out(&run(&[
        "repair",
        "--check",
        &path("walk").to_string_lossy(),
    ]));
    assert_eq!(code, 0, "{stderr}");
}

/// An empty JSON Lines file is a log with nothing in it yet, not an unknown format.
#[test]
fn blank_jsonl_is_not_unrecognized() {
    let dir = std::env::temp_dir().join(format!("toolmend-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("empty.jsonl");
    std::fs::write(&file, b"\n\n").unwrap();
    let (code, stdout, _) = out(&run(&["lint", &file.to_string_lossy()]));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "{stdout}");
}

/// A dialect that reads a tool key is not told it does not: Gemini reads the `role:
/// "function"` contents of older histories.
#[test]
fn a_tool_key_the_dialect_reads_is_no_finding() {
    let src = br#"{"contents": [
    {"role": "user", "parts": [{"text": "go"}]},
    {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
    {"role": "function", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}
]}"#;
    assert!(code_line_ids_for("g.json", src, None).is_empty());
    // Legacy OpenAI `function_call` / `role: "function"` messages have a reader of their own.
    let legacy = br#"[{"role": "user", "content": "go"},
 {"role": "assistant", "content": null, "function_call": {"name": "f", "arguments": "{}"}},
 {"role": "function", "name": "f", "content": "1"}]"#;
    assert!(code_line_ids_for("c.json", legacy, None).is_empty());
    // Read as OpenAI chat messages, a key no dialect reads is TM009.
    let chat = br#"[{"role": "user", "content": "go"},
 {"role": "assistant", "content": "ok", "event": "tool.call"}]"#;
    let got = code_line_ids_for("c.json", chat, None);
    assert_eq!(got, ["TM009@2:-"]);
}

/// A file holding a conversation toolmend cannot read (TM009) and a broken one: the broken one
/// is repaired, the other left byte for byte, and `repair` says the file was partly repaired
/// (it said "not repaired", which the changed file belied), streamed or read whole.
#[test]
fn a_partly_repaired_file_is_called_partly_repaired() {
    let unread = r#"{"messages":[{"role":"user","content":"x"},{"type":"tool.result","time":1.5,"turnId":"t_01","toolCallId":"Shell:0","result":{"output":"14","isError":false}}]}"#;
    let broken = r#"{"messages":[{"role":"user","content":"y"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}]}"#;
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("two.jsonl");
    std::fs::write(&lines, format!("{unread}\n{broken}\n")).unwrap();
    let document = dir.path().join("two.json");
    std::fs::write(&document, format!("[{unread},\n{broken}]\n")).unwrap();
    for file in [&lines, &document] {
        let (code, stdout, stderr) = out(&run(&["repair", &file.to_string_lossy()]));
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains(unread), "{stdout}");
        assert!(stdout.contains(r#""tool_call_id":"a""#), "{stdout}");
        assert!(
            stderr.contains(
                ": partly repaired; what toolmend cannot read is left byte for byte as it is: "
            ),
            "{stderr}"
        );
        assert!(!stderr.contains("not repaired"), "{stderr}");
    }
}
