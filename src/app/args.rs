//! Command-line arguments (clap derive).

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use toolmend::{DuplicatePolicy, OrphanPolicy};

/// Find and repair broken tool-call pairing in stored LLM conversation logs.
#[derive(Debug, Parser)]
#[command(name = "toolmend", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report pairing findings (exit 0 clean, 1 findings, 2 failure).
    Lint(LintArgs),
    /// Insert placeholder results for dangling calls (and other fixes by policy).
    Repair(RepairArgs),
    /// Show which dialect each conversation is read as, where it was found and why.
    Detect(DetectArgs),
    /// Replay tool batches through a human-in-the-loop interrupt and show which sibling
    /// tools run twice, with and without the interrupt-first guard (exit 1 when a
    /// non-idempotent tool would).
    Simulate(SimulateArgs),
    /// List the rules.
    Rules,
    /// Explain a rule: what it checks, why, the provider's error, the fix, an example.
    Explain(ExplainArgs),
    /// Print the settings in effect for a path and where each came from.
    Config(ConfigCmdArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Print the manual page (roff; `toolmend man | man -l -`).
    Man,
    /// Find the agent sessions on this machine (Claude Code, Codex, Gemini CLI, Cline, Roo,
    /// OpenCode, Kilo, Goose), newest first, with their status; repair the broken ones on
    /// request.
    Sessions(SessionsArgs),
}

/// `toolmend sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Only this agent's sessions: claude-code, codex, gemini-cli, cline, roo, opencode, kilo,
    /// goose.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Only the broken sessions (findings of error severity).
    #[arg(long)]
    pub broken: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SessionsFormat::Human)]
    pub format: SessionsFormat,
    /// Repair the broken sessions in place (safe fixes only), atomically, keeping each
    /// original next to it as `<file><suffix>` (see --backup).
    #[arg(long)]
    pub repair: bool,
    /// With --repair: also rewrite a session modified in the last few seconds (its agent may
    /// still be writing it).
    #[arg(long, requires = "repair")]
    pub force: bool,
    /// With --repair: the suffix of the backup kept next to each repaired file.
    #[arg(long, value_name = "SUFFIX", default_value = ".toolmend-backup")]
    pub backup: String,
    /// With --repair: orphan results (TM002): keep (default), drop, or turn into a note
    /// (unsafe).
    #[arg(long, value_enum, requires = "repair")]
    pub orphans: Option<OrphanArg>,
    /// With --repair: duplicate results (TM004), such as the second copy Gemini CLI records of
    /// every response it sends: keep the first or the last (unsafe). Left alone by default.
    #[arg(long, value_enum, requires = "repair")]
    pub duplicates: Option<DuplicateArg>,
}

/// `sessions --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SessionsFormat {
    /// One block per session: when, agent, size, project, status, then the file.
    Human,
    /// A JSON array, one object per session.
    Json,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Compatibility profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Profile {
    /// Reproduce DeerFlow's DanglingToolCallMiddleware exactly (global id set; placeholders
    /// right after the AI message, before its results; nothing else touched).
    Deerflow,
}

/// Where to read from and how to find conversations.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories (searched for *.json, *.jsonl, *.ndjson, *.traj); `-` is standard input.
    /// Without any, standard input is read.
    #[arg(value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Read every conversation as this dialect instead of detecting it.
    #[arg(long, value_name = "NAME")]
    pub dialect: Option<String>,
    /// Where the conversations are: a JSON Pointer, `*` matching every element (e.g. `/*/traj`).
    #[arg(long, value_name = "POINTER")]
    pub at: Option<String>,
    /// Treat standard input (or every file) as this format instead of guessing.
    #[arg(long, value_name = "FORMAT")]
    pub input_format: Option<InputFormat>,
    /// Only analyse (and repair) the last N messages of each conversation.
    #[arg(long, value_name = "N")]
    pub tail: Option<usize>,
    /// A compatibility profile.
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// Judge the logs by this provider's recorded rules instead of each dialect's own provider
    /// (see docs/verdicts.md); `repair` then fixes what `lint` reports for that provider.
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub target: Option<TargetArg>,
    /// Lines longer than this many bytes are reported (TM007) and kept as they are instead of
    /// parsed, which bounds memory (a parsed line takes a few times its size): a JSON Lines line
    /// is skipped, a JSON document with such a line is not analysed. The default, 64 MiB, is
    /// far above real log lines (images included). 0 = no limit.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_line_bytes: usize,
    /// Files processed at once (0: one per core). Output is the same whatever the number;
    /// `-j 1` for reproducible profiling.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Never draw a progress bar (one is drawn on standard error only when it is a terminal,
    /// outside CI, once the work has run for a second).
    #[arg(long)]
    pub no_progress: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `--target` providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// OpenAI (Chat Completions; Responses for Responses items and Codex rollouts).
    Openai,
    /// DeepSeek (its chat and Responses endpoints: Responses outputs must follow their call).
    Deepseek,
    /// Anthropic Messages (ids unique in the request).
    Anthropic,
    /// Google Gemini generateContent.
    Gemini,
    /// Amazon Bedrock Converse (ids unique in the request).
    Bedrock,
}

