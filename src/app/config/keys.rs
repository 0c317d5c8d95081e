//! The keys a configuration file may set: long options of `lint`, `repair` and `detect`, in
//! kebab-case, each with the TOML type it takes. Adding a key for an existing option is one
//! line here (a test checks that every key is an option of some subcommand).

/// The TOML type of a key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `true` or `false` (a flag: `true` is the flag given).
    Bool,
    /// A non-negative integer.
    Int,
    /// A string.
    Str,
    /// An array of strings (a comma-separated option).
    List,
}

impl Kind {
    /// How the type is named in an error message.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Bool => "a boolean",
            Kind::Int => "a non-negative integer",
            Kind::Str => "a string",
            Kind::List => "an array of strings",
        }
    }
}

/// The key of the per-file rule table (`glob = ["TM001", …]`), which no option has.
pub const PER_FILE_IGNORES: &str = "per-file-ignores";

/// Every key but [`PER_FILE_IGNORES`], in the order `toolmend config` prints them.
#[rustfmt::skip]
pub const KEYS: &[(&str, Kind)] = &[
    ("select", Kind::List),
    ("ignore", Kind::List),
    ("dialect", Kind::Str),
    ("at", Kind::Str),
    ("input-format", Kind::Str),
    ("target", Kind::Str),
    ("profile", Kind::Str),
    ("tail", Kind::Int),
    ("max-line-bytes", Kind::Int),
    ("placeholder", Kind::Str),
    ("mark-synthetic", Kind::Bool),
    ("orphans", Kind::Str),
    ("duplicates", Kind::Str),
    ("duplicate-ids", Kind::Str),
    ("interrupting", Kind::List),
    ("direct", Kind::List),
    ("guard", Kind::List),
    ("approval", Kind::List),
    ("mode", Kind::Str),
];
