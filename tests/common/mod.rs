//! Helpers shared by the integration tests, each written once: lint and repair through the
//! public API ([`api`]), running the binary ([`bin`]), fixture and corpus files and pinned expected outputs ([`files`]),
//! documents read as `serde_json` values ([`docs`]), the pinned fixture runs ([`pinned`]),
//! generated conversations for property tests and fuzzing ([`generate`]), the repair policies
//! streamed repairs are compared under ([`policies`]), and
//! the providers' strict-rule checkers, written independently of the library (one module per
//! provider: they encode different rules).
//!
//! A test crate includes this as `pub mod common;`, so that a helper only other crates use is
//! not dead code in it.

pub mod anthropic_strict;
pub mod api;
pub mod bedrock_strict;
pub mod bin;
pub mod docs;
pub mod files;
pub mod generate;
pub mod openai_strict;
pub mod pinned;
pub mod policies;
pub mod responses_strict;
