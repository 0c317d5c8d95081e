//! Pins the simulation model of SPEC §6 through the public API: the PR's table of outcomes,
//! several interrupts per batch, mixed classes, approval gates, send-per-call, the settled
//! cache and its answer misattribution, the exact JSON contract, and scenario errors.

use toolmend::simulate::{
    Batch, BatchCall, Class, Mode, Outcome, Report, ScenarioError, SetOptions, Strategy, ToolSets,
    double_execution_risk, parse_scenario, render_mermaid, render_table, simulate,
};

fn names(list: &[&str]) -> Option<Vec<String>> {
    Some(list.iter().map(|s| s.to_string()).collect())
}

/// Both orders of a direct `ask_user_question` and a direct `send_email`.
const BOTH_ORDERS: [[&str; 2]; 2] = [
    ["ask_user_question", "send_email"],
    ["send_email", "ask_user_question"],
];

/// Legacy mode with two interrupting tools, `ask_user_question` and `confirm_payment`.
fn two_interrupters() -> SetOptions {
    SetOptions {
        interrupting: names(&["ask_user_question", "confirm_payment"]),
        ..SetOptions::default()
    }
}

fn event_driven(direct: &[&str]) -> SetOptions {
    SetOptions {
        direct: names(direct),
        ..SetOptions::default()
    }
}

fn batch(calls: &[&str]) -> Batch {
    Batch::new(
        "test",
        calls
            .iter()
            .enumerate()
            .map(|(i, name)| BatchCall::new(format!("c{}", i + 1), *name))
            .collect(),
    )
}

/// `(started, completed)` for the call named `name` (the first one).
fn runs(outcome: &Outcome, name: &str) -> (usize, usize) {
    let call = outcome.calls.iter().find(|c| c.name == name).unwrap();
    (call.started, call.completed)
}

fn all_counts(outcome: &Outcome) -> Vec<(usize, usize)> {
    outcome
        .calls
        .iter()
        .map(|c| (c.started, c.completed))
        .collect()
}

// ---- The PR's table -------------------------------------------------------------------

#[test]
fn direct_ask_and_direct_side_effect_double_execute_only_unguarded() {
    let sets = event_driven(&["ask_user_question", "send_email"]).resolve();
    assert_eq!(sets.mode, Mode::EventDriven);
    for order in BOTH_ORDERS {
        let b = batch(&order);
        let unguarded = simulate(&sets, &b, Strategy::Unguarded);
        assert_eq!(runs(&unguarded, "send_email"), (2, 2), "{order:?}");
        assert_eq!(runs(&unguarded, "ask_user_question"), (2, 1), "{order:?}");
        assert_eq!(unguarded.passes, 2);
        let guarded = simulate(&sets, &b, Strategy::Guarded);
        assert_eq!(runs(&guarded, "send_email"), (1, 1), "{order:?}");
        assert_eq!(runs(&guarded, "ask_user_question"), (2, 1), "{order:?}");
        assert_eq!(guarded.passes, 2);
    }
}

#[test]
fn legacy_mode_matches_the_event_driven_direct_shape() {
    let sets = SetOptions::default().resolve();
    assert_eq!(sets.mode, Mode::Legacy);
    for order in BOTH_ORDERS {
        let b = batch(&order);
        let unguarded = simulate(&sets, &b, Strategy::Unguarded);
        assert_eq!(runs(&unguarded, "send_email"), (2, 2), "{order:?}");
        assert!(unguarded.calls.iter().all(|c| c.class == Class::Direct));
        let guarded = simulate(&sets, &b, Strategy::Guarded);
        assert_eq!(runs(&guarded, "send_email"), (1, 1), "{order:?}");
    }
}

#[test]
fn event_dispatched_side_effect_is_already_safe() {
    let sets = event_driven(&["ask_user_question"]).resolve();
    let b = batch(&["ask_user_question", "send_email"]);
    for strategy in Strategy::DEFAULT {
        let o = simulate(&sets, &b, strategy);
        assert_eq!(o.calls[1].class, Class::Event);
        assert_eq!(runs(&o, "send_email"), (1, 1), "{strategy}");
        assert!(!o.calls[1].double_executed);
        assert_eq!(o.passes, 2);
    }
}

#[test]
fn guarded_name_that_is_only_an_event_stub_is_host_handled_without_a_pause() {
    let sets = event_driven(&["send_email"]).resolve();
    assert!(sets.guard.contains("ask_user_question"));
    let b = batch(&["ask_user_question", "send_email"]);
    for strategy in Strategy::ALL {
        let o = simulate(&sets, &b, strategy);
        assert_eq!(o.passes, 1, "{strategy}");
        let ask = &o.calls[0];
        assert_eq!(ask.class, Class::Event);
        assert!(!ask.interrupts, "{strategy}");
        assert_eq!((ask.started, ask.completed), (1, 1));
        assert_eq!(runs(&o, "send_email"), (1, 1));
    }
}

