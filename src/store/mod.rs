//! Session stores kept in SQLite databases.

pub mod app_store;
pub mod opencode;
