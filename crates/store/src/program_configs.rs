//! ClaudeControl's program configurations: `programs/NAME.json` in its
//! home (`$CLAUDE_CONTROL_HOME`, else `~/.claude-control`), read in either
//! shape it uses and written in its code's shape, atomically, indented as
//! it writes them.

use std::path::{Path, PathBuf};

use switchboard_model::program::config::{ProgramConfig, check_name};

use crate::StoreError;

/// The variable that moves ClaudeControl's home.
pub const HOME_ENV: &str = "CLAUDE_CONTROL_HOME";

/// ClaudeControl's home: `$CLAUDE_CONTROL_HOME`, else
/// `~/.claude-control`; `None` without either.
pub fn home() -> Option<PathBuf> {
    match std::env::var_os(HOME_ENV) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => Some(
            PathBuf::from(std::env::var_os("HOME").filter(|home| !home.is_empty())?)
                .join(".claude-control"),
        ),
    }
}

/// The configurations folder.
#[derive(Debug, Clone)]
pub struct ProgramConfigs {
    dir: PathBuf,
}

impl ProgramConfigs {
    /// `$CLAUDE_CONTROL_HOME/programs`, else `~/.claude-control/programs`;
    /// `None` without either.
    pub fn locate() -> Option<Self> {
        Some(Self::at(home()?.join("programs")))
    }

    /// A folder given explicitly.
    pub fn at(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, name: &str) -> Result<PathBuf, StoreError> {
        check_name(name).map_err(|_| StoreError::BadName {
            what: "program configuration",
            name: name.to_owned(),
            rule: "use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
                .to_owned(),
        })?;
        Ok(self.dir.join(format!("{name}.json")))
    }

    /// Configuration `name`.
    pub fn get(&self, name: &str) -> Result<ProgramConfig, StoreError> {
        crate::json_file::read(&self.dir, &self.path(name)?, "program configuration", name)
    }

    /// Writes `config` as `NAME.json` (replacing one of that name).
    pub fn save(&self, config: &ProgramConfig) -> Result<PathBuf, StoreError> {
        let path = self.path(&config.name)?;
        crate::json_file::write(&path, config, "a program configuration")?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn configurations_round_trip_and_names_are_never_paths() {
        let temp = tempfile::tempdir().unwrap();
        let configs = ProgramConfigs::at(temp.path().join("programs"));
        let config =
            ProgramConfig::recorded("bc", &["bc".into(), "-q".into()], &[], 30, "n".into());
        let path = configs.save(&config).unwrap();
        assert_eq!(path, temp.path().join("programs/bc.json"));
        assert_eq!(configs.get("bc").unwrap(), config);
        assert!(matches!(
            configs.get("nope"),
            Err(StoreError::NotFound { .. })
        ));
        assert!(configs.get("../etc/passwd").is_err());
        std::fs::write(temp.path().join("programs/bad.json"), "{").unwrap();
        assert!(matches!(
            configs.get("bad"),
            Err(StoreError::Corrupt { .. })
        ));
    }
}
