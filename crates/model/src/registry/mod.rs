//! The Switchboards running on this machine: each window, each server and
//! each agent's question asked with no window of its own registers its
//! workspace in the user's private runtime folder for as long as it runs,
//! so every window can show what waits in all of them ("All workspaces").
//! The rules here are pure: the file a registration is kept in, what a
//! registration read back must hold, and what waits in a workspace.

mod summary;

pub use summary::{waiting_elsewhere, waiting_everywhere};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::{
    Delivery, DeliveryMode, DeliveryStatus, Timestamp,
    agent::{AgentRow, AgentState},
    id::workspace_key,
};

/// What keeps a workspace registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// A window is open on it.
    Window,
    /// A `switchboard` server serves it (MCP over HTTP).
    Server,
    /// An agent's question waits in it: registered by the hook or MCP
    /// `approve` that asks, for as long as it waits.
    Asking,
    /// `switchboard serve` serves its inbox to paired browsers, which
    /// answer questions as a window does.
    Browsers,
}

impl Presence {
    /// Every presence, in the order files name them.
    pub const ALL: [Self; 4] = [Self::Window, Self::Server, Self::Asking, Self::Browsers];

    /// Whether someone can answer a question through it: a window, or a
    /// browser paired with `switchboard serve`.
    pub fn answers(self) -> bool {
        matches!(self, Self::Window | Self::Browsers)
    }

    /// The spelling in file names and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Window => "window",
            Self::Server => "server",
            Self::Asking => "asking",
            Self::Browsers => "browsers",
        }
    }

    /// The presence spelled `text`.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|presence| presence.as_str() == text)
    }
}

/// One running Switchboard's registration, as its file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registration {
    /// The workspace's folder: absolute and canonical.
    pub workspace: String,
    /// What keeps it registered.
    pub presence: Presence,
    /// The registering process.
    pub pid: u32,
    /// When it registered.
    pub since: Timestamp,
    /// Where a browser opens it, for a server of the inbox to browsers
    /// (`switchboard serve`): the origin its pairing links are made with,
    /// so `switchboard pair` makes one for it. None for anything else
    /// (and in files written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// The largest registration file read: a path and a few fields.
pub const MAX_REGISTRATION_BYTES: u64 = 16 * 1024;

/// Why a registration file is not taken.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RegistrationError {
    /// Its name is not `<key>.<presence>.<pid>.json`.
    #[error("not a registration's name")]
    Name,
    /// Its contents are not a registration.
    #[error("not a registration: {0}")]
    Contents(String),
    /// Its workspace is not an absolute path.
    #[error("its workspace {0:?} is not an absolute path")]
    Relative(String),
    /// Its name does not match what it holds (another workspace's key,
    /// presence or process).
    #[error("its name does not match what it holds")]
    Mismatch,
}

impl Registration {
    /// The file it is kept in: `<workspace key>.<presence>.<pid>.json`.
    pub fn file_name(&self) -> String {
        format!(
            "{}.{}.{}.json",
            workspace_key(std::path::Path::new(&self.workspace)),
            self.presence.as_str(),
            self.pid
        )
    }

    /// The workspace key, presence and process a registration's file
    /// name `<key>.<presence>.<pid>.json` holds; anything else is
    /// refused (it is not a registration's file).
    pub fn parse_name(name: &str) -> Result<(&str, Presence, u32), RegistrationError> {
        let stem = name.strip_suffix(".json").ok_or(RegistrationError::Name)?;
        let mut parts = stem.split('.');
        let (Some(key), Some(presence), Some(pid), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(RegistrationError::Name);
        };
        let presence = Presence::parse(presence).ok_or(RegistrationError::Name)?;
        let pid: u32 = pid.parse().map_err(|_| RegistrationError::Name)?;
        if key.len() != 16 || !key.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return Err(RegistrationError::Name);
        }
        Ok((key, presence, pid))
    }

    /// Reads a registration file named `name` holding `text`, refusing one
    /// whose name and contents disagree or whose workspace is relative.
    pub fn read(name: &str, text: &str) -> Result<Self, RegistrationError> {
        let (key, presence, pid) = Self::parse_name(name)?;
        let registration: Self = serde_json::from_str(text)
            .map_err(|error| RegistrationError::Contents(error.to_string()))?;
        if !std::path::Path::new(&registration.workspace).is_absolute() {
            return Err(RegistrationError::Relative(registration.workspace));
        }
        if registration.presence != presence
            || registration.pid != pid
            || workspace_key(std::path::Path::new(&registration.workspace)) != key
        {
            return Err(RegistrationError::Mismatch);
        }
        Ok(registration)
    }
}

