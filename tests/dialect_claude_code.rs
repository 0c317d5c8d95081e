//! Claude Code session logs end to end: detection, threads (sidechains), lint findings, and the
//! repair pinned byte for byte, checked against the Claude Code rules by an independent strict
//! checker (also run on the public corpus when `../shared/corpus` exists).
//!
//! `TRYCMD=overwrite` rewrites the pinned `*.repaired.jsonl` files.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

pub mod common;

use common::api::{self, analyse, codes, repair_with, repaired};
use common::docs::lines;
use common::files;
use serde_json::Value;
use toolmend::{OrphanPolicy, RepairOptions};

const SET: &str = "claude-code";

fn fixture(name: &str) -> Vec<u8> {
    files::read(SET, name)
}

// ---- The strict checker ---------------------------------------------------------------

/// The thread of each line, keyed as Claude Code's subagents are: `agentId`, else the root
/// reached through sidechain parents; the main chain is `""`.
fn thread_keys(records: &[Value]) -> Vec<String> {
    let mut by_uuid: HashMap<&str, String> = HashMap::new();
    let mut keys = Vec::new();
    for r in records {
        let key = if r["isSidechain"] != Value::Bool(true) {
            String::new()
        } else if let Some(agent) = r["agentId"].as_str() {
            format!("agent {agent}")
        } else if let Some(k) = r["parentUuid"].as_str().and_then(|p| by_uuid.get(p)) {
            k.clone()
        } else {
            format!("root {}", r["uuid"].as_str().unwrap_or(""))
        };
        if r["isSidechain"] == Value::Bool(true)
            && let Some(u) = r["uuid"].as_str()
        {
            by_uuid.insert(u, key.clone());
        }
        keys.push(key);
    }
    keys
}

/// Claude Code's rules, checked without toolmend's model: in every thread, each `tool_use`
/// (with an id: id-less blocks are TM006's business) is answered by a `tool_result` before the
/// next assistant turn (an assistant line with another `message.id`), each result answers an
/// open call; and every `parentUuid` is null or the `uuid` of a line of the file.
fn check(bytes: &[u8]) -> Result<(), String> {
    let records: Vec<Value> = lines(bytes)
        .iter()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("bad line: {e}")))
        .collect::<Result<_, _>>()?;
    let uuids: HashSet<&str> = records.iter().filter_map(|r| r["uuid"].as_str()).collect();
    for (i, r) in records.iter().enumerate() {
        match &r["parentUuid"] {
            Value::Null => {}
            Value::String(p) if uuids.contains(p.as_str()) => {}
            Value::String(p) => return Err(format!("line {}: parent {p} not in the file", i + 1)),
            other => return Err(format!("line {}: parentUuid is {other}", i + 1)),
        }
    }
    let keys = thread_keys(&records);
    let mut open: HashMap<&str, Vec<String>> = HashMap::new();
    let mut turn: HashMap<&str, Option<String>> = HashMap::new();
    for (i, (r, key)) in records.iter().zip(&keys).enumerate() {
        let content = r["message"]["content"].as_array();
        match r["type"].as_str() {
            Some("assistant") => {
                let id = r["message"]["id"].as_str().map(String::from);
                let open_here = open.entry(key).or_default();
                if turn
                    .get(key.as_str())
                    .is_none_or(|t| id.is_none() || *t != id)
                    && !open_here.is_empty()
                {
                    return Err(format!(
                        "line {}: next turn while {open_here:?} open",
                        i + 1
                    ));
                }
                turn.insert(key, id);
                for b in content.into_iter().flatten() {
                    if b["type"] == "tool_use"
                        && let Some(id) = b["id"].as_str()
                    {
                        open_here.push(id.to_string());
                    }
                }
            }
            Some("user") => {
                for b in content.into_iter().flatten() {
                    if b["type"] != "tool_result" {
                        continue;
                    }
                    let Some(id) = b["tool_use_id"].as_str() else {
                        continue;
                    };
                    let open_here = open.entry(key).or_default();
                    match open_here.iter().position(|o| o == id) {
                        Some(at) => {
                            open_here.remove(at);
                        }
                        None => return Err(format!("line {}: result {id} answers nothing", i + 1)),
                    }
                }
            }
            _ => {}
        }
    }
    match open.iter().find(|(_, ids)| !ids.is_empty()) {
        Some((key, ids)) => Err(format!("thread {key:?} ends with {ids:?} open")),
        None => Ok(()),
    }
}

