//! The simulator: replays one batch pass after pass (pause → resume with one answer) under a
//! strategy and records, per pass and per call, what started, completed, interrupted, came
//! from the cache or was skipped.
//!
//! Interrupt bookkeeping follows LangGraph: a task keeps one counter that restarts at 0 every
//! time the node runs; the `i`-th `interrupt()` reached returns stored answer `i` if there is
//! one and raises otherwise. Within a group, calls are reached in batch order and each call
//! takes its own indices in sequence (approval gate first, then its body interrupt).

use serde::Serialize;

use super::scenario::{Batch, Class, ToolSets};
use super::strategy::Strategy;

/// The most passes a batch of `calls` calls is run for before giving up (`2 × calls + 2`).
///
/// Every call raises at most two interrupts (an approval gate and a body interrupt), the event
/// group at most one more, and each pass answers one, so a batch always finishes within this.
pub fn pass_cap(calls: usize) -> usize {
    calls * 2 + 2
}

/// What raised an `interrupt()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InterruptKind {
    /// An approval gate on one call, before its body (or before the host runs it).
    Approval,
    /// The `interrupt()` inside an interrupting direct tool's body.
    Body,
    /// The one batched approval for the gated event calls, raised before any is dispatched.
    BatchApproval,
}

impl InterruptKind {
    /// Short lower-case name: `approval`, `body`, `batch approval`.
    pub fn name(self) -> &'static str {
        match self {
            InterruptKind::Approval => "approval",
            InterruptKind::Body => "body",
            InterruptKind::BatchApproval => "batch approval",
        }
    }
}

/// One place an `interrupt()` comes from: its kind and the call(s) it belongs to (batch
/// positions; several only for a batched approval). Answers are attributed to sites.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InterruptSite {
    /// What raised it.
    pub kind: InterruptKind,
    /// Batch positions of the calls it stands for.
    pub calls: Vec<usize>,
}

impl InterruptSite {
    /// `the body interrupt of c1 (ask_user_question)` style text, ids and names unescaped.
    pub fn describe(&self, batch: &Batch) -> String {
        let calls: Vec<String> = self
            .calls
            .iter()
            .map(|&c| match batch.calls.get(c) {
                Some(call) => format!("{} ({})", call.id, call.name),
                None => format!("call {c}"),
            })
            .collect();
        let calls = calls.join(", ");
        match self.kind {
            InterruptKind::Approval => format!("the approval gate of {calls}"),
            InterruptKind::Body => format!("the body interrupt of {calls}"),
            InterruptKind::BatchApproval => format!("the batched approval of {calls}"),
        }
    }
}

/// What one `interrupt()` call did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterruptOutcome {
    /// No answer stored for its index: it raised and the run will pause.
    Raised,
    /// It returned stored answer `answer`, which the human gave to `given_to`.
    Answered {
        /// The answer's index (equal to the interrupt index within its task).
        answer: usize,
        /// The interrupt that surfaced when that answer was asked for.
        given_to: InterruptSite,
    },
}

/// Why a call did not run in a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// Guarded strategies: a call of the guard group interrupted, so the rest never started.
    GuardGroupInterrupted,
    /// An event call: a direct call interrupted, so nothing was dispatched to the host.
    DirectGroupInterrupted,
    /// An event call: the batched approval raised, so nothing was dispatched.
    AwaitingApproval,
    /// send-per-call: the call's task already completed and is not re-run.
    TaskCompleted,
}

impl SkipReason {
    /// A short human explanation.
    pub fn describe(self) -> &'static str {
        match self {
            SkipReason::GuardGroupInterrupted => "not started: the guard group interrupted",
            SkipReason::DirectGroupInterrupted => "not dispatched: a direct call interrupted",
            SkipReason::AwaitingApproval => "not dispatched: waiting for the batched approval",
            SkipReason::TaskCompleted => "not re-run: its task already completed",
        }
    }
}