/// A question waiting for the developer in some workspace's inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitingQuestion {
    /// The delivery's id, in its own workspace.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Blocking (an agent waits on it) or interactive.
    pub mode: DeliveryMode,
    /// Since when it waits.
    pub since: Timestamp,
    /// The agent that sent it over HTTP, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_by: Option<String>,
}

/// What waits in one workspace: a line of "All workspaces".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceAttention {
    /// The workspace's folder.
    pub workspace: String,
    /// Its folder's name, to show.
    pub name: String,
    /// What keeps it registered (a window, a server, a question asked).
    pub presences: Vec<Presence>,
    /// Whether it is the workspace of the window or command asking.
    pub current: bool,
    /// The questions waiting in its inbox, oldest first.
    pub questions: Vec<WaitingQuestion>,
    /// Its agents, waiting ones first ([`crate::agent::arrange`]); gone
    /// ones left out.
    pub agents: Vec<AgentRow>,
    /// What could not be read there, said plainly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

impl WorkspaceAttention {
    /// How many things wait on the developer here: each blocking question,
    /// and each agent waiting at its own prompt with no question here.
    pub fn waiting(&self) -> usize {
        self.questions
            .iter()
            .filter(|question| question.mode == DeliveryMode::Blocking)
            .count()
            + self
                .agents
                .iter()
                .filter(|row| row.shown.waits() && row.record.waiting_on.is_none())
                .count()
    }

    /// Whether a window is open on it.
    pub fn has_window(&self) -> bool {
        self.presences.contains(&Presence::Window)
    }
}

/// The questions waiting in `deliveries`, oldest first: blocking and
/// interactive ones awaiting feedback.
pub fn waiting_questions(deliveries: &[Delivery]) -> Vec<WaitingQuestion> {
    let mut waiting: Vec<WaitingQuestion> = deliveries
        .iter()
        .filter(|delivery| {
            delivery.status == DeliveryStatus::AwaitingFeedback
                && delivery.mode != DeliveryMode::Passive
        })
        .map(|delivery| WaitingQuestion {
            id: delivery.id.clone(),
            title: delivery.title.clone(),
            mode: delivery.mode,
            since: delivery.created_at,
            sent_by: delivery.sent_by().map(str::to_owned),
        })
        .collect();
    waiting.sort_by_key(|question| question.since);
    waiting
}

/// The agents to show for a workspace: all but the gone ones, waiting
/// ones first.
pub fn shown_agents(mut rows: Vec<AgentRow>) -> Vec<AgentRow> {
    rows.retain(|row| row.shown != AgentState::Gone);
    crate::agent::arrange(&mut rows);
    rows
}

/// The blocking questions of `workspaces`' other lines (not the current
/// one) to announce now, with their line: each once in a window's life —
/// a workspace that leaves and comes back (a hook's registration ends,
/// another begins) does not announce its questions again — and none in a
/// workspace with a window of its own, which announces them itself.
/// `announced` (`None` before the first reading, whose questions are only
/// noted) keeps every question seen (workspace, id; ids are never reused).
pub fn to_announce<'a>(
    workspaces: &'a [WorkspaceAttention],
    announced: &mut Option<std::collections::BTreeSet<(String, String)>>,
) -> Vec<(&'a WorkspaceAttention, &'a WaitingQuestion)> {
    let first = announced.is_none();
    let seen = announced.get_or_insert_with(Default::default);
    let mut fresh = Vec::new();
    for line in workspaces.iter().filter(|line| !line.current) {
        for question in &line.questions {
            if question.mode != DeliveryMode::Blocking {
                continue;
            }
            let new = seen.insert((line.workspace.clone(), question.id.clone()));
            if new && !first && !line.has_window() {
                fresh.push((line, question));
            }
        }
    }
    fresh
}

