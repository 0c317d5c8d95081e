//! The rule table ([`TABLE`]): stable codes, names, severities, summaries and which fixes a
//! rule's findings can get. To add a rule, add a variant to [`Rule`] and a row to [`TABLE`].

use std::fmt;

/// A lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// TM001: a call that never got a result.
    DanglingToolCall,
    /// TM002: a result with no open call of its id.
    OrphanToolResult,
    /// TM003: a result outside its call's answer window.
    MisplacedToolResult,
    /// TM004: a second result for a call already answered.
    DuplicateToolResult,
    /// TM005: the same call id twice in one message, or reused in a later message where the
    /// provider wants ids unique in the request.
    DuplicateToolCallId,
    /// TM006: a call or result without an id, or a call without a tool name.
    MissingToolCallId,
    /// TM007: a line or document that is not valid JSON, or could not be read as a conversation.
    InvalidJson,
    /// TM008: a batch mixing an interrupting tool with direct siblings that would run twice.
    HitlDoubleExecutionRisk,
    /// TM009: a named file in which no conversation was found, or messages carrying tool keys
    /// that the dialect they were read as does not read: reported, never repaired.
    UnrecognizedLog,
    /// TM010: a Claude Code line whose `parentUuid` names no line of the file.
    MissingParent,
    /// TM011: a Claude Code line that is its own parent, or a cycle of parents.
    ParentCycle,
    /// TM012: two Claude Code lines with one `uuid`.
    DuplicateUuid,
    /// TM013: a result on the resumed Claude Code history whose call is off it (another
    /// branch, or before a compact boundary).
    SplitPair,
    /// TM014: a server tool result whose `server_tool_use` is not on the resumed history.
    OrphanServerToolResult,
    /// TM015: a stored record (e.g. a LangGraph checkpoint blob) toolmend cannot read.
    UnreadableRecord,
    /// TM016: a database another connection is writing to (write lock held, WAL growing).
    StoreBusy,
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look; the provider would accept it.
    Warning,
    /// The provider would reject the conversation.
    Error,
}

/// Whether a fix only adds or moves data (safe) or may delete or rewrite it (unsafe).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Adds data or moves whole results; applied by default.
    Safe,
    /// Deletes or rewrites content; applied only when a policy asks for it.
    Unsafe,
}

/// Which fixes a rule's findings can get. Whether one finding gets a fix, and which, is
/// decided per finding (see `lint::fix_for`): a rule with a safe fix may still have findings
/// that toolmend cannot fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixKinds {
    /// No finding of the rule is ever fixed.
    None,
    /// Fixes only add data or move whole results.
    Safe,
    /// Fixes delete or rewrite content, so they need a policy flag.
    Unsafe,
    /// Some findings get a safe fix, others an unsafe one.
    SafeOrUnsafe,
}

impl FixKinds {
    /// Whether a fix of `applicability` belongs to these kinds.
    pub fn allows(self, applicability: Applicability) -> bool {
        matches!(
            (self, applicability),
            (FixKinds::Safe | FixKinds::SafeOrUnsafe, Applicability::Safe)
                | (
                    FixKinds::Unsafe | FixKinds::SafeOrUnsafe,
                    Applicability::Unsafe
                )
        )
    }

    /// `none`, `safe`, `unsafe` or `safe/unsafe`, as `toolmend rules` prints it.
    pub fn label(self) -> &'static str {
        match self {
            FixKinds::None => "none",
            FixKinds::Safe => "safe",
            FixKinds::Unsafe => "unsafe",
            FixKinds::SafeOrUnsafe => "safe/unsafe",
        }
    }
}

/// One row of the rule table.
#[derive(Debug, Clone, Copy)]
pub struct RuleData {
    /// The rule this row describes (rows are in the order of [`Rule`]'s variants).
    pub rule: Rule,
    /// The stable code, e.g. `TM001`.
    pub code: &'static str,
    /// The kebab-case name, e.g. `dangling-tool-call`.
    pub name: &'static str,
    /// The default severity.
    pub severity: Severity,
    /// Which fixes its findings can get.
    pub fixes: FixKinds,
    /// One line on what the rule checks, for `toolmend rules`, SARIF and the README.
    pub summary: &'static str,
}

const fn row(
    rule: Rule,
    code: &'static str,
    name: &'static str,
    severity: Severity,
    fixes: FixKinds,
    summary: &'static str,
) -> RuleData {
    RuleData {
        rule,
        code,
        name,
        severity,
        fixes,
        summary,
    }
}

use FixKinds as F;
use Severity::{Error, Warning};