// ---- Several interrupts ---------------------------------------------------------------

#[test]
fn two_interrupting_tools_need_three_passes() {
    let sets = two_interrupters().resolve();
    let b = batch(&["ask_user_question", "confirm_payment", "send_email"]);

    let unguarded = simulate(&sets, &b, Strategy::Unguarded);
    assert_eq!(unguarded.passes, 3);
    // The first interrupter is answered on pass 2 and runs its tail on passes 2 and 3.
    assert_eq!(all_counts(&unguarded), vec![(3, 2), (3, 1), (3, 3)]);

    let guarded = simulate(&sets, &b, Strategy::Guarded);
    assert_eq!(guarded.passes, 3);
    assert_eq!(all_counts(&guarded), vec![(3, 2), (3, 1), (1, 1)]);
    assert!(unguarded.warnings.is_empty() && guarded.warnings.is_empty());

    // Guarding only one of them lets the other share the side effect's group.
    let half = SetOptions {
        guard: names(&["ask_user_question"]),
        ..two_interrupters()
    }
    .resolve();
    let o = simulate(&half, &b, Strategy::Guarded);
    assert_eq!(o.passes, 3);
    assert_eq!(all_counts(&o), vec![(3, 2), (2, 1), (2, 2)]);
}

// ---- Mixed classes and approval gates -------------------------------------------------

#[test]
fn mixed_direct_and_event_siblings() {
    let sets = event_driven(&["ask_user_question", "web_search"]).resolve();
    let b = batch(&["ask_user_question", "web_search", "send_email", "lookup"]);
    let unguarded = simulate(&sets, &b, Strategy::Unguarded);
    assert_eq!(
        unguarded.calls.iter().map(|c| c.class).collect::<Vec<_>>(),
        vec![Class::Direct, Class::Direct, Class::Event, Class::Event]
    );
    assert_eq!(all_counts(&unguarded), vec![(2, 1), (2, 2), (1, 1), (1, 1)]);
    let guarded = simulate(&sets, &b, Strategy::Guarded);
    assert_eq!(all_counts(&guarded), vec![(2, 1), (1, 1), (1, 1), (1, 1)]);
}

#[test]
fn approval_gate_on_a_direct_tool_with_and_without_the_guard() {
    let unguarded_sets = SetOptions {
        interrupting: names(&[]),
        approval: names(&["send_email"]),
        ..SetOptions::default()
    }
    .resolve();
    let b = batch(&["send_email", "web_search"]);

    let o = simulate(&unguarded_sets, &b, Strategy::Unguarded);
    assert_eq!(o.passes, 2);
    assert!(o.calls[0].interrupts && !o.calls[1].interrupts);
    // The gate acts before send_email's body, so send_email itself runs once.
    assert_eq!(all_counts(&o), vec![(1, 1), (2, 2)]);
    // With an empty guard set, guarded is the same single group.
    let o = simulate(&unguarded_sets, &b, Strategy::Guarded);
    assert_eq!(all_counts(&o), vec![(1, 1), (2, 2)]);

    let guarded_sets = SetOptions {
        guard: names(&["send_email"]),
        ..SetOptions {
            interrupting: names(&[]),
            approval: names(&["send_email"]),
            ..SetOptions::default()
        }
    }
    .resolve();
    let o = simulate(&guarded_sets, &b, Strategy::Guarded);
    assert_eq!(o.passes, 2);
    assert_eq!(all_counts(&o), vec![(1, 1), (1, 1)]);
}

#[test]
fn approval_gate_on_an_event_tool_reruns_direct_siblings() {
    let sets = SetOptions {
        approval: names(&["send_email"]),
        ..event_driven(&["web_search"])
    }
    .resolve();
    let b = batch(&["web_search", "send_email"]);
    for strategy in Strategy::DEFAULT {
        let o = simulate(&sets, &b, strategy);
        assert_eq!(o.passes, 2, "{strategy}");
        assert_eq!(all_counts(&o), vec![(2, 2), (1, 1)], "{strategy}");
        assert!(o.calls[1].interrupts && o.calls[1].class == Class::Event);
    }
    // Keeping results (cache) or isolating calls (send-per-call) avoids the re-run.
    for strategy in [
        Strategy::UnguardedCached,
        Strategy::GuardedCached,
        Strategy::SendPerCall,
    ] {
        let o = simulate(&sets, &b, strategy);
        assert_eq!(all_counts(&o), vec![(1, 1), (1, 1)], "{strategy}");
    }
}

// ---- send-per-call and the settled cache ----------------------------------------------

