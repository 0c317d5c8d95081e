//! libFuzzer target: any bytes, read as JSON and as JSON Lines, analysed, rendered and
//! repaired. Nothing may panic; the safe repair only inserts when no result has to move, and
//! leaves an input with nothing safely fixable unchanged.

#![no_main]

use libfuzzer_sys::fuzz_target;
use toolmend::render::{self, Totals};
use toolmend::{Applicability, Options as LintOptions, OrphanPolicy, RepairOptions};

fuzz_target!(|bytes: &[u8]| {
    for name in ["log.json", "log.jsonl"] {
        let a = toolmend::analyse(name, bytes, &LintOptions::default());
        let findings = a.findings(name);
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
        let r = a.repair(bytes, &RepairOptions::default());
        let fixable = findings.iter().any(|f| {
            f.fix
                .as_ref()
                .is_some_and(|x| x.applicability == Applicability::Safe)
        });
        if !fixable {
            assert_eq!(r.output, bytes, "changed with nothing safely fixable");
        }
        // A result moves only for TM003, or for TM002 whose safe fix is a move.
        let moves = findings.iter().any(|f| {
            f.code == "TM003"
                || (f.code == "TM002"
                    && f.fix
                        .as_ref()
                        .is_some_and(|x| x.applicability == Applicability::Safe))
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
        let _ = a.repair(bytes, &unsafe_policy);
    }
});
