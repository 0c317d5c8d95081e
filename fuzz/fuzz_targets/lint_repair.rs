//! libFuzzer target: any bytes, read as JSON and as JSON Lines, analysed, rendered and
//! repaired. Nothing may panic; the safe repair only inserts when no result has to move, and
//! leaves an input with nothing safely fixable unchanged.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolmend::analysis::Defect;
use toolmend::lint::{self, LintOptions};
use toolmend::render::{self, Totals};
use toolmend::repair::{self, OrphanPolicy, RepairOptions};
use toolmend::rules::Applicability;

fuzz_target!(|bytes: &[u8]| {
    for name in ["log.json", "log.jsonl"] {
        let a = lint::analyse(name, bytes, &LintOptions::default());
        let findings = lint::findings(name, &a);
        let mut out = Vec::new();
        render::findings(
            render::Format::Human,
            &findings,
            &Totals::default(),
            false,
            false,
            &mut out,
        )
        .unwrap();
        assert!(!out.contains(&0x1b), "ESC reached the terminal");
        let r = repair::document(bytes, &a, &RepairOptions::default());
        let fixable = findings.iter().any(|f| {
            f.fix
                .as_ref()
                .is_some_and(|x| x.applicability == Applicability::Safe)
        });
        if !fixable {
            assert_eq!(r.output, bytes, "changed with nothing safely fixable");
        }
        let moves = a.defects.iter().flatten().any(|d| {
            matches!(
                d,
                Defect::Misplaced { .. }
                    | Defect::Orphan {
                        later_call: Some(_),
                        ..
                    }
            )
        });
        if !moves {
            let mut it = r.output.iter();
            assert!(
                bytes.iter().all(|b| it.any(|c| c == b)),
                "safe repair lost bytes"
            );
        }
        let unsafe_policy = RepairOptions {
            orphans: OrphanPolicy::Note,
            reid: true,
            ..RepairOptions::default()
        };
        let _ = repair::document(bytes, &a, &unsafe_policy);
    }
});
