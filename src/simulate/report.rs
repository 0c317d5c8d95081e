//! The simulation report: every batch under every strategy asked for, its JSON form,
//! and the verdict on double executions that drives the exit code.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeStruct, Serializer};

use super::engine::{Outcome, simulate};
use super::scenario::{Batch, BatchCall, ToolSets};
use super::strategy::Strategy;

/// Results for every batch. Serializes exactly to the JSON object `{"batches": […]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// One entry per batch, in input order.
    pub batches: Vec<BatchReport>,
}

/// One batch and its outcome under each strategy, in the order the strategies were asked for.
///
/// Serializes as `{"source", "calls", "results"}` where `results` is an object keyed by
/// strategy name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchReport {
    /// Where the batch came from.
    pub source: String,
    /// The batch's calls.
    pub calls: Vec<BatchCall>,
    /// One outcome per strategy asked for.
    pub results: Vec<Outcome>,
}

/// One call that completes more than once under one strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoubleExecution {
    /// The batch's source.
    pub source: String,
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// The strategy under which it double-executes.
    pub strategy: Strategy,
    /// How many times it completes.
    pub completed: usize,
    /// Whether its name is in the non-idempotent list (always false when that list is empty).
    pub non_idempotent: bool,
}

impl Report {
    /// A test report of one batch from `source` of `(id, tool)` calls, with the default tool
    /// sets.
    #[cfg(test)]
    pub(crate) fn one(source: &str, calls: &[(&str, &str)], strategies: &[Strategy]) -> Report {
        let sets = super::scenario::SetOptions::default().resolve();
        let calls = calls.iter().map(|(id, name)| BatchCall::new(*id, *name));
        Report::run(&sets, &[Batch::new(source, calls.collect())], strategies)
    }

    /// Simulate every batch under every strategy (duplicates in `strategies` are simulated
    /// once each time they appear; pass a deduplicated list such as
    /// [`Strategy::parse_list`] returns).
    pub fn run(sets: &ToolSets, batches: &[Batch], strategies: &[Strategy]) -> Report {
        Report {
            batches: batches
                .iter()
                .map(|batch| BatchReport::run(sets, batch, strategies))
                .collect(),
        }
    }

    /// The JSON report, pretty-printed with two-space indentation, without a final newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serializes")
    }

    /// Every double execution of every batch, those of non-idempotent tools first, then in
    /// batch, call and strategy order.
    pub fn double_executions(&self, non_idempotent: &[String]) -> Vec<DoubleExecution> {
        let mut all: Vec<DoubleExecution> = self
            .batches
            .iter()
            .flat_map(|b| b.double_executions(non_idempotent))
            .collect();
        all.sort_by_key(|d| !d.non_idempotent);
        all
    }

    /// Whether anything that matters double-executes under any strategy in the report: a call
    /// of a tool named in `non_idempotent`, or — when `non_idempotent` is empty, meaning the
    /// user did not say which tools are safe to repeat — any call at all. This drives exit
    /// code 1.
    pub fn has_non_idempotent_double_execution(&self, non_idempotent: &[String]) -> bool {
        self.batches.iter().any(|b| {
            b.results.iter().any(|o| {
                o.double_executed()
                    .any(|c| non_idempotent.is_empty() || non_idempotent.contains(&c.name))
            })
        })
    }
}

impl BatchReport {
    /// Simulate one batch under each strategy.
    pub fn run(sets: &ToolSets, batch: &Batch, strategies: &[Strategy]) -> BatchReport {
        BatchReport {
            source: batch.source.clone(),
            calls: batch.calls.clone(),
            results: strategies
                .iter()
                .map(|&s| simulate(sets, batch, s))
                .collect(),
        }
    }

    /// The outcome under `strategy`, if it was simulated.
    pub fn result(&self, strategy: Strategy) -> Option<&Outcome> {
        self.results.iter().find(|o| o.strategy == strategy)
    }

    /// This batch's double executions, non-idempotent tools first (see
    /// [`Report::double_executions`]).
    pub fn double_executions(&self, non_idempotent: &[String]) -> Vec<DoubleExecution> {
        let mut out = Vec::new();
        for (c, call) in self.calls.iter().enumerate() {
            for outcome in &self.results {
                let totals = &outcome.calls[c];
                if totals.double_executed {
                    out.push(DoubleExecution {
                        source: self.source.clone(),
                        id: call.id.clone(),
                        name: call.name.clone(),
                        strategy: outcome.strategy,
                        completed: totals.completed,
                        non_idempotent: non_idempotent.contains(&call.name),
                    });
                }
            }
        }
        out.sort_by_key(|d| !d.non_idempotent);
        out
    }

