//! Files in and out, for the command line and for tests: turning PATHS into documents
//! ([`inputs`]; an OpenCode session's many files into one, [`opencode`]) and writing results
//! safely ([`mod@write`]). Plain `std` file system calls; nothing
//! here prints.

pub mod inputs;
pub mod opencode;
pub mod write;

use std::path::{Path, PathBuf};

/// A file that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An operating-system error while doing `what` with the file.
    #[error("{}: {what}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What toolmend was doing (`cannot read`, `cannot replace`…).
        what: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The path is not something toolmend reads (a socket, a device, a broken link…).
    #[error("{}: {what}", path.display())]
    Skipped {
        /// The path.
        path: PathBuf,
        /// Why it was skipped.
        what: String,
    },
    /// `--in-place` refuses a file without write permission.
    #[error("{}: the file is read-only; not rewritten", .0.display())]
    ReadOnly(PathBuf),
    /// The file on disk no longer holds the bytes that were repaired.
    #[error("{}: the file changed while toolmend was working on it; left alone", .0.display())]
    Changed(PathBuf),
}

impl Error {
    fn io(path: &Path, what: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.to_path_buf(),
            what: what.into(),
            source,
        }
    }

    fn skipped(path: &Path, what: impl Into<String>) -> Error {
        Error::Skipped {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}