/// The original lines come back in order, plus inserted placeholder lines (new uuids), and
/// exactly `changed` original lines differ, each only in its `parentUuid` value.
fn only_parent_changed(before: &[u8], after: &[u8], inserted: usize, changed: usize) {
    let (old, new) = (lines(before), lines(after));
    let old_uuids: HashSet<String> = old
        .iter()
        .filter_map(|l| {
            serde_json::from_str::<Value>(l).ok()?["uuid"]
                .as_str()
                .map(String::from)
        })
        .collect();
    let (mut i, mut seen_inserted, mut seen_changed) = (0, 0, 0);
    for line in &new {
        if i < old.len() && *line == old[i] {
            i += 1;
            continue;
        }
        let v: Value = serde_json::from_str(line).unwrap();
        if !old_uuids.contains(v["uuid"].as_str().unwrap_or("")) {
            seen_inserted += 1;
            continue;
        }
        // A changed original line: the bytes differ only inside the parentUuid string.
        let (a, b) = (old[i].as_bytes(), line.as_bytes());
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let head = &line[..prefix];
        let cut = head
            .rfind("\"parentUuid\":\"")
            .expect("change outside parentUuid")
            + 14;
        assert!(
            !head[cut..].contains('"'),
            "change outside parentUuid: {line}"
        );
        let tail = &line[line.len() - suffix.min(b.len() - prefix)..];
        assert!(tail.starts_with('"'), "change outside parentUuid: {line}");
        let new_parent = &line[cut..line.len() - tail.len()];
        assert!(!old_uuids.contains(new_parent), "re-parented to a new line");
        i += 1;
        seen_changed += 1;
    }
    assert_eq!(i, old.len(), "an original line is missing");
    assert_eq!((seen_inserted, seen_changed), (inserted, changed));
}

// ---- Fixtures -------------------------------------------------------------------------

/// (fixture, placeholders inserted, original lines re-parented)
const DANGLING: &[(&str, usize, usize)] = &[
    ("interrupted.jsonl", 1, 1),
    ("interrupted-end.jsonl", 1, 0),
    ("parallel-dangling.jsonl", 2, 1),
    ("sidechain.jsonl", 1, 1),
];

const CLEAN: &[&str] = &["clean.jsonl", "parallel.jsonl", "subagent.jsonl"];

#[test]
fn clean_sessions_have_no_findings_and_stay_untouched() {
    for name in CLEAN {
        let bytes = fixture(name);
        assert!(codes(name, &bytes).is_empty(), "{name}");
        assert_eq!(repaired(name, &bytes), bytes, "{name}");
        check(&bytes).unwrap();
    }
}

#[test]
fn detection_and_pass_through_lines() {
    let bytes = fixture("clean.jsonl");
    let a = analyse("clean.jsonl", &bytes);
    let conv = &a.doc.conversations[0];
    assert_eq!(a.doc.conversations.len(), 1);
    assert_eq!(conv.dialect, "claude-code");
    assert!(
        conv.detection
            .contains("line 3 is a Claude Code session line")
    );
    // summary, snapshot, system and queue-operation lines are not messages.
    assert_eq!(conv.messages.len(), 5);
    // The two lines of one API message are one model message.
    assert!(conv.messages[2].continuation);
    assert_eq!(conv.messages[2].group.as_deref(), Some("msg_01CleanAaaa"));
}

#[test]
fn dangling_calls_are_found_where_they_are() {
    let found = |name: &str| -> Vec<(usize, String)> {
        let bytes = fixture(name);
        api::findings(name, &bytes)
            .into_iter()
            .map(|f| {
                (
                    f.line,
                    format!("{} {}", f.code, f.call_id.unwrap_or_default()),
                )
            })
            .collect()
    };
    assert_eq!(
        found("interrupted.jsonl"),
        [(4, "TM001 toolu_01IntrBash".to_string())]
    );
    let end = found("interrupted-end.jsonl");
    assert_eq!(end, [(3, "TM001 toolu_01EndDeploy".to_string())]);
    assert_eq!(
        found("parallel-dangling.jsonl"),
        [
            (3, "TM001 toolu_01ParGlob".to_string()),
            (4, "TM001 toolu_01ParGrep".to_string())
        ]
    );
    assert_eq!(
        found("sidechain.jsonl"),
        [(7, "TM001 toolu_01ShipRead".to_string())]
    );
    let bytes = fixture("interrupted-end.jsonl");
    let f = &api::findings("x", &bytes)[0];
    assert!(f.message.contains("ends right after it"), "{}", f.message);
    assert!(
        f.message
            .contains("`tool_use` ids were found without `tool_result` blocks")
    );
}