#[test]
fn send_per_call_never_reruns_a_completed_sibling() {
    let sets = two_interrupters().resolve();
    for calls in [
        &["ask_user_question", "send_email"][..],
        &["send_email", "ask_user_question", "web_search"][..],
        &["ask_user_question", "confirm_payment", "send_email"][..],
    ] {
        let o = simulate(&sets, &batch(calls), Strategy::SendPerCall);
        assert!(o.double_executed().next().is_none(), "{calls:?}");
        for call in o.calls.iter().filter(|c| !c.interrupts) {
            assert_eq!((call.started, call.completed), (1, 1), "{calls:?}");
        }
        assert!(o.warnings.is_empty());
    }
    let o = simulate(
        &sets,
        &batch(&["ask_user_question", "confirm_payment", "send_email"]),
        Strategy::SendPerCall,
    );
    assert_eq!(o.passes, 3);
    assert_eq!(all_counts(&o), vec![(2, 1), (3, 1), (1, 1)]);
}

#[test]
fn settled_cache_keeps_direct_siblings_to_one_run() {
    let sets = event_driven(&["ask_user_question", "send_email"]).resolve();
    let b = batch(&["ask_user_question", "send_email"]);
    for strategy in [Strategy::UnguardedCached, Strategy::GuardedCached] {
        let o = simulate(&sets, &b, strategy);
        assert_eq!(all_counts(&o), vec![(2, 1), (1, 1)], "{strategy}");
        assert!(o.warnings.is_empty());
    }
    let o = simulate(&sets, &b, Strategy::UnguardedCached);
    assert_eq!(o.calls[1].from_cache, 1);
}

#[test]
fn settled_cache_misattributes_answers_between_two_interrupting_tools() {
    let sets = two_interrupters().resolve();
    let b = batch(&["ask_user_question", "confirm_payment", "send_email"]);
    for strategy in [Strategy::UnguardedCached, Strategy::GuardedCached] {
        let o = simulate(&sets, &b, strategy);
        assert_eq!(o.passes, 3, "{strategy}");
        assert_eq!(all_counts(&o), vec![(2, 1), (3, 1), (1, 1)], "{strategy}");
        assert_eq!(o.warnings.len(), 1, "{strategy}: {:?}", o.warnings);
        assert_eq!(
            o.warnings[0],
            "pass 3: the body interrupt of c2 (confirm_payment) received answer 0, which was \
             given to the body interrupt of c1 (ask_user_question) (c1 served from the cache \
             took no interrupt index, so later interrupts moved down)"
        );
    }
    // The same batch without the cache attributes every answer to its own interrupt.
    for strategy in [
        Strategy::Unguarded,
        Strategy::Guarded,
        Strategy::SendPerCall,
    ] {
        assert!(
            simulate(&sets, &b, strategy).warnings.is_empty(),
            "{strategy}"
        );
    }
}

// ---- JSON contract --------------------------------------------------------------------

const SPEC_EXAMPLE: &str = r#"{"mode": "event-driven",
 "direct": ["ask_user_question", "send_email"],
 "interrupting": ["ask_user_question"],
 "guard": ["ask_user_question"],
 "approval": [],
 "calls": [{"id": "c1", "name": "ask_user_question"}, {"id": "c2", "name": "send_email"}]}"#;

#[test]
fn json_matches_the_contract_for_the_spec_example() {
    let scenario = parse_scenario(SPEC_EXAMPLE).unwrap();
    let report = Report::run(
        &scenario.sets,
        &[scenario.batch("scenario.json")],
        &Strategy::DEFAULT,
    );
    let expected = r#"{
  "batches": [
    {
      "source": "scenario.json",
      "calls": [
        {
          "id": "c1",
          "name": "ask_user_question"
        },
        {
          "id": "c2",
          "name": "send_email"
        }
      ],
      "results": {
        "unguarded": {
          "passes": 2,
          "calls": [
            {
              "id": "c1",
              "name": "ask_user_question",
              "class": "direct",
              "interrupts": true,
              "started": 2,
              "completed": 1,
              "double_executed": false
            },
            {
              "id": "c2",
              "name": "send_email",
              "class": "direct",
              "interrupts": false,
              "started": 2,
              "completed": 2,
              "double_executed": true
            }
          ]
        },
        "guarded": {
          "passes": 2,
          "calls": [
            {
              "id": "c1",
              "name": "ask_user_question",
              "class": "direct",
              "interrupts": true,
              "started": 2,
              "completed": 1,
              "double_executed": false
            },
            {
              "id": "c2",
              "name": "send_email",
              "class": "direct",
              "interrupts": false,
              "started": 1,
              "completed": 1,
              "double_executed": false
            }
          ]
        }
      }
    }
  ]
}"#;
    assert_eq!(report.to_json(), expected);
    assert!(report.has_non_idempotent_double_execution(&[]));
    assert!(report.has_non_idempotent_double_execution(&["send_email".to_string()]));
    assert!(!report.has_non_idempotent_double_execution(&["billing".to_string()]));
}