/// One event of a pass, in the order it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The call's body began (event call: the host began executing it).
    Start {
        /// Batch position.
        call: usize,
    },
    /// The call ran to its end.
    Complete {
        /// Batch position.
        call: usize,
    },
    /// Cached strategies: the call's earlier result was reused; its body did not run.
    FromCache {
        /// Batch position.
        call: usize,
    },
    /// The call was not reached in this pass.
    Skip {
        /// Batch position.
        call: usize,
        /// Why.
        reason: SkipReason,
    },
    /// An `interrupt()` call.
    Interrupt {
        /// Where it comes from.
        site: InterruptSite,
        /// Its index in its task's counter for this pass.
        index: usize,
        /// Whether it raised or returned an answer.
        outcome: InterruptOutcome,
    },
}

/// An interrupt index and kind recorded on a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InterruptMark {
    /// The interrupt index within the task's counter for that pass.
    pub index: usize,
    /// What raised it.
    pub kind: InterruptKind,
}

/// What happened to one call in one pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallPass {
    /// The body began (or the host began executing it).
    pub started: bool,
    /// It ran to its end.
    pub completed: bool,
    /// It raised an interrupt (at most one per pass: raising stops the call).
    pub interrupted: Option<InterruptMark>,
    /// Interrupts of this call that returned a stored answer.
    pub answered: Vec<InterruptMark>,
    /// Its result was served from the in-process cache.
    pub from_cache: bool,
    /// It was not reached, and why.
    pub skipped: Option<SkipReason>,
}

/// The interrupt that surfaced at the end of a pass; the next resume answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pause {
    /// The interrupt that surfaced.
    pub site: InterruptSite,
    /// Its index; the resume stores the answer under this index in that task.
    pub index: usize,
}

/// One run of the node (or, for send-per-call, of its pending tasks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    /// 1-based pass number.
    pub number: usize,
    /// How many answers had been given before this pass (= resumes so far).
    pub answers: usize,
    /// Everything that happened, in order.
    pub steps: Vec<Step>,
    /// Per call, in batch order.
    pub calls: Vec<CallPass>,
    /// The pause that ended the pass, or `None` when the batch completed.
    pub pause: Option<Pause>,
}

/// Totals for one call over all passes. Serializes to the per-call object of `simulate --format json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallOutcome {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Where the call runs.
    pub class: Class,
    /// Whether an `interrupt()` of this call (body or approval gate) fires in-process under
    /// this strategy. An interrupting name that is only an event tool never does.
    pub interrupts: bool,
    /// Times the body began (event call: times the host executed it).
    pub started: usize,
    /// Times it ran to its end.
    pub completed: usize,
    /// `completed > 1`.
    pub double_executed: bool,
    /// Passes in which its result came from the cache.
    #[serde(skip)]
    pub from_cache: usize,
    /// Passes in which it was not reached.
    #[serde(skip)]
    pub skipped: usize,
    /// Passes in which it raised an interrupt.
    #[serde(skip)]
    pub interrupted: usize,
}

/// The result of simulating one batch under one strategy. Serializes to the
/// strategy object (`passes`, `calls`, and `warnings` only when there are some).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The strategy simulated.
    #[serde(skip)]
    pub strategy: Strategy,
    /// Number of passes run.
    pub passes: usize,
    /// Per call, in batch order.
    pub calls: Vec<CallOutcome>,
    /// Answer misattributions and a hit pass cap, as sentences.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Every pass in detail.
    #[serde(skip)]
    pub trace: Vec<Pass>,
    /// False when the pass cap stopped the run before the batch completed.
    #[serde(skip)]
    pub finished: bool,
}

impl Outcome {
    /// Calls that completed more than once.
    pub fn double_executed(&self) -> impl Iterator<Item = &CallOutcome> {
        self.calls.iter().filter(|c| c.double_executed)
    }