#[test]
fn interleaved_subagents_are_separate_conversations() {
    let bytes = fixture("sidechain.jsonl");
    let a = analyse("sidechain.jsonl", &bytes);
    let threads: Vec<(usize, usize)> = a
        .doc
        .conversations
        .iter()
        .map(|c| (c.messages.len(), c.calls().count()))
        .collect();
    // main chain, the payment subagent, the shipping subagent
    assert_eq!(threads, [(6, 2), (4, 1), (3, 1)]);
    assert!(!a.doc.conversations[0].detection.contains("thread"));
    assert!(
        a.doc.conversations[2]
            .detection
            .contains("thread sidechain from 0000003d-")
    );
    // Read as one conversation, the interleaving would misplace the payment result (TM003).
    assert_eq!(codes("sidechain.jsonl", &bytes), ["TM001"]);

    let bytes = fixture("subagent.jsonl");
    let a = analyse("subagent.jsonl", &bytes);
    assert_eq!(a.doc.conversations.len(), 1);
    assert!(
        a.doc.conversations[0]
            .detection
            .contains("thread agent 9c1e7a2")
    );
}

#[test]
fn repairs_are_pinned_checked_and_idempotent() {
    for &(name, inserted, changed) in DANGLING {
        let bytes = fixture(name);
        let once = repaired(name, &bytes);
        files::pin(&files::repaired_path(&files::dir(SET).join(name)), &once);
        check(&once).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            codes(name, &once).is_empty(),
            "{name} not clean after repair"
        );
        assert_eq!(
            repaired(name, &once),
            once,
            "{name}: second repair changed it"
        );
        only_parent_changed(&bytes, &once, inserted, changed);
        assert!(
            check(&bytes).is_err(),
            "{name}: the checker misses the defect"
        );
    }
}

#[test]
fn crlf_lines_stay_crlf() {
    let crlf = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .replace('\n', "\r\n")
            .into_bytes()
    };
    let bytes = crlf(&fixture("parallel-dangling.jsonl"));
    let out = repaired("p.jsonl", &bytes);
    assert_eq!(out, crlf(&fixture("parallel-dangling.repaired.jsonl")));
}

#[test]
fn the_checker_and_the_diff_helper_catch_breakage() {
    let fixed = repaired("interrupted.jsonl", &fixture("interrupted.jsonl"));
    let text = String::from_utf8(fixed.clone()).unwrap();
    // A parent that is not in the file.
    let broken = text.replacen(
        "\"parentUuid\":\"0000000b-",
        "\"parentUuid\":\"9999999b-",
        1,
    );
    assert!(
        check(broken.as_bytes())
            .unwrap_err()
            .contains("not in the file")
    );
    // A result after the next assistant turn.
    let parallel = String::from_utf8(fixture("parallel.jsonl")).unwrap();
    let mut lines: Vec<&str> = parallel.lines().collect();
    let moved = lines.remove(5);
    lines.push(moved);
    assert!(
        check(lines.join("\n").as_bytes())
            .unwrap_err()
            .contains("next turn")
    );
    // Another byte of an original line changed.
    let edited = text.replacen("Running the tests.", "Running the tests!", 1);
    let caught = std::panic::catch_unwind(|| {
        only_parent_changed(&fixture("interrupted.jsonl"), edited.as_bytes(), 1, 1)
    });
    assert!(caught.is_err());
}

#[test]
fn placeholder_copies_the_calling_line() {
    let out = repaired("interrupted.jsonl", &fixture("interrupted.jsonl"));
    let records: Vec<Value> = lines(&out)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (call, p, next) = (&records[3], &records[4], &records[5]);
    assert_eq!(p["type"], "user");
    assert_eq!(p["parentUuid"], call["uuid"]);
    assert_eq!(next["parentUuid"], p["uuid"]);
    for k in [
        "sessionId",
        "cwd",
        "version",
        "gitBranch",
        "userType",
        "isSidechain",
        "timestamp",
    ] {
        assert_eq!(p[k], call[k], "{k}");
    }
    let block = &p["message"]["content"][0];
    assert_eq!(p["message"]["role"], "user");
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], "toolu_01IntrBash");
    assert_eq!(block["is_error"], true);
    let uuid = p["uuid"].as_str().unwrap();
    let shape: Vec<usize> = uuid.split('-').map(str::len).collect();
    assert_eq!(shape, [8, 4, 4, 4, 12]);
    assert!(uuid.chars().all(|c| c == '-' || c.is_ascii_hexdigit()));
    assert!(p.get("toolmendSynthetic").is_none());
}

