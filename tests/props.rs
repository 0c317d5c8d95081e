//! Property tests: valid OpenAI-chat and LangChain conversations, as JSON documents and JSON
//! Lines in several layouts, broken in random ways (results dropped, moved, duplicated, ids
//! reused, the run truncated), then repaired with the default (safe) policy.
//!
//! What the safe repair promises, stated precisely:
//! 1. a valid conversation is left byte-for-byte alone, and lint finds nothing in it;
//! 2. repair is idempotent and deterministic;
//! 3. every original message is still there, byte for byte, as often as before (a move takes
//!    a result out of its old place and puts the same bytes in its window); the only new
//!    messages are placeholders;
//! 4. when no result has to move (no TM003, no result before its call), the original bytes
//!    are a subsequence of the output: repair only inserted;
//! 5. after repair, lint finds no dangling (TM001) or misplaced (TM003) result;
//! 6. inserted results follow the document's own layout: repairing a log whose calls dangle
//!    gives exactly the bytes the generator writes for the log with the placeholders in it
//!    (indentation, separators, key order, line ends, final newline).
//!
//! Case counts are modest (`PROPTEST_CASES` raises them).

pub mod common;

use common::generate::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(128)))]

    #[test]
    fn valid_logs_are_clean_and_untouched(msgs in valid_conversation(), l in layout()) {
        let bytes = render_doc(&msgs, &l);
        let name = file_name(&l);
        let a = analyse(name, &bytes);
        prop_assert_eq!(a.doc.conversations.len(), 1);
        prop_assert_eq!(a.doc.conversations[0].messages.len(), msgs.len());
        prop_assert!(codes(name, &a).is_empty(), "{:?}\n{}", codes(name, &a), String::from_utf8_lossy(&bytes));
        let r = repair(&bytes, &a);
        prop_assert!(!r.changed);
        prop_assert_eq!(r.output, bytes);
    }

    #[test]
    fn safe_repair_keeps_bytes_and_is_idempotent(
        msgs in valid_conversation(),
        broken in breaks(),
        l in layout(),
    ) {
        let msgs = apply(msgs, &broken);
        let bytes = render_doc(&msgs, &l);
        let name = file_name(&l);
        let a = analyse(name, &bytes);
        let r = repair(&bytes, &a);
        let shown = || format!(
            "before:\n{}\nafter:\n{}",
            String::from_utf8_lossy(&bytes),
            String::from_utf8_lossy(&r.output)
        );

        // 2. Idempotent and deterministic.
        let a2 = analyse(name, &r.output);
        let r2 = repair(&r.output, &a2);
        prop_assert!(!r2.changed, "second repair changed more\n{}", shown());
        prop_assert_eq!(&repair(&bytes, &analyse(name, &bytes)).output, &r.output);

        // 3. Every original message kept, as often as before; the new ones are placeholders.
        let before = message_bytes(&bytes, &a);
        let after = message_bytes(&r.output, &a2);
        let mut extra = after.clone();
        for m in &before {
            let at = extra.iter().position(|x| x == m);
            prop_assert!(at.is_some(), "lost {}\n{}", String::from_utf8_lossy(m), shown());
            extra.remove(at.unwrap());
        }
        prop_assert_eq!(extra.len(), r.placeholders, "{}", shown());
        for m in &extra {
            prop_assert!(
                String::from_utf8_lossy(m).contains("[Tool call was interrupted and did not return a result.]"),
                "unexpected new message {}", String::from_utf8_lossy(m)
            );
        }

        // 4. Without moves, repair only inserts.
        if !needs_moves(&a) {
            prop_assert!(is_subsequence(&bytes, &r.output), "bytes lost\n{}", shown());
        }

        // 5. No dangling or misplaced result left.
        let left: Vec<_> = codes(name, &a2)
            .into_iter()
            .filter(|c| *c == "TM001" || *c == "TM003")
            .collect();
        prop_assert!(left.is_empty(), "{:?} after repair\n{}", left, shown());
    }

    #[test]
    fn placeholders_follow_the_layout_of_the_document(
        msgs in valid_conversation(),
        broken in dangling_breaks(),
        l in layout(),
    ) {
        let msgs = apply(msgs, &broken);
        let bytes = render_doc(&msgs, &l);
        let name = file_name(&l);
        let r = repair(&bytes, &analyse(name, &bytes));
        let expected = render_doc(&with_placeholders(&msgs), &l);
        prop_assert!(
            r.output == expected,
            "got:\n{}\nexpected:\n{}",
            String::from_utf8_lossy(&r.output),
            String::from_utf8_lossy(&expected)
        );
    }

    #[test]
    fn a_truncated_final_line_is_reported_and_kept(
        msgs in valid_conversation(),
        l in layout(),
        cut in 1usize..40,
    ) {
        let l = Layout { lines: true, final_newline: false, ..l };
        let full = render_doc(&msgs, &l);
        let last_line = full.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let keep = full.len() - cut.min(full.len() - last_line - 1);
        let bytes = &full[..keep];
        let a = analyse("log.jsonl", bytes);
        prop_assert_eq!(a.doc.problems.len(), 1);
        prop_assert_eq!(a.doc.problems[0].line, msgs.len());
        let r = repair(bytes, &a);
        prop_assert!(is_subsequence(bytes, &r.output));
        prop_assert!(r.output.ends_with(&bytes[last_line..]), "the cut line stays last");
        prop_assert!(!repair(&r.output, &analyse("log.jsonl", &r.output)).changed);
    }
}

