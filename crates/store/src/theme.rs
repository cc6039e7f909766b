//! The theme overrides: `.visual-delivery/custom/theme.json`.

use switchboard_model::theme::{ThemeVariables, theme_variables};

use crate::{StoreError, Workspace};

/// The theme file's name inside the custom directory.
pub const THEME_FILE: &str = "theme.json";

/// The largest theme file read: a few CSS variables take a few KiB.
const MAX_BYTES: u64 = 1 << 20;

/// The theme's CSS variables. No file means no overrides; a file that does
/// not parse is a warning (and is left alone), never an error.
pub fn load(workspace: &Workspace) -> Result<ThemeVariables, StoreError> {
    let path = workspace.custom_dir().join(THEME_FILE);
    let Some(text) = crate::regular::read_text_in(workspace.root(), &path, MAX_BYTES)? else {
        return Ok(ThemeVariables::default());
    };
    match serde_json::from_str(&text) {
        Ok(theme) => Ok(theme_variables(&theme)),
        Err(error) => Ok(ThemeVariables {
            variables: Vec::new(),
            warnings: vec![format!("{} is not valid JSON: {error}", path.display())],
        }),
    }
}
