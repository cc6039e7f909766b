//! What the window announces about agents: who began waiting on the
//! developer at their own prompt, or finished a turn, since the last look
//! (each state entered is told once), and the notification that says so.

use std::collections::BTreeSet;

use super::{AgentRecord, AgentRow, AgentState, waiting_at_own_prompt};

/// One agent in one state: its record's key and since when it is in it.
pub type Moment = (String, i64);

/// `row`'s agent in its current state.
pub fn moment(row: &AgentRow) -> Moment {
    (
        AgentRecord::key(row.record.agent, &row.record.session_id),
        row.record.since.unix_millis(),
    )
}

/// What is announced of agents: the moments told so far, by kind.
#[derive(Debug, Default)]
pub struct Told {
    /// Agents waiting at their own prompt (no question in the inbox).
    pub waiting: BTreeSet<Moment>,
    /// Agents whose turn finished.
    pub finished: BTreeSet<Moment>,
}

/// What is new among `rows` since [`Told`] was last brought up to date.
#[derive(Debug, Default)]
pub struct News<'a> {
    /// Agents that began waiting on the developer at their own prompt.
    pub waiting: Vec<&'a AgentRow>,
    /// Agents that finished a turn.
    pub finished: Vec<&'a AgentRow>,
}

impl Told {
    /// The news in `rows`, `self` becoming what they show: an agent still
    /// in a state it was told in is not told again; one that left it and
    /// came back is.
    pub fn update<'a>(&mut self, rows: &'a [AgentRow]) -> News<'a> {
        let waiting: BTreeSet<Moment> = waiting_at_own_prompt(rows)
            .into_iter()
            .map(moment)
            .collect();
        let finished: BTreeSet<Moment> = rows
            .iter()
            .filter(|row| row.shown == AgentState::TurnFinished)
            .map(moment)
            .collect();
        let fresh = |now: &BTreeSet<Moment>, before: &BTreeSet<Moment>| -> Vec<&'a AgentRow> {
            rows.iter()
                .filter(|row| now.contains(&moment(row)) && !before.contains(&moment(row)))
                .collect()
        };
        let news = News {
            waiting: fresh(&waiting, &self.waiting),
            finished: fresh(&finished, &self.finished),
        };
        self.waiting = waiting;
        self.finished = finished;
        news
    }
}

/// The notification (title, body) for an agent waiting at its own prompt
/// in the workspace `workspace`, quoting `said` (what it said last).
pub fn waiting_notice(row: &AgentRow, workspace: &str, said: Option<&str>) -> (String, String) {
    let said = said.map(|text| format!("\n“{text}”")).unwrap_or_default();
    let reason = row
        .record
        .reason
        .clone()
        .unwrap_or_else(|| "Answer it in its own terminal".to_owned());
    (
        format!("{} {} ({workspace})", row.record.who(), row.shown.notice()),
        format!("{reason} — in {}{said}", row.record.cwd),
    )
}

/// The notification (title, body) for an agent that finished its turn in
/// the workspace `workspace`: what it said last, else its folder.
pub fn finished_notice(row: &AgentRow, workspace: &str, said: Option<&str>) -> (String, String) {
    (
        format!("{} finished its turn ({workspace})", row.record.who()),
        said.map_or_else(|| row.record.cwd.clone(), str::to_owned),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;
    use crate::{Timestamp, agent::AgentKind};

    fn row(session: &str, state: AgentState, since: i64) -> AgentRow {
        let mut record = AgentRecord::new(
            AgentKind::ClaudeCode,
            session,
            "Claude Code",
            "/w",
            state,
            Timestamp::from_unix_millis(since).unwrap(),
        );
        record.reason = Some("Claude needs your permission to use Bash".into());
        AgentRow {
            record,
            shown: state,
            last_messages: Vec::new(),
        }
    }

    #[test]
    fn each_state_entered_is_told_once_and_again_when_entered_again() {
        let mut told = Told::default();
        let first = [
            row("a", AgentState::NeedsPermission, 1_000),
            row("b", AgentState::TurnFinished, 1_000),
            row("c", AgentState::Working, 1_000),
        ];
        let news = told.update(&first);
        assert_eq!(news.waiting.len(), 1);
        assert_eq!(news.finished.len(), 1);
        // Nothing changed: nothing to tell.
        let news = told.update(&first);
        assert!(news.waiting.is_empty() && news.finished.is_empty());
        // `a` was answered and asks again later: told again.
        told.update(&[row("a", AgentState::Working, 2_000)]);
        let again = [row("a", AgentState::NeedsPermission, 3_000)];
        assert_eq!(told.update(&again).waiting.len(), 1);
        // An agent waiting on a question in the inbox is the question's.
        let mut asked = row("d", AgentState::NeedsPermission, 4_000);
        asked.record.waiting_on = Some("d_1_001".into());
        let asked = [asked];
        assert!(told.update(&asked).waiting.is_empty());
    }

    #[test]
    fn notices_name_the_agent_the_workspace_and_why() {
        let waiting = row("a", AgentState::NeedsPermission, 1_000);
        let (title, body) = waiting_notice(&waiting, "project", Some("Shall I?"));
        assert_eq!(title, "Claude Code needs your permission (project)");
        assert_eq!(
            body,
            "Claude needs your permission to use Bash — in /w\n“Shall I?”"
        );
        let mut started = waiting.clone();
        started.record.launch = Some("tidy".into());
        assert_eq!(
            waiting_notice(&started, "project", None).0,
            "tidy (Claude Code) needs your permission (project)",
            "a started agent is named, not only its kind"
        );
        let done = row("b", AgentState::TurnFinished, 1_000);
        assert_eq!(
            finished_notice(&done, "project", None),
            (
                "Claude Code finished its turn (project)".into(),
                "/w".into()
            )
        );
    }
}
