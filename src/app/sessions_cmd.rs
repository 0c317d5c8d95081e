//! `toolmend sessions`: the agent sessions on this machine, newest first, each judged by
//! `lint`; with `--repair`, the broken ones repaired in place with a backup next to each.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Result, anyhow, bail};
use toolmend::io::opencode::{self, Assembled, ChangedFile};
use toolmend::io::write;
use toolmend::sessions::{Agent, Places, Session, discover};
use toolmend::store;
use toolmend::{Finding, Options, OrphanPolicy, RepairOptions, Severity};

use super::Status;
use super::args::{DuplicateArg, OrphanArg, SessionsArgs, SessionsFormat};

/// A session modified this recently may still be being written by its agent.
const STILL_WRITING: Duration = Duration::from_secs(10);

/// One session and what lint and repair made of it.
struct Judged {
    session: Session,
    /// Findings; `None` when the session was not read.
    findings: Option<Vec<Finding>>,
    /// Why the file was not read.
    unread: Option<String>,
    /// What `--repair` did (or why it did not).
    action: Option<String>,
}

impl Judged {
    fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .flatten()
            .filter(|f| f.severity == severity)
            .count()
    }

    fn broken(&self) -> bool {
        self.errors() > 0
    }

    fn status(&self) -> String {
        if let Some(why) = &self.unread {
            return format!("not checked: {why}");
        }
        let warnings = self.count(Severity::Warning);
        let Some(first) = self.findings.iter().flatten().next() else {
            return "ok".into();
        };
        if !self.broken() {
            return format!(
                "ok ({warnings} warning(s); first: {})",
                summary(first, &self.session.path)
            );
        }
        let n = self.findings.as_ref().map_or(0, Vec::len);
        let first = self
            .findings
            .iter()
            .flatten()
            .find(|f| f.severity == Severity::Error)
            .unwrap_or(first);
        format!(
            "broken: {n} finding(s); first: {}",
            summary(first, &self.session.path)
        )
    }
}

/// `TM001 line 2: <message up to its first sentence>`; the line is named with its file when
/// that is another than the session's own (an OpenCode part file), and a finding in a
/// database by its place in the store (`TM001 thread ses_…:`).
fn summary(f: &Finding, session: &Path) -> String {
    let message = f.message.split(". ").next().unwrap_or(&f.message);
    let mut short: String = message.chars().take(110).collect();
    if short.len() < message.len() {
        short.push('…');
    }
    if let Some(at) = &f.store {
        return format!("{} {at}: {short}", f.code);
    }
    let file = Path::new(&f.path);
    match file.file_name().filter(|_| file != session) {
        Some(name) => format!("{} {}:{}: {short}", f.code, name.to_string_lossy(), f.line),
        None => format!("{} line {}: {short}", f.code, f.line),
    }
}

/// Run `toolmend sessions`.
pub fn run(a: SessionsArgs) -> Result<Status> {
    let agent = match &a.agent {
        Some(name) => Some(Agent::by_name(name).ok_or_else(|| {
            let names: Vec<_> = Agent::ALL.iter().map(|a| a.name()).collect();
            anyhow!("unknown agent `{name}` (one of: {})", names.join(", "))
        })?),
        None => None,
    };
    let Some(places) = Places::from_env() else {
        bail!("no home folder: set HOME");
    };
    let mut judged: Vec<Judged> = discover(&places)
        .into_iter()
        .filter(|s| agent.is_none_or(|a| s.agent == a))
        .map(judge)
        .collect();
    if a.broken {
        judged.retain(Judged::broken);
    }
    if a.repair {
        let now = SystemTime::now();
        for j in judged.iter_mut().filter(|j| j.broken()) {
            repair_one(j, now, &a);
        }
    }
    let mut out = std::io::stdout().lock();
    match a.format {
        SessionsFormat::Json => {
            let rows: Vec<_> = judged.iter().map(json_row).collect();
            serde_json::to_writer_pretty(&mut out, &rows)?;
            writeln!(out)?;
        }
        SessionsFormat::Human => {
            for j in &judged {
                human(&mut out, j)?;
            }
            let broken = judged.iter().filter(|j| j.broken()).count();
            writeln!(
                out,
                "{} session(s): {} ok, {broken} broken",
                judged.len(),
                judged.len() - broken
            )?;
        }
    }
    Ok(if judged.iter().any(Judged::broken) {
        Status::Findings
    } else {
        Status::Clean
    })
}

