//! Command chains of a workspace: `.switchboard/chains/NAME.json`, each
//! ClaudeControl's COMMAND_CHAIN with its CHAIN_COMMAND steps
//! (`switchboard_model::probe::chain`), read with a clear error for a file
//! that is not one, written atomically.

use std::path::{Path, PathBuf};

use switchboard_model::{probe::chain::Chain, program::config::check_name};

use crate::StoreError;

/// A workspace's chains folder.
#[derive(Debug, Clone)]
pub struct Chains {
    dir: PathBuf,
}

impl Chains {
    /// The chains of the workspace at `root`.
    pub fn of(root: &Path) -> Self {
        Self {
            dir: root.join(".switchboard").join("chains"),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, name: &str) -> Result<PathBuf, StoreError> {
        check_name(name).map_err(|_| StoreError::BadName {
            what: "chain",
            name: name.to_owned(),
            rule: "use letters, digits, '.', '_' or '-', starting with a letter or digit"
                .to_owned(),
        })?;
        Ok(self.dir.join(format!("{name}.json")))
    }

    /// Chain `name` (its `name` and `id` default to the file's stem).
    pub fn get(&self, name: &str) -> Result<Chain, StoreError> {
        let mut chain: Chain = crate::json_file::read(&self.dir, &self.path(name)?, "chain", name)?;
        if chain.name.is_empty() {
            chain.name = name.to_owned();
        }
        if chain.id.is_empty() {
            chain.id = chain.name.clone();
        }
        Ok(chain)
    }

    /// The chains' names, sorted.
    pub fn names(&self) -> Result<Vec<String>, StoreError> {
        Ok(crate::walk::files_in(&self.dir, "json")?
            .iter()
            .filter_map(|path| path.file_stem()?.to_str().map(str::to_owned))
            .filter(|name| check_name(name).is_ok())
            .collect())
    }

    /// Writes `chain` as `NAME.json` (replacing one of that name).
    pub fn save(&self, chain: &Chain) -> Result<PathBuf, StoreError> {
        let path = self.path(&chain.name)?;
        crate::json_file::write(&path, chain, "a chain")?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn chains_round_trip_and_bad_files_say_why() {
        let temp = tempfile::tempdir().unwrap();
        let chains = Chains::of(temp.path());
        assert!(chains.names().unwrap().is_empty());
        let chain: Chain = serde_json::from_str(
            r#"{"name": "build", "commands": [{"sequence_order": 1, "command": "cd src"}]}"#,
        )
        .unwrap();
        chains.save(&chain).unwrap();
        let read = chains.get("build").unwrap();
        assert_eq!(read.id, "build");
        assert_eq!(read.commands, chain.commands);
        assert_eq!(chains.names().unwrap(), ["build"]);
        assert!(matches!(
            chains.get("nope"),
            Err(StoreError::NotFound { .. })
        ));
        assert!(chains.get("../x").is_err());
        std::fs::write(chains.dir().join("bad.json"), r#"{"commands": [{}]}"#).unwrap();
        let Err(StoreError::Corrupt { reason, .. }) = chains.get("bad") else {
            panic!("a step without a command is refused");
        };
        assert!(reason.contains("command"), "{reason}");
    }
}
