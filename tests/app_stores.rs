//! The application session stores (OpenCode, Kilo, Crush, Goose, the OpenAI Agents SDK): lint
//! finds exactly the dangling calls, repair writes each app's own fix, and every other row of
//! every table is the same before and after.

#[path = "app_stores/agents_sdk.rs"]
mod agents_sdk;
#[path = "app_stores/crush.rs"]
mod crush;
#[path = "app_stores/goose.rs"]
mod goose;
#[path = "app_stores/opencode.rs"]
mod opencode;
#[path = "app_stores/support.rs"]
mod support;