    /// Every `interrupt()` that returned an answer given to a different interrupt:
    /// `(pass number, receiving site, answer index, site the answer was given to)`.
    pub fn misattributions(&self) -> Vec<(usize, InterruptSite, usize, InterruptSite)> {
        let mut out = Vec::new();
        for pass in &self.trace {
            for step in &pass.steps {
                if let Step::Interrupt {
                    site,
                    outcome: InterruptOutcome::Answered { answer, given_to },
                    ..
                } = step
                    && given_to != site
                {
                    out.push((pass.number, site.clone(), *answer, given_to.clone()));
                }
            }
        }
        out
    }
}

/// Simulate `batch` under `strategy` with the given sets, capped at [`pass_cap`] passes.
pub fn simulate(sets: &ToolSets, batch: &Batch, strategy: Strategy) -> Outcome {
    simulate_capped(sets, batch, strategy, pass_cap(batch.calls.len()))
}

/// [`simulate`] with an explicit pass cap; stopping at the cap adds a warning and leaves
/// [`Outcome::finished`] false.
pub fn simulate_capped(
    sets: &ToolSets,
    batch: &Batch,
    strategy: Strategy,
    max_passes: usize,
) -> Outcome {
    let plan: Vec<CallPlan> = batch
        .calls
        .iter()
        .map(|call| CallPlan {
            class: sets.classify(&call.name),
            approval: sets.needs_approval(&call.name),
            body: sets.body_interrupts(&call.name),
            guarded: sets.is_guarded(&call.name),
        })
        .collect();
    let (trace, finished) = match strategy {
        Strategy::SendPerCall => run_per_call(&plan, max_passes),
        _ => run_one_task(&plan, strategy, max_passes),
    };
    summarize(batch, &plan, strategy, trace, finished, max_passes)
}

/// How one call behaves, from the sets.
struct CallPlan {
    class: Class,
    approval: bool,
    body: bool,
    guarded: bool,
}

/// Collects one pass's steps and per-call records.
struct PassBuilder {
    pass: Pass,
}

impl PassBuilder {
    fn new(number: usize, answers: usize, calls: usize) -> Self {
        PassBuilder {
            pass: Pass {
                number,
                answers,
                steps: Vec::new(),
                calls: vec![CallPass::default(); calls],
                pause: None,
            },
        }
    }

    fn start(&mut self, call: usize) {
        self.pass.calls[call].started = true;
        self.pass.steps.push(Step::Start { call });
    }

    fn complete(&mut self, call: usize) {
        self.pass.calls[call].completed = true;
        self.pass.steps.push(Step::Complete { call });
    }

    fn cache_hit(&mut self, call: usize) {
        self.pass.calls[call].from_cache = true;
        self.pass.steps.push(Step::FromCache { call });
    }

    fn skip(&mut self, call: usize, reason: SkipReason) {
        self.pass.calls[call].skipped = Some(reason);
        self.pass.steps.push(Step::Skip { call, reason });
    }

    /// The first interrupt that raised in this pass (the lowest index for a shared counter).
    fn first_raise(&self) -> Option<Pause> {
        self.pass.steps.iter().find_map(|step| match step {
            Step::Interrupt {
                site,
                index,
                outcome: InterruptOutcome::Raised,
            } => Some(Pause {
                site: site.clone(),
                index: *index,
            }),
            _ => None,
        })
    }
}

/// One task's interrupt counter for one pass, over the answers stored for that task.
struct Counter<'a> {
    next: usize,
    given: &'a [InterruptSite],
}

impl Counter<'_> {
    /// Call `interrupt()` for `site`; true when it returned an answer, false when it raised.
    fn interrupt(&mut self, pass: &mut PassBuilder, site: InterruptSite) -> bool {
        let index = self.next;
        self.next += 1;
        let mark = InterruptMark {
            index,
            kind: site.kind,
        };
        let outcome = match self.given.get(index) {
            Some(owner) => InterruptOutcome::Answered {
                answer: index,
                given_to: owner.clone(),
            },
            None => InterruptOutcome::Raised,
        };
        let answered = outcome != InterruptOutcome::Raised;
        for &c in &site.calls {
            let record = &mut pass.pass.calls[c];
            if answered {
                record.answered.push(mark);
            } else {
                record.interrupted = Some(mark);
            }
        }
        pass.pass.steps.push(Step::Interrupt {
            site,
            index,
            outcome,
        });
        answered
    }
}

