//! Chat sessions in Naide's layout: `.naide/chatsessions/chat-active.json`
//! is the current chat; starting a new one archives it as
//! `YYYY-MM-DD-chat-{ts}-{rand}.json`; deleting moves an archive to `trash/`.

use std::{io::ErrorKind, path::PathBuf};

use switchboard_model::{
    Timestamp,
    chat::{ChatMode, ChatSession},
};

use crate::{StoreError, Workspace, write_atomic};

/// The active chat's file name.
pub const ACTIVE_FILE: &str = "chat-active.json";

fn sessions_dir(workspace: &Workspace) -> PathBuf {
    workspace.root().join(".naide").join("chatsessions")
}

/// The active chat, if there is one.
pub fn active(workspace: &Workspace) -> Result<Option<ChatSession>, StoreError> {
    let path = sessions_dir(workspace).join(ACTIVE_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| StoreError::Corrupt {
                path,
                reason: error.to_string(),
            }),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
        Err(error) => Err(StoreError::io("could not read", &path)(error)),
    }
}

/// Saves `session` as the active chat, atomically.
pub fn save_active(workspace: &Workspace, session: &ChatSession) -> Result<(), StoreError> {
    let text = serde_json::to_string_pretty(session).map_err(|source| StoreError::Encode {
        what: "chat session",
        source,
    })?;
    write_atomic(&sessions_dir(workspace).join(ACTIVE_FILE), text.as_bytes())
}

/// A fresh session in `mode` at `now`.
pub fn new_session(workspace: &Workspace, mode: ChatMode, now: Timestamp) -> ChatSession {
    ChatSession {
        id: format!("chat-{}", now.unix_millis()),
        project_name: workspace.name(),
        mode,
        messages: Vec::new(),
        summary: None,
        created_at: now,
        updated_at: now,
        extra: Default::default(),
    }
}

/// Moves the active chat (if any) to its archive name and returns that
/// path. `salt` makes the name unique (Naide uses a random suffix).
pub fn archive_active(
    workspace: &Workspace,
    now: Timestamp,
    salt: u32,
) -> Result<Option<PathBuf>, StoreError> {
    let dir = sessions_dir(workspace);
    let active = dir.join(ACTIVE_FILE);
    if !active.exists() {
        return Ok(None);
    }
    let date = now.to_string().get(..10).unwrap_or("1970-01-01").to_owned();
    let archive = dir.join(format!("{date}-chat-{}-{salt:06x}.json", now.unix_millis()));
    std::fs::rename(&active, &archive).map_err(StoreError::io("could not archive", &active))?;
    Ok(Some(archive))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_chats_save_load_and_archive() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        assert_eq!(active(&workspace).unwrap(), None);
        let now = Timestamp::from_unix_millis(1_770_000_000_000).unwrap();
        let session = new_session(&workspace, ChatMode::Planning, now);
        save_active(&workspace, &session).unwrap();
        assert_eq!(active(&workspace).unwrap(), Some(session));
        let archived = archive_active(&workspace, now, 0xabc).unwrap().unwrap();
        let name = archived.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, "2026-02-02-chat-1770000000000-000abc.json");
        assert_eq!(active(&workspace).unwrap(), None);
        assert_eq!(archive_active(&workspace, now, 1).unwrap(), None);
    }

    #[test]
    fn an_unreadable_active_chat_is_reported_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let path = dir.path().join(".naide/chatsessions/chat-active.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "{broken").unwrap();
        assert!(matches!(
            active(&workspace),
            Err(StoreError::Corrupt { .. })
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{broken");
    }
}