#[test]
fn synthetic_marker_on_request() {
    let options = RepairOptions {
        mark_synthetic: true,
        ..RepairOptions::default()
    };
    let bytes = fixture("parallel-dangling.jsonl");
    let out = repair_with("p.jsonl", &bytes, &options);
    let marked = lines(&out)
        .iter()
        .filter(|l| l.ends_with(",\"toolmendSynthetic\":true}"))
        .count();
    assert_eq!(marked, 2);
    check(&out).unwrap();
    assert_eq!(repair_with("p.jsonl", &out, &options), out);
}

#[test]
fn orphan_after_compaction_is_reported_and_kept() {
    let bytes = fixture("orphan.jsonl");
    let findings = api::findings("orphan.jsonl", &bytes);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].code, "TM002");
    assert!(findings[0].message.contains("unexpected `tool_use_id`"));
    assert!(findings[0].message.contains("silently drops this result"));
    // Kept by default; the drop policy removes the line and hangs the line below it from its
    // parent, so the parentUuid chain stays whole.
    assert!(findings[0].fix.is_some());
    assert_eq!(
        repair_with("orphan.jsonl", &bytes, &RepairOptions::default()),
        bytes
    );
    let drop = RepairOptions {
        orphans: OrphanPolicy::Drop,
        ..RepairOptions::default()
    };
    let out = repair_with("orphan.jsonl", &bytes, &drop);
    assert_eq!(lines(&out).len(), lines(&bytes).len() - 1);
    let below: Value = serde_json::from_str(lines(&out)[3]).unwrap();
    let was: Value = serde_json::from_str(lines(&bytes)[3]).unwrap();
    assert_eq!(below["parentUuid"], was["parentUuid"]);
    assert!(codes("orphan.jsonl", &out).is_empty());
    let note = RepairOptions {
        orphans: OrphanPolicy::Note,
        ..RepairOptions::default()
    };
    let out = repair_with("orphan.jsonl", &bytes, &note);
    assert_eq!(lines(&out).len(), lines(&bytes).len());
    let line: Value = serde_json::from_str(lines(&out)[3]).unwrap();
    let was: Value = serde_json::from_str(lines(&bytes)[3]).unwrap();
    assert_eq!(line["uuid"], was["uuid"]);
    assert_eq!(line["parentUuid"], was["parentUuid"]);
    let block = &line["message"]["content"][0];
    assert_eq!(block["type"], "text");
    assert!(block["text"].as_str().unwrap().contains("toolu_01GoneEdit"));
    assert!(codes("orphan.jsonl", &out).is_empty());
    assert_eq!(repair_with("orphan.jsonl", &out, &note), out);
}

#[test]
fn a_result_written_after_the_next_turn_is_resumed_in_chain_order() {
    // The line of one parallel result written last in the file: Claude Code 2.1.332 starts
    // at it, follows the newer lines that hang from it and resumes the whole history with
    // the result right after its call (docs/claude-code.md), so nothing is wrong.
    let text = String::from_utf8(fixture("parallel.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let moved = lines.remove(5);
    lines.push(moved);
    let bytes = lines.join("\n").into_bytes();
    let findings = api::findings("m.jsonl", &bytes);
    assert_eq!(findings, []);
    assert_eq!(repaired("m.jsonl", &bytes), bytes);
}

// ---- The public corpus ----------------------------------------------------------------

fn corpus_files() -> Vec<PathBuf> {
    let mut files = files::corpus("claude-code");
    files.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    files
}

#[test]
fn corpus_after_repair_follows_the_claude_code_rules() {
    for path in corpus_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let a = analyse(&name, &bytes);
        assert!(
            a.doc
                .conversations
                .iter()
                .all(|c| c.dialect == "claude-code"),
            "{name}"
        );
        let fixed = api::repair(&name, &bytes, &RepairOptions::default());
        if fixed.changed {
            assert!(
                check(&bytes).is_err(),
                "{name}: the checker misses the defect"
            );
        }
        check(&fixed.output).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(repaired(&name, &fixed.output), fixed.output, "{name}");
        // What is left is only what no repair can fix: calls and results without ids, and
        // uuids that do not identify lines.
        let left = codes(&name, &fixed.output);
        assert!(
            left.iter().all(|c| ["TM006", "TM012"].contains(c)),
            "{name}: {left:?}"
        );
        // (placeholders, lines re-parented): turn-1 ends with its dangling call; in
        // agent-sessions a system line hangs off the calling line.
        let (inserted, changed) = match name.as_str() {
            n if n.ends_with("incremental-subagents__turn-1.jsonl") => (1, 0),
            n if n.starts_with("agent-sessions") => (1, 1),
            _ => (0, 0),
        };
        assert_eq!(fixed.placeholders, inserted, "{name}");
        only_parent_changed(&bytes, &fixed.output, inserted, changed);
    }
}
