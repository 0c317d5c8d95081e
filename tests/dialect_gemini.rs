//! The Gemini dialects end to end: findings on our fixtures, repairs pinned byte for byte,
//! idempotence, a clean lint after repair, and an independent checker of Gemini's own rules
//! run on every repaired fixture and on the stored corpus (when it is there).

pub mod common;

use common::api::{code_ids, dialects, findings, repair_with, repaired, with_orphans};
use common::pinned::{check_fix, check_kept, run_as};
use common::{docs, files};
use serde_json::Value;
use toolmend::{DuplicatePolicy, OrphanPolicy, RepairOptions};

const SET: &str = "gemini";

fn read(name: &str) -> Vec<u8> {
    files::read(SET, name)
}

/// [`check_fix`], and the repaired fixture meets Gemini's rules.
fn fixed(name: &str, before: &[&str]) -> Vec<u8> {
    let out = check_fix(SET, name, before);
    assert_strict(name, &out);
    out
}

// ---- an independent checker of Gemini's rules (formats.md §d) --------------------------------

/// The `contents` lists of a document: `{contents}` objects, bare Content arrays, one per JSON
/// Lines line.
fn contents_lists(name: &str, bytes: &[u8]) -> Vec<Vec<Value>> {
    docs::values(name, bytes)
        .iter()
        .flat_map(|v| docs::lists(v, &["/contents"]))
        .map(<[Value]>::to_vec)
        .collect()
}

fn parts_with<'a>(content: &'a Value, key: &str) -> Vec<&'a Value> {
    docs::array(content, "parts")
        .iter()
        .filter_map(|p| p.get(key))
        .collect()
}

/// Gemini's rules: the response content comes right after the call content, holds only
/// functionResponse parts, as many as there were calls, with the calls' names (and ids, only
/// where the call had one); no response turn without a call turn before it.
fn strict_gemini(contents: &[Value]) -> Result<(), String> {
    for (i, content) in contents.iter().enumerate() {
        let calls = parts_with(content, "functionCall");
        let responses = parts_with(content, "functionResponse");
        if !responses.is_empty() {
            let before = i
                .checked_sub(1)
                .map(|j| parts_with(&contents[j], "functionCall"));
            if before.is_none_or(|c| c.is_empty()) {
                return Err(format!("content {i}: a response turn without a call turn"));
            }
        }
        if calls.is_empty() {
            continue;
        }
        let next = contents
            .get(i + 1)
            .ok_or(format!("content {i}: calls at the end"))?;
        if next["role"] != "user" {
            return Err(format!("content {}: not a user turn", i + 1));
        }
        let parts = next["parts"].as_array().ok_or("no parts")?;
        if parts.iter().any(|p| p.get("functionResponse").is_none()) {
            return Err(format!("content {}: mixes other parts in", i + 1));
        }
        if parts.len() != calls.len() {
            return Err(format!(
                "content {}: {} responses for {} calls",
                i + 1,
                parts.len(),
                calls.len()
            ));
        }
        let mut call_names: Vec<&Value> = calls.iter().map(|c| &c["name"]).collect();
        let mut resp_names: Vec<&Value> = parts
            .iter()
            .map(|p| &p["functionResponse"]["name"])
            .collect();
        call_names.sort_by_key(|v| v.to_string());
        resp_names.sort_by_key(|v| v.to_string());
        if call_names != resp_names {
            return Err(format!("content {}: names differ from the calls'", i + 1));
        }
        for p in parts {
            if let Some(id) = p["functionResponse"].get("id")
                && !calls.iter().any(|c| c.get("id") == Some(id))
            {
                return Err(format!(
                    "content {}: response id {id} is no call's id",
                    i + 1
                ));
            }
        }
        for c in &calls {
            if let Some(id) = c.get("id")
                && !parts
                    .iter()
                    .any(|p| p["functionResponse"].get("id") == Some(id))
            {
                return Err(format!(
                    "content {i}: call {id} has no response with its id"
                ));
            }
        }
    }
    Ok(())
}

fn assert_strict(name: &str, bytes: &[u8]) {
    let lists = contents_lists(name, bytes);
    assert!(!lists.is_empty(), "{name}: no contents found");
    for list in lists {
        if let Err(e) = strict_gemini(&list) {
            panic!("{name}: {e}\n{}", String::from_utf8_lossy(bytes));
        }
    }
}

