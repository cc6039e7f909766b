//! The write allow-list: which workspace paths the model may write in each
//! chat mode. Paths are checked lexically here (no file system access); the
//! [`crate::writer`] then resolves them without following any symlink.
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
/// Globs no mode may ever write.
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
}

fn glob_set<'a>(globs: impl IntoIterator<Item = &'a str>) -> Result<GlobSet, GlobError> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let compiled = GlobBuilder::new(glob)
            .literal_separator(true)
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
            allowed: glob_set(patterns.iter().map(String::as_str))?,
            blocked: glob_set(ALWAYS_BLOCKED)?,
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
            Err(Refusal::NotAllowed { .. })
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