fn judge(session: Session) -> Judged {
    let mut j = Judged {
        session,
        findings: None,
        unread: None,
        action: None,
    };
    match findings_of(&j.session) {
        Ok(found) => j.findings = Some(found),
        Err(why) => j.unread = Some(why),
    }
    j
}

/// The findings of a session, each naming the file and line (or the store's row) it is in;
/// why it could not be read otherwise.
fn findings_of(s: &Session) -> Result<Vec<Finding>, String> {
    if !store::sqlite::is_sqlite(&s.path) {
        return Document::read(s).map(Document::findings);
    }
    let name = s.path.to_string_lossy();
    let conn = store::sqlite::open_read_only(&s.path).map_err(|e| cannot(&e))?;
    let report = store::pipeline::lint(&name, &conn, &Options::default())
        .map_err(|e| cannot(&e))?
        .ok_or("a database, but no session store toolmend knows")?;
    Ok(report.findings().cloned().collect())
}

/// Why a session could not be read.
fn cannot(e: &dyn std::fmt::Display) -> String {
    format!("cannot read it: {e}")
}

/// A session read as a document: its file, or for OpenCode's file storage the message and
/// part files of the session, joined as OpenCode reads them. (A SQLite session database is
/// read and written by its store instead.)
enum Document {
    File { name: String, bytes: Vec<u8> },
    OpenCode { name: String, assembled: Assembled },
}

impl Document {
    fn read(s: &Session) -> Result<Document, String> {
        let name = s.path.to_string_lossy().into_owned();
        if s.agent != Agent::OpenCode {
            let bytes = std::fs::read(&s.path).map_err(|e| cannot(&e))?;
            return Ok(Document::File { name, bytes });
        }
        let session = opencode_session(&s.path)
            .ok_or("not inside an OpenCode storage folder (session/, message/, part/)")?;
        let assembled = session.assemble().map_err(|e| cannot(&e))?;
        if let Some(f) = assembled.broken.first() {
            return Err(format!("{}:{}:{}: {}", f.path, f.line, f.column, f.message));
        }
        Ok(Document::OpenCode {
            name: session.name(),
            assembled,
        })
    }

    /// The name findings give, and the bytes linted and repaired.
    fn text(&self) -> (&str, &[u8]) {
        match self {
            Document::File { name, bytes } => (name, bytes),
            Document::OpenCode { name, assembled } => (name, &assembled.bytes),
        }
    }

    /// The findings, each naming the file and line it is in.
    fn findings(self) -> Vec<Finding> {
        let (name, bytes) = self.text();
        let mut found = toolmend::lint(name, bytes, &Options::default());
        if let Document::OpenCode { assembled, .. } = &self {
            assembled.relocate(&mut found);
        }
        found
    }

    /// The files `repaired` changes: each with its original bytes and its new ones.
    fn changed(&self, path: &Path, repaired: Vec<u8>) -> Result<Vec<ChangedFile>, String> {
        match self {
            Document::File { bytes, .. } => Ok(vec![(path.to_path_buf(), bytes.clone(), repaired)]),
            Document::OpenCode { assembled, .. } => assembled.split(&repaired),
        }
    }
}

/// The OpenCode session whose `session/<project>/<id>.json` file is `path`.
fn opencode_session(path: &Path) -> Option<opencode::Session> {
    let root = opencode::root_of(path)?;
    let id = path.file_stem()?.to_str()?.to_string();
    Some(opencode::Session { root, id })
}