    /// One sentence per call that double-executes under some strategy, non-idempotent tools
    /// first: `send_email (c2) would run 2× unguarded; guarded runs it once`. When nothing
    /// double-executes, a single sentence saying so. Ids and names are not escaped.
    pub fn verdict(&self, non_idempotent: &[String]) -> Vec<String> {
        let mut order: Vec<usize> = (0..self.calls.len()).collect();
        order.sort_by_key(|&c| !non_idempotent.contains(&self.calls[c].name));
        let mut lines = Vec::new();
        for c in order {
            let call = &self.calls[c];
            let doubled: Vec<String> = self
                .results
                .iter()
                .filter(|o| o.calls[c].double_executed)
                .map(|o| format!("{}× {}", o.calls[c].completed, o.strategy))
                .collect();
            if doubled.is_empty() {
                continue;
            }
            let once: Vec<String> = self
                .results
                .iter()
                .filter(|o| o.calls[c].completed == 1)
                .map(|o| o.strategy.to_string())
                .collect();
            let tail = match once.len() {
                0 => "no strategy compared runs it once".to_string(),
                1 => format!("{} runs it once", once[0]),
                _ => format!("{} run it once", join_and(&once)),
            };
            let tag = if non_idempotent.contains(&call.name) {
                ", non-idempotent"
            } else {
                ""
            };
            lines.push(format!(
                "{} ({}{tag}) would run {}; {tail}",
                call.name,
                call.id,
                doubled.join(", ")
            ));
        }
        if lines.is_empty() {
            let names: Vec<String> = self
                .results
                .iter()
                .map(|o| o.strategy.to_string())
                .collect();
            lines.push(format!(
                "no call runs more than once under {}",
                join_and(&names)
            ));
        }
        lines
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl Serialize for BatchReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("BatchReport", 3)?;
        s.serialize_field("source", &self.source)?;
        s.serialize_field("calls", &self.calls)?;
        s.serialize_field("results", &Results(&self.results))?;
        s.end()
    }
}

/// The `results` object: strategy name → outcome, in the order asked.
struct Results<'a>(&'a [Outcome]);

impl Serialize for Results<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for outcome in self.0 {
            map.serialize_entry(outcome.strategy.name(), outcome)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::scenario::SetOptions;

    fn example() -> (ToolSets, Batch) {
        let sets = SetOptions::default().resolve();
        let batch = Batch::new(
            "b",
            vec![
                BatchCall::new("c1", "ask_user_question"),
                BatchCall::new("c2", "send_email"),
                BatchCall::new("c3", "search"),
            ],
        );
        (sets, batch)
    }

    #[test]
    fn verdict_names_non_idempotent_tools_first() {
        let (sets, batch) = example();
        let report = BatchReport::run(&sets, &batch, &Strategy::DEFAULT);
        let plain = report.verdict(&[]);
        assert_eq!(
            plain,
            vec![
                "send_email (c2) would run 2× unguarded; guarded runs it once",
                "search (c3) would run 2× unguarded; guarded runs it once",
            ]
        );
        let marked = report.verdict(&["search".to_string()]);
        assert_eq!(
            marked[0],
            "search (c3, non-idempotent) would run 2× unguarded; guarded runs it once"
        );
    }

    #[test]
    fn verdict_when_nothing_doubles() {
        let (sets, batch) = example();
        let report = BatchReport::run(&sets, &batch, &[Strategy::Guarded, Strategy::SendPerCall]);
        assert_eq!(
            report.verdict(&[]),
            vec!["no call runs more than once under guarded and send-per-call"]
        );
    }

    #[test]
    fn exit_decision_respects_the_non_idempotent_list() {
        let (sets, batch) = example();
        let report = Report::run(&sets, std::slice::from_ref(&batch), &Strategy::DEFAULT);
        assert!(report.has_non_idempotent_double_execution(&[]));
        assert!(report.has_non_idempotent_double_execution(&["send_email".into()]));
        assert!(!report.has_non_idempotent_double_execution(&["delete_repo".into()]));
        let guarded = Report::run(&sets, &[batch], &[Strategy::Guarded]);
        assert!(!guarded.has_non_idempotent_double_execution(&[]));
    }

    #[test]
    fn double_executions_sort_non_idempotent_first() {
        let (sets, batch) = example();
        let report = Report::run(&sets, &[batch], &Strategy::ALL);
        let list = report.double_executions(&["search".into()]);
        assert_eq!(list.len(), 2);
        assert_eq!((list[0].id.as_str(), list[0].non_idempotent), ("c3", true));
        assert_eq!(
            (list[1].id.as_str(), list[1].strategy),
            ("c2", Strategy::Unguarded)
        );
    }

    #[test]
    fn results_keep_the_order_asked() {
        let (sets, batch) = example();
        let report = Report::run(
            &sets,
            &[batch],
            &[Strategy::SendPerCall, Strategy::Unguarded],
        );
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        let keys: Vec<&String> = json["batches"][0]["results"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["send-per-call", "unguarded"]);
    }
}