/// The rule table: every fact about a rule lives here, one row per rule in code order.
#[rustfmt::skip]
pub const TABLE: &[RuleData] = &[
    row(Rule::DanglingToolCall, "TM001", "dangling-tool-call", Error, F::Safe,
        "a tool call that never got a result"),
    row(Rule::OrphanToolResult, "TM002", "orphan-tool-result", Error, F::SafeOrUnsafe,
        "a tool result with no open call of its id"),
    row(Rule::MisplacedToolResult, "TM003", "misplaced-tool-result", Error, F::Safe,
        "a result outside its call's answer window"),
    row(Rule::DuplicateToolResult, "TM004", "duplicate-tool-result", Error, F::Unsafe,
        "a second result for an answered call"),
    row(Rule::DuplicateToolCallId, "TM005", "duplicate-tool-call-id", Error, F::Unsafe,
        "the same call id twice in one message, or reused where the provider wants unique ids"),
    row(Rule::MissingToolCallId, "TM006", "missing-tool-call-id", Error, F::None,
        "a call or result without an id, or an empty tool name"),
    row(Rule::InvalidJson, "TM007", "invalid-json", Error, F::None,
        "a line or document that is not valid JSON"),
    row(Rule::HitlDoubleExecutionRisk, "TM008", "hitl-double-execution-risk", Warning, F::None,
        "a batch whose direct siblings would re-run after an interrupt"),
    row(Rule::UnrecognizedLog, "TM009", "unrecognized-log", Error, F::None,
        "a named file with no conversation, or tool keys left unread"),
    row(Rule::MissingParent, "TM010", "missing-parent", Warning, F::None,
        "a Claude Code parentUuid that names no line"),
    row(Rule::ParentCycle, "TM011", "parent-cycle", Warning, F::None,
        "a Claude Code line that is its own ancestor"),
    // Only identical copies are fixed (safe); conflicting ones have no fix.
    row(Rule::DuplicateUuid, "TM012", "duplicate-uuid", Error, F::Safe,
        "two Claude Code lines with one uuid"),
    row(Rule::SplitPair, "TM013", "split-pair", Error, F::Unsafe,
        "a resumed Claude Code result whose call is off the resumed chain"),
    row(Rule::OrphanServerToolResult, "TM014", "orphan-server-tool-result", Error, F::Unsafe,
        "a server tool result without its server_tool_use"),
    row(Rule::UnreadableRecord, "TM015", "unreadable-record", Error, F::None,
        "a stored record toolmend cannot read (never guessed)"),
    row(Rule::StoreBusy, "TM016", "store-busy", Error, F::None,
        "a database another connection is writing to (not repaired)"),
];

impl Rule {
    /// Every rule, in code order.
    pub const ALL: [Rule; TABLE.len()] = {
        let mut all = [Rule::DanglingToolCall; TABLE.len()];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].rule;
            i += 1;
        }
        all
    };

    /// The rule's row in [`TABLE`].
    pub fn data(self) -> &'static RuleData {
        &TABLE[self as usize]
    }

    /// The stable code, e.g. `TM001`.
    pub fn code(self) -> &'static str {
        self.data().code
    }

    /// The kebab-case name, e.g. `dangling-tool-call`.
    pub fn name(self) -> &'static str {
        self.data().name
    }

    /// The default severity.
    pub fn severity(self) -> Severity {
        self.data().severity
    }

    /// Which fixes the rule's findings can get.
    pub fn fixes(self) -> FixKinds {
        self.data().fixes
    }

    /// One line on what the rule checks, for `--help` and the README.
    pub fn summary(self) -> &'static str {
        self.data().summary
    }

    /// Look a rule up by code (`TM001`) or name (`dangling-tool-call`), case-insensitively.
    pub fn from_selector(s: &str) -> Option<Rule> {
        Rule::ALL
            .into_iter()
            .find(|r| r.code().eq_ignore_ascii_case(s) || r.name().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Expand rule selectors: codes, names, prefixes such as `TM00`, or `ALL`.
pub fn select(selectors: &[String]) -> Result<Vec<Rule>, String> {
    let mut out = Vec::new();
    for s in selectors.iter().flat_map(|s| s.split(',')).map(str::trim) {
        if s.is_empty() {
            continue;
        }
        if s.eq_ignore_ascii_case("all") {
            out.extend(Rule::ALL);
            continue;
        }
        if let Some(r) = Rule::from_selector(s) {
            out.push(r);
            continue;
        }
        let by_prefix: Vec<_> = Rule::ALL
            .into_iter()
            .filter(|r| {
                r.code()
                    .to_ascii_uppercase()
                    .starts_with(&s.to_ascii_uppercase())
            })
            .collect();
        if by_prefix.is_empty() {
            return Err(format!(
                "unknown rule `{s}` (expected a code like TM001 or a name like dangling-tool-call)"
            ));
        }
        out.extend(by_prefix);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_variant_order_with_unique_codes_and_names() {
        // Codes follow one another with no gap: TM001, TM002, ...
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.rule as usize, i, "{} is out of place", row.code);
            assert_eq!(row.code, format!("TM{:03}", i + 1), "codes skip a number");
            assert!(
                row.code.len() == 5 && row.code.starts_with("TM"),
                "{}",
                row.code
            );
        }
        assert!(TABLE.windows(2).all(|w| w[0].code < w[1].code));
        let mut names: Vec<_> = TABLE.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
    }

    #[test]
    fn fix_kinds() {
        let safe: Vec<_> = Rule::ALL
            .into_iter()
            .filter(|r| r.fixes().allows(Applicability::Safe))
            .collect();
        assert_eq!(
            safe,
            [
                Rule::DanglingToolCall,
                Rule::OrphanToolResult,
                Rule::MisplacedToolResult,
                Rule::DuplicateUuid
            ]
        );
        assert!(!Rule::MissingToolCallId.fixes().allows(Applicability::Safe));
        assert!(
            Rule::DuplicateToolCallId
                .fixes()
                .allows(Applicability::Unsafe)
        );
        assert_eq!(Rule::OrphanToolResult.fixes().label(), "safe/unsafe");
    }

    #[test]
    fn selectors() {
        assert_eq!(
            select(&["TM001,orphan-tool-result".into()]).unwrap(),
            vec![Rule::DanglingToolCall, Rule::OrphanToolResult]
        );
        assert_eq!(select(&["tm00".into()]).unwrap().len(), 9);
        assert_eq!(select(&["tm01".into()]).unwrap().len(), 7);
        assert!(select(&["TM999".into()]).is_err());
    }
}
