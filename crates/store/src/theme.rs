//! The theme overrides: `.visual-delivery/custom/theme.json`.

use std::io::ErrorKind;

use switchboard_model::theme::{ThemeVariables, theme_variables};

use crate::{StoreError, Workspace};

/// The theme file's name inside the custom directory.
pub const THEME_FILE: &str = "theme.json";

/// The theme's CSS variables. No file means no overrides; a file that does
/// not parse is a warning (and is left alone), never an error.
pub fn load(workspace: &Workspace) -> Result<ThemeVariables, StoreError> {
    let path = workspace.custom_dir().join(THEME_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(ThemeVariables::default()),
        Err(error) => return Err(StoreError::io("could not read", &path)(error)),
    };
    match serde_json::from_str(&text) {
        Ok(theme) => Ok(theme_variables(&theme)),
        Err(error) => Ok(ThemeVariables {
            variables: Vec::new(),
            warnings: vec![format!("{} is not valid JSON: {error}", path.display())],
        }),
    }
}
