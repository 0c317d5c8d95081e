//! toolmend: find and repair broken tool-call pairing in stored LLM conversation logs.

pub mod json;
pub mod analysis;
pub mod model;
pub mod rules;