/// Input formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// One JSON value.
    Json,
    /// JSON Lines.
    Jsonl,
}

/// The output formats for findings (the library's `render::Format`, as a flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Readable lines with a summary (coloured on a terminal).
    Human,
    /// One JSON array of finding objects.
    Json,
    /// One finding object per line.
    Jsonl,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

impl From<OutputFormat> for toolmend::render::Format {
    fn from(f: OutputFormat) -> Self {
        use toolmend::render::Format;
        match f {
            OutputFormat::Human => Format::Human,
            OutputFormat::Json => Format::Json,
            OutputFormat::Jsonl => Format::Jsonl,
            OutputFormat::Github => Format::Github,
            OutputFormat::Sarif => Format::Sarif,
        }
    }
}

/// `toolmend lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Colour the human format.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Only these rules (codes, names or prefixes, comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Vec<String>,
    /// Not these rules.
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,
    /// Exit 0 even when there are findings.
    #[arg(long)]
    pub exit_zero: bool,
    /// Print findings only, no summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print calls and dangling calls per tool name instead of the findings.
    #[arg(long)]
    pub statistics: bool,
    /// Print, for each conversation, its dialect and why (to standard error).
    #[arg(long)]
    pub explain_detection: bool,
    #[command(flatten)]
    pub hitl: HitlArgs,
    #[command(flatten)]
    pub baseline: BaselineArgs,
}

/// The tool sets of the batch-replay model, for TM008 and `simulate`.
#[derive(Debug, Args)]
pub struct HitlArgs {
    /// Tools whose body calls interrupt() (e.g. ask_user_question). For `lint`, giving this
    /// enables TM008; `simulate` defaults to ask_user_question.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub interrupting: Option<Vec<String>>,
    /// Tools that run in-process (event-driven mode; every other tool is host-dispatched).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub direct: Option<Vec<String>>,
    /// The interrupt-first guard set (interruptingToolNames); defaults to --interrupting.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub guard: Option<Vec<String>>,
    /// Tools behind an approval gate (PreToolUse hook).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub approval: Option<Vec<String>>,
    /// legacy (every tool direct) or event-driven; defaults to event-driven when --direct is
    /// given.
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
}

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Every tool runs in-process.
    Legacy,
    /// Only --direct tools run in-process.
    EventDriven,
}

/// Output formats of `simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimFormat {
    /// Per call started/completed under each strategy, double executions highlighted.
    Table,
    /// One JSON object: per batch, per strategy, the runs of every call.
    Json,
    /// Mermaid sequence diagrams of the passes (Markdown).
    Mermaid,
}

/// `toolmend simulate`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").args(["histories", "spec", "calls"])))]
pub struct SimulateArgs {
    /// Histories: every model message with two or more tool calls is a batch.
    #[arg(value_name = "HISTORY")]
    pub histories: Vec<PathBuf>,
    /// A scenario file (JSON: mode, direct, interrupting, guard, approval, calls).
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// An ad-hoc batch: tool names in call order (ids c1, c2, …).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub calls: Option<Vec<String>>,
    #[command(flatten)]
    pub hitl: HitlArgs,
    /// Strategies to show (comma-separated, or `all`): unguarded, guarded, send-per-call,
    /// unguarded-cached, guarded-cached.
    #[arg(long, value_name = "LIST", default_value = "unguarded,guarded")]
    pub strategy: String,
    /// Tools whose double execution matters (send_email, billing…); exit 1 when one would
    /// run twice. Without it, every double execution counts.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub non_idempotent: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimFormat::Table)]
    pub format: SimFormat,
    /// Colour the table.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Read histories as this dialect instead of detecting it.
    #[arg(long, value_name = "NAME")]
    pub dialect: Option<String>,
    /// Where the conversations are in the histories (JSON Pointer, `*` wildcards).
    #[arg(long, value_name = "POINTER")]
    pub at: Option<String>,
}

