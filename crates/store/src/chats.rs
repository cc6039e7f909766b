//! Chat sessions in Naide's layout: `.naide/chatsessions/chat-active.json`
//! is the current chat; starting a new one archives it as
//! `YYYY-MM-DD-chat-{ts}-{rand}.json`; deleting moves an archive to `trash/`.

//!
//! Every change that reads before it writes holds the folder's lock, since
//! the sidecar (saving a turn) and the app (resume, trash, summary edits)
//! change these files at the same time.

use std::{
    io::ErrorKind,
    path::{Path, PathBuf},
};

use switchboard_model::{
    Timestamp,
    chat::{ChatHistory, ChatMode, ChatSession, ConversationSummary},
};

use crate::{StoreError, Workspace, lock::DirLock, write_atomic};

/// The active chat's file name.
pub const ACTIVE_FILE: &str = "chat-active.json";
/// The folder deleted chats are moved to.
pub const TRASH_DIR: &str = "trash";

fn sessions_dir(workspace: &Workspace) -> PathBuf {
    workspace.root().join(".naide").join("chatsessions")
}

fn read_session(path: &Path) -> Result<Option<ChatSession>, StoreError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| StoreError::Corrupt {
                path: path.to_owned(),
                reason: error.to_string(),
            }),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
        Err(error) => Err(StoreError::io("could not read", path)(error)),
    }
}

fn write_session(path: &Path, session: &ChatSession) -> Result<(), StoreError> {
    let text = serde_json::to_string_pretty(session).map_err(|source| StoreError::Encode {
        what: "chat session",
        source,
    })?;
    write_atomic(path, text.as_bytes())
}

/// The active chat, if there is one.
pub fn active(workspace: &Workspace) -> Result<Option<ChatSession>, StoreError> {
    read_session(&sessions_dir(workspace).join(ACTIVE_FILE))
}

/// The archive files (not the active chat, not the trash), by name.
fn archive_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(StoreError::io("could not list", dir)(error)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "json")
                && path.file_name().is_some_and(|name| name != ACTIVE_FILE)
                && path.is_file()
        })
        .collect();
    files.sort();
    Ok(files)
}

