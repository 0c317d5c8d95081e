//! toolmend: find and repair broken tool-call pairing in stored LLM conversation logs, and
//! simulate how a human-in-the-loop interrupt in a parallel tool batch re-executes siblings.
//!
//! The pipeline: [`read`] a document into the neutral [`model`] (one [`dialect`] per log
//! format), walk it ([`analysis`]), describe defects as findings ([`lint`], [`finding`]),
//! turn them into byte edits ([`repair`]) and render them ([`render`]); [`io`] reads inputs and
//! writes results safely. [`simulate`] stands alone.

#![warn(missing_docs)]

pub mod analysis;
pub mod batches;
pub mod dialect;
pub mod finding;
pub mod io;
pub mod json;
pub mod lint;
pub mod locate;
pub mod model;
pub mod read;
pub mod render;
pub mod repair;
pub mod rules;
pub mod simulate;
pub mod stream;

// The CLI source lives in `src/app/` and names the library `toolmend::…`, as the binary did;
// inside the library that name needs this alias.
#[cfg(feature = "cli")]
extern crate self as toolmend;

/// The command-line interface, shared by the `toolmend` binary and the Python package's
/// `toolmend` command (feature `cli`, on by default). Only [`cli::main`] is public.
#[cfg(feature = "cli")]
#[path = "app/mod.rs"]
pub mod cli;
