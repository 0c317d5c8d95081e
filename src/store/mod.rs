//! Session stores kept in SQLite databases.

pub mod agents_sdk;
pub mod app_store;
pub mod crush;
pub mod goose;
pub mod opencode;
