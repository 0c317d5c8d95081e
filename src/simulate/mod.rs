//! Simulate how a human-in-the-loop `interrupt()` inside a parallel tool batch re-executes
//! sibling tools on resume (docs/simulate.md). Pure computation: no I/O, no printing.
//!
//! The model: one assistant message's tool calls form a [`Batch`] run by one graph node.
//! Direct calls run in-process, event calls are dispatched to the host after the direct group.
//! When an `interrupt()` raises, the run pauses; each resume supplies one answer and the
//! **whole node runs again from the top**, with `interrupt()` answers matched by index. The
//! [`Strategy`] decides the schedule (one `Promise.all`, the guard group first, one task per
//! call) and whether completed direct results are reused in the same process.
//!
//! Typical use: build [`ToolSets`] (from a [`Scenario`] or [`SetOptions`]), one or more
//! [`Batch`]es, then [`Report::run`]; render it with [`render_table`], [`render_mermaid`] or
//! [`Report::to_json`]; decide the exit code with
//! [`Report::has_non_idempotent_double_execution`]. Lint rule TM008 uses
//! [`double_execution_risk`].

mod engine;
mod render_mermaid;
mod render_table;
mod report;
mod risk;
mod scenario;
mod strategy;

pub use engine::{
    CallOutcome, CallPass, InterruptKind, InterruptMark, InterruptOutcome, InterruptSite, Outcome,
    Pass, Pause, SkipReason, Step, pass_cap, simulate, simulate_capped,
};
pub use render_mermaid::{render_mermaid, sequence_diagram};
pub use render_table::{render_batch_table, render_table, sanitize};
pub use report::{BatchReport, DoubleExecution, Report};
pub use risk::{Risk, double_execution_risk};
pub use scenario::{
    Batch, BatchCall, Class, DEFAULT_INTERRUPTING, Mode, ModeError, Scenario, ScenarioError,
    SetOptions, ToolSets, parse_scenario,
};
pub use strategy::{Strategy, StrategyError};
