//! `toolmend sessions`: the agent sessions on this machine, newest first, each judged by
//! `lint`; with `--repair`, the broken ones repaired in place with a backup next to each.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Result, anyhow, bail};
use toolmend::io::write;
use toolmend::sessions::{Agent, Places, Session, discover};
use toolmend::{Finding, Options, OrphanPolicy, RepairOptions, Severity};

use super::Status;
use super::args::{DuplicateArg, OrphanArg, SessionsArgs, SessionsFormat};

/// A session modified this recently may still be being written by its agent.
const STILL_WRITING: Duration = Duration::from_secs(10);

/// One session and what lint and repair made of it.
struct Judged {
    session: Session,
    /// Findings; `None` when the file was not read (unreadable, or an agent toolmend does
    /// not read).
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
            return format!("ok ({warnings} warning(s); first: {})", summary(first));
        }
        let n = self.findings.as_ref().map_or(0, Vec::len);
        let first = self
            .findings
            .iter()
            .flatten()
            .find(|f| f.severity == Severity::Error)
            .unwrap_or(first);
        format!("broken: {n} finding(s); first: {}", summary(first))
    }
}

/// `TM001 line 2: <message up to its first sentence>`.
fn summary(f: &Finding) -> String {
    let message = f.message.split(". ").next().unwrap_or(&f.message);
    let mut short: String = message.chars().take(110).collect();
    if short.len() < message.len() {
        short.push('…');
    }
    format!("{} line {}: {short}", f.code, f.line)
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
    if !j.session.agent.readable() {
        j.unread = Some("toolmend has no reader for this agent's files yet".into());
        return j;
    }
    match std::fs::read(&j.session.path) {
        Ok(bytes) => j.findings = Some(findings_of(&j.session.path, &bytes)),
        Err(e) => j.unread = Some(format!("cannot read it: {e}")),
    }
    j
}

fn findings_of(path: &Path, bytes: &[u8]) -> Vec<Finding> {
    let name = path.to_string_lossy();
    toolmend::lint(&name, bytes, &Options::default())
}

/// Repair one broken session in place (safe fixes), keeping a backup; judge it again.
fn repair_one(j: &mut Judged, now: SystemTime, a: &SessionsArgs) {
    let path = j.session.path.clone();
    let age = now
        .duration_since(j.session.modified)
        .unwrap_or(Duration::ZERO);
    if age < STILL_WRITING && !a.force {
        j.action = Some(format!(
            "not repaired: modified {}s ago, its agent may still be writing it (close the session, or use --force)",
            age.as_secs()
        ));
        return;
    }
    let Ok(bytes) = std::fs::read(&path) else {
        j.action = Some("not repaired: cannot read it".into());
        return;
    };
    let name = path.to_string_lossy().into_owned();
    let options = RepairOptions {
        orphans: a.orphans.map_or(OrphanPolicy::Keep, OrphanArg::policy),
        duplicates: a.duplicates.map(DuplicateArg::policy),
        ..RepairOptions::default()
    };
    let repaired = toolmend::repair(&name, &bytes, &Options::default(), &options);
    if !repaired.changed {
        j.action = Some(format!(
            "not repaired: no safe fix{} (see `toolmend lint {}`)",
            policy_hint(j, a),
            shell_quote(&name)
        ));
        return;
    }
    if let Err(e) = write::in_place(&path, &bytes, &repaired.output, Some(&a.backup)) {
        j.action = Some(format!("not repaired: {e}"));
        return;
    }
    let backup = format!("{name}{}", a.backup);
    let fixed: usize = repaired.fixed.iter().map(Vec::len).sum::<usize>() + repaired.fixed_later;
    j.action = Some(format!(
        "repaired: {fixed} fix(es), {} placeholder result(s); original kept as {} (undo: mv {} {})",
        repaired.placeholders,
        shell_quote(&backup),
        shell_quote(&backup),
        shell_quote(&name)
    ));
    j.findings = Some(findings_of(&path, &repaired.output));
    if let Ok(meta) = std::fs::metadata(&path) {
        j.session.size = meta.len();
        j.session.modified = meta.modified().unwrap_or(j.session.modified);
    }
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
        "first_finding": j.findings.iter().flatten().next().map(summary),
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
