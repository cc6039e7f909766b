//! The write allow-list: which workspace paths the model may write in each
//! chat mode. Paths are checked lexically here (no file system access); the
//! [`crate::writer`] then resolves them without following any symlink.
//!
//! Three sets are refused whatever the mode's globs, matched without regard
//! to case (so `.GIT/config` is refused on a case-insensitive file system
//! too): secrets and generated files ([`ALWAYS_BLOCKED`]), the state of
//! Switchboard and the tools it works with ([`TOOL_STATE`]), and every
//! coding agent's settings and hooks ([`AGENT_SETTINGS`]).
//!
//! An [`AllowedPath`] can only be made by [`AllowList::check`], so a write
//! cannot be reached with an unchecked path.

use std::fmt;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use switchboard_model::chat::ChatMode;
use thiserror::Error;

/// Globs Planning may write (and Building too).
pub const PLANNING_GLOBS: [&str; 4] = [
    ".prompts/plan/**",
    ".prompts/features/**",
    ".naide/learnings/**",
    ".prompts/learnings/**",
];
/// Building's extra globs when none are configured.
pub const DEFAULT_BUILDING_GLOBS: [&str; 1] = ["src/**"];
/// Globs no mode may ever write or read: secrets, version control and
/// generated files.
pub const ALWAYS_BLOCKED: [&str; 9] = [
    "**/.git/**",
    "**/.git",
    "**/.env*",
    "**/node_modules/**",
    "**/Cargo.lock",
    "**/package-lock.json",
    "**/yarn.lock",
    "**/pnpm-lock.yaml",
    "**/*.lock",
];
/// Globs no mode may ever write: the state of Switchboard and of the tools
/// it works with, which a model rewriting could use to answer an agent's
/// question, forge history, change its own instructions or steer another
/// tool (reading them is allowed).
pub const TOOL_STATE: [&str; 7] = [
    ".switchboard/**",
    ".visual-delivery/**",
    ".naide/chatsessions/**",
    ".naide/project-config.json",
    ".prompts/system/**",
    ".delia/**",
    "tapes/**",
];
/// Globs no mode may ever write, at any depth (an agent started in a
/// subfolder reads that folder's settings): what coding agents read as
/// their settings — files that run commands (hooks, MCP servers, tasks,
/// an editor's auto-run), add tools or widen what an agent may do without
/// asking. A model writing one would steer another agent past the
/// developer, so a broad Building glob never reaches them (reading them is
/// allowed). The folders are taken whole, because each mixes such files
/// with rules and skills and its agent reads new files there.
///
/// Prose instructions (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`,
/// `.github/copilot-instructions.md`, `.cursorrules`) are not here: they are
/// the team's documents, edited and reviewed like code, and change what an
/// agent is asked, not what it can do; only a glob the developer chose
/// reaches them.
pub const AGENT_SETTINGS: [&str; 30] = [
    // Claude Code: settings, hooks, commands, agents, skills; its project MCP servers.
    "**/.claude/**",
    "**/.mcp.json",
    // Codex: config.toml, hooks.json; skills in `.agents/skills`.
    "**/.codex/**",
    "**/.agents/**",
    // opencode: its folder (plugins, teams) and its project config.
    "**/.opencode/**",
    "**/opencode.json",
    "**/opencode.jsonc",
    // Cursor: mcp.json, hooks.json, rules.
    "**/.cursor/**",
    // VS Code and Copilot in it: settings (auto-approve), mcp.json, tasks.json (run on open).
    "**/.vscode/**",
    // GitHub Copilot's agents: hooks, and the setup steps its cloud agent runs.
    "**/.github/hooks/**",
    "**/.github/workflows/copilot-setup-steps.yml",
    "**/.github/workflows/copilot-setup-steps.yaml",
    // Gemini CLI and Qwen Code: settings.json (hooks, MCP servers, allowed tools).
    "**/.gemini/**",
    "**/.qwen/**",
    // Windsurf: hooks.json, workflows, rules.
    "**/.windsurf/**",
    // Continue: config and MCP servers.
    "**/.continue/**",
    // Aider: `.aider.conf.yml` (its lint and test commands run), history, caches.
    "**/.aider*",
    "**/.aider*/**",
    // Cline: hooks in `.clinerules/hooks`, skills in `.cline`.
    "**/.clinerules/hooks/**",
    "**/.cline/**",
    // Roo Code and Kilo Code: MCP servers, modes that grant tools.
    "**/.roo/**",
    "**/.roomodes",
    "**/.kilocode/**",
    // Kiro: hooks, MCP settings, steering.
    "**/.kiro/**",
    // Amazon Q: MCP servers.
    "**/.amazonq/**",
    // Junie: MCP servers.
    "**/.junie/**",
    // Zed: agent settings, context servers, tasks.
    "**/.zed/**",
    // Crush: MCP servers, allowed tools.
    "**/.crush/**",
    "**/.crush.json",
    "**/crush.json",
];
/// Longest path accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 1024;
/// Longest path component accepted, in bytes (the usual file system limit).
pub const MAX_NAME_BYTES: usize = 255;

