//! Lint rule TM008 (hitl-double-execution-risk): does a batch's pause make a sibling run
//! twice, and does the guard prevent it?

use super::engine::{Outcome, simulate};
use super::scenario::{Batch, Class, ToolSets};
use super::strategy::Strategy;

/// A batch in which an interrupt makes some call complete more than once when unguarded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Risk {
    /// Names of the calls whose `interrupt()` (body or approval gate) fires in-process,
    /// in batch order, without repeats.
    pub interrupting: Vec<String>,
    /// `(id, name)` of every call that completes more than once unguarded.
    pub doubled: Vec<(String, String)>,
    /// Whether the guarded strategy with the given guard set runs every call at most once.
    pub guard_fixes: bool,
    /// One or two sentences: what happens unguarded and what the guard does about it.
    pub message: String,
}

/// TM008: `Some` when the batch contains a call that actually pauses the run and some call
/// would complete more than once unguarded. The message says whether the given guard set
/// fixes it and, when it does not include a pausing direct tool, whether adding it would.
pub fn double_execution_risk(sets: &ToolSets, batch: &Batch) -> Option<Risk> {
    let unguarded = simulate(sets, batch, Strategy::Unguarded);
    let mut interrupting: Vec<String> = Vec::new();
    for call in unguarded.calls.iter().filter(|c| c.interrupts) {
        if !interrupting.contains(&call.name) {
            interrupting.push(call.name.clone());
        }
    }
    let doubled: Vec<(String, String)> = unguarded
        .double_executed()
        .map(|c| (c.id.clone(), c.name.clone()))
        .collect();
    if interrupting.is_empty() || doubled.is_empty() {
        return None;
    }

    let pausing: Vec<String> = unguarded
        .calls
        .iter()
        .filter(|c| c.interrupts)
        .map(|c| format!("{} ({})", c.name, c.id))
        .collect();
    let verb = if pausing.len() == 1 {
        "pauses"
    } else {
        "pause"
    };
    let mut message = format!(
        "{} {verb} the run; on resume the node re-runs from the top, so unguarded {}.",
        join_and(&pausing),
        runs(&unguarded)
    );

    let guarded = simulate(sets, batch, Strategy::Guarded);
    let guard_fixes = guarded.double_executed().next().is_none();
    if guard_fixes {
        message.push_str(" The guard runs every call once.");
    } else {
        let mut missing: Vec<String> = Vec::new();
        for call in unguarded.calls.iter().filter(|c| c.interrupts) {
            if call.class == Class::Direct
                && !sets.guard.contains(&call.name)
                && !missing.contains(&call.name)
            {
                missing.push(call.name.clone());
            }
        }
        if missing.is_empty() {
            message.push_str(&format!(
                " The guard does not prevent it: guarded, {}.",
                runs(&guarded)
            ));
        } else {
            let mut widened = sets.clone();
            widened.guard.extend(missing.iter().cloned());
            let with_missing = simulate(&widened, batch, Strategy::Guarded);
            let it = if missing.len() == 1 { "it" } else { "them" };
            if with_missing.double_executed().next().is_none() {
                message.push_str(&format!(
                    " The guard set does not include {}; adding {it} would run every call once.",
                    join_and(&missing)
                ));
            } else {
                message.push_str(&format!(
                    " The guard set does not include {}; even with {it}, {}.",
                    join_and(&missing),
                    runs(&with_missing)
                ));
            }
        }
    }

    Some(Risk {
        interrupting,
        doubled,
        guard_fixes,
        message,
    })
}

/// `send_email (c2) runs 2×, search (c3) runs 2×` for the calls that double-execute.
fn runs(outcome: &Outcome) -> String {
    let parts: Vec<String> = outcome
        .double_executed()
        .map(|c| format!("{} ({}) runs {}×", c.name, c.id, c.completed))
        .collect();
    join_and(&parts)
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::scenario::SetOptions;

    fn batch(names: &[&str]) -> Batch {
        Batch::of("t", names)
    }

    fn list(names: &[&str]) -> Option<Vec<String>> {
        Some(names.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn guarded_batch_is_a_risk_the_guard_fixes() {
        let sets = SetOptions::default().resolve();
        let risk =
            double_execution_risk(&sets, &batch(&["ask_user_question", "send_email"])).unwrap();
        assert_eq!(risk.interrupting, ["ask_user_question"]);
        assert_eq!(risk.doubled, [("c2".to_string(), "send_email".to_string())]);
        assert!(risk.guard_fixes);
        assert_eq!(
            risk.message,
            "ask_user_question (c1) pauses the run; on resume the node re-runs from the top, \
             so unguarded send_email (c2) runs 2×. The guard runs every call once."
        );
    }

    #[test]
    fn missing_guard_is_named() {
        let sets = SetOptions {
            guard: list(&[]),
            ..SetOptions::default()
        }
        .resolve();
        let risk =
            double_execution_risk(&sets, &batch(&["send_email", "ask_user_question"])).unwrap();
        assert!(!risk.guard_fixes);
        assert!(
            risk.message.ends_with(
                "The guard set does not include ask_user_question; adding it would run every call once."
            ),
            "{}",
            risk.message
        );
    }

    #[test]
    fn guard_cannot_fix_a_batched_event_approval() {
        let sets = SetOptions {
            direct: list(&["search"]),
            approval: list(&["send_email"]),
            ..SetOptions::default()
        }
        .resolve();
        let risk = double_execution_risk(&sets, &batch(&["search", "send_email"])).unwrap();
        assert_eq!(risk.interrupting, ["send_email"]);
        assert_eq!(risk.doubled, [("c1".to_string(), "search".to_string())]);
        assert!(!risk.guard_fixes);
        assert!(
            risk.message
                .ends_with("The guard does not prevent it: guarded, search (c1) runs 2×."),
            "{}",
            risk.message
        );
    }

    #[test]
    fn no_risk_without_a_pause_or_without_a_double() {
        let sets = SetOptions {
            direct: list(&["send_email"]),
            ..SetOptions::default()
        }
        .resolve();
        // ask_user_question is only an event stub here: it never pauses.
        assert_eq!(
            double_execution_risk(&sets, &batch(&["ask_user_question", "send_email"])),
            None
        );
        let sets = SetOptions {
            direct: list(&["ask_user_question"]),
            ..SetOptions::default()
        }
        .resolve();
        // The side effect is event-dispatched: it waits for the direct group and runs once.
        assert_eq!(
            double_execution_risk(&sets, &batch(&["ask_user_question", "send_email"])),
            None
        );
        // A lone interrupting call completes once.
        assert_eq!(
            double_execution_risk(
                &SetOptions::default().resolve(),
                &batch(&["ask_user_question"])
            ),
            None
        );
    }
}
