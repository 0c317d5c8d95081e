//! toolmend: find and repair broken tool-call pairing in stored LLM conversation logs.

pub mod analysis;
pub mod dialect;
pub mod finding;
pub mod json;
pub mod lint;
pub mod locate;
pub mod model;
pub mod read;
pub mod render;
pub mod repair;
pub mod rules;