/// Found by the properties above: adjacent results moved out of the head of an array have
/// overlapping separators, so one round cannot move both; the repair goes on until done.
#[test]
fn adjacent_moves_out_of_the_head_of_an_array() {
    let bytes = br#"[{"role":"tool","tool_call_id":"a","content":"1"},{"role":"tool","tool_call_id":"b","content":"2"},{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f"}},{"id":"b","function":{"name":"f"}}]},{"role":"user","content":"next"}]"#;
    let a = analyse("log.json", bytes);
    assert_eq!(codes("log.json", &a), ["TM002", "TM002"]);
    let r = repair(bytes, &a);
    // One in the first round, the other in the second.
    assert_eq!(r.fixed.iter().map(Vec::len).sum::<usize>(), 1);
    assert_eq!(r.fixed_later, 1);
    let after = analyse("log.json", &r.output);
    assert!(
        codes("log.json", &after).is_empty(),
        "{}",
        String::from_utf8_lossy(&r.output)
    );
    assert!(!repair(&r.output, &after).changed);
}

/// Found by the properties above: a result before its call, when the call is also answered in
/// its own window, is a stray copy (TM002 without a safe fix), not a result to move.
#[test]
fn an_early_copy_of_an_answered_result_is_not_moved() {
    let bytes = br#"[{"role":"tool","tool_call_id":"a","content":"early"},{"role":"user","content":"go"},{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f"}}]},{"role":"tool","tool_call_id":"a","content":"ok"}]"#;
    let a = analyse("log.json", bytes);
    let f = a.findings("log.json");
    assert_eq!(f.len(), 1);
    assert!(f[0].message.contains("answers no call"), "{}", f[0].message);
    assert!(!repair(bytes, &a).changed);
}

/// Found by seed exploration on generated Codex rollouts: an output written before its call,
/// when a later call of the same run reuses the call's id, was moved after the run's last
/// output, where it answers the later call; the earlier call then dangled and a second repair
/// inserted a placeholder for it. The output now goes right after its call, as a placeholder
/// does in that case, and the repair is a fixed point (Codex rollout lines and a Responses
/// item list).
#[test]
fn an_early_output_moves_before_a_later_call_that_reuses_its_id() {
    let line = |payload: &str| {
        format!(
            r#"{{"timestamp":"2026-03-01T09:00:02.000Z","type":"response_item","payload":{payload}}}"#
        )
    };
    let early = r#"{"type":"function_call_output","call_id":"c1","output":"early"}"#;
    let call = r#"{"type":"function_call","name":"f","arguments":"{}","call_id":"c1"}"#;
    let other = r#"{"type":"function_call_output","call_id":"c2","output":"done"}"#;
    let rollout = [early, call, call, other].map(line).join("\n") + "\n";
    let items = format!("[{early},\n{call},\n{call},\n{other}]\n");
    let cases = [
        (
            "rollout.jsonl",
            rollout,
            format!("{}\n{}\n", line(call), line(early)),
        ),
        ("items.json", items, format!("{call},\n{early},\n")),
    ];
    for (name, bytes, moved) in cases {
        let a = analyse(name, bytes.as_bytes());
        let r = repair(bytes.as_bytes(), &a);
        let text = String::from_utf8_lossy(&r.output);
        assert!(r.changed, "{name}");
        assert!(
            text.contains(&moved),
            "{name}: not moved next to its call\n{text}"
        );
        let again = repair(&r.output, &analyse(name, &r.output));
        assert!(
            !again.changed,
            "{name}: a second repair changed more\n{text}"
        );
    }
}
