//! toolmend: find and repair broken tool-call pairing in stored LLM conversation logs.

pub mod simulate;
