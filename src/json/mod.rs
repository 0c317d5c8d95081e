//! A tolerant, span-preserving JSON reader and a style-aware JSON writer.
//!
//! toolmend never re-serialises a document: it reads where every value sits (byte spans) and
//! writes only the pieces it inserts. The reader accepts what real logs contain beyond strict
//! JSON (Python's `NaN`/`Infinity`, lone surrogate escapes, invalid UTF-8 inside strings) so
//! that such lines can still be analysed while their bytes are kept exactly.

mod parse;
mod tree;
mod write;

pub use parse::{ErrorKind, ParseError, parse, parse_into};
pub(crate) use tree::same;
pub use tree::{Children, Kind, NodeBuf, NodeId, Tree, char_count, line_col};
pub use write::{J, Style};
