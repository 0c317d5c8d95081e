//! The long explanation of each rule, for `toolmend explain`: why it matters, what the provider
//! says, how toolmend fixes it, and a small log that has the defect. The short facts (code,
//! name, severity, summary, fix kinds) are in the rule table; this adds the prose.

use crate::rules::Rule;

/// The prose of one rule (its one-line summary is [`Rule::summary`]).
#[derive(Debug, Clone, Copy)]
pub struct Explanation {
    /// Why it matters: what goes wrong when the log is sent again.
    pub why: &'static str,
    /// What the provider (or owning app) answers, in its own words where they are recorded.
    pub provider: &'static str,
    /// What `toolmend repair` does about it.
    pub fix: &'static str,
    /// A small log with the defect (`None` when the rule is about databases).
    pub example: Option<Example>,
}

/// A small log that shows a rule's defect: `toolmend explain` runs lint and repair on it.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// Its file name (the extension says JSON or JSON Lines).
    pub name: &'static str,
    /// Its text (OpenAI chat messages).
    pub text: &'static str,
}

/// An OpenAI-chat JSON Lines example.
const fn lines(text: &'static str) -> Option<Example> {
    Some(Example {
        name: "example.jsonl",
        text,
    })
}

/// The explanation of `rule`. Every rule has one (the match is exhaustive).
pub fn explain(rule: Rule) -> Explanation {
    match rule {
        Rule::DanglingToolCall => Explanation {
            why: "A run stopped (a crash, a timeout, a human-in-the-loop interrupt, a cancelled \
                  stream) after the model asked for a tool and before the result was stored. \
                  Every later request built from this history is rejected, so the \
                  conversation can never be resumed.",
            provider: "OpenAI: \"An assistant message with 'tool_calls' must be followed by \
                       tool messages responding to each 'tool_call_id'. The following \
                       tool_call_ids did not have response messages: …\"; Anthropic: \
                       \"`tool_use` ids were found without `tool_result` blocks immediately \
                       after: …\"",
            fix: "Safe: insert a placeholder error result for the call right after the \
                  calling message's existing results (--placeholder sets the text).",
            example: lines(concat!(
                r#"{"role":"user","content":"weather in Paris and Rome?"}"#,
                "\n",
                r#"{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"call_1","content":"18 C"}"#,
                "\n",
            )),
        },
        Rule::OrphanToolResult => Explanation {
            why: "A result whose call is gone: the call was trimmed away (a context window \
                  cut, a summary), or the result was stored twice under a wrong id. The \
                  provider refuses a result that answers nothing.",
            provider: "OpenAI: \"Invalid parameter: messages with role 'tool' must be a \
                       response to a preceeding message with 'tool_calls'.\"; Anthropic: \
                       \"unexpected `tool_use_id` found in `tool_result` blocks: …\"",
            fix: "Safe when its call comes later (the result is moved after it). Otherwise \
                  unsafe, by policy: --orphans drop deletes it, --orphans note keeps its \
                  content as a plain message.",
            example: lines(concat!(
                r#"{"role":"user","content":"hi"}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"call_9","content":"stale"}"#,
                "\n",
                r#"{"role":"assistant","content":"hello"}"#,
                "\n",
            )),
        },
        Rule::MisplacedToolResult => Explanation {
            why: "The result exists but not where the provider looks for it: another message \
                  came between the call and its result (a user turn typed while the tool \
                  ran, a status note). The call then counts as unanswered.",
            provider: "OpenAI: the tool messages must follow the assistant message with \
                       'tool_calls' directly; Anthropic: \"Messages following `tool_use` \
                       blocks must begin with a matching number of `tool_result` blocks.\"",
            fix: "Safe: move the result, bytes unchanged, right after its call's other \
                  results.",
            example: lines(concat!(
                r#"{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{}"}}]}"#,
                "\n",
                r#"{"role":"user","content":"still there?"}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"call_1","content":"3 hits"}"#,
                "\n",
            )),
        },
        Rule::DuplicateToolResult => Explanation {
            why: "A call answered twice: a retry stored a second result, or a placeholder was \
                  inserted and the real result arrived later. Providers accept one result \
                  per call.",
            provider: "OpenAI: \"Invalid parameter: Duplicate value for 'tool_call_id' of \
                       '…'\"; Anthropic: \"each tool_use must have a single result. Found \
                       multiple `tool_result` blocks with id: …\"",
            fix: "Unsafe, by policy: --duplicates keep-first deletes the later results, \
                  keep-last puts the last one in the first one's place.",
            example: lines(concat!(
                r#"{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search","arguments":"{}"}}]}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"call_1","content":"first"}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"call_1","content":"retry"}"#,
                "\n",
            )),
        },
        Rule::DuplicateToolCallId => Explanation {
            why: "Two calls share an id, so their results cannot be told apart (some SDKs and \
                  local models number calls per message, or reuse ids across turns where the \
                  provider wants them unique in the request).",
            provider: "Anthropic: \"`tool_use` ids must be unique\"; OpenAI pairs results to \
                       calls by id, so one of the two counts as unanswered or answered twice.",
            fix: "Unsafe, by policy: --duplicate-ids re-id gives the later call (and the \
                  result that answers it) a new deterministic id.",
            example: lines(concat!(
                r#"{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"a","arguments":"{}"}},{"id":"call_1","type":"function","function":{"name":"b","arguments":"{}"}}]}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"call_1","content":"A"}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"call_1","content":"B"}"#,
                "\n",
            )),
        },
        Rule::MissingToolCallId => Explanation {
            why: "A call or result without an id (or a call without a tool name) cannot be \
                  paired at all; whatever toolmend guessed could pair the wrong result.",
            provider: "OpenAI: a tool message needs 'tool_call_id'; Anthropic: \
                       \"tool_use.name: String should have at least 1 character\"",
            fix: "None: the id cannot be known from the log. Fix the writer, or edit the log \
                  by hand.",
            example: lines(concat!(
                r#"{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"search","arguments":"{}"}}]}"#,
                "\n",
                r#"{"role":"tool","content":"3 hits"}"#,
                "\n",
            )),
        },
        Rule::InvalidJson => Explanation {
            why: "A line or document toolmend cannot parse (a write cut short, two writers \
                  interleaved) or a message in another format than its conversation. What \
                  cannot be read is never judged nor repaired.",
            provider: "Not a provider error: the application loading the log fails first \
                       (json.decoder.JSONDecodeError, SyntaxError: Unexpected end of JSON \
                       input).",
            fix: "None: toolmend keeps the bytes as they are. Truncate the torn line or \
                  restore it from a backup.",
            example: lines(concat!(
                r#"{"role":"user","content":"hi"}"#,
                "\n",
                r#"{"role":"assistant","content":"hel"#,
                "\n",
            )),
        },
        Rule::HitlDoubleExecutionRisk => Explanation {
            why: "A batch of parallel calls mixes a tool that interrupts for a human with \
                  siblings that run in-process: when the run resumes, the batch is replayed \
                  and those siblings run a second time (a second email, a second charge). \
                  Reported only when --interrupting names the interrupting tools.",
            provider: "No provider error: the duplicate side effects happen in the agent \
                       (LangGraph re-runs the node; see `toolmend simulate`).",
            fix: "None in the log: guard the batch (run interrupting tools first, or one call \
                  per step); `toolmend simulate` shows which calls run twice.",
            example: lines(concat!(
                r#"{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"ask_user_question","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"send_email","arguments":"{}"}}]}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"c1","content":"yes"}"#,
                "\n",
                r#"{"role":"tool","tool_call_id":"c2","content":"sent"}"#,
                "\n",
            )),
        },
        Rule::UnrecognizedLog => Explanation {
            why: "A file named on the command line in which toolmend found no conversation, \
                  or messages whose tool keys the format they were read as does not read. \
                  A clean verdict there would be a guess, so toolmend says so instead.",
            provider: "Not a provider error: toolmend refuses to judge what it cannot read \
                       with confidence.",
            fix: "None: give --at POINTER (where the messages are) or --dialect NAME; \
                  --ignore TM009 for unrelated JSON.",
            example: Some(Example {
                name: "package.json",
                text: concat!(r#"{"name":"my-package","version":"1.0.0"}"#, "\n"),
            }),
        },
        Rule::MissingParent => Explanation {
            why: "Claude Code stores a session as a tree: each line names its parent by \
                  `parentUuid`. A parent that names no line (a trimmed or hand-edited file) \
                  breaks the chain. The client goes on at the newest line written at most 5 s \
                  before it (by timestamp), and else starts the history at that line, leaving \
                  out everything before it; viewers and tools that follow the chain lose its \
                  head either way.",
            provider: "No provider error: Claude Code resumes it; what is sent depends on the \
                       lines around the gap (see docs/claude-code.md).",
            fix: "None: which line was the parent cannot be known.",
            example: Some(Example {
                name: "missing-parent.jsonl",
                text: include_str!("../fixtures/claude-code-tree/missing-parent.jsonl"),
            }),
        },
        Rule::ParentCycle => Explanation {
            why: "A Claude Code line that is its own parent, or a loop of parents: the walk up \
                  the tree repeats, so the client goes on at the newest line written at most \
                  5 s before (or starts the history there), and a tool that follows the chain \
                  may never end.",
            provider: "No provider error: where the walk would repeat, Claude Code goes on as \
                       for a missing parent.",
            fix: "None: the real parent cannot be known.",
            example: Some(Example {
                name: "self-parent.jsonl",
                text: include_str!("../fixtures/claude-code-tree/self-parent.jsonl"),
            }),
        },
        Rule::DuplicateUuid => Explanation {
            why: "Two Claude Code lines with one `uuid`. A line repeated byte for byte (a \
                  write retried) is read once; two different lines with one uuid make the \
                  client keep the later one, so what hung from the earlier (a call, say) is \
                  lost on resume.",
            provider: "No provider error directly; the call lost with the replaced line then \
                       leaves its result unanswered (TM013).",
            fix: "Safe for a byte-for-byte copy: the copy is deleted. None for two different \
                  lines.",
            example: Some(Example {
                name: "dup-identical.jsonl",
                text: include_str!("../fixtures/claude-code-tree/dup-identical.jsonl"),
            }),
        },
        Rule::SplitPair => Explanation {
            why: "A result on the history Claude Code resumes whose call is off it (on an \
                  abandoned branch after a /rewind, or before a compaction): the client \
                  drops the result, and the model never sees it.",
            provider: "Claude Code 2.1.332 silently drops the result; other readers get the \
                       API's 400: \"unexpected `tool_use_id` found in `tool_result` blocks: \
                       …\"",
            fix: "Unsafe, by policy: --orphans note keeps its content as text on the history.",
            example: Some(Example {
                name: "fork-split.jsonl",
                text: include_str!("../fixtures/claude-code-tree/fork-split.jsonl"),
            }),
        },
        Rule::OrphanServerToolResult => Explanation {
            why: "A server tool result (web search, code execution) whose `server_tool_use` is \
                  not on the resumed history: Claude Code sends it as it is, and the API \
                  refuses the request.",
            provider: "Anthropic rejects the request with a 400 (Claude Code 2.1.332 sends \
                       the block as it is).",
            fix: "Unsafe, by policy: --orphans note turns the block into text, --orphans drop \
                  removes its line and hangs the next line from its parent.",
            example: Some(Example {
                name: "server-orphan.jsonl",
                text: include_str!("../fixtures/claude-code-tree/server-orphan.jsonl"),
            }),
        },
        Rule::UnreadableRecord => Explanation {
            why: "A record of a database (a LangGraph checkpoint blob in an encoding or \
                  extension type toolmend does not know) could not be decoded. Its messages \
                  are not guessed, and the thread is not repaired.",
            provider: "Not a provider error: the owning app may read it; toolmend does not \
                       pretend to.",
            fix: "None: the thread is left as it is.",
            example: None,
        },
        Rule::StoreBusy => Explanation {
            why: "Another connection holds the database's write lock or its write-ahead log \
                  is growing: the app is running. Writing now could lose its writes or \
                  yours.",
            provider: "Not a provider error: SQLite \"database is locked\" is what a writer \
                       would meet.",
            fix: "None now: stop the app and run repair again, or --force to wait for the \
                  lock.",
            example: None,
        },
    }
}