/// Run one direct call in-process: approval gate, body start, body interrupt, completion.
/// Returns whether it completed.
fn run_direct(plan: &CallPlan, call: usize, pass: &mut PassBuilder, counter: &mut Counter) -> bool {
    if plan.approval && !counter.interrupt(pass, site(InterruptKind::Approval, call)) {
        return false;
    }
    pass.start(call);
    if plan.body && !counter.interrupt(pass, site(InterruptKind::Body, call)) {
        return false;
    }
    pass.complete(call);
    true
}

fn site(kind: InterruptKind, call: usize) -> InterruptSite {
    InterruptSite {
        kind,
        calls: vec![call],
    }
}

/// unguarded / guarded / *-cached: the whole batch is one task with one shared counter, and
/// every pass re-runs the node from the top.
fn run_one_task(plan: &[CallPlan], strategy: Strategy, max_passes: usize) -> (Vec<Pass>, bool) {
    let n = plan.len();
    let direct: Vec<usize> = (0..n).filter(|&c| plan[c].class == Class::Direct).collect();
    let events: Vec<usize> = (0..n).filter(|&c| plan[c].class == Class::Event).collect();
    let groups: Vec<Vec<usize>> = if strategy.is_guarded() {
        let (guard, rest): (Vec<usize>, Vec<usize>) =
            direct.iter().partition(|&&c| plan[c].guarded);
        vec![guard, rest]
    } else {
        vec![direct]
    };
    let gated: Vec<usize> = events
        .iter()
        .copied()
        .filter(|&c| plan[c].approval)
        .collect();

    let mut given: Vec<InterruptSite> = Vec::new();
    let mut cache = vec![false; n];
    let mut trace = Vec::new();
    while trace.len() < max_passes {
        let mut pass = PassBuilder::new(trace.len() + 1, given.len(), n);
        let mut counter = Counter {
            next: 0,
            given: &given,
        };
        let mut raised = false;
        for group in &groups {
            for &c in group {
                if raised {
                    pass.skip(c, SkipReason::GuardGroupInterrupted);
                } else if strategy.is_cached() && cache[c] {
                    pass.cache_hit(c);
                } else if run_direct(&plan[c], c, &mut pass, &mut counter) {
                    cache[c] = true;
                }
            }
            raised = raised || pass.first_raise().is_some();
        }
        if raised {
            for &c in &events {
                pass.skip(c, SkipReason::DirectGroupInterrupted);
            }
        } else {
            let approved = gated.is_empty()
                || counter.interrupt(
                    &mut pass,
                    InterruptSite {
                        kind: InterruptKind::BatchApproval,
                        calls: gated.clone(),
                    },
                );
            for &c in &events {
                if approved {
                    pass.start(c);
                    pass.complete(c);
                } else if !gated.contains(&c) {
                    pass.skip(c, SkipReason::AwaitingApproval);
                }
            }
        }
        let pause = pass.first_raise();
        pass.pass.pause = pause.clone();
        trace.push(pass.pass);
        match pause {
            Some(pause) => given.push(pause.site),
            None => return (trace, true),
        }
    }
    (trace, false)
}