/// `toolmend repair`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("mode").args(["output", "in_place", "diff", "check"])))]
pub struct RepairArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write the repaired document to FILE (one input only); written atomically.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Rewrite the files themselves, atomically (temporary file, fsync, rename), keeping
    /// their permissions and owner. A symlink is followed and its target rewritten. A file
    /// that changed while toolmend worked on it is left alone (exit 2).
    #[arg(long)]
    pub in_place: bool,
    /// With --in-place, keep the original next to the rewritten file with this suffix (e.g.
    /// `.bak`); for a symlink, next to its target.
    #[arg(long, value_name = "SUFFIX", requires = "in_place")]
    pub backup: Option<String>,
    /// With --in-place on a database: write even when another connection holds its write
    /// lock or its write-ahead log is growing (otherwise TM016, exit 2, nothing written).
    #[arg(long, requires = "in_place")]
    pub force: bool,
    /// Print a unified diff of the changes; write nothing (exit 1 when there are changes).
    #[arg(long)]
    pub diff: bool,
    /// Write nothing; exit 1 when a change is needed.
    #[arg(long)]
    pub check: bool,
    /// Placeholder text; `{id}` and `{name}` are replaced by the call's id and tool name.
    #[arg(long, value_name = "TEMPLATE")]
    pub placeholder: Option<String>,
    /// Add a marker field to inserted results where the dialect allows extra fields.
    #[arg(long)]
    pub mark_synthetic: bool,
    /// Orphan results (TM002): keep (default), drop, or turn into a note (unsafe).
    #[arg(long, value_enum, default_value_t = OrphanArg::Keep)]
    pub orphans: OrphanArg,
    /// A torn final line of a JSON Lines file (a write cut short, TM007): keep it (default) or
    /// drop it (unsafe; with --in-place, --backup keeps the original). Only the final line.
    #[arg(long, value_enum, default_value_t = TruncatedArg::Keep)]
    pub truncated: TruncatedArg,
    /// Duplicate results (TM004): keep the first or the last (unsafe). Left alone by default.
    #[arg(long, value_enum)]
    pub duplicates: Option<DuplicateArg>,
    /// Duplicate call ids in one message (TM005): give the later call a new id (unsafe).
    #[arg(long, value_enum)]
    pub duplicate_ids: Option<ReidArg>,
    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,
    /// What to print about the repair: `human` lines on standard error, or `json`, an audit
    /// record on standard output (per file: each edit, and the SHA-256 of input and output).
    #[arg(long, value_enum, default_value_t = RepairFormat::Human)]
    pub format: RepairFormat,
    /// Colour the diff.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--truncated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TruncatedArg {
    /// Leave the torn line as it is.
    Keep,
    /// Remove it, reporting its bytes.
    Drop,
}

/// `--orphans`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrphanArg {
    /// Leave orphans as they are.
    Keep,
    /// Delete them.
    Drop,
    /// Replace them with a note message that keeps their content.
    Note,
}

/// `--duplicates`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DuplicateArg {
    /// Keep the first result.
    KeepFirst,
    /// Keep the last result, in the first one's place.
    KeepLast,
}

impl OrphanArg {
    /// The library's policy for this choice.
    pub fn policy(self) -> OrphanPolicy {
        match self {
            OrphanArg::Keep => OrphanPolicy::Keep,
            OrphanArg::Drop => OrphanPolicy::Drop,
            OrphanArg::Note => OrphanPolicy::Note,
        }
    }
}

impl DuplicateArg {
    /// The library's policy for this choice.
    pub fn policy(self) -> DuplicatePolicy {
        match self {
            DuplicateArg::KeepFirst => DuplicatePolicy::KeepFirst,
            DuplicateArg::KeepLast => DuplicatePolicy::KeepLast,
        }
    }
}

/// `--duplicate-ids`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReidArg {
    /// Give the later call (and its result) a new deterministic id.
    ReId,
}

/// `toolmend detect`.
#[derive(Debug, Args)]
pub struct DetectArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

/// Where settings come from (see docs/configuration.md).
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// Take settings from this file (a toolmend.toml, or a pyproject.toml's [tool.toolmend])
    /// for every input, instead of finding one from each input's directory upwards.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Read no configuration file: defaults and flags only.
    #[arg(long)]
    pub isolated: bool,
}

/// `lint --baseline` / `--write-baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// Report only findings not recorded in this baseline file (and say how many were).
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Record the current findings in this baseline file (exit 0) instead of reporting them.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
}

/// `repair --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RepairFormat {
    /// What was done, in words, on standard error.
    Human,
    /// An audit record (JSON array, one object per file) on standard output.
    Json,
}

/// `toolmend explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A rule code or name (TM001, dangling-tool-call).
    #[arg(value_name = "RULE")]
    pub rule: String,
}

/// `toolmend config`.
#[derive(Debug, Args)]
pub struct ConfigCmdArgs {
    /// The file or directory to show the settings for (default: the current directory).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `toolmend completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
