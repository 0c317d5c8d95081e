//! Finding agent sessions where their tools keep them on this machine: Claude Code, Codex,
//! Gemini CLI, Cline and Roo Code (VS Code global storage), OpenCode, and the SQLite session
//! databases of Kilo and Goose. Pure discovery: it lists files; judging them is `lint`'s work.

use std::fs;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// An agent whose sessions are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Agent {
    /// Claude Code: `~/.claude/projects/<project>/<session>.jsonl` (`CLAUDE_CONFIG_DIR`).
    ClaudeCode,
    /// Codex CLI: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (`CODEX_HOME`).
    Codex,
    /// Gemini CLI: `~/.gemini/tmp/<project>/chats/session-*.json` and `session-*.jsonl`.
    GeminiCli,
    /// Cline: `<VS Code>/User/globalStorage/saoudrizwan.claude-dev/tasks/<id>/`.
    Cline,
    /// Roo Code: `<VS Code>/User/globalStorage/rooveterinaryinc.roo-cline/tasks/<id>/`.
    Roo,
    /// OpenCode: `~/.local/share/opencode/storage/session/<project>/<id>.json`, and the
    /// database of current versions, `~/.local/share/opencode/opencode.db`.
    OpenCode,
    /// Kilo CLI (an OpenCode fork): `~/.local/share/kilo/kilo.db`.
    Kilo,
    /// Goose: `~/.local/share/goose/sessions/sessions.db` (`GOOSE_PATH_ROOT`:
    /// `<root>/data/sessions/sessions.db`).
    Goose,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 8] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::GeminiCli,
        Agent::Cline,
        Agent::Roo,
        Agent::OpenCode,
        Agent::Kilo,
        Agent::Goose,
    ];

    /// The name used by `--agent` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::GeminiCli => "gemini-cli",
            Agent::Cline => "cline",
            Agent::Roo => "roo",
            Agent::OpenCode => "opencode",
            Agent::Kilo => "kilo",
            Agent::Goose => "goose",
        }
    }

    /// Look an agent up by name.
    pub fn by_name(name: &str) -> Option<Agent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
    }
}

/// One session file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Which agent wrote it.
    pub agent: Agent,
    /// The file.
    pub path: PathBuf,
    /// The project it belongs to, as the agent names it (a folder slug, a hash, a cwd).
    pub project: String,
    /// Last modification.
    pub modified: SystemTime,
    /// Size in bytes.
    pub size: u64,
}

