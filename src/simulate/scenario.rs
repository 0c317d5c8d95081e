//! The inputs of a simulation: the tool sets that decide how each call behaves, the batch of
//! calls from one assistant message, and the `--spec` scenario file that bundles both.
//!
//! The sets are kept apart from any batch on purpose: the CLI builds one [`ToolSets`] from
//! flags and applies it to every batch found in the history files.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The interrupting tool names used when none are given (`--interrupting` defaults
/// to `ask_user_question`). A scenario file without an `interrupting` key uses them too.
pub const DEFAULT_INTERRUPTING: &[&str] = &["ask_user_question"];

/// How the runtime decides where a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Every tool runs in-process (is *direct*).
    Legacy,
    /// Only tools in the direct set run in-process; every other tool is dispatched to the host.
    EventDriven,
}

impl Mode {
    /// The spelling used in scenario files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Legacy => "legacy",
            Mode::EventDriven => "event-driven",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for a mode name that is neither `legacy` nor `event-driven`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{0}` (expected `legacy` or `event-driven`)")]
pub struct ModeError(pub String);

impl FromStr for Mode {
    type Err = ModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "legacy" => Ok(Mode::Legacy),
            "event-driven" => Ok(Mode::EventDriven),
            other => Err(ModeError(other.to_string())),
        }
    }
}

/// Where one call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Runs in-process inside the tools node; its `interrupt()` can pause the run.
    Direct,
    /// Dispatched to the host after the direct group; never pauses by itself.
    Event,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Direct => "direct",
            Class::Event => "event",
        })
    }
}

/// The tool-name sets that decide each call's behaviour, independent of any batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSets {
    /// Legacy (all direct) or event-driven.
    pub mode: Mode,
    /// Names that run in-process in event-driven mode (ignored in legacy mode).
    pub direct: BTreeSet<String>,
    /// Names whose body calls `interrupt()` (only effective for direct calls).
    pub interrupting: BTreeSet<String>,
    /// `interruptingToolNames`: direct calls scheduled first by the guarded strategies.
    pub guard: BTreeSet<String>,
    /// Names gated by a human approval before they run.
    pub approval: BTreeSet<String>,
}

impl ToolSets {
    /// Where a call to `name` runs. The guard set never changes this.
    pub fn classify(&self, name: &str) -> Class {
        match self.mode {
            Mode::Legacy => Class::Direct,
            Mode::EventDriven if self.direct.contains(name) => Class::Direct,
            Mode::EventDriven => Class::Event,
        }
    }

    /// Whether a call to `name` raises a body `interrupt()` in-process (interrupting and direct).
    pub fn body_interrupts(&self, name: &str) -> bool {
        self.interrupting.contains(name) && self.classify(name) == Class::Direct
    }

    /// Whether a call to `name` belongs to the guard group (guarded and direct).
    pub fn is_guarded(&self, name: &str) -> bool {
        self.guard.contains(name) && self.classify(name) == Class::Direct
    }

    /// Whether a call to `name` waits for a human approval before it runs.
    pub fn needs_approval(&self, name: &str) -> bool {
        self.approval.contains(name)
    }
}

impl Default for ToolSets {
    /// Legacy mode, `ask_user_question` interrupting and guarded, no approvals.
    fn default() -> Self {
        SetOptions::default().resolve()
    }
}

/// Partly given tool sets (from a scenario file or from flags) before defaults are applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SetOptions {
    /// `mode`; defaults to event-driven when `direct` is given, else legacy.
    pub mode: Option<Mode>,
    /// `direct`; defaults to empty.
    pub direct: Option<Vec<String>>,
    /// `interrupting`; defaults to [`DEFAULT_INTERRUPTING`].
    pub interrupting: Option<Vec<String>>,
    /// `guard`; defaults to the interrupting set.
    pub guard: Option<Vec<String>>,
    /// `approval`; defaults to empty.
    pub approval: Option<Vec<String>>,
}

impl SetOptions {
    /// Apply the defaults of the replay model.
    pub fn resolve(self) -> ToolSets {
        let mode = self.mode.unwrap_or(if self.direct.is_some() {
            Mode::EventDriven
        } else {
            Mode::Legacy
        });
        let interrupting: BTreeSet<String> = match self.interrupting {
            Some(names) => names.into_iter().collect(),
            None => DEFAULT_INTERRUPTING.iter().map(|s| s.to_string()).collect(),
        };
        let guard = match self.guard {
            Some(names) => names.into_iter().collect(),
            None => interrupting.clone(),
        };
        ToolSets {
            mode,
            direct: self.direct.unwrap_or_default().into_iter().collect(),
            interrupting,
            guard,
            approval: self.approval.unwrap_or_default().into_iter().collect(),
        }
    }
}

/// One tool call of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a call object {\"id\": …, \"name\": …}"
)]
pub struct BatchCall {
    /// The call id as written in the log.
    pub id: String,
    /// The tool name.
    pub name: String,
}

impl BatchCall {
    /// A call with this id and tool name.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Self {
        BatchCall {
            id: id.into(),
            name: name.into(),
        }
    }
}

/// The tool calls of one assistant message, run by one graph node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Where the batch came from (a scenario path, or `file:line` of the assistant message).
    pub source: String,
    /// The calls in the order the message lists them.
    pub calls: Vec<BatchCall>,
}

impl Batch {
    /// A batch read from `source`.
    pub fn new(source: impl Into<String>, calls: Vec<BatchCall>) -> Self {
        Batch {
            source: source.into(),
            calls,
        }
    }

    /// A test batch from `source` calling the tools `names` in order, with ids `c1`, `c2`, …
    #[cfg(test)]
    pub(crate) fn of(source: &str, names: &[&str]) -> Self {
        let calls = names
            .iter()
            .enumerate()
            .map(|(i, n)| BatchCall::new(format!("c{}", i + 1), *n))
            .collect();
        Batch::new(source, calls)
    }
}

/// A `--spec` scenario: the tool sets plus one batch of calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// The sets, with defaults applied.
    pub sets: ToolSets,
    /// The batch's calls.
    pub calls: Vec<BatchCall>,
}

impl Scenario {
    /// Parse scenario JSON (see [`parse_scenario`]).
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        parse_scenario(text)
    }

    /// The scenario's calls as a batch labelled `source` (usually the scenario file's path).
    pub fn batch(&self, source: impl Into<String>) -> Batch {
        Batch::new(source, self.calls.clone())
    }
}

/// Why a scenario file was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// Not JSON, or JSON of the wrong shape (unknown key, wrong type, missing `calls`).
    #[error("invalid scenario at line {line}, column {column}: {message}")]
    Json {
        /// serde_json's message without its position suffix.
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Valid JSON that is not an object.
    #[error("invalid scenario: expected a JSON object with a `calls` array, found {found}")]
    NotAnObject {
        /// What was found instead: `an array`, `a string`, …
        found: &'static str,
    },
    /// `calls` is an empty array.
    #[error("invalid scenario: `calls` is empty; list at least one {{\"id\": …, \"name\": …}}")]
    NoCalls,
    /// A call's `id` or `name` is the empty string.
    #[error("invalid scenario: calls[{index}] has an empty `{field}`")]
    EmptyField {
        /// 0-based position in `calls`.
        index: usize,
        /// `id` or `name`.
        field: &'static str,
    },
    /// Two calls share an id.
    #[error("invalid scenario: calls[{second}] reuses the id `{id}` of calls[{first}]")]
    DuplicateId {
        /// The repeated id.
        id: String,
        /// 0-based position of the first use.
        first: usize,
        /// 0-based position of the repeat.
        second: usize,
    },
}

fn json_error(e: serde_json::Error) -> ScenarioError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
    ScenarioError::Json {
        message,
        line: e.line(),
        column: e.column(),
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a scenario object with keys mode, direct, interrupting, guard, approval, calls"
)]
struct RawScenario {
    mode: Option<Mode>,
    direct: Option<Vec<String>>,
    interrupting: Option<Vec<String>>,
    guard: Option<Vec<String>>,
    approval: Option<Vec<String>>,
    calls: Vec<BatchCall>,
}

/// Parse a scenario file (JSON). Every key but `calls` is optional; unknown keys, an empty
/// `calls`, empty ids or names and repeated ids are rejected with a message saying where.
pub fn parse_scenario(text: &str) -> Result<Scenario, ScenarioError> {
    // serde's derived struct also accepts a JSON array; reject anything but an object first.
    let value: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
    let found = match &value {
        serde_json::Value::Object(_) => None,
        serde_json::Value::Array(_) => Some("an array"),
        serde_json::Value::String(_) => Some("a string"),
        serde_json::Value::Number(_) => Some("a number"),
        serde_json::Value::Bool(_) => Some("a boolean"),
        serde_json::Value::Null => Some("null"),
    };
    if let Some(found) = found {
        return Err(ScenarioError::NotAnObject { found });
    }
    let raw: RawScenario = serde_json::from_str(text).map_err(json_error)?;
    if raw.calls.is_empty() {
        return Err(ScenarioError::NoCalls);
    }
    for (index, call) in raw.calls.iter().enumerate() {
        if call.id.is_empty() {
            return Err(ScenarioError::EmptyField { index, field: "id" });
        }
        if call.name.is_empty() {
            return Err(ScenarioError::EmptyField {
                index,
                field: "name",
            });
        }
        if let Some(first) = raw.calls[..index].iter().position(|c| c.id == call.id) {
            return Err(ScenarioError::DuplicateId {
                id: call.id.clone(),
                first,
                second: index,
            });
        }
    }
    let sets = SetOptions {
        mode: raw.mode,
        direct: raw.direct,
        interrupting: raw.interrupting,
        guard: raw.guard,
        approval: raw.approval,
    }
    .resolve();
    Ok(Scenario {
        sets,
        calls: raw.calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn mode_defaults_follow_direct() {
        let s = parse_scenario(r#"{"calls":[{"id":"a","name":"x"}]}"#).unwrap();
        assert_eq!(s.sets.mode, Mode::Legacy);
        let s = parse_scenario(r#"{"direct":[],"calls":[{"id":"a","name":"x"}]}"#).unwrap();
        assert_eq!(s.sets.mode, Mode::EventDriven);
        let s =
            parse_scenario(r#"{"mode":"legacy","direct":["x"],"calls":[{"id":"a","name":"x"}]}"#)
                .unwrap();
        assert_eq!(s.sets.mode, Mode::Legacy);
    }

    #[test]
    fn guard_defaults_to_interrupting_and_interrupting_to_ask_user_question() {
        let s =
            parse_scenario(r#"{"interrupting":["q"],"calls":[{"id":"a","name":"q"}]}"#).unwrap();
        assert_eq!(s.sets.guard, names(&["q"]));
        let s = parse_scenario(r#"{"calls":[{"id":"a","name":"q"}]}"#).unwrap();
        assert_eq!(s.sets.interrupting, names(&["ask_user_question"]));
        assert_eq!(s.sets.guard, names(&["ask_user_question"]));
        let s = parse_scenario(r#"{"guard":[],"calls":[{"id":"a","name":"q"}]}"#).unwrap();
        assert!(s.sets.guard.is_empty());
    }

    #[test]
    fn classification_ignores_the_guard() {
        let sets = SetOptions {
            direct: Some(vec!["send_email".into()]),
            guard: Some(vec!["ask_user_question".into()]),
            ..SetOptions::default()
        }
        .resolve();
        assert_eq!(sets.classify("ask_user_question"), Class::Event);
        assert!(!sets.is_guarded("ask_user_question"));
        assert!(!sets.body_interrupts("ask_user_question"));
        assert_eq!(sets.classify("send_email"), Class::Direct);
    }

    #[test]
    fn unknown_key_is_named_with_its_position() {
        let err = parse_scenario("{\n  \"gaurd\": [],\n  \"calls\": []\n}").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("unknown field `gaurd`"), "{text}");
        assert!(text.contains("line 2"), "{text}");
        assert!(
            !text.ends_with("column 9"),
            "position printed twice: {text}"
        );
    }

    #[test]
    fn bad_mode_lists_the_choices() {
        let err =
            parse_scenario(r#"{"mode":"async","calls":[{"id":"a","name":"x"}]}"#).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("`legacy`") && text.contains("`event-driven`"),
            "{text}"
        );
    }

    #[test]
    fn validation_errors() {
        assert_eq!(
            parse_scenario(r#"{"calls":[]}"#).unwrap_err(),
            ScenarioError::NoCalls
        );
        assert_eq!(
            parse_scenario(r#"{"calls":[{"id":"","name":"x"}]}"#).unwrap_err(),
            ScenarioError::EmptyField {
                index: 0,
                field: "id"
            }
        );
        assert_eq!(
            parse_scenario(r#"{"calls":[{"id":"a","name":"x"},{"id":"a","name":"y"}]}"#)
                .unwrap_err(),
            ScenarioError::DuplicateId {
                id: "a".into(),
                first: 0,
                second: 1
            }
        );
        let err = parse_scenario(r#"{"mode":"legacy"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing field `calls`"), "{err}");
        assert_eq!(
            parse_scenario(r#"[{"id":"a","name":"x"}]"#).unwrap_err(),
            ScenarioError::NotAnObject { found: "an array" }
        );
        let err = parse_scenario(r#"{"calls":{"id":"a"}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected a sequence"), "{err}");
        let err =
            parse_scenario("{\"calls\": [\n  {\"id\": \"a\", \"name\": \"x\"}\n").unwrap_err();
        assert!(
            matches!(err, ScenarioError::Json { line: 3, .. }),
            "{err:?}"
        );
        let err = parse_scenario(r#"{"calls":[{"id":"a","name":"x","args":{}}]}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `args`"), "{err}");
    }

    #[test]
    fn mode_round_trips_through_from_str() {
        for mode in [Mode::Legacy, Mode::EventDriven] {
            assert_eq!(mode.to_string().parse::<Mode>(), Ok(mode));
        }
        assert!("Legacy".parse::<Mode>().is_err());
    }
}