/// Characters that look like `.` or `/` and are refused in names, so a
/// normalising tool or a human reader is never fooled.
const CONFUSABLES: [char; 8] = [
    '\u{FF0E}', '\u{2024}', '\u{FE52}', '\u{2215}', '\u{2044}', '\u{FF0F}', '\u{29F8}', '\u{FF3C}',
];

/// Why a path is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Refusal {
    /// Nothing to write to.
    #[error("the path is empty")]
    Empty,
    /// A NUL byte or other control character.
    #[error("the path contains a control character")]
    ControlCharacter,
    /// Starts at the file system root or a drive.
    #[error("absolute paths are refused; paths are relative to the workspace")]
    Absolute,
    /// A backslash separator.
    #[error("backslashes are refused; use / between folders")]
    Backslash,
    /// Longer than [`MAX_PATH_BYTES`] or a name longer than [`MAX_NAME_BYTES`].
    #[error("the path or one of its names is too long")]
    TooLong,
    /// `a//b`, or a trailing `/`.
    #[error("empty path components (// or a trailing /) are refused")]
    EmptyComponent,
    /// `.` or `..`.
    #[error("'.' and '..' are refused in paths")]
    DotComponent,
    /// A name ending in `.` or a space (ambiguous on some systems).
    #[error("names ending in '.' or a space are refused")]
    TrailingDot,
    /// Percent-encoded separators or dots, or look-alike characters.
    #[error("encoded or look-alike dots and slashes are refused")]
    Encoded,
    /// Matches a path no mode may write.
    #[error("{0} is never writable (.git, .env, node_modules, lockfiles)")]
    AlwaysBlocked(String),
    /// Belongs to Switchboard's or another tool's state.
    #[error(
        "{0} is app or tool state and never writable by the model (.switchboard, \
         .visual-delivery, chat sessions, system prompts, .delia, tapes)"
    )]
    ToolState(String),
    /// A coding agent's settings or hooks ([`AGENT_SETTINGS`]).
    #[error(
        "{0} is a coding agent's settings or hooks and never writable by the model \
         (.claude, .mcp.json, .codex, .agents, .opencode, .cursor, .vscode, .gemini, \
         .windsurf, .continue, .aider*, .github/hooks and the like)"
    )]
    AgentSettings(String),
    /// Outside the current mode's allow-list.
    #[error("{path} is outside what {mode} mode may write ({allowed})")]
    NotAllowed {
        /// The path.
        path: String,
        /// The mode.
        mode: &'static str,
        /// The mode's globs.
        allowed: String,
    },
}

/// A configuration error: a glob that does not parse.
#[derive(Debug, Error)]
#[error("invalid allow-list glob {glob:?}: {source}")]
pub struct GlobError {
    /// The glob.
    pub glob: String,
    /// Why.
    pub source: globset::Error,
}

/// A workspace-relative path that passed the allow-list: normalised
/// components, none empty, `.`, `..`, or containing a separator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedPath {
    components: Vec<String>,
}

impl AllowedPath {
    /// The folder names, then the file name.
    pub fn components(&self) -> &[String] {
        &self.components
    }
}

impl fmt::Display for AllowedPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.components.join("/"))
    }
}