/// When a session was last written: its file, or the newest of an OpenCode session's files.
fn last_written(s: &Session) -> SystemTime {
    let files = match s.agent {
        Agent::OpenCode => opencode_session(&s.path).map_or_else(Vec::new, |o| o.files()),
        _ => Vec::new(),
    };
    files
        .iter()
        .filter_map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .fold(s.modified, SystemTime::max)
}

/// Repair one broken session in place (safe fixes), keeping a backup of each file it
/// changes; judge it again.
fn repair_one(j: &mut Judged, now: SystemTime, a: &SessionsArgs) {
    let path = j.session.path.clone();
    let age = now
        .duration_since(last_written(&j.session))
        .unwrap_or(Duration::ZERO);
    if age < STILL_WRITING && !a.force {
        j.action = Some(format!(
            "not repaired: modified {}s ago, its agent may still be writing it (close the session, or use --force)",
            age.as_secs()
        ));
        return;
    }
    let options = RepairOptions {
        orphans: a.orphans.map_or(OrphanPolicy::Keep, OrphanArg::policy),
        duplicates: a.duplicates.map(DuplicateArg::policy),
        ..RepairOptions::default()
    };
    // A database is read again inside the store's write transaction.
    if store::sqlite::is_sqlite(&path) {
        repair_database(j, a, &options);
        return;
    }
    let doc = match Document::read(&j.session) {
        Ok(doc) => doc,
        Err(why) => {
            j.action = Some(format!("not repaired: {why}"));
            return;
        }
    };
    let (name, bytes) = doc.text();
    let repaired = toolmend::repair(name, bytes, &Options::default(), &options);
    if !repaired.changed {
        j.action = Some(format!(
            "not repaired: no safe fix{} (see `toolmend lint {}`)",
            policy_hint(j, a),
            shell_quote(&path.to_string_lossy())
        ));
        return;
    }
    let fixed: usize = repaired.fixed.iter().map(Vec::len).sum::<usize>() + repaired.fixed_later;
    let placeholders = repaired.placeholders;
    let changed = match doc.changed(&path, repaired.output) {
        Ok(changed) => changed,
        Err(e) => {
            j.action = Some(format!("not repaired: {e}"));
            return;
        }
    };
    let mut undo = Vec::new();
    for (file, original, new) in &changed {
        if let Err(e) = write::in_place(file, original, new, Some(&a.backup)) {
            j.action = Some(if undo.is_empty() {
                format!("not repaired: {e}")
            } else {
                format!(
                    "partly repaired: {e}; each file written so far keeps its original beside it (undo: {})",
                    undo.join(" && ")
                )
            });
            return;
        }
        let file = file.to_string_lossy().into_owned();
        let backup = format!("{file}{}", a.backup);
        undo.push(format!(
            "mv {} {}",
            shell_quote(&backup),
            shell_quote(&file)
        ));
    }
    let kept = match changed.as_slice() {
        [(file, ..)] => format!(
            "original kept as {}",
            shell_quote(&format!("{}{}", file.to_string_lossy(), a.backup))
        ),
        _ => format!(
            "{} files changed, each original kept beside it as <file>{}",
            changed.len(),
            a.backup
        ),
    };
    j.action = Some(format!(
        "repaired: {fixed} fix(es), {placeholders} placeholder result(s); {kept} (undo: {})",
        undo.join(" && ")
    ));
    match findings_of(&j.session) {
        Ok(found) => j.findings = Some(found),
        Err(why) => j.unread = Some(why),
    }
    if let Ok(meta) = std::fs::metadata(&path) {
        j.session.size = meta.len();
        j.session.modified = meta.modified().unwrap_or(j.session.modified);
    }
}