/// Where to look: the home folder and the overrides the agents honour.
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// The home folder.
    pub home: PathBuf,
    /// `CLAUDE_CONFIG_DIR`: Claude Code's folder instead of `~/.claude`.
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME`: Codex's folder instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// The platform's configuration folder (VS Code's parent), when it is not one of the
    /// usual places under the home folder (e.g. `%APPDATA%`, `XDG_CONFIG_HOME`).
    pub config_dir: Option<PathBuf>,
    /// The platform's data folder (OpenCode's, Kilo's and Goose's parent), likewise.
    pub data_dir: Option<PathBuf>,
    /// `GOOSE_PATH_ROOT` (absolute): Goose keeps its data in `<root>/data` instead.
    pub goose_path_root: Option<PathBuf>,
}

impl Places {
    /// The places of the current user, from the environment (`dirs` for the platform's
    /// folders); `None` without a home folder.
    pub fn from_env() -> Option<Places> {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Some(Places {
            home: dirs::home_dir()?,
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
            config_dir: dirs::config_dir(),
            data_dir: dirs::data_dir(),
            goose_path_root: var("GOOSE_PATH_ROOT").filter(|p| p.is_absolute()),
        })
    }

    /// Folders that may hold VS Code's `User/globalStorage`: the Linux, macOS and Windows
    /// places under the home folder, and the platform's own.
    fn vscode_roots(&self) -> Vec<PathBuf> {
        let bases = [
            self.home.join(".config"),
            self.home.join("Library/Application Support"),
            self.home.join("AppData/Roaming"),
        ];
        let mut roots = Vec::new();
        for base in bases.iter().chain(self.config_dir.iter()) {
            for editor in ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"] {
                let root = base.join(editor).join("User/globalStorage");
                if !roots.contains(&root) {
                    roots.push(root);
                }
            }
        }
        roots
    }
}

/// Every session found under `places`, newest first.
pub fn discover(places: &Places) -> Vec<Session> {
    let mut out = Vec::new();
    let claude = places
        .claude_config_dir
        .clone()
        .unwrap_or_else(|| places.home.join(".claude"));
    for project in dirs_in(&claude.join("projects")) {
        let name = file_name(&project);
        for f in files_in(&project, |n| n.ends_with(".jsonl")) {
            push(&mut out, Agent::ClaudeCode, f, name.clone());
        }
    }
    let codex = places
        .codex_home
        .clone()
        .unwrap_or_else(|| places.home.join(".codex"));
    for f in walk(&codex.join("sessions"), 4, &|n| {
        n.starts_with("rollout-") && n.ends_with(".jsonl")
    }) {
        let project = codex_cwd(&f).unwrap_or_default();
        push(&mut out, Agent::Codex, f, project);
    }
    for project in dirs_in(&places.home.join(".gemini/tmp")) {
        let name = file_name(&project);
        // As the client lists them for `--resume`: the JSON form and the newer JSON Lines one.
        for f in files_in(&project.join("chats"), |n| {
            n.starts_with("session-") && (n.ends_with(".json") || n.ends_with(".jsonl"))
        }) {
            push(&mut out, Agent::GeminiCli, f, name.clone());
        }
    }
    for root in places.vscode_roots() {
        for (agent, extension) in [
            (Agent::Cline, "saoudrizwan.claude-dev"),
            (Agent::Roo, "rooveterinaryinc.roo-cline"),
        ] {
            for task in dirs_in(&root.join(extension).join("tasks")) {
                let f = task.join("api_conversation_history.json");
                if f.is_file() {
                    push(&mut out, agent, f, file_name(&task));
                }
            }
        }
    }
    // OpenCode, Kilo and Goose keep their data under the data folder.
    let mut data = vec![places.home.join(".local/share")];
    data.extend(places.data_dir.clone().filter(|d| !data.contains(d)));
    for storage in data.iter().map(|d| d.join("opencode/storage")) {
        for project in dirs_in(&storage.join("session")) {
            let name = file_name(&project);
            for f in files_in(&project, |n| n.ends_with(".json")) {
                push(&mut out, Agent::OpenCode, f, name.clone());
            }
        }
    }
    // SQLite session databases: current OpenCode's beside its old storage, Kilo's, Goose's.
    let mut databases: Vec<(Agent, PathBuf)> = data
        .iter()
        .flat_map(|base| {
            [
                (Agent::OpenCode, base.join("opencode/opencode.db")),
                (Agent::Kilo, base.join("kilo/kilo.db")),
                (Agent::Goose, base.join("goose/sessions/sessions.db")),
            ]
        })
        .collect();
    if let Some(root) = &places.goose_path_root {
        databases.push((Agent::Goose, root.join("data/sessions/sessions.db")));
    }
    for (agent, db) in databases {
        if crate::store::sqlite::is_sqlite(&db) {
            let (name, at) = (file_name(&db), out.len());
            push(&mut out, agent, db, name);
            // A database in write-ahead mode is written in its `-wal` file first.
            if let Some(s) = out.get_mut(at) {
                let mut wal = s.path.clone().into_os_string();
                wal.push("-wal");
                if let Ok(t) = fs::metadata(&wal).and_then(|m| m.modified()) {
                    s.modified = s.modified.max(t);
                }
            }
        }
    }
    out.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    out.dedup_by(|a, b| a.path == b.path);
    out
}

fn push(out: &mut Vec<Session>, agent: Agent, path: PathBuf, project: String) {
    let Ok(meta) = fs::metadata(&path) else {
        return;
    };
    out.push(Session {
        agent,
        project,
        modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        size: meta.len(),
        path,
    });
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Sub-folders of `dir`, sorted (none when it is missing or unreadable).
fn dirs_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Files of `dir` whose name passes `keep`, sorted.
fn files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && keep(&file_name(p)))
        .collect();
    out.sort();
    out
}

/// Files under `dir` (at most `depth` folders down) whose name passes `keep`.
fn walk(dir: &Path, depth: usize, keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = files_in(dir, keep);
    if depth > 0 {
        for sub in dirs_in(dir) {
            out.extend(walk(&sub, depth - 1, keep));
        }
    }
    out
}

/// The working folder a Codex rollout names in its first line (`session_meta`).
fn codex_cwd(path: &Path) -> Option<String> {
    let file = fs::File::open(path).ok()?;
    let mut first = Vec::new();
    std::io::BufReader::new(file)
        .take(1 << 20)
        .read_until(b'\n', &mut first)
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&first).ok()?;
    v.pointer("/payload/cwd")
        .and_then(|c| c.as_str())
        .map(str::to_string)
}
