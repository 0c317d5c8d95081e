//! The streaming lint and the lint of a JSON document skim an OpenAI chat conversation whose
//! pairing is plainly clean instead of reading it into messages (`Dialect::skim`). A skim must
//! never call clean what the walk finds a defect in, nor count differently: generated
//! conversations, clean and broken in every way the skim looks at, give the same findings,
//! counts and statistics streamed or linted as a document (skimmed) as analysed whole (always
//! walked).

pub mod common;

use common::generate::cases;
use proptest::prelude::*;
use toolmend::Options as LintOptions;

/// A small deterministic generator (xorshift), so that one seed gives one file; and whether
/// the conversation being drawn may depart from plain pairing.
struct Draw(u64, bool);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A departure numbered below `n` for a flawed conversation (`n` and above are none).
    fn flaw(&mut self, n: usize) -> usize {
        if self.1 { self.below(n) } else { n }
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// One conversation as JSON text: turns of an assistant message with calls and its tool run,
/// with now and then one of the departures from plain pairing the skim must notice.
fn conversation(d: &mut Draw, conv: usize) -> String {
    d.1 = d.one_in(2);
    let mut msgs: Vec<String> = vec![r#"{"role":"system","content":"be brief"}"#.into()];
    let mut ids: Vec<String> = Vec::new();
    for turn in 0..1 + d.below(4) {
        msgs.push(r#"{"role":"user","content":"go on"}"#.into());
        let n = d.below(4);
        let mut calls = Vec::new();
        let mut answers = Vec::new();
        for i in 0..n {
            let mut id = format!("call_{conv}_{turn}_{i}");
            let mut escaped = false;
            match d.flaw(30) {
                0 if !ids.is_empty() => id = ids[d.below(ids.len())].clone(),
                1 => id = String::new(),
                2 => escaped = true,
                3..=5 if i > 0 => id = ids[ids.len() - 1].clone(),
                _ => {}
            }
            // The same id, as the call writes it.
            let written = match escaped {
                true => id.replacen('_', "\\u005f", 1),
                false => id.clone(),
            };
            ids.push(id.clone());
            let name = match d.flaw(25).min(6 + d.below(3)) {
                0 => r#""function":{"arguments":"{}"}"#.to_string(),
                1 => r#""function":{"name":"","arguments":"{}"}"#.to_string(),
                2 => r#""function":{"name":7}"#.to_string(),
                3 => r#""custom":{"name":"grep"}"#.to_string(),
                4 => r#""name":"look""#.to_string(),
                5 => r#""function":{"name":"r\u00e9sum\u00e9"}"#.to_string(),
                6 => r#""function":{"name":"résumé"}"#.to_string(),
                k => format!(
                    r#""function":{{"name":"tool{}","arguments":"{{}}"}}"#,
                    k % 3
                ),
            };
            let call = match d.flaw(40) {
                0 => "17".to_string(),
                1 => format!(r#"{{"type":"function",{name}}}"#),
                2 => format!(r#"{{"id":5,"type":"function",{name}}}"#),
                _ => format!(r#"{{"id":"{written}","type":"function",{name}}}"#),
            };
            calls.push(call);
            answers.push(format!(
                r#"{{"role":"tool","tool_call_id":"{id}","content":"ok"}}"#
            ));
        }
        let role = match d.flaw(20) {
            0 => "ai",
            1 => "model",
            2 => "user",
            3 => "\\u0061ssistant",
            _ => "assistant",
        };
        let assistant = match (n, d.flaw(12)) {
            (0, 0) => r#"{"role":"assistant","content":"hi","tool_calls":[]}"#.to_string(),
            (0, 1) => r#"{"role":"assistant","content":"hi","tool_calls":null}"#.to_string(),
            (0, _) => r#"{"role":"assistant","content":"hi"}"#.to_string(),
            (_, 2) => format!(
                r#"{{"role":"{role}","tool_calls":[{}],"function_call":{{"name":"x"}}}}"#,
                calls.join(",")
            ),
            (_, 3) => format!(r#"{{"role":"{role}","tool_calls":{{"a":1}}}}"#),
            _ => format!(r#"{{"role":"{role}","tool_calls":[{}]}}"#, calls.join(",")),
        };
        msgs.push(assistant);
        // The tool run, in any order, with a result now and then lost, doubled or moved.
        for k in (1..answers.len()).rev() {
            answers.swap(k, d.below(k + 1));
        }
        let mut later = Vec::new();
        for a in answers {
            match d.flaw(30) {
                0 => {}
                1 => {
                    msgs.push(a.clone());
                    msgs.push(a);
                }
                2 => later.push(a),
                3 => msgs.push(a.replace(r#""role":"tool""#, r#""role":"t\u006fol""#)),
                4 => msgs.push(a.replace(
                    r#","content""#,
                    r#","tool_calls":[{"id":"x9","type":"function","function":{"name":"f"}}],"content""#,
                )),
                5 => msgs.push(a.replace(r#""role":"tool","#, "")),
                _ => msgs.push(a),
            }
        }
        match d.flaw(25) {
            0 => msgs.push(r#"{"role":"user","tool_call_id":"call_0_0_0","content":"x"}"#.into()),
            1 => msgs.push("42".into()),
            2 => msgs.push(r#"{"role":"tool","content":"no id"}"#.into()),
            3 => msgs.push(
                r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}"#
                    .into(),
            ),
            4 if !ids.is_empty() => msgs.push(format!(
                r#"{{"role":"tool","tool_call_id":"{}","content":"again"}}"#,
                ids[d.below(ids.len())]
            )),
            _ => {}
        }
        msgs.push(r#"{"role":"assistant","content":"done"}"#.into());
        msgs.extend(later);
    }
    // Now and then the last call of all is left unanswered at the very end.
    if d.flaw(8) == 0 {
        msgs.push(
            r#"{"role":"assistant","tool_calls":[{"id":"last","type":"function","function":{"name":"f"}}]}"#
                .into(),
        );
    }
    if d.one_in(10) {
        format!("[{}]", msgs.join(","))
    } else {
        format!(r#"{{"messages":[{}]}}"#, msgs.join(","))
    }
}

/// A file of one conversation per line.
fn file(seed: u64) -> Vec<u8> {
    let mut d = Draw(seed | 1, false);
    let mut out = String::new();
    for conv in 0..1 + d.below(12) {
        out.push_str(&conversation(&mut d, conv));
        out.push('\n');
    }
    out.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    #[test]
    fn a_skimmed_conversation_counts_as_its_walk(seed in any::<u64>()) {
        let bytes = file(seed);
        let options = LintOptions::default();
        let whole = toolmend::analyse("t.jsonl", &bytes, &options);
        let streamed = toolmend::lint_lines("t.jsonl", std::io::Cursor::new(&bytes), &options).unwrap();
        prop_assert_eq!(whole.findings("t.jsonl"), streamed.findings);
        prop_assert_eq!(whole.doc.conversations.len(), streamed.conversations);
        prop_assert_eq!(whole.calls_checked, streamed.calls_checked);
        prop_assert_eq!(whole.tool_stats(), streamed.stats);
        // `--explain-detection`: a skimmed conversation is described as a read one is.
        let described: Vec<String> = whole
            .doc
            .conversations
            .iter()
            .map(|c| format!("`{}`: {} ({} messages) — {}", c.pointer, c.dialect, c.messages.len(), c.detection))
            .collect();
        prop_assert_eq!(described, streamed.detections);
    }
}

/// The conversations of `file(seed)` as one JSON document: a list of them, or of records
/// holding them.
fn document(seed: u64) -> Vec<u8> {
    let lines = file(seed);
    let convs: Vec<&[u8]> = lines
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = b"[".to_vec();
    for (k, conv) in convs.iter().enumerate() {
        if k > 0 {
            out.extend_from_slice(b",\n");
        }
        let record = seed.is_multiple_of(3);
        if record {
            out.extend_from_slice(b"{\"task\":1,\"traj\":");
        }
        out.extend_from_slice(conv);
        if record {
            out.push(b'}');
        }
    }
    out.extend_from_slice(b"]\n");
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn a_skimmed_conversation_of_a_document_counts_as_its_walk(seed in any::<u64>()) {
        let bytes = document(seed);
        let options = LintOptions::default();
        let whole = toolmend::analyse("t.json", &bytes, &options);
        let doc = toolmend::lint_document("t.json", &bytes, &options).unwrap();
        prop_assert_eq!(whole.findings("t.json"), doc.findings);
        let messages: Vec<usize> = whole.doc.conversations.iter().map(|c| c.messages.len()).collect();
        prop_assert_eq!(messages, doc.conversations.iter().map(|c| c.messages).collect::<Vec<_>>());
        prop_assert_eq!(whole.calls_checked, doc.calls_checked);
        prop_assert_eq!(whole.tool_stats(), doc.stats);
    }
}

/// The generator reaches both sides: conversations the skim takes and ones it leaves to the
/// walk, clean and broken (a test that only ever walked would prove nothing).
#[test]
fn the_generated_files_hold_clean_and_broken_conversations() {
    let (mut clean, mut broken) = (0, 0);
    for seed in 0..200 {
        let bytes = file(seed);
        let streamed = toolmend::lint_lines(
            "t.jsonl",
            std::io::Cursor::new(&bytes),
            &LintOptions::default(),
        )
        .unwrap();
        let lines = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        let flagged: std::collections::BTreeSet<_> =
            streamed.findings.iter().map(|f| f.line).collect();
        broken += flagged.len();
        clean += lines - flagged.len();
    }
    assert!(
        clean > 300 && broken > 300,
        "clean {clean}, broken {broken}"
    );
}
