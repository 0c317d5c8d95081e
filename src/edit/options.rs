//! The options of a repair that dialects read while they write a fix.

/// The default placeholder text (DeerFlow's, so logs repaired by either read alike).
pub const SEED_PLACEHOLDER: &str = "[Tool call was interrupted and did not return a result.]";

/// What to do with orphan results (TM002).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrphanPolicy {
    /// Leave them (default).
    #[default]
    Keep,
    /// Delete them (unsafe).
    Drop,
    /// Turn them into a plain note that keeps their content (unsafe).
    Note,
}

/// Which of several results for one call to keep (TM004).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicatePolicy {
    /// Keep the first result, drop the later ones.
    KeepFirst,
    /// Keep the last result, in the place of the first.
    KeepLast,
}

/// Options of a repair.
#[derive(Debug, Clone)]
pub struct RepairOptions {
    /// Placeholder text template (`{id}`, `{name}`).
    pub placeholder: String,
    /// Add a synthetic marker field where the dialect allows extra fields.
    pub mark_synthetic: bool,
    /// Orphan policy.
    pub orphans: OrphanPolicy,
    /// Duplicate-result policy (`None`: leave duplicates).
    pub duplicates: Option<DuplicatePolicy>,
    /// Give a later duplicate call id (TM005) a new deterministic id, with its result.
    pub reid: bool,
    /// Seed compatibility: placeholders right after the calling message, before its results.
    pub before_results: bool,
    /// Remove a JSON Lines file's torn final line (unsafe; `--truncated drop`). A torn line
    /// anywhere else is never removed.
    pub drop_torn_tail: bool,
}

impl Default for RepairOptions {
    fn default() -> Self {
        RepairOptions {
            placeholder: SEED_PLACEHOLDER.to_string(),
            mark_synthetic: false,
            orphans: OrphanPolicy::Keep,
            duplicates: None,
            reid: false,
            before_results: false,
            drop_torn_tail: false,
        }
    }
}
