//! A started agent as its row shows it, and its team task: the card
//! that follows it, the prompt made from the task.

use serde::{Deserialize, Serialize};

use super::{Launch, LaunchState};
use crate::{Timestamp, agent::AgentState, program::EndReason};

/// A started agent as its row shows it: the launch, its state joined from
/// its program session and its hooks, and what it waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchRow {
    /// The launch.
    pub launch: Launch,
    /// Its state.
    pub shown: LaunchState,
    /// Since when it is in that state.
    pub since: Timestamp,
    /// The inbox question it waits on, while one is open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_on: Option<String>,
    /// What it says it waits for (a notification's words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its last messages, from its transcript.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_messages: Vec<crate::agent::transcript::TranscriptMessage>,
    /// Whether its program still runs — a landed agent's too, until it is
    /// stopped (landing ends it; one that outlived that has a Stop).
    #[serde(default)]
    pub runs: bool,
    /// Why its program ended, once it did and the session host said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<EndReason>,
}

impl LaunchRow {
    /// Whether its row folds away: its work landed, or its program ended
    /// with no worktree left to review — never while its program runs.
    pub fn folds(&self) -> bool {
        if self.runs {
            return false;
        }
        match self.shown {
            LaunchState::Merged | LaunchState::Discarded => true,
            LaunchState::Exited | LaunchState::Lost => self.launch.worktree.is_none(),
            LaunchState::Starting | LaunchState::Agent(_) => false,
        }
    }

    /// The words its state badge shows: the state, and for one that ended
    /// how ("stopped", "ended: the session idle limit"), for a landed one
    /// whether its program still runs.
    pub fn label(&self) -> String {
        match self.shown {
            LaunchState::Merged | LaunchState::Discarded if self.runs => {
                format!("{} · still running", self.shown.label())
            }
            LaunchState::Exited => match self.ended_by {
                Some(EndReason::Killed) => "stopped".to_owned(),
                Some(EndReason::Idle) => "ended: the session idle limit".to_owned(),
                Some(EndReason::Runtime) => "ended: the session time limit".to_owned(),
                Some(EndReason::Exited) | None => "exited".to_owned(),
            },
            other => other.label().to_owned(),
        }
    }

    /// What a folded row says of an agent that is done: how its work
    /// landed and that its program ended ("Merged tidy into main: commit
    /// 1a2b3c4d. Its program ended."), else its state's words.
    pub fn summary(&self) -> String {
        match self.launch.landed_sentence() {
            Some(landed) if !self.runs => format!("{landed} Its program ended."),
            _ => self.label(),
        }
    }

    /// Why nothing typed reaches it, when its program no longer runs: a
    /// sentence that follows "NAME is not running: ".
    pub fn why_not_running(&self) -> String {
        match self.shown {
            LaunchState::Merged => "its work was merged, which ends it".to_owned(),
            LaunchState::Discarded => "its work was discarded, which ends it".to_owned(),
            LaunchState::Lost => "the session host that held it ended".to_owned(),
            _ => match self.ended_by {
                Some(EndReason::Killed) => "it was stopped".to_owned(),
                Some(EndReason::Idle) => {
                    "the session idle limit ended it (sessionIdleSecs in the settings)".to_owned()
                }
                Some(EndReason::Runtime) => {
                    "the session time limit ended it (sessionMaxSecs in the settings)".to_owned()
                }
                Some(EndReason::Exited) | None => "its program exited".to_owned(),
            },
        }
    }

    /// Where it works, as a person reads it: its worktree's folder and
    /// branch (`.claude/worktrees/tidy on switchboard/tidy`), else "in the
    /// workspace".
    pub fn place(&self, workspace_root: &str) -> String {
        match &self.launch.worktree {
            Some(tree) => {
                let root = workspace_root.trim_end_matches('/');
                let folder = tree
                    .path
                    .strip_prefix(&format!("{root}/"))
                    .unwrap_or(&tree.path);
                format!("{folder} on {}", tree.branch)
            }
            None => "in the workspace".to_owned(),
        }
    }
}

/// The started agent working on task `TEAM/ID` (the newest whose work
/// has not landed), if one is.
pub fn working_on<'a>(rows: &'a [LaunchRow], team: &str, id: &str) -> Option<&'a LaunchRow> {
    let task = format!("{team}/{id}");
    rows.iter()
        .find(|row| row.launch.task.as_deref() == Some(task.as_str()) && !row.launch.is_landed())
}

impl LaunchState {
    /// How a task's card says it: "turn finished" is work ready to review.
    pub fn on_card(self) -> &'static str {
        match self {
            Self::Agent(AgentState::TurnFinished) => "ready to review",
            other => other.label(),
        }
    }
}