#[test]
fn strict_checker_rejects_what_gemini_rejects() {
    for bad in [
        "dangling.json",
        "partial.json",
        "orphan.json",
        "misplaced.json",
        "duplicate.json",
        "mixed.json",
        "no-ids.json",
    ] {
        let bytes = read(bad);
        let lists = contents_lists(bad, &bytes);
        assert!(
            lists.iter().any(|l| strict_gemini(l).is_err()),
            "{bad} passed the checker"
        );
    }
}

// ---- Gemini API fixtures ---------------------------------------------------------------------

#[test]
fn clean_contents_have_no_findings_and_stay_untouched() {
    let bytes = check_kept(SET, "clean.json", &[]);
    assert_eq!(dialects("clean.json", &bytes), ["gemini"]);
    assert_strict("clean.json", &bytes);
}

#[test]
fn trailing_call_gets_a_new_response_turn() {
    fixed("dangling.json", &["TM001 fc_capital"]);
}

#[test]
fn partial_parallel_answers_are_completed_in_the_response_turn() {
    fixed("partial.json", &["TM001 t1", "TM001 t3"]);
}

#[test]
fn calls_without_ids_pair_by_name_and_position() {
    // The second `find` and the `weather` call have no response; the first `find` does.
    let out = fixed("no-ids.json", &["TM001 weather#0", "TM001 find#1"]);
    // The pairing keys are the analysis's own: no id is ever written.
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains('#') && !text.contains("\"id\""), "{text}");
}

#[test]
fn reused_ids_are_legal_until_one_is_left_unanswered() {
    fixed("reused-ids.json", &["TM001 call_0"]);
}

#[test]
fn misplaced_response_turn_is_moved_after_its_call() {
    fixed("misplaced.json", &["TM003 r1"]);
}

#[test]
fn orphan_is_kept_by_default_and_dropped_or_noted_by_policy() {
    let bytes = check_kept(SET, "orphan.json", &["TM002 ghost"]);
    let drop = with_orphans(OrphanPolicy::Drop);
    let out = repair_with("orphan.json", &bytes, &drop);
    assert!(code_ids("orphan.json", &out).is_empty());
    assert_strict("orphan.json", &out);
    let note = with_orphans(OrphanPolicy::Note);
    let out = run_as(SET, "orphan.json", "orphan.note.repaired.json", &note);
    assert!(code_ids("orphan.json", &out).is_empty());
}

#[test]
fn duplicate_and_mixed_response_turns_are_reported_not_rewritten() {
    check_kept(SET, "duplicate.json", &["TM004 d1"]);

    let bytes = check_kept(SET, "mixed.json", &["TM003 m1"]);
    let f = &findings("mixed.json", &bytes)[0];
    assert!(f.message.contains("mixes other parts"), "{}", f.message);
    assert!(f.fix.is_none());
}

#[test]
fn tuning_lines_are_repaired_on_their_own_line() {
    let bytes = read("tuning.jsonl");
    assert_eq!(dialects("tuning.jsonl", &bytes), ["gemini", "gemini"]);
    fixed("tuning.jsonl", &["TM001 now#0"]);
}

#[test]
fn synthetic_marker_goes_inside_the_free_form_response() {
    let bytes = read("dangling.json");
    let options = RepairOptions {
        mark_synthetic: true,
        ..RepairOptions::default()
    };
    let out = repair_with("dangling.json", &bytes, &options);
    let v: Value = serde_json::from_slice(&out).unwrap();
    let part = &v["contents"][2]["parts"][0]["functionResponse"];
    assert_eq!(part["response"]["toolmend_synthetic"], true);
    assert_eq!(part["id"], "fc_capital");
    assert!(code_ids("dangling.json", &out).is_empty());
    assert_strict("dangling.json", &out);
}

// ---- detection boundaries ------------------------------------------------------------------

