//! Chat sessions in Naide's layout, found as Naide's code finds them: the
//! current chat is the file in `.naide/chatsessions/` that
//! `lastChatSession` in `.naide/project-config.json` names, else
//! `default-chat.json`, else `chat-active.json`; every change of the
//! current chat records its file there. Starting a new chat archives the
//! current one as `YYYY-MM-DD-chat-{ts}-{rand}.json`; deleting moves a
//! chat to `trash/`.

//!
//! Every change that reads before it writes holds the folder's lock, since
//! the sidecar (saving a turn) and the app (resume, trash, summary edits)
//! change these files at the same time.

use std::path::{Path, PathBuf};

use switchboard_model::{
    Timestamp,
    chat::{ChatHistory, ChatMode, ChatSession, ConversationSummary},
    sidecar::ProposalOutcome,
};

use crate::{StoreError, Workspace, lock::DirLock, write_atomic};

/// The file a chat started here is written to.
pub const ACTIVE_FILE: &str = "chat-active.json";
/// The file Naide keeps its current chat in when no other is named.
pub const DEFAULT_FILE: &str = "default-chat.json";
/// The folder deleted chats are moved to.
pub const TRASH_DIR: &str = "trash";
/// Naide's project settings, which name the current chat's file.
pub const PROJECT_CONFIG: &str = ".naide/project-config.json";
/// The key of [`PROJECT_CONFIG`] naming the current chat's file.
pub const LAST_CHAT_KEY: &str = "lastChatSession";

fn sessions_dir(workspace: &Workspace) -> PathBuf {
    workspace.root().join(".naide").join("chatsessions")
}

/// Naide's project settings as a JSON object, if the file holds one.
fn project_config(workspace: &Workspace) -> Option<serde_json::Map<String, serde_json::Value>> {
    let text = crate::regular::read_to_string_in(
        workspace.root(),
        &workspace.root().join(PROJECT_CONFIG),
        crate::regular::DATA_LIMIT,
    )
    .ok()?;
    match serde_json::from_str(&text).ok()? {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The chat file `lastChatSession` names, when it is a plain `.json` name
/// in the sessions folder (never a path).
fn named_chat(workspace: &Workspace) -> Option<String> {
    let name = project_config(workspace)?
        .get(LAST_CHAT_KEY)?
        .as_str()?
        .to_owned();
    let plain =
        name.ends_with(".json") && !name.starts_with('.') && !name.contains(['/', '\\', '\0']);
    plain.then_some(name)
}

/// Where the current chat lives, as Naide's code finds it: the file
/// `lastChatSession` names (even before it exists: Naide then shows an
/// empty chat), else `default-chat.json` when it exists, else
/// `chat-active.json` (which may not exist yet).
fn active_path(workspace: &Workspace) -> PathBuf {
    let dir = sessions_dir(workspace);
    if let Some(named) = named_chat(workspace) {
        return dir.join(named);
    }
    let default = dir.join(DEFAULT_FILE);
    if default.is_file() {
        return default;
    }
    dir.join(ACTIVE_FILE)
}

/// Records `path`'s file as the current chat in Naide's project settings,
/// keeping every other key; nothing is written when it is already named,
/// and a settings file that is not a JSON object is left alone.
fn record_active(workspace: &Workspace, path: &Path) -> Result<(), StoreError> {
    let name = file_name(path);
    if named_chat(workspace).as_deref() == Some(name.as_str()) {
        return Ok(());
    }
    let config_path = workspace.root().join(PROJECT_CONFIG);
    let mut config = match project_config(workspace) {
        Some(config) => config,
        None if config_path.exists() => {
            tracing::warn!(
                "{} is not a JSON object; not recording the current chat",
                config_path.display()
            );
            return Ok(());
        }
        None => serde_json::Map::new(),
    };
    config.insert(LAST_CHAT_KEY.to_owned(), serde_json::Value::from(name));
    let text = serde_json::to_string_pretty(&config).map_err(|source| StoreError::Encode {
        what: "project settings",
        source,
    })?;
    write_atomic(&config_path, text.as_bytes())
}

/// Whether `path` is one of the fixed current-chat files (which are
/// renamed when archived), rather than an archive Naide made current.
fn is_slot(path: &Path) -> bool {
    let name = file_name(path);
    name == ACTIVE_FILE || name == DEFAULT_FILE
}

fn read_session(path: &Path) -> Result<Option<ChatSession>, StoreError> {
    // Within the chats' own folder.
    let folder = path.parent().unwrap_or(Path::new("."));
    crate::regular::read_text_in(folder, path, crate::regular::DATA_LIMIT)?
        .map(|text| {
            serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
                path: path.to_owned(),
                reason: error.to_string(),
            })
        })
        .transpose()
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
    read_session(&active_path(workspace))
}

