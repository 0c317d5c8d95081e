//! The rule table: stable codes, names, severities and fix applicability.

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
    /// TM005: the same call id twice in one message.
    DuplicateToolCallId,
    /// TM006: a call or result without an id, or a call without a tool name.
    MissingToolCallId,
    /// TM007: a line or document that is not valid JSON, or could not be read as a conversation.
    InvalidJson,
    /// TM008: a batch mixing an interrupting tool with direct siblings that would run twice.
    HitlDoubleExecutionRisk,
    /// TM011: a Claude Code line whose `parentUuid` names no line of the file.
    MissingParent,
    /// TM012: a Claude Code line that is its own parent, or a cycle of parents.
    ParentCycle,
    /// TM013: two Claude Code lines with one `uuid`.
    DuplicateUuid,
    /// TM014: a result on the resumed Claude Code history whose call is off it (another
    /// branch, or before a compact boundary).
    SplitPair,
    /// TM015: a server tool result whose `server_tool_use` is not on the resumed history.
    OrphanServerToolResult,
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

impl Rule {
    /// Every rule, in code order.
    pub const ALL: [Rule; 13] = [
        Rule::DanglingToolCall,
        Rule::OrphanToolResult,
        Rule::MisplacedToolResult,
        Rule::DuplicateToolResult,
        Rule::DuplicateToolCallId,
        Rule::MissingToolCallId,
        Rule::InvalidJson,
        Rule::HitlDoubleExecutionRisk,
        Rule::MissingParent,
        Rule::ParentCycle,
        Rule::DuplicateUuid,
        Rule::SplitPair,
        Rule::OrphanServerToolResult,
    ];

    /// The stable code, e.g. `TM001`.
    pub fn code(self) -> &'static str {
        match self {
            Rule::DanglingToolCall => "TM001",
            Rule::OrphanToolResult => "TM002",
            Rule::MisplacedToolResult => "TM003",
            Rule::DuplicateToolResult => "TM004",
            Rule::DuplicateToolCallId => "TM005",
            Rule::MissingToolCallId => "TM006",
            Rule::InvalidJson => "TM007",
            Rule::HitlDoubleExecutionRisk => "TM008",
            Rule::MissingParent => "TM011",
            Rule::ParentCycle => "TM012",
            Rule::DuplicateUuid => "TM013",
            Rule::SplitPair => "TM014",
            Rule::OrphanServerToolResult => "TM015",
        }
    }

    /// The kebab-case name, e.g. `dangling-tool-call`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::DanglingToolCall => "dangling-tool-call",
            Rule::OrphanToolResult => "orphan-tool-result",
            Rule::MisplacedToolResult => "misplaced-tool-result",
            Rule::DuplicateToolResult => "duplicate-tool-result",
            Rule::DuplicateToolCallId => "duplicate-tool-call-id",
            Rule::MissingToolCallId => "missing-tool-call-id",
            Rule::InvalidJson => "invalid-json",
            Rule::HitlDoubleExecutionRisk => "hitl-double-execution-risk",
            Rule::MissingParent => "missing-parent",
            Rule::ParentCycle => "parent-cycle",
            Rule::DuplicateUuid => "duplicate-uuid",
            Rule::SplitPair => "split-pair",
            Rule::OrphanServerToolResult => "orphan-server-tool-result",
        }
    }

    /// The default severity.
    pub fn severity(self) -> Severity {
        match self {
            Rule::HitlDoubleExecutionRisk | Rule::MissingParent | Rule::ParentCycle => {
                Severity::Warning
            }
            _ => Severity::Error,
        }
    }

    /// The rule's fix by default applicability: safe (applied by `repair`), unsafe (needs a
    /// policy flag), or none.
    pub fn fix(self) -> Option<Applicability> {
        match self {
            // TM013: only identical copies have a fix.
            Rule::DanglingToolCall | Rule::MisplacedToolResult | Rule::DuplicateUuid => {
                Some(Applicability::Safe)
            }
            Rule::OrphanToolResult
            | Rule::DuplicateToolResult
            | Rule::DuplicateToolCallId
            | Rule::SplitPair
            | Rule::OrphanServerToolResult => Some(Applicability::Unsafe),
            Rule::MissingToolCallId
            | Rule::InvalidJson
            | Rule::HitlDoubleExecutionRisk
            | Rule::MissingParent
            | Rule::ParentCycle => None,
        }
    }

    /// One line on what the rule checks, for `--help` and the README.
    pub fn summary(self) -> &'static str {
        match self {
            Rule::DanglingToolCall => "a tool call that never got a result",
            Rule::OrphanToolResult => "a tool result with no open call of its id",
            Rule::MisplacedToolResult => "a result outside its call's answer window",
            Rule::DuplicateToolResult => "a second result for an answered call",
            Rule::DuplicateToolCallId => "the same call id twice in one message",
            Rule::MissingToolCallId => "a call or result without an id, or an empty tool name",
            Rule::InvalidJson => "a line or document that is not valid JSON",
            Rule::HitlDoubleExecutionRisk => {
                "a batch whose direct siblings would re-run after an interrupt"
            }
            Rule::MissingParent => "a Claude Code parentUuid that names no line",
            Rule::ParentCycle => "a Claude Code line that is its own ancestor",
            Rule::DuplicateUuid => "two Claude Code lines with one uuid",
            Rule::SplitPair => "a resumed Claude Code result whose call is off the resumed chain",
            Rule::OrphanServerToolResult => "a server tool result without its server_tool_use",
        }
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
    fn fixes_by_applicability() {
        let safe: Vec<_> = Rule::ALL
            .into_iter()
            .filter(|r| r.fix() == Some(Applicability::Safe))
            .collect();
        assert_eq!(
            safe,
            [
                Rule::DanglingToolCall,
                Rule::MisplacedToolResult,
                Rule::DuplicateUuid
            ]
        );
        assert_eq!(Rule::MissingToolCallId.fix(), None);
        assert_eq!(Rule::DuplicateToolCallId.fix(), Some(Applicability::Unsafe));
    }

    #[test]
    fn selectors() {
        assert_eq!(
            select(&["TM001,orphan-tool-result".into()]).unwrap(),
            vec![Rule::DanglingToolCall, Rule::OrphanToolResult]
        );
        assert_eq!(select(&["tm00".into()]).unwrap().len(), 8);
        assert_eq!(select(&["tm01".into()]).unwrap().len(), 5);
        assert!(select(&["TM999".into()]).is_err());
    }
}