/// send-per-call: every call is its own task with its own counter. Tasks that completed keep
/// their result and are never re-run; every still-pending task re-runs on each resume. A resume
/// answers the first raised interrupt in batch order. An event task is dispatched to the host
/// from its own task (after its own approval gate, if any) without waiting for direct tasks.
fn run_per_call(plan: &[CallPlan], max_passes: usize) -> (Vec<Pass>, bool) {
    let n = plan.len();
    let mut given: Vec<Vec<InterruptSite>> = vec![Vec::new(); n];
    let mut done = vec![false; n];
    let mut trace = Vec::new();
    while trace.len() < max_passes {
        let mut pass = PassBuilder::new(trace.len() + 1, trace.len(), n);
        for c in 0..n {
            if done[c] {
                pass.skip(c, SkipReason::TaskCompleted);
                continue;
            }
            let mut counter = Counter {
                next: 0,
                given: &given[c],
            };
            done[c] = match plan[c].class {
                Class::Direct => run_direct(&plan[c], c, &mut pass, &mut counter),
                Class::Event => {
                    let approved = !plan[c].approval
                        || counter.interrupt(&mut pass, site(InterruptKind::Approval, c));
                    if approved {
                        pass.start(c);
                        pass.complete(c);
                    }
                    approved
                }
            };
        }
        let pause = pass.first_raise();
        pass.pass.pause = pause.clone();
        trace.push(pass.pass);
        match pause {
            Some(pause) => given[pause.site.calls[0]].push(pause.site),
            None => return (trace, true),
        }
    }
    (trace, false)
}

