//! What the host remembers across its own death: the sessions it holds,
//! written to `sessions.json` in the runtime folder as they start and end.
//! A host that finds sessions marked running there was not shut down by
//! itself (it was killed): their programs ended with their terminals, and
//! they are listed as `lost`.

use std::path::{Path, PathBuf};

use switchboard_model::program::{ProgramSession, SessionState};

/// The registry file in `dir`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join("sessions.json")
}

/// The sessions a previous host left running, now lost; the file is
/// removed. A file that does not parse is set aside, never trusted.
pub fn take_lost(dir: &Path) -> Vec<ProgramSession> {
    let file = path(dir);
    let Ok(text) = switchboard_store::regular::read_to_string_in(
        dir,
        &file,
        switchboard_store::regular::DATA_LIMIT,
    ) else {
        return Vec::new();
    };
    let _ = std::fs::remove_file(&file);
    let Ok(sessions) = serde_json::from_str::<Vec<ProgramSession>>(&text) else {
        tracing::warn!(file = %file.display(), "a previous host's registry did not parse; ignored");
        return Vec::new();
    };
    sessions
        .into_iter()
        .filter(|info| info.state == SessionState::Running)
        .map(|mut info| {
            info.state = SessionState::Lost;
            info
        })
        .collect()
}

/// Writes the live sessions (the store's atomic write, private to the
/// user).
pub fn save(dir: &Path, sessions: &[ProgramSession]) {
    let written = serde_json::to_vec(sessions)
        .map_err(|error| error.to_string())
        .and_then(|bytes| {
            switchboard_store::write_atomic_private(&path(dir), &bytes)
                .map_err(|error| error.to_string())
        });
    if let Err(error) = written {
        tracing::warn!(%error, "the session registry was not written");
    }
}
