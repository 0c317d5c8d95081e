//! The providers (and owning applications) whose recorded rules judge a log: a leaf the
//! dialects name their default judge with, and `--target` picks from.

/// A provider (or owning application) whose recorded rules a log is judged by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI (Chat Completions or Responses, as the dialect writes it).
    OpenAi,
    /// DeepSeek (its OpenAI-compatible chat and Responses endpoints).
    DeepSeek,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `generateContent`.
    Gemini,
    /// Amazon Bedrock Converse.
    Bedrock,
    /// LangGraph's prebuilt agent (`create_react_agent`), which checks LangChain histories.
    LangGraph,
    /// The Vercel AI SDK, which checks its messages on the client.
    VercelAi,
    /// OpenHands, which sends only the actions and observations that match.
    OpenHands,
    /// Kimi Code, which closes open calls and drops orphan results when it rebuilds a context.
    KimiCode,
    /// pydantic-ai, which repairs a history's pairing before each request.
    PydanticAi,
}

impl Provider {
    /// The name shown in findings.
    pub fn display(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI",
            Provider::DeepSeek => "DeepSeek",
            Provider::Anthropic => "Anthropic",
            Provider::Gemini => "Gemini",
            Provider::Bedrock => "Bedrock",
            Provider::LangGraph => "LangGraph",
            Provider::VercelAi => "the Vercel AI SDK",
            Provider::OpenHands => "OpenHands",
            Provider::KimiCode => "Kimi Code",
            Provider::PydanticAi => "pydantic-ai",
        }
    }
}