/// Repair a session database in place, in one transaction, the store's own way, after a
/// consistent copy of it (SQLite's backup API) is kept beside it; judge it again.
fn repair_database(j: &mut Judged, a: &SessionsArgs, options: &RepairOptions) {
    let path = j.session.path.clone();
    let mut backup = path.clone().into_os_string();
    backup.push(&a.backup);
    let backup = PathBuf::from(backup);
    let write = store::pipeline::WriteOptions {
        force: a.force,
        backup: Some(backup.clone()),
        dry_run: false,
    };
    let done = match store::pipeline::repair(&path, &Options::default(), options, &write) {
        Ok(done) => done,
        Err(e) => {
            j.action = Some(format!("not repaired: {e}"));
            return;
        }
    };
    if done.repaired.is_empty() {
        j.action = Some(format!(
            "not repaired: no safe fix{} (see `toolmend lint {}`)",
            policy_hint(j, a),
            shell_quote(&path.to_string_lossy())
        ));
        return;
    }
    let (db, copy) = (
        shell_quote(&path.to_string_lossy()),
        shell_quote(&backup.to_string_lossy()),
    );
    j.action = Some(format!(
        "repaired: {} conversation(s), {} placeholder result(s), {} row(s) in one transaction; a copy of the database before it kept as {copy} (undo, with the app closed: mv {copy} {db} && rm -f {db}-wal {db}-shm)",
        done.repaired.len(),
        done.placeholders,
        done.rows
    ));
    j.findings = Some(done.left);
}

/// What a policy left unset would repair: duplicate results (TM004, as Gemini CLI records
/// them) and orphan results (TM002) are removed only when asked, where a fix is offered.
fn policy_hint(j: &Judged, a: &SessionsArgs) -> String {
    let has = |code: &str| {
        j.findings
            .iter()
            .flatten()
            .any(|f| f.code == code && f.severity == Severity::Error && f.fix.is_some())
    };
    let mut asks = Vec::new();
    if a.duplicates.is_none() && has("TM004") {
        asks.push("its duplicate results (TM004) need --duplicates keep-first");
    }
    if a.orphans.is_none() && has("TM002") {
        asks.push("its orphan results (TM002) need --orphans drop");
    }
    if asks.is_empty() {
        String::new()
    } else {
        format!("; {}", asks.join(", "))
    }
}

/// `s` quoted for a POSIX shell when it needs it.
fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn human(out: &mut dyn Write, j: &Judged) -> Result<()> {
    let s = &j.session;
    writeln!(
        out,
        "{}  {:<11}  {:>9}  {}",
        utc(s.modified, false),
        s.agent.name(),
        size(s.size),
        if s.project.is_empty() {
            "-"
        } else {
            &s.project
        }
    )?;
    writeln!(out, "  {}", s.path.display())?;
    match &j.action {
        Some(action) if action.starts_with("repaired") => {
            writeln!(out, "  {action}")?;
            writeln!(out, "  now {}", j.status())?;
        }
        Some(action) => {
            writeln!(out, "  {}", j.status())?;
            writeln!(out, "  {action}")?;
        }
        None => writeln!(out, "  {}", j.status())?,
    }
    Ok(())
}

fn json_row(j: &Judged) -> serde_json::Value {
    let s = &j.session;
    serde_json::json!({
        "agent": s.agent.name(),
        "path": s.path.to_string_lossy(),
        "project": s.project,
        "modified": utc(s.modified, true),
        "size": s.size,
        "status": if j.unread.is_some() { "unchecked" } else if j.broken() { "broken" } else { "ok" },
        "findings": j.findings.as_ref().map(Vec::len),
        "first_finding": j.findings.iter().flatten().next().map(|f| summary(f, &s.path)),
        "action": j.action,
    })
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// A time in UTC: `YYYY-MM-DD HH:MM`, or RFC 3339 (`YYYY-MM-DDTHH:MM:SSZ`).
fn utc(t: SystemTime, rfc3339: bool) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (h, m, s) = (rest / 3600, rest % 3600 / 60, rest % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if rfc3339 {
        format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}Z")
    } else {
        format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        let at = |s: u64| utc(UNIX_EPOCH + Duration::from_secs(s), true);
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_795_000_000), "2026-11-18T11:06:40Z");
    }
}