fn summarize(
    batch: &Batch,
    plan: &[CallPlan],
    strategy: Strategy,
    trace: Vec<Pass>,
    finished: bool,
    max_passes: usize,
) -> Outcome {
    let calls = batch
        .calls
        .iter()
        .enumerate()
        .map(|(c, call)| {
            let count =
                |f: &dyn Fn(&CallPass) -> bool| trace.iter().filter(|p| f(&p.calls[c])).count();
            let completed = count(&|r| r.completed);
            CallOutcome {
                id: call.id.clone(),
                name: call.name.clone(),
                class: plan[c].class,
                interrupts: trace.iter().any(|p| {
                    p.steps.iter().any(
                        |s| matches!(s, Step::Interrupt { site, .. } if site.calls.contains(&c)),
                    )
                }),
                started: count(&|r| r.started),
                completed,
                double_executed: completed > 1,
                from_cache: count(&|r| r.from_cache),
                skipped: count(&|r| r.skipped.is_some()),
                interrupted: count(&|r| r.interrupted.is_some()),
            }
        })
        .collect();
    let mut outcome = Outcome {
        strategy,
        passes: trace.len(),
        calls,
        warnings: Vec::new(),
        trace,
        finished,
    };
    for (number, site, answer, given_to) in outcome.misattributions() {
        // Only cached calls that would have taken an interrupt index explain the shift.
        let pass = &outcome.trace[number - 1];
        let cached: Vec<&str> = pass
            .calls
            .iter()
            .enumerate()
            .filter(|&(c, r)| r.from_cache && (plan[c].approval || plan[c].body))
            .map(|(c, _)| batch.calls[c].id.as_str())
            .collect();
        let cause = if cached.is_empty() {
            String::new()
        } else {
            format!(
                " ({} served from the cache took no interrupt index, so later interrupts moved down)",
                cached.join(", ")
            )
        };
        outcome.warnings.push(format!(
            "pass {number}: {} received answer {answer}, which was given to {}{cause}",
            site.describe(batch),
            given_to.describe(batch),
        ));
    }
    if !finished {
        outcome.warnings.push(format!(
            "stopped after {max_passes} passes without completing the batch (pass cap)"
        ));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::scenario::SetOptions;

    fn sets(
        mode: &str,
        direct: Option<&[&str]>,
        interrupting: &[&str],
        approval: &[&str],
    ) -> ToolSets {
        let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        SetOptions {
            mode: Some(mode.parse().unwrap()),
            direct: direct.map(list),
            interrupting: Some(list(interrupting)),
            guard: None,
            approval: Some(list(approval)),
        }
        .resolve()
    }

    fn batch(names: &[&str]) -> Batch {
        Batch::of("test", names)
    }

    /// (started, completed) per call.
    fn counts(o: &Outcome) -> Vec<(usize, usize)> {
        o.calls.iter().map(|c| (c.started, c.completed)).collect()
    }

    #[test]
    fn counter_restarts_every_pass_and_answers_by_index() {
        let s = sets("legacy", None, &["ask"], &[]);
        let o = simulate(&s, &batch(&["ask", "ask"]), Strategy::Unguarded);
        let indices: Vec<Vec<(usize, bool)>> = o
            .trace
            .iter()
            .map(|p| {
                p.steps
                    .iter()
                    .filter_map(|s| match s {
                        Step::Interrupt { index, outcome, .. } => {
                            Some((*index, *outcome == InterruptOutcome::Raised))
                        }
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            indices,
            vec![
                vec![(0, true), (1, true)],
                vec![(0, false), (1, true)],
                vec![(0, false), (1, false)]
            ]
        );
        assert_eq!(o.trace[1].pause.as_ref().unwrap().index, 1);
        assert!(o.warnings.is_empty());
    }

    #[test]
    fn guarded_skips_the_rest_while_the_guard_group_interrupts() {
        let s = sets("legacy", None, &["ask"], &[]);
        let o = simulate(&s, &batch(&["send", "ask"]), Strategy::Guarded);
        assert_eq!(
            o.trace[0].calls[0].skipped,
            Some(SkipReason::GuardGroupInterrupted)
        );
        assert_eq!(
            o.trace[0].calls[1].interrupted,
            Some(InterruptMark {
                index: 0,
                kind: InterruptKind::Body
            })
        );
        assert_eq!(counts(&o), vec![(1, 1), (2, 1)]);
    }

    #[test]
    fn events_wait_for_the_direct_group() {
        let s = sets("event-driven", Some(&["ask"]), &["ask"], &[]);
        let o = simulate(&s, &batch(&["ask", "send"]), Strategy::Unguarded);
        assert_eq!(
            o.trace[0].calls[1].skipped,
            Some(SkipReason::DirectGroupInterrupted)
        );
        assert_eq!(counts(&o), vec![(2, 1), (1, 1)]);
    }

    #[test]
    fn batched_event_approval_is_one_interrupt_after_the_direct_group() {
        let s = sets("event-driven", Some(&["search"]), &[], &["send", "post"]);
        let o = simulate(
            &s,
            &batch(&["send", "search", "post", "log"]),
            Strategy::Unguarded,
        );
        let raised: Vec<&Step> = o.trace[0]
            .steps
            .iter()
            .filter(|s| matches!(s, Step::Interrupt { .. }))
            .collect();
        assert_eq!(
            raised,
            vec![&Step::Interrupt {
                site: InterruptSite {
                    kind: InterruptKind::BatchApproval,
                    calls: vec![0, 2]
                },
                index: 0,
                outcome: InterruptOutcome::Raised
            }]
        );
        assert_eq!(
            o.trace[0].calls[3].skipped,
            Some(SkipReason::AwaitingApproval)
        );
        assert_eq!(o.passes, 2);
        assert_eq!(counts(&o), vec![(1, 1), (2, 2), (1, 1), (1, 1)]);
        assert!(o.calls[0].interrupts && o.calls[2].interrupts);
        assert!(!o.calls[1].interrupts && !o.calls[3].interrupts);
    }

    #[test]
    fn approval_gate_acts_before_the_body() {
        let s = sets("legacy", None, &[], &["send"]);
        let o = simulate(&s, &batch(&["send"]), Strategy::Unguarded);
        assert!(!o.trace[0].calls[0].started);
        assert_eq!(
            o.trace[0].calls[0].interrupted.map(|m| m.kind),
            Some(InterruptKind::Approval)
        );
        assert_eq!(counts(&o), vec![(1, 1)]);
    }

    #[test]
    fn approval_and_body_interrupt_on_one_call_take_two_indices() {
        let s = sets("legacy", None, &["ask"], &["ask"]);
        let o = simulate(&s, &batch(&["ask"]), Strategy::Unguarded);
        assert_eq!(o.passes, 3);
        assert_eq!(counts(&o), vec![(2, 1)]);
        let kinds: Vec<InterruptKind> = o
            .trace
            .iter()
            .filter_map(|p| p.pause.as_ref().map(|p| p.site.kind))
            .collect();
        assert_eq!(kinds, vec![InterruptKind::Approval, InterruptKind::Body]);
    }

    #[test]
    fn cache_serves_completed_direct_calls() {
        let s = sets("legacy", None, &["ask"], &[]);
        let o = simulate(&s, &batch(&["ask", "send"]), Strategy::UnguardedCached);
        assert!(o.trace[1].calls[1].from_cache);
        assert_eq!(counts(&o), vec![(2, 1), (1, 1)]);
        assert_eq!(o.calls[1].from_cache, 1);
    }

    #[test]
    fn cache_misattributes_answers_between_two_interrupting_calls() {
        let s = sets("legacy", None, &["ask"], &[]);
        let b = batch(&["ask", "ask"]);
        let o = simulate(&s, &b, Strategy::UnguardedCached);
        assert_eq!(o.passes, 3);
        let wrong = o.misattributions();
        assert_eq!(wrong.len(), 1);
        let (pass, site, answer, given_to) = &wrong[0];
        assert_eq!((*pass, *answer), (3, 0));
        assert_eq!(site, &super::site(InterruptKind::Body, 1));
        assert_eq!(given_to, &super::site(InterruptKind::Body, 0));
        assert_eq!(o.warnings.len(), 1);
        assert!(
            o.warnings[0].contains("c2 (ask) received answer 0"),
            "{}",
            o.warnings[0]
        );
        assert!(o.warnings[0].contains("given to the body interrupt of c1 (ask)"));
        // Without the cache the same batch attributes every answer correctly.
        assert!(
            simulate(&s, &b, Strategy::Unguarded)
                .misattributions()
                .is_empty()
        );
    }

    #[test]
    fn send_per_call_never_reruns_completed_tasks() {
        let s = sets("legacy", None, &["ask"], &[]);
        let o = simulate(&s, &batch(&["ask", "send", "ask"]), Strategy::SendPerCall);
        assert_eq!(o.passes, 3);
        assert_eq!(counts(&o), vec![(2, 1), (1, 1), (3, 1)]);
        assert_eq!(o.trace[1].calls[1].skipped, Some(SkipReason::TaskCompleted));
        // Each task counts from 0: the third call's interrupt is index 0 in its own task.
        assert_eq!(
            o.trace[0].calls[2].interrupted,
            Some(InterruptMark {
                index: 0,
                kind: InterruptKind::Body
            })
        );
        assert!(o.warnings.is_empty());
    }

    #[test]
    fn send_per_call_event_tasks_do_not_wait_for_direct_tasks() {
        let s = sets("event-driven", Some(&["ask"]), &["ask"], &["send"]);
        let o = simulate(&s, &batch(&["ask", "send", "log"]), Strategy::SendPerCall);
        // log runs on pass 1 while ask and send's gate are pending; each answer goes to the
        // first pending interrupt in batch order.
        assert!(o.trace[0].calls[2].completed);
        assert_eq!(o.passes, 3);
        assert_eq!(counts(&o), vec![(2, 1), (1, 1), (1, 1)]);
    }

    #[test]
    fn cap_stops_and_warns() {
        let s = sets("legacy", None, &["ask"], &[]);
        let o = simulate_capped(&s, &batch(&["ask", "send"]), Strategy::Unguarded, 1);
        assert!(!o.finished);
        assert_eq!(o.passes, 1);
        assert!(
            o.warnings
                .last()
                .unwrap()
                .contains("stopped after 1 passes")
        );
        let o = simulate(&s, &batch(&["ask", "send"]), Strategy::Unguarded);
        assert!(o.finished);
    }

    #[test]
    fn every_strategy_finishes_within_the_cap() {
        let names = ["ask", "send", "ask", "post", "log"];
        let s = sets(
            "event-driven",
            Some(&["ask", "send", "post"]),
            &["ask", "post"],
            &["ask", "send", "log"],
        );
        for strategy in Strategy::ALL {
            let o = simulate(&s, &batch(&names), strategy);
            assert!(o.finished, "{strategy} did not finish");
        }
    }
}