/// The archive holding chat `id`, if any.
fn find_archive(dir: &Path, id: &str) -> Result<Option<PathBuf>, StoreError> {
    for path in archive_files(dir)? {
        if let Ok(Some(session)) = read_session(&path)
            && session.id == id
        {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

fn archive_name(now: Timestamp, salt: u32) -> String {
    let date = now.to_string().get(..10).unwrap_or("1970-01-01").to_owned();
    format!("{date}-chat-{}-{salt:06x}.json", now.unix_millis())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every chat outside the trash: the active one first, then the archives,
/// most recently changed first. Files that do not parse are reported in
/// the warnings and left alone.
pub fn history(workspace: &Workspace) -> Result<ChatHistory, StoreError> {
    let dir = sessions_dir(workspace);
    let mut history = ChatHistory::default();
    match active(workspace) {
        Ok(Some(session)) => history
            .sessions
            .push(session.info(ACTIVE_FILE.to_owned(), true)),
        Ok(None) => {}
        Err(error) => history.warnings.push(error.to_string()),
    }
    let mut archived = Vec::new();
    for path in archive_files(&dir)? {
        match read_session(&path) {
            Ok(Some(session)) => archived.push(session.info(file_name(&path), false)),
            Ok(None) => {}
            Err(error) => history.warnings.push(error.to_string()),
        }
    }
    archived.sort_by_key(|chat| std::cmp::Reverse(chat.updated_at));
    history.sessions.extend(archived);
    Ok(history)
}

/// Makes chat `id` the active one: the active chat is archived and the
/// archive of `id` becomes `chat-active.json`. Nothing changes when `id` is
/// already active; an unknown id is [`StoreError::NotFound`].
pub fn resume(
    workspace: &Workspace,
    id: &str,
    now: Timestamp,
    salt: u32,
) -> Result<ChatSession, StoreError> {
    let dir = sessions_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    if let Ok(Some(session)) = active(workspace)
        && session.id == id
    {
        return Ok(session);
    }
    let archive = find_archive(&dir, id)?.ok_or_else(|| StoreError::NotFound {
        what: "chat",
        id: id.to_owned(),
    })?;
    let session = read_session(&archive)?.ok_or_else(|| StoreError::NotFound {
        what: "chat",
        id: id.to_owned(),
    })?;
    archive_active_locked(&dir, now, salt)?;
    let active = dir.join(ACTIVE_FILE);
    std::fs::rename(&archive, &active).map_err(StoreError::io("could not resume", &archive))?;
    Ok(session)
}

/// Moves chat `id` (active or archived) to `trash/`, where Naide keeps
/// deleted chats; returns its path there.
pub fn trash(
    workspace: &Workspace,
    id: &str,
    now: Timestamp,
    salt: u32,
) -> Result<PathBuf, StoreError> {
    let dir = sessions_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let active_path = dir.join(ACTIVE_FILE);
    let (from, name) = match active(workspace) {
        Ok(Some(session)) if session.id == id => (active_path, archive_name(now, salt)),
        _ => {
            let archive = find_archive(&dir, id)?.ok_or_else(|| StoreError::NotFound {
                what: "chat",
                id: id.to_owned(),
            })?;
            let name = file_name(&archive);
            (archive, name)
        }
    };
    let trash = dir.join(TRASH_DIR);
    std::fs::create_dir_all(&trash).map_err(StoreError::io("could not create", &trash))?;
    let to = trash.join(name);
    std::fs::rename(&from, &to).map_err(StoreError::io("could not move to the trash", &from))?;
    Ok(to)
}

/// Replaces the summary of the active chat, which must be chat `id` (so an
/// edit made in a window showing another chat cannot land on the wrong one).
pub fn set_summary(
    workspace: &Workspace,
    id: &str,
    summary: Option<ConversationSummary>,
    now: Timestamp,
) -> Result<ChatSession, StoreError> {
    let dir = sessions_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let mut session = active(workspace)?
        .filter(|session| session.id == id)
        .ok_or_else(|| StoreError::NotFound {
            what: "active chat",
            id: id.to_owned(),
        })?;
    session.summary = summary;
    session.updated_at = now;
    write_session(&dir.join(ACTIVE_FILE), &session)?;
    Ok(session)
}

/// Saves the end of a turn of chat `turn`. Under the lock, the freshest
/// copy of that chat is read (so summary edits and other turns made
/// meanwhile are kept), `apply` adds the turn to it, and it is written
/// back where it now lives: the active file, or its archive if the
/// developer switched chats during the turn. Returns the saved session.
pub fn save_turn(
    workspace: &Workspace,
    turn: ChatSession,
    now: Timestamp,
    apply: impl FnOnce(&mut ChatSession),
) -> Result<ChatSession, StoreError> {
    let dir = sessions_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let active_path = dir.join(ACTIVE_FILE);
    let (mut session, path) = match active(workspace)? {
        Some(current) if current.id == turn.id => (current, active_path),
        None => (turn, active_path),
        Some(_) => match find_archive(&dir, &turn.id)? {
            Some(archive) => (read_session(&archive)?.unwrap_or(turn), archive),
            None => (turn, dir.join(archive_name(now, std::process::id()))),
        },
    };
    apply(&mut session);
    write_session(&path, &session)?;
    Ok(session)
}

/// Saves `session` as the active chat, atomically.
pub fn save_active(workspace: &Workspace, session: &ChatSession) -> Result<(), StoreError> {
    write_session(&sessions_dir(workspace).join(ACTIVE_FILE), session)
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
    let _lock = DirLock::acquire(&dir)?;
    archive_active_locked(&dir, now, salt)
}

fn archive_active_locked(
    dir: &Path,
    now: Timestamp,
    salt: u32,
) -> Result<Option<PathBuf>, StoreError> {
    let active = dir.join(ACTIVE_FILE);
    if !active.exists() {
        return Ok(None);
    }
    let archive = dir.join(archive_name(now, salt));
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

    fn at(millis: i64) -> Timestamp {
        Timestamp::from_unix_millis(millis).unwrap()
    }

    fn chat_with(workspace: &Workspace, millis: i64, first: &str) -> ChatSession {
        let mut session = new_session(workspace, ChatMode::Planning, at(millis));
        session.messages.push(switchboard_model::chat::ChatMessage {
            id: "m0".into(),
            role: switchboard_model::chat::Role::User,
            content: first.into(),
            timestamp: at(millis),
            extra: Default::default(),
        });
        session
    }

    #[test]
    fn history_resume_and_trash_move_files_naide_can_read() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let first = chat_with(&workspace, 1_770_000_000_000, "Plan the auth flow");
        save_active(&workspace, &first).unwrap();
        archive_active(&workspace, at(1_770_000_001_000), 1).unwrap();
        let second = chat_with(&workspace, 1_770_000_002_000, "Why is CI slow?");
        save_active(&workspace, &second).unwrap();
        let chats = sessions_dir(&workspace);
        std::fs::write(chats.join("2026-01-01-chat-1-000000.json"), "{oops").unwrap();

        let listed = history(&workspace).unwrap();
        let titles: Vec<_> = listed
            .sessions
            .iter()
            .map(|s| (s.title.as_str(), s.active))
            .collect();
        assert_eq!(
            titles,
            [("Why is CI slow?", true), ("Plan the auth flow", false)]
        );
        assert_eq!(listed.warnings.len(), 1, "{:?}", listed.warnings);
        assert!(listed.warnings[0].contains("2026-01-01-chat-1-000000.json"));

        let resumed = resume(&workspace, &first.id, at(1_770_000_003_000), 2).unwrap();
        assert_eq!(resumed.id, first.id);
        assert_eq!(active(&workspace).unwrap().unwrap().id, first.id);
        let listed = history(&workspace).unwrap();
        assert_eq!(listed.sessions.len(), 2, "the other chat was archived");
        assert!(matches!(
            resume(&workspace, "chat-404", at(1_770_000_003_000), 3),
            Err(StoreError::NotFound { .. })
        ));

        let trashed = trash(&workspace, &second.id, at(1_770_000_004_000), 4).unwrap();
        assert!(trashed.starts_with(chats.join(TRASH_DIR)));
        let moved: ChatSession =
            serde_json::from_str(&std::fs::read_to_string(&trashed).unwrap()).unwrap();
        assert_eq!(moved, second, "trashed chats keep every byte");
        let trashed_active = trash(&workspace, &first.id, at(1_770_000_005_000), 5).unwrap();
        assert!(trashed_active.exists());
        assert_eq!(active(&workspace).unwrap(), None);
        assert_eq!(history(&workspace).unwrap().sessions.len(), 0);
        assert_eq!(
            std::fs::read_to_string(chats.join("2026-01-01-chat-1-000000.json")).unwrap(),
            "{oops",
            "unreadable files are left alone"
        );
    }

    #[test]
    fn a_turn_keeps_edits_made_meanwhile_and_follows_a_switch() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let chat = chat_with(&workspace, 1_770_000_000_000, "Plan");
        save_active(&workspace, &chat).unwrap();
        let edited = ConversationSummary {
            decisions: vec!["Edited by hand".into()],
            ..ConversationSummary::default()
        };
        set_summary(
            &workspace,
            &chat.id,
            Some(edited.clone()),
            at(1_770_000_000_500),
        )
        .unwrap();
        assert!(matches!(
            set_summary(&workspace, "chat-other", None, at(1)),
            Err(StoreError::NotFound { .. })
        ));
        let saved = save_turn(&workspace, chat.clone(), at(1_770_000_001_000), |s| {
            s.messages.push(s.messages[0].clone())
        })
        .unwrap();
        assert_eq!(
            saved.summary,
            Some(edited),
            "the edit made during the turn stays"
        );
        assert_eq!(saved.messages.len(), 2);

        // The developer starts another chat while the turn runs: the turn
        // lands in the old chat's archive, not over the new chat.
        archive_active(&workspace, at(1_770_000_002_000), 7).unwrap();
        let other = chat_with(&workspace, 1_770_000_003_000, "Other");
        save_active(&workspace, &other).unwrap();
        save_turn(&workspace, chat.clone(), at(1_770_000_004_000), |s| {
            s.messages.push(s.messages[0].clone())
        })
        .unwrap();
        assert_eq!(active(&workspace).unwrap().unwrap(), other);
        let archived = history(&workspace).unwrap().sessions;
        assert_eq!(archived[1].id, chat.id);
        assert_eq!(archived[1].messages, 3);
    }
}