/// The allow-list of one mode.
#[derive(Debug, Clone)]
pub struct AllowList {
    mode: ChatMode,
    patterns: Vec<String>,
    allowed: GlobSet,
    blocked: GlobSet,
    state: GlobSet,
    agent_settings: GlobSet,
}

/// Whether a glob set matches regardless of case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Sensitive,
    Insensitive,
}

fn glob_set<'a>(
    globs: impl IntoIterator<Item = &'a str>,
    case: Case,
) -> Result<GlobSet, GlobError> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let compiled = GlobBuilder::new(glob)
            .literal_separator(true)
            .case_insensitive(case == Case::Insensitive)
            .build()
            .map_err(|source| GlobError {
                glob: glob.to_owned(),
                source,
            })?;
        builder.add(compiled);
    }
    builder.build().map_err(|source| GlobError {
        glob: String::new(),
        source,
    })
}

impl AllowList {
    /// The allow-list of `mode`; `building_globs` are Building's own globs
    /// (empty: [`DEFAULT_BUILDING_GLOBS`]).
    pub fn for_mode(mode: ChatMode, building_globs: &[String]) -> Result<Self, GlobError> {
        let mut patterns: Vec<String> = match mode {
            ChatMode::Analyzing => Vec::new(),
            ChatMode::Planning | ChatMode::Building => {
                PLANNING_GLOBS.iter().map(|g| (*g).to_owned()).collect()
            }
        };
        if mode == ChatMode::Building {
            if building_globs.is_empty() {
                patterns.extend(DEFAULT_BUILDING_GLOBS.iter().map(|g| (*g).to_owned()));
            } else {
                patterns.extend(building_globs.iter().cloned());
            }
        }
        Ok(Self {
            mode,
            allowed: glob_set(patterns.iter().map(String::as_str), Case::Sensitive)?,
            blocked: glob_set(ALWAYS_BLOCKED, Case::Insensitive)?,
            state: glob_set(TOOL_STATE, Case::Insensitive)?,
            agent_settings: glob_set(AGENT_SETTINGS, Case::Insensitive)?,
            patterns,
        })
    }

    /// Checks `raw`, a path as the model wrote it.
    pub fn check(&self, raw: &str) -> Result<AllowedPath, Refusal> {
        let components = lexical(raw)?;
        let path = components.join("/");
        if self.blocked.is_match(&path) {
            return Err(Refusal::AlwaysBlocked(path));
        }
        if self.state.is_match(&path) {
            return Err(Refusal::ToolState(path));
        }
        if self.agent_settings.is_match(&path) {
            return Err(Refusal::AgentSettings(path));
        }
        if !self.allowed.is_match(&path) {
            return Err(Refusal::NotAllowed {
                path,
                mode: self.mode.as_str(),
                allowed: if self.patterns.is_empty() {
                    "nothing".to_owned()
                } else {
                    self.patterns.join(", ")
                },
            });
        }
        Ok(AllowedPath { components })
    }

    /// Checks `raw` for reading: the lexical rules and the secrets of
    /// [`ALWAYS_BLOCKED`]; tool state, agents' settings and the mode's globs
    /// do not apply.
    pub fn check_read(&self, raw: &str) -> Result<AllowedPath, Refusal> {
        let components = lexical(raw)?;
        let path = components.join("/");
        if self.blocked.is_match(&path) {
            return Err(Refusal::AlwaysBlocked(path));
        }
        Ok(AllowedPath { components })
    }
}

