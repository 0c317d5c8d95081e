//! `plan_document` repairs a JSON document keeping only the messages its fixes need: its
//! output bytes, counts, fixes and edits must be exactly those of the whole-model repair,
//! over every document fixture and corpus document, under every repair policy and target,
//! and over generated documents; and its findings those of the whole analysis.

pub mod common;

use common::generate::*;
use proptest::prelude::*;
use toolmend::{NotPlanned, Options as LintOptions, PlannedDocument, Provider, RepairOptions};

/// Repair `bytes` both ways and require the same answer; `Err` says why it was not planned.
fn compare(
    name: &str,
    bytes: &[u8],
    lint: &LintOptions,
    options: &RepairOptions,
) -> Result<PlannedDocument, String> {
    let planned = match toolmend::plan_document(name, bytes, lint, options) {
        Ok(p) => p,
        Err(NotPlanned::Whole(why)) => return Err(why),
        Err(NotPlanned::Lines) => return Err("not one JSON document".into()),
    };
    let analysed = toolmend::analyse(name, bytes, lint);
    let whole = analysed.repair(bytes, options);
    let mut out = Vec::new();
    planned.write_to(bytes, &mut out).unwrap();
    assert!(
        out == whole.output,
        "{name}: planned output differs\n--- whole\n{}\n--- planned\n{}",
        String::from_utf8_lossy(&whole.output),
        String::from_utf8_lossy(&out)
    );
    let r = &planned.repaired;
    assert!(r.output.is_empty(), "{name}");
    assert_eq!(r.changed, whole.changed, "{name}");
    assert_eq!(r.placeholders, whole.placeholders, "{name}");
    assert_eq!(r.fixed, whole.fixed, "{name}");
    assert_eq!(r.fixed_later, whole.fixed_later, "{name}");
    assert_eq!(r.torn_tail, whole.torn_tail, "{name}");
    assert_eq!(r.edits, whole.edits, "{name}");
    assert_eq!(planned.lint.findings, analysed.findings(name), "{name}");
    assert_eq!(planned.lint.skippable, analysed.doc.skippable(), "{name}");
    Ok(planned)
}

/// The reasons a document may be repaired whole instead.
fn stated(why: &str) -> bool {
    why.contains("in each other's way") || why.contains("--reid renames")
}

#[test]
fn every_fixture_and_corpus_document_repairs_as_the_whole_model_does() {
    let files = common::files::all_with_extensions(&["json", "traj"]);
    assert!(files.len() > 50, "fixtures not found");
    let (mut planned, mut changed, mut refused) = (0, 0, Vec::new());
    // Repairs that kept fewer messages than the document holds.
    let mut fewer = 0;
    for path in &files {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        for target in [None, Some(Provider::OpenAi), Some(Provider::Anthropic)] {
            let lint = LintOptions {
                target,
                ..LintOptions::default()
            };
            for (policy, options) in common::policies::all() {
                match compare(&name, &bytes, &lint, &options) {
                    Ok(p) => {
                        planned += 1;
                        changed += usize::from(p.repaired.changed);
                        let messages: usize = p.lint.conversations.iter().map(|c| c.messages).sum();
                        fewer += usize::from(p.repaired.changed && p.kept < messages);
                        if std::env::var("SHOW").is_ok() && p.repaired.changed {
                            eprintln!("{name} {policy} kept {} of {messages}", p.kept);
                        }
                    }
                    Err(why) => refused.push(format!("{name} ({policy}): {why}")),
                }
            }
        }
    }
    assert!(
        planned >= 1000 && changed >= 200 && fewer >= 100,
        "{planned} planned, {changed} changed, {fewer} with fewer messages; refused:\n{}",
        refused.join("\n")
    );
    if std::env::var("SHOW").is_ok() {
        eprintln!(
            "{planned} planned, {changed} changed, {fewer} fewer; refused:\n{}",
            refused.join("\n")
        );
    }
    for why in &refused {
        assert!(stated(why), "{why}");
    }
}

#[test]
fn options_that_need_the_whole_document_are_refused_with_the_reason() {
    let bytes = long_chat(3, 1);
    let deerflow = LintOptions {
        deerflow: true,
        ..LintOptions::default()
    };
    let why = toolmend::plan_document("d.json", &bytes, &deerflow, &RepairOptions::default())
        .unwrap_err();
    assert!(why.to_string().contains("deerflow"), "{why}");
    let lines = b"{\"role\": \"user\", \"content\": \"hi\"}\n{\"role\": \"assistant\", \"content\": \"yo\"}\n";
    let not = toolmend::plan_document(
        "t.jsonl",
        lines,
        &LintOptions::default(),
        &RepairOptions::default(),
    )
    .unwrap_err();
    assert_eq!(not, NotPlanned::Lines);
}

