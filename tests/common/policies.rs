//! The repair policies the streamed repairs are compared under (JSON Lines, Claude Code
//! sessions, JSON documents): each must give what the whole-file repair gives under every one.

use toolmend::{DuplicatePolicy, OrphanPolicy, RepairOptions};

/// Each policy, named: the default, both orphan policies that change bytes, both duplicate
/// policies (the last with marked placeholders and a dropped torn tail).
pub fn all() -> Vec<(&'static str, RepairOptions)> {
    let base = RepairOptions::default();
    vec![
        ("default", base.clone()),
        (
            "orphans drop",
            RepairOptions {
                orphans: OrphanPolicy::Drop,
                ..base.clone()
            },
        ),
        (
            "orphans note",
            RepairOptions {
                orphans: OrphanPolicy::Note,
                ..base.clone()
            },
        ),
        (
            "keep-first",
            RepairOptions {
                duplicates: Some(DuplicatePolicy::KeepFirst),
                ..base.clone()
            },
        ),
        (
            "keep-last, marked, torn dropped",
            RepairOptions {
                duplicates: Some(DuplicatePolicy::KeepLast),
                mark_synthetic: true,
                drop_torn_tail: true,
                ..base.clone()
            },
        ),
    ]
}