/// The lexical rules, independent of the mode.
fn lexical(raw: &str) -> Result<Vec<String>, Refusal> {
    if raw.is_empty() {
        return Err(Refusal::Empty);
    }
    if raw.chars().any(char::is_control) {
        return Err(Refusal::ControlCharacter);
    }
    let bytes = raw.as_bytes();
    if raw.starts_with('/') || raw.starts_with('~') || (bytes.len() >= 2 && bytes[1] == b':') {
        return Err(Refusal::Absolute);
    }
    if raw.contains('\\') {
        return Err(Refusal::Backslash);
    }
    if raw.len() > MAX_PATH_BYTES {
        return Err(Refusal::TooLong);
    }
    let lower = raw.to_ascii_lowercase();
    if ["%2e", "%2f", "%5c", "%00"]
        .iter()
        .any(|code| lower.contains(code))
        || raw.contains(CONFUSABLES)
    {
        return Err(Refusal::Encoded);
    }
    let mut components = Vec::new();
    for component in raw.split('/') {
        match component {
            "" => return Err(Refusal::EmptyComponent),
            "." | ".." => return Err(Refusal::DotComponent),
            name if name.len() > MAX_NAME_BYTES => return Err(Refusal::TooLong),
            name if name.ends_with('.') || name.ends_with(' ') => return Err(Refusal::TrailingDot),
            name => components.push(name.to_owned()),
        }
    }
    Ok(components)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn list(mode: ChatMode) -> AllowList {
        AllowList::for_mode(mode, &[]).unwrap()
    }

    #[test]
    fn each_mode_writes_only_its_own_places() {
        let planning = list(ChatMode::Planning);
        assert!(planning.check(".prompts/plan/auth.md").is_ok());
        assert!(planning.check(".prompts/features/login/spec.md").is_ok());
        assert!(planning.check(".naide/learnings/build.md").is_ok());
        assert!(matches!(
            planning.check("src/main.rs"),
            Err(Refusal::NotAllowed { .. })
        ));
        assert!(matches!(
            planning.check(".prompts/system/base.md"),
            Err(Refusal::ToolState(_))
        ));

        let building = list(ChatMode::Building);
        assert!(building.check("src/main.rs").is_ok());
        assert!(building.check(".prompts/plan/auth.md").is_ok());
        assert!(matches!(
            building.check("README.md"),
            Err(Refusal::NotAllowed { .. })
        ));

        let custom = AllowList::for_mode(ChatMode::Building, &["app/**".to_owned()]).unwrap();
        assert!(custom.check("app/x.ts").is_ok());
        assert!(
            custom.check("src/x.rs").is_err(),
            "configured globs replace the default"
        );

        let analyzing = list(ChatMode::Analyzing);
        assert!(matches!(
            analyzing.check(".prompts/plan/a.md"),
            Err(Refusal::NotAllowed { .. })
        ));
    }

    #[test]
    fn some_paths_are_never_writable() {
        let building = AllowList::for_mode(ChatMode::Building, &["**".to_owned()]).unwrap();
        for path in [
            ".git/config",
            "src/.git/HEAD",
            ".env",
            ".env.local",
            "src/.envrc",
            "node_modules/x/index.js",
            "Cargo.lock",
            "src/package-lock.json",
            "web/yarn.lock",
            "pnpm-lock.yaml",
            "src/deps.lock",
        ] {
            assert!(
                matches!(building.check(path), Err(Refusal::AlwaysBlocked(_))),
                "{path}"
            );
        }
        assert!(building.check("README.md").is_ok());
    }

    #[test]
    fn blocked_names_are_matched_whatever_their_case() {
        let building = AllowList::for_mode(ChatMode::Building, &["**".to_owned()]).unwrap();
        for path in [
            ".GIT/config",
            "src/.Git/HEAD",
            "src/.ENV",
            ".Env.Local",
            "Cargo.LOCK",
            "NODE_MODULES/x.js",
            "web/Yarn.Lock",
        ] {
            assert!(
                matches!(building.check(path), Err(Refusal::AlwaysBlocked(_))),
                "{path}"
            );
        }
    }

    #[test]
    fn tool_state_is_never_writable_even_under_a_broad_glob() {
        let building = AllowList::for_mode(ChatMode::Building, &["**".to_owned()]).unwrap();
        for path in [
            ".switchboard/audit/writes.jsonl",
            ".switchboard/knowledge/quarantine.json",
            ".Switchboard/audit/writes.jsonl",
            ".visual-delivery/data/deliveries.json",
            ".visual-delivery/data/sessions.json",
            ".VISUAL-DELIVERY/data/feedback.json",
            ".naide/chatsessions/chat-active.json",
            ".naide/project-config.json",
            ".prompts/system/base.md",
            ".delia/playbooks/coding.json",
            "tapes/bash/session.json5",
            "Tapes/bash/session.json5",
        ] {
            assert!(
                matches!(building.check(path), Err(Refusal::ToolState(_))),
                "{path}"
            );
        }
        assert!(building.check(".naide/learnings/build.md").is_ok());
        assert!(building.check("src/tapes/x.rs").is_ok());
        // Reading tool state is allowed; reading secrets is not.
        assert!(building.check_read(".delia/playbooks/coding.json").is_ok());
        assert!(matches!(
            building.check_read("src/.ENV"),
            Err(Refusal::AlwaysBlocked(_))
        ));
    }

    /// Issue 39, item 7: a broad Building glob let the model write Codex's
    /// hooks and Claude Code's MCP servers.
    #[test]
    fn agents_settings_are_never_writable_at_any_depth_whatever_the_case() {
        let building = AllowList::for_mode(ChatMode::Building, &["**".to_owned()]).unwrap();
        for path in [
            ".codex/hooks.json",
            ".codex/config.toml",
            ".mcp.json",
            "services/api/.mcp.json",
            ".claude/settings.json",
            ".claude/settings.local.json",
            "web/.claude/commands/deploy.md",
            ".CLAUDE/settings.json",
            ".opencode/opencode-teams/tasks/t/1.json",
            "opencode.json",
            ".agents/skills/release/SKILL.md",
            ".cursor/hooks.json",
            ".cursor/mcp.json",
            ".vscode/settings.json",
            ".vscode/tasks.json",
            ".gemini/settings.json",
            ".qwen/settings.json",
            ".windsurf/hooks.json",
            ".continue/config.yaml",
            ".aider.conf.yml",
            "app/.aider.conf.yml",
            ".aider.tags.cache.v4/cache.db",
            ".github/hooks/guard.json",
            ".github/workflows/copilot-setup-steps.yml",
            ".clinerules/hooks/PreToolUse",
            ".roo/mcp.json",
            ".roomodes",
            ".kiro/hooks/lint.kiro.hook",
            ".amazonq/mcp.json",
            ".junie/mcp/mcp.json",
            ".zed/settings.json",
            ".crush.json",
        ] {
            assert!(
                matches!(building.check(path), Err(Refusal::AgentSettings(_))),
                "{path} is an agent's settings: {:?}",
                building.check(path)
            );
            assert!(
                building.check_read(path).is_ok(),
                "reading {path} stays allowed"
            );
        }
        // Prose instructions are the team's documents: a chosen glob reaches them.
        for path in [
            "AGENTS.md",
            "CLAUDE.md",
            "src/AGENTS.md",
            "GEMINI.md",
            ".github/copilot-instructions.md",
            ".github/workflows/ci.yml",
            ".cursorrules",
            ".clinerules/style.md",
            "docs/codex/notes.md",
            "src/mcp.json.rs",
        ] {
            assert!(building.check(path).is_ok(), "{path} is not settings");
        }
    }

    #[test]
    fn lexical_tricks_are_refused_with_their_reason() {
        let planning = list(ChatMode::Planning);
        let cases = [
            ("", Refusal::Empty),
            (".prompts/plan/a\0.md", Refusal::ControlCharacter),
            ("/etc/passwd", Refusal::Absolute),
            ("C:/x", Refusal::Absolute),
            ("~/.ssh/id_rsa", Refusal::Absolute),
            (".prompts\\plan\\a.md", Refusal::Backslash),
            (".prompts/plan/../../etc", Refusal::DotComponent),
            ("./.prompts/plan/a.md", Refusal::DotComponent),
            (".prompts//plan/a.md", Refusal::EmptyComponent),
            (".prompts/plan/", Refusal::EmptyComponent),
            (".prompts/plan/a.md.", Refusal::TrailingDot),
            (".prompts/plan/%2e%2e/x", Refusal::Encoded),
            (".prompts/plan/\u{FF0E}\u{FF0E}/x", Refusal::Encoded),
        ];
        for (path, expected) in cases {
            assert_eq!(planning.check(path), Err(expected), "{path:?}");
        }
        let long = format!(".prompts/plan/{}.md", "a".repeat(300));
        assert_eq!(planning.check(&long), Err(Refusal::TooLong));
    }
}