#[test]
fn neither_claims_the_others_messages() {
    let openai = br#"[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]"#;
    assert_eq!(dialects("a.json", openai), ["openai-chat"]);
    let ui_message = br#"[{"role":"user","parts":[{"type":"text","text":"hi"}]},{"role":"assistant","parts":[{"type":"text","text":"yo"}]}]"#;
    assert_ne!(dialects("b.json", ui_message), ["gemini"]);
    let gemini = br#"[{"role":"user","parts":[{"text":"hi"}]}]"#;
    assert_eq!(dialects("c.json", gemini), ["gemini"]);
}

// ---- Gemini CLI chat recordings --------------------------------------------------------------

#[test]
fn cli_records_without_a_response_are_dangling_and_filled_in_place() {
    let bytes = read("cli-session.json");
    assert_eq!(dialects("cli-session.json", &bytes), ["gemini-cli"]);
    // null result, missing result, empty result; a string result counts as answered.
    check_fix(
        SET,
        "cli-session.json",
        &[
            "TM001 run_shell_command-1767348005001-bb22",
            "TM001 read_file-1767348123000-cc33",
            "TM001 glob-1767348123001-dd44",
        ],
    );
}

#[test]
fn cli_jsonl_records_are_filled_on_their_line() {
    check_fix(
        SET,
        "cli-session-lines.jsonl",
        &["TM001 run_shell_command-1769936402000-ff66"],
    );
}

/// A Gemini CLI JSON Lines session: its header, then `records` one per line.
fn cli_session(records: &[&str]) -> Vec<u8> {
    let mut out = String::from(
        r#"{"sessionId": "s1", "projectHash": "p1", "startTime": "2026-11-30T09:00:00.000Z", "lastUpdated": "2026-11-30T09:05:00.000Z", "kind": "main"}"#,
    );
    out.push('\n');
    for r in records {
        out.push_str(r);
        out.push('\n');
    }
    out.into_bytes()
}

const ASK: &str = r#"{"id": "u1", "type": "user", "content": [{"text": "what is here?"}]}"#;
const LS_RESPONSE: &str =
    r#"{"functionResponse": {"id": "ls-1", "name": "ls", "response": {"output": "a.txt"}}}"#;

/// The repair with `options` clears every finding, and repairing again changes nothing.
fn repaired_clean(name: &str, bytes: &[u8], options: &RepairOptions) -> Vec<u8> {
    let out = repair_with(name, bytes, options);
    assert_eq!(
        code_ids(name, &out),
        Vec::<String>::new(),
        "{name} after repair"
    );
    assert_eq!(
        repair_with(name, &out, options),
        out,
        "{name}: second repair"
    );
    out
}

