//! The edit vocabulary: byte edits over the original document ([`Edit`], [`EditSet`]), the
//! context a dialect writes a fix in ([`RepairCx`]) and the repair options it reads.
//!
//! A leaf below `dialect`: it knows the model and JSON, nothing of reading, linting or
//! planning a repair.

mod cx;
mod options;
mod set;

pub use cx::RepairCx;
pub(crate) use cx::{first_result, is_sample_result};
pub use options::{DuplicatePolicy, OrphanPolicy, RepairOptions, SEED_PLACEHOLDER};
pub use set::{Edit, EditSet};

/// The length of the line ending right after offset `end` of `src` (0 at the end of the text):
/// a line removed goes with it.
pub(crate) fn line_ending(src: &[u8], end: usize) -> usize {
    match src.get(end..) {
        Some([b'\r', b'\n', ..]) => 2,
        Some([b'\n', ..]) => 1,
        _ => 0,
    }
}
