//! `teams/<team>/inboxes/<agent>.json`: messages, sent and read under the
//! plugin's team lock.

use switchboard_model::{
    Timestamp,
    team::{FileProblem, Inbox, Message, MessageType, TeamConfig, TeamError, broadcast},
};

use super::{Teams, check_file_id, problem, read_json, write_json};
use crate::StoreError;

/// Every inbox file of `team` that reads, by agent; the others go to
/// `problems`.
pub(super) fn read_all(
    teams: &Teams,
    team: &str,
    config: &TeamConfig,
    problems: &mut Vec<FileProblem>,
) -> Vec<Inbox> {
    let dir = teams.team_dir(team).join("inboxes");
    let mut agents: Vec<String> = crate::walk::files_in(&dir, "json")
        .unwrap_or_default()
        .into_iter()
        .filter_map(|path| path.file_stem()?.to_str().map(str::to_owned))
        .filter(|name| !name.starts_with('.'))
        .collect();
    for member in &config.members {
        if !agents.contains(&member.agent_id) {
            agents.push(member.agent_id.clone());
        }
    }
    agents.sort();
    let mut inboxes = Vec::new();
    for agent in agents {
        let path = teams.inbox_path(team, &agent);
        if !path.exists() {
            continue;
        }
        match load(&path) {
            Ok(messages) => inboxes.push(Inbox { agent, messages }),
            Err(error) => problems.push(problem(&path, error)),
        }
    }
    inboxes
}

/// An inbox file's messages; one that does not parse or breaks the schema
/// is an error naming the file.
fn load(path: &std::path::Path) -> Result<Vec<Message>, StoreError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let messages: Vec<Message> = read_json(path)?;
    for message in &messages {
        message.validate().map_err(|error| StoreError::Corrupt {
            path: path.to_owned(),
            reason: error.to_string(),
        })?;
    }
    Ok(messages)
}

fn member_config(teams: &Teams, team: &str, agent: &str) -> Result<TeamConfig, StoreError> {
    let config = teams.config(team)?;
    check_file_id("agent", agent)?;
    if !config.has_member(agent) {
        return Err(TeamError::NotMember {
            agent: agent.to_owned(),
            team: team.to_owned(),
        }
        .into());
    }
    Ok(config)
}

/// Sends `text` from `from` to member `to`, appended to `to`'s inbox.
pub fn send_message(
    teams: &Teams,
    team: &str,
    from: &str,
    to: &str,
    kind: MessageType,
    text: &str,
    now: Timestamp,
) -> Result<Message, StoreError> {
    check_file_id("sender", from)?;
    member_config(teams, team, to)?;
    let message = Message::new(from, to, text, kind, now);
    message.validate()?;
    let _lock = teams.team_lock(team, true)?;
    let path = teams.inbox_path(team, to);
    let mut messages = load(&path)?;
    messages.push(message.clone());
    write_json(&path, &messages)?;
    Ok(message)
}

/// Sends `text` to every member but `from`, as the plugin's broadcast
/// does. Every inbox is read before any is written, so one that does not
/// read stops the broadcast before anything changed. Returns the
/// recipients.
pub fn send_broadcast(
    teams: &Teams,
    team: &str,
    from: &str,
    text: &str,
    now: Timestamp,
) -> Result<Vec<String>, StoreError> {
    check_file_id("sender", from)?;
    let config = teams.config(team)?;
    let _lock = teams.team_lock(team, true)?;
    let copies = broadcast(&config, from, text, now);
    let mut inboxes = Vec::with_capacity(copies.len());
    for (agent, copy) in copies {
        check_file_id("agent", &agent)?;
        let path = teams.inbox_path(team, &agent);
        let mut messages = load(&path)?;
        messages.push(copy);
        inboxes.push((agent, path, messages));
    }
    let mut recipients = Vec::with_capacity(inboxes.len());
    for (agent, path, messages) in inboxes {
        write_json(&path, &messages)?;
        recipients.push(agent);
    }
    Ok(recipients)
}

/// `agent`'s messages (only the unread ones with `unread_only`), which are
/// then marked read, as the plugin's read does.
pub fn read_messages(
    teams: &Teams,
    team: &str,
    agent: &str,
    unread_only: bool,
) -> Result<Vec<Message>, StoreError> {
    teams.config(team)?;
    check_file_id("agent", agent)?;
    let _lock = teams.team_lock(team, true)?;
    let path = teams.inbox_path(team, agent);
    let mut messages = load(&path)?;
    let shown: Vec<Message> = messages
        .iter()
        .filter(|message| !unread_only || !message.read)
        .cloned()
        .collect();
    if messages.iter().any(|message| !message.read) {
        for message in &mut messages {
            message.read = true;
        }
        write_json(&path, &messages)?;
    }
    Ok(shown)
}
