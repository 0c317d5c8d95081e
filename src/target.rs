//! Whose rules a log is judged by (SPEC §2, "Verdicts follow the provider").
//!
//! A dialect says how calls and results are *written*; a provider decides what it *accepts*.
//! Each dialect is judged by the provider it is normally sent to ([`Dialect::provider`]);
//! `--target PROVIDER` judges it by another provider's recorded rules instead. The verdict
//! differs in three places only, all recorded in `shared/research/formats.md` and
//! `docs/verdicts.md`:
//! - Responses items (openai-responses, codex-rollout): OpenAI pairs outputs by `call_id`
//!   anywhere after the call; every other target wants the output in the call's run
//!   (DeepSeek's Responses endpoint rejects interleaved items with a 400).
//! - Gemini contents: Gemini accepts consecutive model turns answered together by the next
//!   response-only content; other targets want each call answered by the very next message.
//! - Reused call ids across turns: Anthropic and Bedrock reject them anywhere in a request,
//!   and so does OpenAI's Responses API; OpenAI chat accepts them (and where no rejection is
//!   on record, DeepSeek and Gemini, none is claimed).

use crate::analysis::{Defect, Window};
use crate::dialect::{self, Dialect};
pub use crate::provider::Provider;

/// The rules one conversation is judged by.
#[derive(Debug, Clone, Copy)]
pub struct Judge {
    /// The provider whose rules apply.
    pub provider: Provider,
    /// Where results must be.
    pub window: Window,
    /// A call id used again in a later message is a finding (TM005).
    pub unique_ids: bool,
    /// The provider was given by `--target` (not the dialect's own).
    pub targeted: bool,
}

/// Is `window` the shape of Responses items (calls and outputs as separate items)?
fn responses_shaped(window: Window) -> bool {
    matches!(window, Window::AfterCall | Window::CallRun)
}

/// The rules for a conversation read as `dialect`, sent to `target` (its own provider when
/// `None`).
pub fn judge(dialect: &dyn Dialect, target: Option<Provider>) -> Judge {
    let own = dialect.provider();
    let provider = target.unwrap_or(own);
    let shape = dialect.window();
    let window = match shape {
        Window::AfterCall if provider != Provider::OpenAi => Window::CallRun,
        Window::NextResponseTurn if provider != Provider::Gemini => Window::NextMessage,
        w => w,
    };
    // Where no rejection is on record (DeepSeek, Gemini), reuse is not claimed to be one.
    let unique_ids = match provider {
        Provider::Anthropic | Provider::Bedrock => true,
        Provider::OpenAi => responses_shaped(shape),
        Provider::DeepSeek
        | Provider::Gemini
        | Provider::LangGraph
        | Provider::VercelAi
        | Provider::OpenHands
        | Provider::KimiCode
        | Provider::PydanticAi => false,
    };
    Judge {
        provider,
        window,
        unique_ids,
        targeted: target.is_some_and(|t| t != own),
    }
}

impl Judge {
    /// The provider's own words for a defect of a conversation read as `dialect`, or a note
    /// naming the provider whose rule applies when its exact words are not recorded.
    pub fn provider_error(&self, dialect: &dyn Dialect, defect: &Defect) -> String {
        let words = if self.targeted {
            self.errors_of(dialect)
                .and_then(|d| d.provider_error(defect))
                .or_else(|| {
                    (self.provider == Provider::DeepSeek).then(|| deepseek(dialect, defect))?
                })
        } else {
            dialect.provider_error(defect)
        };
        let target = if self.targeted { " (--target)" } else { "" };
        match words {
            Some(w) => format!("{w}{target}"),
            None => format!("Judged by {}'s rules{target}", self.provider.display()),
        }
    }

    /// The dialect that carries the target provider's error strings.
    fn errors_of(&self, dialect: &dyn Dialect) -> Option<&'static dyn Dialect> {
        let name = match self.provider {
            Provider::Anthropic => "anthropic",
            Provider::Bedrock => "bedrock",
            Provider::Gemini => "gemini",
            Provider::OpenAi if responses_shaped(dialect.window()) => "openai-responses",
            Provider::OpenAi => "openai-chat",
            _ => return None,
        };
        dialect::by_name(name)
    }
}

/// DeepSeek's recorded words (formats.md §a and §b).
fn deepseek(dialect: &dyn Dialect, defect: &Defect) -> Option<String> {
    let responses = responses_shaped(dialect.window());
    Some(match defect {
        Defect::Dangling { call, .. } if responses => format!(
            "DeepSeek would reject this: \"No tool output found for tool call {}\"",
            call.call.id.as_deref().unwrap_or("")
        ),
        Defect::Dangling { call, .. } => format!(
            "DeepSeek would reject this: \"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)\" ({})",
            call.call.id.as_deref().unwrap_or("")
        ),
        Defect::Misplaced { .. } if responses => {
            "DeepSeek's Responses API rejects an output outside its call's run of items (HTTP 400)".into()
        }
        Defect::Orphan { .. } if !responses => "DeepSeek would reject this: \"Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'.\"".into(),
        // Measured on api.deepseek.com/v1/responses (openai/codex#42088).
        Defect::Orphan { result, .. } => format!(
            "DeepSeek would reject this: \"No tool call found for tool output with call_id {}\"",
            result.result.id.as_deref().unwrap_or("")
        ),
        _ => return None,
    })
}