/// Orders "All workspaces": the current one first, then those where the
/// most waits, then by name.
pub fn arrange(workspaces: &mut [WorkspaceAttention]) {
    workspaces.sort_by(|a, b| {
        b.current
            .cmp(&a.current)
            .then(b.waiting().cmp(&a.waiting()))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.workspace.cmp(&b.workspace))
    });
}

/// One line of the tray's menu for another running workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrayLine {
    /// What the menu says: its name and what waits there.
    pub label: String,
    /// Its folder, which the line opens.
    pub workspace: String,
}

/// The tray menu's lines for the other running workspaces of `lines`: those
/// where something waits first (as [`arrange`] orders them), each saying
/// how much; at most `limit`, the last saying how many more are in the
/// Agents view.
pub fn tray_lines(lines: &[WorkspaceAttention], limit: usize) -> Vec<TrayLine> {
    let others: Vec<&WorkspaceAttention> = lines.iter().filter(|line| !line.current).collect();
    let mut tray: Vec<TrayLine> = others
        .iter()
        .take(limit)
        .map(|line| TrayLine {
            label: match line.waiting() {
                0 => line.name.clone(),
                waiting => format!("{} — {waiting} waiting", line.name),
            },
            workspace: line.workspace.clone(),
        })
        .collect();
    if others.len() > limit
        && let Some(last) = tray.last_mut()
    {
        let more = others.len() - limit + 1;
        *last = TrayLine {
            label: format!("{more} more workspaces: see All workspaces in Agents"),
            workspace: String::new(),
        };
    }
    tray
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    pub(super) fn line(name: &str, current: bool, blocking: usize) -> WorkspaceAttention {
        WorkspaceAttention {
            workspace: format!("/home/dev/{name}"),
            name: name.into(),
            presences: vec![Presence::Window],
            current,
            questions: (0..blocking)
                .map(|n| WaitingQuestion {
                    id: format!("d_1_{n:03}"),
                    title: "Go on?".into(),
                    mode: DeliveryMode::Blocking,
                    since: Timestamp::EPOCH,
                    sent_by: None,
                })
                .collect(),
            agents: Vec::new(),
            problems: Vec::new(),
        }
    }

    #[test]
    fn the_tray_names_the_other_workspaces_where_something_waits_first() {
        let mut lines = vec![
            line("docs", false, 0),
            line("here", true, 3),
            line("api", false, 2),
        ];
        arrange(&mut lines);
        let tray = tray_lines(&lines, 10);
        let labels: Vec<&str> = tray.iter().map(|line| line.label.as_str()).collect();
        assert_eq!(labels, ["api — 2 waiting", "docs"]);
        assert_eq!(tray[0].workspace, "/home/dev/api");
    }

    #[test]
    fn past_its_limit_the_tray_says_how_many_more_there_are() {
        let lines: Vec<_> = (0..5).map(|n| line(&format!("w{n}"), false, 0)).collect();
        let tray = tray_lines(&lines, 3);
        assert_eq!(tray.len(), 3);
        assert_eq!(
            tray[2].label,
            "3 more workspaces: see All workspaces in Agents"
        );
        assert!(tray[2].workspace.is_empty(), "it opens nothing");
    }

    fn registration(workspace: &str, presence: Presence) -> Registration {
        Registration {
            workspace: workspace.into(),
            presence,
            pid: 4242,
            since: Timestamp::EPOCH,
            origin: None,
        }
    }

    #[test]
    fn a_registration_reads_back_from_its_own_file() {
        let written = registration("/home/dev/project", Presence::Window);
        let name = written.file_name();
        assert!(name.ends_with(".window.4242.json"), "{name}");
        let text = serde_json::to_string(&written).unwrap();
        assert!(!text.contains("origin"), "none is not written: {text}");
        assert_eq!(Registration::read(&name, &text), Ok(written.clone()));
        // A server of the inbox to browsers keeps where it is opened.
        let serving = Registration {
            origin: Some("https://127.0.0.1:8766".into()),
            ..registration("/home/dev/project", Presence::Browsers)
        };
        let text = serde_json::to_string(&serving).unwrap();
        assert_eq!(Registration::read(&serving.file_name(), &text), Ok(serving));
    }

    #[test]
    fn a_file_whose_name_and_contents_disagree_is_refused() {
        let written = registration("/home/dev/project", Presence::Window);
        let text = serde_json::to_string(&written).unwrap();
        let other = registration("/home/dev/other", Presence::Window).file_name();
        assert_eq!(
            Registration::read(&other, &text),
            Err(RegistrationError::Mismatch)
        );
        let server = registration("/home/dev/project", Presence::Server).file_name();
        assert_eq!(
            Registration::read(&server, &text),
            Err(RegistrationError::Mismatch)
        );
        for name in [
            "x.json",
            "a.window.1.json",
            "../../etc.window.1.json",
            "k.window.1",
        ] {
            assert_eq!(
                Registration::read(name, &text),
                Err(RegistrationError::Name),
                "{name}"
            );
        }
    }

    fn line_of(workspace: &str, presence: Presence, ids: &[&str]) -> WorkspaceAttention {
        WorkspaceAttention {
            workspace: workspace.into(),
            name: workspace.rsplit('/').next().unwrap_or_default().into(),
            presences: vec![presence],
            current: false,
            questions: ids
                .iter()
                .map(|id| WaitingQuestion {
                    id: (*id).into(),
                    title: format!("question {id}"),
                    mode: DeliveryMode::Blocking,
                    since: Timestamp::EPOCH,
                    sent_by: None,
                })
                .collect(),
            agents: Vec::new(),
            problems: Vec::new(),
        }
    }

    fn announced_ids(
        lines: &[WorkspaceAttention],
        announced: &mut Option<std::collections::BTreeSet<(String, String)>>,
    ) -> Vec<String> {
        to_announce(lines, announced)
            .into_iter()
            .map(|(line, question)| format!("{}:{}", line.name, question.id))
            .collect()
    }

    #[test]
    fn a_question_elsewhere_is_announced_once_and_only_where_no_window_announces_it() {
        let mut announced = None;
        let mut here = line_of("/p/here", Presence::Window, &["d_0"]);
        here.current = true;
        // The first reading only notes what waits.
        let first = [here.clone(), line_of("/p/old", Presence::Asking, &["d_1"])];
        assert!(announced_ids(&first, &mut announced).is_empty());
        let lines = [
            here.clone(),
            line_of("/p/old", Presence::Asking, &["d_1"]),
            line_of("/p/api", Presence::Window, &["d_2"]),
            line_of("/p/cli", Presence::Asking, &["d_3"]),
        ];
        assert_eq!(
            announced_ids(&lines, &mut announced),
            ["cli:d_3"],
            "api's own window announces d_2; d_1 was known"
        );
        // cli's hook ends and another one asks there: d_3 is not new.
        let gone = [here.clone()];
        assert!(announced_ids(&gone, &mut announced).is_empty());
        let back = [here, line_of("/p/cli", Presence::Asking, &["d_3", "d_4"])];
        assert_eq!(
            announced_ids(&back, &mut announced),
            ["cli:d_4"],
            "d_3 was announced when cli first asked"
        );
    }

    #[test]
    fn a_relative_or_unreadable_workspace_is_refused() {
        let relative = registration("project", Presence::Asking);
        let text = serde_json::to_string(&relative).unwrap();
        assert!(matches!(
            Registration::read(&relative.file_name(), &text),
            Err(RegistrationError::Relative(_))
        ));
        let name = registration("/p", Presence::Window).file_name();
        assert!(matches!(
            Registration::read(&name, "{\"workspace\": 3}"),
            Err(RegistrationError::Contents(_))
        ));
    }
}