/// An OpenAI chat document of `turns` turns in which turn `broken` leaves its call dangling.
fn long_chat(turns: usize, broken: usize) -> Vec<u8> {
    let mut msgs = Vec::new();
    for t in 0..turns {
        msgs.push(format!(
            "    {{\"role\": \"user\", \"content\": \"turn {t}\"}}"
        ));
        msgs.push(format!("    {{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{{\"id\": \"c{t}\", \"type\": \"function\", \"function\": {{\"name\": \"f\", \"arguments\": \"{{}}\"}}}}]}}"));
        if t != broken {
            msgs.push(format!(
                "    {{\"role\": \"tool\", \"tool_call_id\": \"c{t}\", \"content\": \"r{t}\"}}"
            ));
        }
    }
    format!(
        "{{\n  \"model\": \"m\",\n  \"messages\": [\n{}\n  ]\n}}\n",
        msgs.join(",\n")
    )
    .into_bytes()
}

#[test]
fn only_the_messages_a_fix_needs_are_kept() {
    let bytes = long_chat(5000, 3000);
    let planned = compare(
        "long.json",
        &bytes,
        &LintOptions::default(),
        &RepairOptions::default(),
    )
    .unwrap();
    assert_eq!(planned.repaired.placeholders, 1);
    // The calling message and the one after it, and the first result (the placeholder's
    // model): not the 14,999 messages.
    assert_eq!(planned.kept, 3, "{}", planned.kept);
}

#[test]
fn the_command_repairs_a_document_as_the_library_does_to_every_target() {
    use common::bin::run;
    let dir = tempfile::tempdir().unwrap();
    let bytes = long_chat(2000, 700);
    let whole = toolmend::repair(
        "doc.json",
        &bytes,
        &LintOptions::default(),
        &RepairOptions::default(),
    );
    assert!(whole.changed);
    let doc = dir.path().join("doc.json");
    std::fs::write(&doc, &bytes).unwrap();
    let o = run(dir.path(), &["repair", "doc.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
    assert!(o.stdout == whole.output);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("Injecting 1 placeholder tool result(s)"),
        "{stderr}"
    );
    let o = run(dir.path(), &["repair", "doc.json", "-o", "out.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
    assert!(std::fs::read(dir.path().join("out.json")).unwrap() == whole.output);
    let o = run(dir.path(), &["repair", "--check", "doc.json"]);
    assert_eq!(o.status.code(), Some(1));
    // A pretty document saved as `.jsonl` is repaired as the document it is.
    std::fs::write(dir.path().join("doc.jsonl"), &bytes).unwrap();
    let o = run(dir.path(), &["repair", "doc.jsonl"]);
    assert!(o.stdout == whole.output, "{}", common::bin::text(&o));
    let o = run(dir.path(), &["repair", "--in-place", "doc.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
    assert!(std::fs::read(&doc).unwrap() == whole.output);
    let o = run(dir.path(), &["repair", "--check", "doc.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::bin::text(&o));
}

/// Several generated conversations as one long message list.
fn joined(convs: Vec<(Vec<Msg>, Vec<Break>)>) -> Vec<Msg> {
    convs.into_iter().flat_map(|(m, b)| apply(m, &b)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn generated_documents(
        convs in prop::collection::vec((valid_conversation(), breaks()), 1..6),
        l in layout(),
        policy in 0usize..5,
        target in prop::sample::select(vec![None, Some(Provider::OpenAi), Some(Provider::Anthropic)]),
    ) {
        let l = Layout { lines: false, ..l };
        let bytes = render_doc(&joined(convs), &l);
        let (_, options) = common::policies::all().swap_remove(policy);
        let lint = LintOptions { target, ..LintOptions::default() };
        if let Err(why) = compare("log.json", &bytes, &lint, &options) {
            prop_assert!(stated(&why), "{why}");
        }
    }
}

#[test]
fn a_large_document_repaired_with_the_whole_model_says_why() {
    use common::bin::run;
    // Call ids reused across turns, re-id'd for Anthropic (ids unique in the request): each
    // renamed call takes the first result of its id after it, wherever that is.
    let mut msgs = Vec::new();
    let mut size = 0;
    let mut t = 0;
    while size < 17 << 20 {
        let m = [
            format!(
                "{{\"role\": \"user\", \"content\": \"{t} {}\"}}",
                "y".repeat(400)
            ),
            format!(
                "{{\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{{\"id\": \"c{}\", \"type\": \"function\", \"function\": {{\"name\": \"f\", \"arguments\": \"{{}}\"}}}}]}}",
                t % 5
            ),
            format!(
                "{{\"role\": \"tool\", \"tool_call_id\": \"c{}\", \"content\": \"r\"}}",
                t % 5
            ),
        ];
        size += m.iter().map(String::len).sum::<usize>();
        msgs.extend(m);
        t += 1;
    }
    let bytes = format!("{{\"messages\": [\n{}\n]}}\n", msgs.join(",\n")).into_bytes();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("doc.json"), &bytes).unwrap();
    let args = ["--target", "anthropic", "--duplicate-ids", "re-id"];
    let o = run(
        dir.path(),
        &[&["repair", "--check"][..], &args, &["doc.json"]].concat(),
    );
    let text = common::bin::text(&o);
    assert!(
        text.contains("doc.json: repaired with a model of every message (--reid renames a reused call id across the whole conversation): memory grows with the file"),
        "{text}"
    );
    // Without re-id, nothing needs the whole model: nothing said.
    let o = run(dir.path(), &["repair", "--check", "doc.json"]);
    assert!(!common::bin::text(&o).contains("model of every message"));
}