/// The prompt for an agent started on a team task: the task's title and
/// description and the titles of the tasks it depends on, then what the
/// developer added.
pub fn task_prompt(title: &str, description: &str, depends_on: &[String], added: &str) -> String {
    let mut prompt = format!("Work on this task: {title}");
    if !description.trim().is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(description.trim());
    }
    if !depends_on.is_empty() {
        prompt.push_str("\n\nIt depends on these tasks: ");
        prompt.push_str(&depends_on.join("; "));
        prompt.push('.');
    }
    if !added.trim().is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(added.trim());
    }
    prompt
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::super::{Landing, Worktree};
    use super::*;

    #[test]
    fn landed_and_ended_agents_with_nothing_to_review_fold_away() {
        let row = |shown, worktree: bool| LaunchRow {
            launch: Launch {
                worktree: worktree.then(|| Worktree {
                    path: "/w/.claude/worktrees/fix".into(),
                    branch: "switchboard/fix".into(),
                    base: "main".into(),
                    base_commit: "abc".into(),
                    git_dir: String::new(),
                }),
                ..super::super::test_launch()
            },
            shown,
            since: Timestamp::from_unix_millis(0).unwrap(),
            waiting_on: None,
            reason: None,
            last_messages: Vec::new(),
            runs: false,
            ended_by: None,
        };
        assert!(row(LaunchState::Merged, true).folds());
        assert!(row(LaunchState::Discarded, false).folds());
        assert!(row(LaunchState::Exited, false).folds());
        assert!(
            !row(LaunchState::Exited, true).folds(),
            "its work waits for review"
        );
        assert!(!row(LaunchState::Lost, true).folds());
        assert!(!row(LaunchState::Agent(AgentState::WaitingForInput), false).folds());
        let still_running = LaunchRow {
            runs: true,
            ..row(LaunchState::Merged, true)
        };
        assert!(
            !still_running.folds(),
            "a landed agent whose program runs keeps its row, and its Stop"
        );
        assert_eq!(still_running.label(), "merged · still running");
    }

    #[test]
    fn an_ended_agent_says_how_it_ended_and_why_nothing_reaches_it() {
        let ended = |shown, by| LaunchRow {
            launch: super::super::test_launch(),
            shown,
            since: Timestamp::from_unix_millis(0).unwrap(),
            waiting_on: None,
            reason: None,
            last_messages: Vec::new(),
            runs: false,
            ended_by: by,
        };
        let stopped = ended(LaunchState::Exited, Some(EndReason::Killed));
        assert_eq!(
            (stopped.label(), stopped.why_not_running()),
            ("stopped".to_owned(), "it was stopped".to_owned())
        );
        let idle = ended(LaunchState::Exited, Some(EndReason::Idle));
        assert_eq!(idle.label(), "ended: the session idle limit");
        assert!(idle.why_not_running().contains("sessionIdleSecs"));
        assert_eq!(ended(LaunchState::Exited, None).label(), "exited");
        let merged = ended(LaunchState::Merged, Some(EndReason::Killed));
        assert_eq!(merged.label(), "merged");
        assert_eq!(
            merged.why_not_running(),
            "its work was merged, which ends it"
        );
        assert_eq!(merged.place("/w"), "in the workspace");
        let mut tree = merged.clone();
        tree.launch.worktree = Some(Worktree {
            path: "/w/.claude/worktrees/fix".into(),
            branch: "switchboard/fix".into(),
            base: "main".into(),
            base_commit: "abc".into(),
            git_dir: String::new(),
        });
        assert_eq!(
            tree.place("/w/"),
            ".claude/worktrees/fix on switchboard/fix"
        );
        tree.launch.landed = Some(Landing::Merged {
            at: Timestamp::from_unix_millis(1).unwrap(),
            commit: "1a2b3c4d5e6f".into(),
        });
        assert_eq!(
            tree.launch.landed_sentence().as_deref(),
            Some("Merged fix into main: commit 1a2b3c4d.")
        );
        assert_eq!(
            tree.summary(),
            "Merged fix into main: commit 1a2b3c4d. Its program ended."
        );
        tree.runs = true;
        assert_eq!(tree.summary(), "merged · still running");
    }

    #[test]
    fn a_tasks_card_shows_the_agent_working_on_it_until_its_work_lands() {
        let row = |name: &str, landed: bool| LaunchRow {
            launch: Launch {
                name: name.into(),
                task: Some("web/3".into()),
                landed: landed.then(|| Landing::Discarded {
                    at: Timestamp::from_unix_millis(1).unwrap(),
                }),
                ..super::super::test_launch()
            },
            shown: LaunchState::Agent(AgentState::TurnFinished),
            since: Timestamp::from_unix_millis(0).unwrap(),
            waiting_on: None,
            reason: None,
            last_messages: Vec::new(),
            runs: false,
            ended_by: None,
        };
        let rows = [row("old", true), row("new", false)];
        assert_eq!(working_on(&rows, "web", "3").unwrap().launch.name, "new");
        assert!(working_on(&rows, "web", "4").is_none());
        assert!(working_on(&rows[..1], "web", "3").is_none(), "landed");
        assert_eq!(rows[1].shown.on_card(), "ready to review");
    }

    #[test]
    fn a_task_prompt_carries_the_task_and_what_it_builds_on() {
        let prompt = task_prompt(
            "Add login",
            "Use OAuth.",
            &["Set up the database".into()],
            "Keep it small.",
        );
        assert!(prompt.starts_with("Work on this task: Add login\n\nUse OAuth."));
        assert!(prompt.contains("depends on these tasks: Set up the database."));
        assert!(prompt.ends_with("Keep it small."));
    }
}
