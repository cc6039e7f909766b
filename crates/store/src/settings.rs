//! The developer's settings file, `settings.json` in the OS config directory
//! (`$XDG_CONFIG_HOME/switchboard` on Linux), or in `$SWITCHBOARD_CONFIG_DIR`
//! when that is set. Never in the workspace: it may hold an API key, and the
//! file is written readable by its owner only.

use std::{
    io::ErrorKind,
    path::{Path, PathBuf},
};

use switchboard_model::settings::{ENV_OVERRIDES, Settings, SettingsView};

use crate::{StoreError, atomic::write_atomic_private};

/// The settings file's name.
pub const FILE: &str = "settings.json";

/// The largest settings file read: a few fields and an API key take a few
/// KiB.
const MAX_BYTES: u64 = 1 << 20;

/// The config folder this process was told to use (the app's
/// `--config-dir`), if it was.
static CHOSEN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Makes `dir` this process's config folder, as `SWITCHBOARD_CONFIG_DIR`
/// would (the app's `--config-dir`): its settings, and Switchboard's own
/// records of each workspace, which every process of the developer's must
/// find in one place. The first call counts.
pub fn choose_config_dir(dir: PathBuf) {
    let _ = CHOSEN.set(dir);
}

/// The folder the settings live in, if the OS has a config directory: the
/// one this process was told to use, else `SWITCHBOARD_CONFIG_DIR`, else
/// the OS's.
pub fn config_dir() -> Option<PathBuf> {
    CHOSEN.get().cloned().or_else(|| {
        std::env::var_os("SWITCHBOARD_CONFIG_DIR")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::config_dir().map(|dir| dir.join("switchboard")))
    })
}

/// The stored settings in `dir`; defaults when there is no file yet. A
/// file that does not parse is an error (and is left as it is), and so is
/// one that is no regular file (a FIFO, a device: never waited on, never
/// read without end) or holds more than a MiB.
pub fn load(dir: &Path) -> Result<Settings, StoreError> {
    let path = dir.join(FILE);
    // The developer's own file, which a dotfiles manager may link
    // anywhere: read wherever it is (a regular file, bounded).
    let anywhere = Path::new(crate::regular::ANYWHERE);
    match crate::regular::read_to_string_in(anywhere, &path, MAX_BYTES) {
        Ok(text) => serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
            path,
            reason: error.to_string(),
        }),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(Settings::default()),
        Err(error) => Err(StoreError::io("could not read", &path)(error)),
    }
}

/// The settings in effect: those in [`config_dir`] (defaults if there is
/// none or it is unreadable, with a warning) under the environment's
/// overrides.
pub fn effective() -> Settings {
    let stored = config_dir()
        .map(|dir| load(&dir))
        .transpose()
        .unwrap_or_else(|error| {
            tracing::warn!(%error, "settings ignored");
            None
        })
        .unwrap_or_default();
    stored.with_env(|name| std::env::var(name).ok())
}

/// Saves `settings` in `dir` atomically, readable by the owner only.
pub fn save(dir: &Path, settings: &Settings) -> Result<(), StoreError> {
    let path = dir.join(FILE);
    let text = serde_json::to_string_pretty(settings).map_err(|source| StoreError::Encode {
        what: "settings",
        source,
    })?;
    write_atomic_private(&path, text.as_bytes())
}

/// The settings view's data for `dir`: stored settings and the
/// environment's overrides in force.
pub fn view(dir: &Path) -> Result<SettingsView, StoreError> {
    let settings = load(dir)?;
    Ok(SettingsView {
        effective: settings.clone().with_env(|name| std::env::var(name).ok()),
        settings,
        overridden: ENV_OVERRIDES
            .iter()
            .filter(|o| std::env::var_os(o.variable).is_some_and(|v| !v.is_empty()))
            .map(|o| (o.variable.to_owned(), o.setting.to_owned()))
            .collect(),
        path: dir.join(FILE).display().to_string(),
        http_url: None,
        http_error: None,
        browser_url: None,
        browser_error: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn settings_round_trip_privately_and_bad_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), Settings::default());
        let settings = Settings {
            model: Some("qwen2.5-coder".into()),
            api_key: Some("sk-secret".into()),
            dry_run: true,
            ..Settings::default()
        };
        save(dir.path(), &settings).unwrap();
        assert_eq!(load(dir.path()).unwrap(), settings);
        let mode = std::fs::metadata(dir.path().join(FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "only the owner may read the key");

        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        assert!(matches!(load(dir.path()), Err(StoreError::Corrupt { .. })));
        assert_eq!(
            std::fs::read_to_string(dir.path().join(FILE)).unwrap(),
            "{not json"
        );
    }
}