#[test]
fn cli_calls_in_content_are_the_model_turn() {
    // Since late 2025 a record's `content` holds its calls; `toolCalls` only gives responses.
    let two_calls = format!(
        r#"{{"id": "g1", "type": "gemini", "content": [{{"text": "Looking."}}, {{"functionCall": {{"id": "ls-1", "name": "ls", "args": {{}}}}}}, {{"functionCall": {{"id": "cat-2", "name": "cat", "args": {{"path": "a.txt"}}}}}}], "toolCalls": [{{"id": "ls-1", "name": "ls", "args": {{}}, "result": [{LS_RESPONSE}], "status": "success"}}]}}"#
    );
    let bytes = cli_session(&[ASK, &two_calls]);
    assert_eq!(code_ids("s.jsonl", &bytes), ["TM001 cat-2"]);
    let out = repaired_clean("s.jsonl", &bytes, &RepairOptions::default());
    // The response goes in a record of its own at the end of `toolCalls`, where the client
    // looks for it; nothing else moves.
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(r#""status": "success"}, {"id": "cat-2", "name": "cat", "args": {"path": "a.txt"}, "result": [{"functionResponse": {"id": "cat-2", "name": "cat", "response": {"error": "#), "{text}");

    // A call written without an id is given one by the client; its record is the one in its
    // place.
    let no_id = format!(
        r#"{{"id": "g1", "type": "gemini", "content": [{{"functionCall": {{"name": "ls", "args": {{}}}}}}], "toolCalls": [{{"id": "ls-1", "name": "ls", "args": {{}}, "result": [{LS_RESPONSE}], "status": "success"}}]}}"#
    );
    assert_eq!(
        code_ids("s.jsonl", &cli_session(&[ASK, &no_id])),
        Vec::<String>::new()
    );
    let unanswered = no_id.replace(r#""result": ["#, r#""output": ["#);
    assert_eq!(
        code_ids("s.jsonl", &cli_session(&[ASK, &unanswered])),
        ["TM001 ls-1"]
    );

    // A record without `toolCalls` gets one, after its `content`.
    let no_records = r#"{"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "ls-1", "name": "ls", "args": {"dir": "."}}}], "model": "gemini-2.5-pro"}"#;
    let bytes = cli_session(&[ASK, no_records]);
    assert_eq!(code_ids("s.jsonl", &bytes), ["TM001 ls-1"]);
    let text =
        String::from_utf8(repaired_clean("s.jsonl", &bytes, &RepairOptions::default())).unwrap();
    assert!(text.contains(r#"}}], "toolCalls": [{"id": "ls-1", "name": "ls", "args": {"dir": "."}, "result": [{"functionResponse": "#), "{text}");
    assert!(
        text.ends_with("\"status\": \"error\"}], \"model\": \"gemini-2.5-pro\"}\n"),
        "{text}"
    );
}

/// The session's one finding is a response too many at `pointer`, quoting Gemini's count
/// error: reported, never repaired (no fix is offered, under any orphan policy).
fn one_response_too_many(bytes: &[u8], pointer: &str) {
    let found = findings("s.jsonl", bytes);
    assert_eq!(found[0].pointer, pointer);
    assert!(
        found[0].message.contains("one response more"),
        "{}",
        found[0].message
    );
    assert!(found[0].fix.is_none());
    assert_eq!(repaired("s.jsonl", bytes), bytes);
    for policy in [OrphanPolicy::Drop, OrphanPolicy::Note] {
        assert_eq!(repair_with("s.jsonl", bytes, &with_orphans(policy)), bytes);
    }
}

#[test]
fn cli_record_no_content_call_takes_is_a_response_without_a_call() {
    // With the calls in `content`, the client still sends the result of every `toolCalls`
    // record in the response turn: a record no call takes is one response too many.
    let record = |id: &str| {
        format!(
            r#"{{"id": "{id}", "name": "ls", "args": {{}}, "result": [{{"functionResponse": {{"id": "{id}", "name": "ls", "response": {{"output": "a"}}}}}}], "status": "success"}}"#
        )
    };
    let two = format!(
        r#"{{"id": "g1", "type": "gemini", "content": [{{"functionCall": {{"id": "ls-1", "name": "ls", "args": {{}}}}}}], "toolCalls": [{}, {}]}}"#,
        record("ls-1"),
        record("ls-9")
    );
    let after = r#"{"id": "g2", "type": "gemini", "content": [{"text": "One file."}]}"#;
    let bytes = cli_session(&[ASK, &two, after]);
    assert_eq!(code_ids("s.jsonl", &bytes), ["TM002 ls-9"]);
    one_response_too_many(&bytes, "/toolCalls/1");

    // A record without a result adds no response; one taken by an id-less call, by its
    // place, is that call's.
    let unanswered = two.replacen(r#", "result": [{"functionResponse": {"id": "ls-9", "name": "ls", "response": {"output": "a"}}}]"#, "", 1);
    assert_ne!(unanswered, two);
    assert!(code_ids("s.jsonl", &cli_session(&[ASK, &unanswered, after])).is_empty());
    let bare = two.replacen(
        r#""id": "ls-1", "name": "ls", "args": {}}}"#,
        r#""name": "ls", "args": {}}}"#,
        1,
    );
    assert_ne!(bare, two);
    assert_eq!(
        code_ids("s.jsonl", &cli_session(&[ASK, &bare, after])),
        ["TM002 ls-9"]
    );
}

#[test]
fn cli_record_result_with_two_responses_is_one_response_too_many() {
    // The client sends every part of a record's `result` list in the response turn: a
    // second `functionResponse` part is one response more than the turn has calls.
    let response = |id: &str| {
        format!(
            r#"{{"functionResponse": {{"id": "{id}", "name": "ls", "response": {{"output": "a"}}}}}}"#
        )
    };
    let after = r#"{"id": "g2", "type": "gemini", "content": [{"text": "One file."}]}"#;
    for second in ["ls-1", "ls-9"] {
        let result = format!("[{}, {}]", response("ls-1"), response(second));
        let legacy = format!(
            r#"{{"id": "g1", "type": "gemini", "content": "", "toolCalls": [{{"id": "ls-1", "name": "ls", "args": {{}}, "result": {result}, "status": "success"}}]}}"#
        );
        let modern = format!(
            r#"{{"id": "g1", "type": "gemini", "content": [{{"functionCall": {{"id": "ls-1", "name": "ls", "args": {{}}}}}}], "toolCalls": [{{"id": "ls-1", "name": "ls", "args": {{}}, "result": {result}, "status": "success"}}]}}"#
        );
        for record in [&legacy, &modern] {
            let bytes = cli_session(&[ASK, record, after]);
            assert_eq!(
                code_ids("s.jsonl", &bytes),
                [format!("TM002 {second}")],
                "{record}"
            );
            one_response_too_many(&bytes, "/toolCalls/0/result/1");
        }
    }

    // Other parts beside the one response (an image, a text) are no response.
    let beside = format!(
        r#"{{"id": "g1", "type": "gemini", "content": "", "toolCalls": [{{"id": "ls-1", "name": "ls", "args": {{}}, "result": [{}, {{"inlineData": {{"mimeType": "image/png", "data": "AA=="}}}}, {{"text": "x"}}], "status": "success"}}]}}"#,
        response("ls-1")
    );
    assert!(code_ids("s.jsonl", &cli_session(&[ASK, &beside, after])).is_empty());
}

#[test]
fn cli_response_recorded_twice_is_a_duplicate_dropped_by_policy() {
    // Gemini CLI records a response turn as a user record of its own besides the call's
    // `result`, and sends both on resume (google-gemini/gemini-cli#29365).
    let answered = format!(
        r#"{{"id": "g1", "type": "gemini", "content": [{{"functionCall": {{"id": "ls-1", "name": "ls", "args": {{}}}}}}], "toolCalls": [{{"id": "ls-1", "name": "ls", "args": {{}}, "result": [{LS_RESPONSE}], "status": "success"}}]}}"#
    );
    let copy = format!(r#"{{"id": "g1_response", "type": "user", "content": [{LS_RESPONSE}]}}"#);
    let after = r#"{"id": "g2", "type": "gemini", "content": [{"text": "One file."}]}"#;
    let bytes = cli_session(&[ASK, &answered, &copy, after]);
    let found = findings("s.jsonl", &bytes);
    assert_eq!(code_ids("s.jsonl", &bytes), ["TM004 ls-1"]);
    assert!(
        found[0].message.contains("gemini-cli#29365"),
        "{}",
        found[0].message
    );
    let fix = found[0].fix.as_ref().expect("lint offers the drop");
    assert_eq!(
        fix.description,
        "drop the second copy (--duplicates keep-first)"
    );
    // Removing a copy deletes bytes: only by policy, and only the later copy.
    assert_eq!(repaired("s.jsonl", &bytes), bytes);
    let keep_last = RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepLast),
        ..RepairOptions::default()
    };
    assert_eq!(repair_with("s.jsonl", &bytes, &keep_last), bytes);
    let keep_first = RepairOptions {
        duplicates: Some(DuplicatePolicy::KeepFirst),
        ..RepairOptions::default()
    };
    let out = repaired_clean("s.jsonl", &bytes, &keep_first);
    let emptied = r#"{"id": "g1_response", "type": "user", "content": []}"#;
    assert_eq!(out, cli_session(&[ASK, &answered, emptied, after]));

    // One copy among other parts goes with its separator.
    let two = format!(
        r#"{{"id": "g1_response", "type": "user", "content": [{{"text": "x"}}, {LS_RESPONSE}]}}"#
    );
    let bytes = cli_session(&[ASK, &answered, &two, after]);
    let out = repaired_clean("s.jsonl", &bytes, &keep_first);
    let kept = r#"{"id": "g1_response", "type": "user", "content": [{"text": "x"}]}"#;
    assert_eq!(out, cli_session(&[ASK, &answered, kept, after]));

    // A copy that is the record's whole `content` (one part, not a list) is reported, and no
    // fix is offered or made.
    let single = format!(r#"{{"id": "g1_response", "type": "user", "content": {LS_RESPONSE}}}"#);
    let bytes = cli_session(&[ASK, &answered, &single, after]);
    let found = findings("s.jsonl", &bytes);
    assert_eq!(code_ids("s.jsonl", &bytes), ["TM004 ls-1"]);
    assert!(found[0].fix.is_none(), "{:?}", found[0].fix);
    assert_eq!(repair_with("s.jsonl", &bytes, &keep_first), bytes);
}

#[test]
fn cli_response_records_answer_calls_across_records_the_client_leaves_out() {
    let unanswered = r#"{"id": "g1", "type": "gemini", "content": [{"functionCall": {"id": "ls-1", "name": "ls", "args": {}}}], "toolCalls": [{"id": "ls-1", "name": "ls", "args": {}, "status": "executing"}]}"#;
    let response =
        format!(r#"{{"id": "g1_response", "type": "user", "content": [{LS_RESPONSE}]}}"#);
    // Shown in the terminal, or a command: never sent, so they end no turn.
    let info = r#"{"id": "i1", "type": "info", "content": "Tool finished"}"#;
    let command = r#"{"id": "u2", "type": "user", "content": [{"text": "/stats"}]}"#;
    // A model record with no part at all, and a record of a type the client does not send.
    let empty = r#"{"id": "g2", "type": "gemini", "content": "", "thoughts": [], "toolCalls": []}"#;
    let other = r#"{"id": "x1", "type": "notice", "content": "Saved"}"#;
    let bytes = cli_session(&[ASK, unanswered, info, command, empty, other, &response]);
    assert_eq!(code_ids("s.jsonl", &bytes), Vec::<String>::new());
    // A question sent in between ends the turn: the response comes after it.
    let question = r#"{"id": "u3", "type": "user", "content": [{"text": "still there?"}]}"#;
    let bytes = cli_session(&[ASK, unanswered, question, &response]);
    assert_eq!(code_ids("s.jsonl", &bytes), ["TM003 ls-1"]);
}

// ---- the stored corpus, when present -------------------------------------------------------

#[test]
fn corpus_gemini_api_files_satisfy_the_strict_rules_after_repair() {
    for path in files::corpus("gemini-api") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(dialects(&name, &bytes), ["gemini"], "{name}");
        let out = repaired(&name, &bytes);
        assert_strict(&name, &out);
        assert!(code_ids(&name, &out).is_empty(), "{name}");
    }
}

/// Damaged variants of a real `{contents}` document, built in memory: cut after each call
/// turn (an interrupted run), and drop the first response of every response turn.
fn damaged(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let doc: Value = serde_json::from_slice(bytes).unwrap();
    let contents = doc["contents"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (i, c) in contents.iter().enumerate() {
        if !parts_with(c, "functionCall").is_empty() {
            let mut d = doc.clone();
            d["contents"] = Value::Array(contents[..=i].to_vec());
            out.push((
                format!("cut after {i}"),
                serde_json::to_vec_pretty(&d).unwrap(),
            ));
        }
        if !parts_with(c, "functionResponse").is_empty() {
            let mut d = doc.clone();
            d["contents"][i]["parts"].as_array_mut().unwrap().remove(0);
            out.push((
                format!("drop 1st of {i}"),
                serde_json::to_vec_pretty(&d).unwrap(),
            ));
        }
    }
    out
}

#[test]
fn corpus_gemini_api_damage_is_repaired_to_the_strict_rules() {
    for path in files::corpus("gemini-api") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (how, bytes) in damaged(&std::fs::read(&path).unwrap()) {
            let what = format!("{name} ({how})");
            assert!(
                code_ids(&name, &bytes)
                    .iter()
                    .any(|f| f.starts_with("TM001")),
                "{what}: damage not found"
            );
            let out = repaired(&name, &bytes);
            assert_strict(&what, &out);
            assert!(code_ids(&name, &out).is_empty(), "{what}");
            assert_eq!(repaired(&name, &out), out, "{what}: not idempotent");
        }
    }
}

#[test]
fn corpus_gemini_cli_files_lint_clean() {
    for path in files::corpus("gemini-cli") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(dialects(&name, &bytes), ["gemini-cli"], "{name}");
        assert!(code_ids(&name, &bytes).is_empty(), "{name}");
        assert_eq!(repaired(&name, &bytes), bytes, "{name}");
    }
}