#[test]
fn warnings_key_appears_only_when_there_are_warnings() {
    let sets = two_interrupters().resolve();
    let b = batch(&["ask_user_question", "confirm_payment"]);
    let report = Report::run(
        &sets,
        &[b],
        &[Strategy::Unguarded, Strategy::UnguardedCached],
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let results = &json["batches"][0]["results"];
    assert!(results["unguarded"].get("warnings").is_none());
    let warnings = results["unguarded-cached"]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    let keys: Vec<&String> = results["unguarded-cached"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["passes", "calls", "warnings"]);
}

// ---- Scenario files -------------------------------------------------------------------

#[test]
fn scenario_errors_are_clear() {
    let err = parse_scenario("{\"calls\": [], \"guards\": []}").unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("invalid scenario at line 1, column ")
            && text.contains("unknown field `guards`, expected one of `mode`, `direct`"),
        "{text}"
    );
    let text = parse_scenario("{\"mode\": \"legacy\"}")
        .unwrap_err()
        .to_string();
    assert!(text.contains("missing field `calls`"), "{text}");
    let text = parse_scenario("{\"calls\": [{\"id\": \"a\"}]}")
        .unwrap_err()
        .to_string();
    assert!(text.contains("missing field `name`"), "{text}");
    let text = parse_scenario("{\"calls\": [{\"id\": \"a\", \"name\": \"x\"},]}")
        .unwrap_err()
        .to_string();
    assert!(text.contains("line 1, column"), "{text}");
    assert_eq!(
        parse_scenario("{\"calls\": []}").unwrap_err(),
        ScenarioError::NoCalls
    );
    assert!(
        parse_scenario("{\"mode\": \"events\", \"calls\": [{\"id\": \"a\", \"name\": \"x\"}]}")
            .unwrap_err()
            .to_string()
            .contains("unknown variant `events`, expected `legacy` or `event-driven`")
    );
}

#[test]
fn shipped_example_scenario() {
    let scenario = parse_scenario(include_str!("../examples/simulate/scenario.json")).unwrap();
    assert_eq!(scenario.sets.mode, Mode::EventDriven);
    let b = scenario.batch("examples/simulate/scenario.json");
    let report = Report::run(&scenario.sets, std::slice::from_ref(&b), &Strategy::ALL);
    let batch = &report.batches[0];
    let unguarded = batch.result(Strategy::Unguarded).unwrap();
    assert_eq!(all_counts(unguarded), vec![(2, 1), (2, 2), (1, 1)]);
    assert_eq!(unguarded.calls[2].class, Class::Event);
    for strategy in &Strategy::ALL[1..] {
        let o = batch.result(*strategy).unwrap();
        assert_eq!(all_counts(o), vec![(2, 1), (1, 1), (1, 1)], "{strategy}");
    }
    assert_eq!(
        batch.verdict(&["send_email".to_string()]),
        vec![
            "send_email (call_2, non-idempotent) would run 2× unguarded; guarded, send-per-call, \
             unguarded-cached and guarded-cached run it once"
        ]
    );
    let risk = double_execution_risk(&scenario.sets, &b).unwrap();
    assert!(risk.guard_fixes);
    assert_eq!(
        risk.doubled,
        vec![("call_2".to_string(), "send_email".to_string())]
    );
    let table = render_table(&report, &[], false);
    assert!(table.contains("call_2  send_email"), "{table}");
    let mermaid = render_mermaid(&report);
    assert_eq!(mermaid.matches("sequenceDiagram").count(), 5);
}

#[test]
fn one_set_of_flags_applies_to_many_history_batches() {
    let sets: ToolSets = SetOptions::default().resolve();
    let batches = vec![
        Batch::new("a.jsonl:2", vec![BatchCall::new("x", "ask_user_question")]),
        Batch::new(
            "a.jsonl:9",
            vec![
                BatchCall::new("y", "send_email"),
                BatchCall::new("z", "ask_user_question"),
            ],
        ),
    ];
    let report = Report::run(&sets, &batches, &Strategy::DEFAULT);
    assert_eq!(report.batches.len(), 2);
    let doubles = report.double_executions(&[]);
    assert_eq!(doubles.len(), 1);
    assert_eq!(
        (
            doubles[0].source.as_str(),
            doubles[0].id.as_str(),
            doubles[0].strategy
        ),
        ("a.jsonl:9", "y", Strategy::Unguarded)
    );
    assert!(double_execution_risk(&sets, &batches[0]).is_none());
    assert!(double_execution_risk(&sets, &batches[1]).is_some());
}
