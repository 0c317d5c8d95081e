//! The scheduling strategies a batch replay is compared under.

use std::fmt;
use std::str::FromStr;

/// How the tools node schedules a batch and what it remembers between passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// One `Promise.all` over every direct call (the runtime without the PR's guard).
    Unguarded,
    /// Guarded direct calls run first as their own group; the rest start only if none of
    /// them interrupted (`interruptingToolNames`).
    Guarded,
    /// Every call is its own task with its own interrupt counter; a task that completed is
    /// never re-run on resume (LangGraph `Send` fan-out).
    SendPerCall,
    /// Unguarded, plus direct results that completed in an earlier pass are reused on a
    /// resume in the same process.
    UnguardedCached,
    /// Guarded, plus the same in-process cache of completed direct results.
    GuardedCached,
}

impl Strategy {
    /// Every strategy, in the order reports list them.
    pub const ALL: [Strategy; 5] = [
        Strategy::Unguarded,
        Strategy::Guarded,
        Strategy::SendPerCall,
        Strategy::UnguardedCached,
        Strategy::GuardedCached,
    ];

    /// What `simulate` compares when no strategy is asked for: unguarded and guarded.
    pub const DEFAULT: [Strategy; 2] = [Strategy::Unguarded, Strategy::Guarded];

    /// The strategy's name as used on the command line and as a JSON key.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Unguarded => "unguarded",
            Strategy::Guarded => "guarded",
            Strategy::SendPerCall => "send-per-call",
            Strategy::UnguardedCached => "unguarded-cached",
            Strategy::GuardedCached => "guarded-cached",
        }
    }

    /// Whether guarded direct calls run as their own group first.
    pub fn is_guarded(self) -> bool {
        matches!(self, Strategy::Guarded | Strategy::GuardedCached)
    }

    /// Whether completed direct results are reused on a resume in the same process.
    pub fn is_cached(self) -> bool {
        matches!(self, Strategy::UnguardedCached | Strategy::GuardedCached)
    }

    /// Parse a comma-separated list such as `unguarded,guarded`, or `all`. Order is kept,
    /// repeats are dropped, blanks around names are ignored.
    pub fn parse_list(list: &str) -> Result<Vec<Strategy>, StrategyError> {
        let mut out = Vec::new();
        for part in list.split(',').map(str::trim) {
            if part.is_empty() {
                return Err(StrategyError::Empty(list.to_string()));
            }
            let parsed: Vec<Strategy> = if part == "all" {
                Strategy::ALL.to_vec()
            } else {
                vec![part.parse()?]
            };
            for s in parsed {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        Ok(out)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A strategy name or list that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrategyError {
    /// A name that is not one of [`Strategy::ALL`] (nor `all` in a list).
    #[error(
        "unknown strategy `{0}` (expected unguarded, guarded, send-per-call, unguarded-cached, guarded-cached or all)"
    )]
    Unknown(String),
    /// An empty list, or an empty item between commas.
    #[error("empty strategy name in `{0}`")]
    Empty(String),
}

impl FromStr for Strategy {
    type Err = StrategyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL
            .into_iter()
            .find(|strategy| strategy.name() == s)
            .ok_or_else(|| StrategyError::Unknown(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(s.to_string().parse::<Strategy>(), Ok(s));
        }
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "unguarded",
                "guarded",
                "send-per-call",
                "unguarded-cached",
                "guarded-cached"
            ]
        );
    }

    #[test]
    fn lists_keep_order_and_drop_repeats() {
        assert_eq!(
            Strategy::parse_list("guarded, unguarded,guarded").unwrap(),
            vec![Strategy::Guarded, Strategy::Unguarded]
        );
        assert_eq!(Strategy::parse_list("all").unwrap(), Strategy::ALL.to_vec());
        assert_eq!(
            Strategy::parse_list("send-per-call,all").unwrap()[0],
            Strategy::SendPerCall
        );
    }

    #[test]
    fn bad_lists_are_rejected() {
        assert_eq!(
            Strategy::parse_list("guarded,cached"),
            Err(StrategyError::Unknown("cached".into()))
        );
        assert!(matches!(
            Strategy::parse_list(""),
            Err(StrategyError::Empty(_))
        ));
        assert!(matches!(
            Strategy::parse_list("guarded,,unguarded"),
            Err(StrategyError::Empty(_))
        ));
        assert!("Guarded".parse::<Strategy>().is_err());
    }
}
