//! PostgreSQL stores, reached through a `postgres://` URL and read only: one read-only,
//! repeatable-read transaction (one consistent snapshot), never a write.

use std::time::Duration;

use crate::lint::LintOptions;

use super::Error;
use super::langgraph::postgres as langgraph;
use super::pipeline::{self, Report};

/// Whether an input names a PostgreSQL database (`postgres://` or `postgresql://`).
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

/// The URL as shown in reports: a password is replaced by `***`.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user = &rest[..at];
            let user = match user.split_once(':') {
                Some((name, _)) => format!("{name}:***"),
                None => user.to_string(),
            };
            format!("{scheme}://{user}{}", &rest[at..])
        }
        None => url.to_string(),
    }
}

/// Lint the store in the PostgreSQL database at `url`; `None` when it holds no known store.
/// `name` is what findings show (see [`redact`]).
pub fn lint(url: &str, name: &str, options: &LintOptions) -> Result<Option<Report>, Error> {
    let mut config: ::postgres::Config = url.parse()?;
    config.connect_timeout(Duration::from_secs(10));
    let mut client = config.connect(::postgres::NoTls)?;
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .isolation_level(::postgres::IsolationLevel::RepeatableRead)
        .start()?;
    let Some(why) = langgraph::recognise(&mut tx)? else {
        return Ok(None);
    };
    let mut stored = langgraph::conversations(&mut tx)?;
    tx.rollback()?;
    for s in &mut stored {
        if let super::Content::Messages(m) = &mut s.content {
            m.read_only
                .get_or_insert_with(|| "toolmend does not write to PostgreSQL stores".into());
        }
    }
    Ok(Some(Report {
        store: langgraph::NAME,
        why,
        conversations: pipeline::lint_stored(name, &crate::dialect::LangChain, stored, options),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            redact("postgres://me:secret@db:5432/lg?sslmode=disable"),
            "postgres://me:***@db:5432/lg?sslmode=disable"
        );
        assert_eq!(redact("postgresql://me@db/lg"), "postgresql://me@db/lg");
        assert_eq!(redact("postgres://db/x@y"), "postgres://db/x@y");
        assert!(is_url("postgresql://x") && !is_url("/tmp/postgres://x"));
    }
}