/// The archive files (not the active chat `active`, not the trash), by
/// name.
fn archive_files(dir: &Path, active: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let mut files = crate::walk::files_in(dir, "json")?;
    files.retain(|path| path != active);
    Ok(files)
}

/// The archive holding chat `id`, if any.
fn find_archive(dir: &Path, active: &Path, id: &str) -> Result<Option<PathBuf>, StoreError> {
    for path in archive_files(dir, active)? {
        if let Ok(Some(session)) = read_session(&path)
            && session.id == id
        {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

/// What makes the names of chats archived by this process at `now`
/// unique (Naide uses a random suffix): the time and the process's id,
/// for [`archive_active`], [`resume`] and [`trash`].
pub fn salt(now: Timestamp) -> u32 {
    (now.unix_millis() as u32) ^ std::process::id()
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
    let current = active_path(workspace);
    let mut history = ChatHistory::default();
    match read_session(&current) {
        Ok(Some(session)) => history
            .sessions
            .push(session.info(file_name(&current), true)),
        Ok(None) => {}
        Err(error) => history.warnings.push(error.to_string()),
    }
    let mut archived = Vec::new();
    for path in archive_files(&dir, &current)? {
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

/// Makes chat `id` the active one: the active chat is archived, the
/// archive of `id` becomes `chat-active.json` and Naide's settings name
/// it. Nothing changes when `id` is already active; an unknown id is
/// [`StoreError::NotFound`].
pub fn resume(
    workspace: &Workspace,
    id: &str,
    now: Timestamp,
    salt: u32,
) -> Result<ChatSession, StoreError> {
    let dir = sessions_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let current = active_path(workspace);
    if let Ok(Some(session)) = read_session(&current)
        && session.id == id
    {
        return Ok(session);
    }
    let archive = find_archive(&dir, &current, id)?.ok_or_else(|| StoreError::NotFound {
        what: "chat",
        id: id.to_owned(),
    })?;
    let session = read_session(&archive)?.ok_or_else(|| StoreError::NotFound {
        what: "chat",
        id: id.to_owned(),
    })?;
    archive_locked(workspace, &current, now, salt)?;
    let active = dir.join(ACTIVE_FILE);
    std::fs::rename(&archive, &active).map_err(StoreError::io("could not resume", &archive))?;
    record_active(workspace, &active)?;
    Ok(session)
}

/// A chat moved to the trash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trashed {
    /// Its path in `trash/`.
    pub path: PathBuf,
    /// It was the active chat (there is none now).
    pub was_active: bool,
}

/// Moves chat `id` (active or archived) to `trash/`, where Naide keeps
/// deleted chats; says where, and whether it was the active one.
pub fn trash(
    workspace: &Workspace,
    id: &str,
    now: Timestamp,
    salt: u32,
) -> Result<Trashed, StoreError> {
    let dir = sessions_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let current = active_path(workspace);
    let (from, name, was_active) = match read_session(&current) {
        Ok(Some(session)) if session.id == id => {
            let name = if is_slot(&current) {
                archive_name(now, salt)
            } else {
                file_name(&current)
            };
            (current.clone(), name, true)
        }
        _ => {
            let archive =
                find_archive(&dir, &current, id)?.ok_or_else(|| StoreError::NotFound {
                    what: "chat",
                    id: id.to_owned(),
                })?;
            let name = file_name(&archive);
            (archive, name, false)
        }
    };
    let trash = dir.join(TRASH_DIR);
    crate::own_folders::create_dir_all(&trash)?;
    let to = trash.join(name);
    std::fs::rename(&from, &to).map_err(StoreError::io("could not move to the trash", &from))?;
    Ok(Trashed {
        path: to,
        was_active,
    })
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
    let current = active_path(workspace);
    let mut session = read_session(&current)?
        .filter(|session| session.id == id)
        .ok_or_else(|| StoreError::NotFound {
            what: "active chat",
            id: id.to_owned(),
        })?;
    session.summary = summary;
    session.updated_at = now;
    write_session(&current, &session)?;
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
    let current = active_path(workspace);
    let (mut session, path) = match read_session(&current)? {
        Some(active) if active.id == turn.id => (active, current.clone()),
        None => (turn, current.clone()),
        Some(_) => match find_archive(&dir, &current, &turn.id)? {
            Some(archive) => (read_session(&archive)?.unwrap_or(turn), archive),
            None => (turn, dir.join(archive_name(now, std::process::id()))),
        },
    };
    apply(&mut session);
    write_session(&path, &session)?;
    if path == current {
        record_active(workspace, &path)?;
    }
    Ok(session)
}

/// Records that the held write `proposal` shown in the active chat was
/// settled as `outcome`, under the folder's lock; the path it was for,
/// when it was found there (a write of an older chat, or one settled
/// before, is left).
pub fn settle_write(
    workspace: &Workspace,
    proposal: &str,
    outcome: &ProposalOutcome,
) -> Result<Option<String>, StoreError> {
    let dir = sessions_dir(workspace);
    let _lock = DirLock::acquire(&dir)?;
    let current = active_path(workspace);
    let Some(mut session) = read_session(&current)? else {
        return Ok(None);
    };
    let found = session.settle(proposal, outcome);
    if found.is_some() {
        write_session(&current, &session)?;
    }
    Ok(found)
}

/// Saves `session` as the active chat, atomically, and records its file in
/// Naide's settings.
pub fn save_active(workspace: &Workspace, session: &ChatSession) -> Result<(), StoreError> {
    let path = active_path(workspace);
    write_session(&path, session)?;
    record_active(workspace, &path)
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
    archive_locked(workspace, &active_path(workspace), now, salt)
}

/// Archives the current chat at `current`: a fixed current-chat file is
/// renamed to an archive name (an archive Naide made current stays where
/// it is), and Naide's settings then name `chat-active.json`, where the
/// next chat goes. The caller holds the folder's lock.
fn archive_locked(
    workspace: &Workspace,
    current: &Path,
    now: Timestamp,
    salt: u32,
) -> Result<Option<PathBuf>, StoreError> {
    if !current.exists() {
        return Ok(None);
    }
    let archive = if is_slot(current) {
        let archive = sessions_dir(workspace).join(archive_name(now, salt));
        std::fs::rename(current, &archive).map_err(StoreError::io("could not archive", current))?;
        archive
    } else {
        current.to_owned()
    };
    record_active(workspace, &sessions_dir(workspace).join(ACTIVE_FILE))?;
    Ok(Some(archive))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
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
    fn a_held_write_settled_later_is_recorded_with_its_answer_once() {
        use switchboard_model::{chat::ChatWrite, sidecar::WriteEvent};
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let mut session = chat_with(&workspace, 1_770_000_000_000, "Plan it");
        let held = |proposal: &str| ChatWrite {
            event: WriteEvent::Proposed {
                proposal: proposal.into(),
                path: ".prompts/plan/a.md".into(),
                bytes: 3,
                preview: "# A".into(),
            },
            settled: None,
        };
        session.messages[0].writes = vec![held("p1-1"), held("p1-2")];
        save_active(&workspace, &session).unwrap();
        let applied = ProposalOutcome::Applied { bytes: 3 };
        assert_eq!(
            settle_write(&workspace, "p1-2", &applied)
                .unwrap()
                .as_deref(),
            Some(".prompts/plan/a.md")
        );
        assert_eq!(
            settle_write(&workspace, "p1-2", &ProposalOutcome::Discarded).unwrap(),
            None,
            "settled once"
        );
        assert_eq!(settle_write(&workspace, "p9-9", &applied).unwrap(), None);
        let stored = active(&workspace).unwrap().unwrap();
        let fates: Vec<_> = stored.messages[0]
            .writes
            .iter()
            .map(|write| write.settled.clone())
            .collect();
        assert_eq!(fates, [None, Some(applied)]);
        // The file keeps Naide's shape, the writes beside it.
        let text = std::fs::read_to_string(dir.path().join(".naide/chatsessions/chat-active.json"))
            .unwrap();
        let stored: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(stored["messages"][0]["content"], "Plan it");
        assert_eq!(
            stored["messages"][0]["writes"][1]["settled"]["outcome"],
            "applied"
        );
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
            writes: Vec::new(),
            stopped: false,
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
        assert!(trashed.path.starts_with(chats.join(TRASH_DIR)));
        assert!(!trashed.was_active);
        let moved: ChatSession =
            serde_json::from_str(&std::fs::read_to_string(&trashed.path).unwrap()).unwrap();
        assert_eq!(moved, second, "trashed chats keep every byte");
        let trashed_active = trash(&workspace, &first.id, at(1_770_000_005_000), 5).unwrap();
        assert!(trashed_active.path.exists());
        assert!(trashed_active.was_active);
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

    #[test]
    fn the_current_chat_is_found_and_recorded_as_naide_finds_it() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open(dir.path()).unwrap();
        let chats = sessions_dir(&workspace);
        std::fs::create_dir_all(&chats).unwrap();
        // Naide's own file: no mode, a command message with its fields.
        let naide = serde_json::json!({
            "id": "default-chat", "projectName": "p",
            "messages": [
                {"id": "1", "role": "user", "content": "Plan auth", "timestamp": "2026-02-01T10:00:00.000Z"},
                {"id": "2", "role": "command", "content": "(command executed)",
                 "timestamp": "2026-02-01T10:00:01.000Z", "command": "npm test", "commandStatus": "success"}
            ],
            "createdAt": "2026-02-01T10:00:00.000Z", "updatedAt": "2026-02-01T10:00:01.000Z",
            "savedAt": "2026-02-01T10:00:01.000Z"
        });
        std::fs::write(chats.join(DEFAULT_FILE), naide.to_string()).unwrap();
        std::fs::write(dir.path().join(PROJECT_CONFIG), r#"{"theme": "dark"}"#).unwrap();
        let current = active(&workspace).unwrap().unwrap();
        assert_eq!(current.id, "default-chat", "Naide's current chat opens");

        // A turn on it keeps Naide's fields and names its file.
        let saved = save_turn(&workspace, current.clone(), at(1_770_000_000_000), |s| {
            s.updated_at = at(1_770_000_000_000)
        })
        .unwrap();
        let on_disk: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(chats.join(DEFAULT_FILE)).unwrap())
                .unwrap();
        assert_eq!(on_disk["messages"][1]["command"], "npm test");
        assert_eq!(on_disk["messages"][1]["role"], "command");
        assert_eq!(on_disk["savedAt"], "2026-02-01T10:00:01.000Z");
        assert_eq!(saved.id, "default-chat");
        let config = project_config(&workspace).unwrap();
        assert_eq!(config[LAST_CHAT_KEY], DEFAULT_FILE);
        assert_eq!(config["theme"], "dark", "other settings are kept");

        // A chat started here is the one the settings name.
        archive_active(&workspace, at(1_770_000_001_000), 9).unwrap();
        assert_eq!(active(&workspace).unwrap(), None, "a new chat starts empty");
        let fresh = chat_with(&workspace, 1_770_000_002_000, "New here");
        save_turn(&workspace, fresh.clone(), at(1_770_000_002_000), |_| {}).unwrap();
        assert_eq!(
            project_config(&workspace).unwrap()[LAST_CHAT_KEY],
            ACTIVE_FILE
        );
        assert_eq!(active(&workspace).unwrap().unwrap().id, fresh.id);
        let listed = history(&workspace).unwrap();
        assert_eq!(listed.sessions.len(), 2, "Naide's chat is an archive now");

        // Naide switching to an archive by name is followed here.
        let archive = listed.sessions[1].file.clone();
        std::fs::write(
            dir.path().join(PROJECT_CONFIG),
            serde_json::json!({ LAST_CHAT_KEY: archive }).to_string(),
        )
        .unwrap();
        assert_eq!(active(&workspace).unwrap().unwrap().id, "default-chat");
        // A hostile name is never followed out of the folder.
        std::fs::write(
            dir.path().join(PROJECT_CONFIG),
            r#"{"lastChatSession": "../../etc/passwd.json"}"#,
        )
        .unwrap();
        assert_eq!(active_path(&workspace), chats.join(ACTIVE_FILE));
    }
}
