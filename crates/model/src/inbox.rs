//! The inbox's list rules: filtering by mode and status, the counts of
//! questions waiting for an answer, decided permission requests folded
//! under their agent, and which rows of a long list are drawn.

use std::{collections::BTreeSet, ops::Range};

use crate::{
    Delivery, DeliveryMode, DeliveryStatus,
    agent::{
        AgentKind, AgentRecord,
        permission::{Decision, mark_of},
        short_session,
    },
};

/// Which deliveries the list shows; `None` means any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InboxFilter {
    /// Only this mode.
    pub mode: Option<DeliveryMode>,
    /// Only this status.
    pub status: Option<DeliveryStatus>,
}

impl InboxFilter {
    /// Whether `delivery` passes the filter.
    pub fn matches(&self, delivery: &Delivery) -> bool {
        self.mode.is_none_or(|mode| delivery.mode == mode)
            && self.status.is_none_or(|status| delivery.status == status)
    }
}

/// How many questions wait for an answer, per mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PendingCounts {
    /// Interactive questions waiting.
    pub interactive: usize,
    /// Blocking questions waiting: an agent is stalled on each.
    pub blocking: usize,
}

impl PendingCounts {
    /// Counts the deliveries awaiting feedback.
    pub fn of(deliveries: &[Delivery]) -> Self {
        let mut counts = Self::default();
        for delivery in deliveries
            .iter()
            .filter(|d| d.status == DeliveryStatus::AwaitingFeedback)
        {
            match delivery.mode {
                DeliveryMode::Interactive => counts.interactive += 1,
                DeliveryMode::Blocking => counts.blocking += 1,
                DeliveryMode::Passive => {}
            }
        }
        counts
    }

    /// All questions waiting.
    pub fn total(&self) -> usize {
        self.interactive + self.blocking
    }

    /// Waiting questions of `mode` (`None`: all).
    pub fn for_mode(&self, mode: Option<DeliveryMode>) -> usize {
        match mode {
            None => self.total(),
            Some(DeliveryMode::Interactive) => self.interactive,
            Some(DeliveryMode::Blocking) => self.blocking,
            Some(DeliveryMode::Passive) => 0,
        }
    }
}

/// The blocking questions an agent waits on, oldest first: the alert bar.
pub fn waiting_blocking(deliveries: &[Delivery]) -> Vec<&Delivery> {
    let mut waiting: Vec<&Delivery> = deliveries
        .iter()
        .filter(|d| {
            d.mode == DeliveryMode::Blocking && d.status == DeliveryStatus::AwaitingFeedback
        })
        .collect();
    waiting.sort_by_key(|d| d.created_at);
    waiting
}

/// The blocking questions waiting now that were not waiting in `known`
/// (ids), and the ids waiting now: what the shell notifies about.
pub fn newly_waiting<'a>(
    known: &std::collections::BTreeSet<String>,
    deliveries: &'a [Delivery],
) -> (Vec<&'a Delivery>, std::collections::BTreeSet<String>) {
    let waiting = waiting_blocking(deliveries);
    let now: std::collections::BTreeSet<String> = waiting.iter().map(|d| d.id.clone()).collect();
    let fresh = waiting
        .into_iter()
        .filter(|d| !known.contains(&d.id))
        .collect();
    (fresh, now)
}

/// The rows of a list of `total` rows, each `row` pixels high, to draw when
/// the list is scrolled `scroll_top` pixels down in a viewport `viewport`
/// pixels high: those in view plus a viewport's worth above and below, so
/// the row next to a focused one always exists (arrow keys, Page Up/Down)
/// and a scroll of less than a screen shows no gap before the next frame.
/// Rows outside are left out of the page: its memory grows with the
/// viewport, not with the inbox.
pub fn drawn_rows(scroll_top: f64, viewport: f64, row: f64, total: usize) -> Range<usize> {
    if total == 0 || row.is_nan() || row <= 0.0 {
        return 0..0;
    }
    let viewport = viewport.max(row);
    let rows_in_view = (viewport / row).ceil() as usize;
    let first_in_view = ((scroll_top.max(0.0) / row).floor() as usize).min(total - 1);
    let first = first_in_view.saturating_sub(rows_in_view).min(total);
    let end = first_in_view
        .saturating_add(2 * rows_in_view + 1)
        .min(total);
    first..end.max(first)
}

/// How many rows a key moves the focus in a list whose view holds `page`
/// rows: the arrows one, Page Up/Down a page, Home and End to the ends;
/// `None` for other keys (the DOM's key names).
pub fn rows_moved(key: &str, page: isize) -> Option<isize> {
    Some(match key {
        "ArrowDown" => 1,
        "ArrowUp" => -1,
        "PageDown" => page,
        "PageUp" => -page,
        "End" => isize::MAX,
        "Home" => isize::MIN,
        _ => return None,
    })
}

/// The row `by` rows from `at` in a list of `total`, kept in it.
pub fn moved_to(at: usize, by: isize, total: usize) -> usize {
    at.saturating_add_signed(by).min(total.saturating_sub(1))
}

/// How many whole rows of `row` pixels a view of `viewport` pixels holds
/// (at least one).
pub fn page_rows(viewport: f64, row: f64) -> isize {
    if row.is_nan() || row <= 0.0 {
        return 1;
    }
    ((viewport / row).floor() as isize).max(1)
}

/// Where to scroll a view `viewport` pixels high, now at `scroll_top`, so
/// that row `index` (of `row` pixels) is wholly in it; `None` when it
/// already is.
pub fn scroll_to_show(index: usize, row: f64, scroll_top: f64, viewport: f64) -> Option<f64> {
    let row_top = index as f64 * row;
    if row_top < scroll_top {
        Some(row_top)
    } else if row_top + row > scroll_top + viewport {
        Some(row_top + row - viewport)
    } else {
        None
    }
}

/// One line of the inbox list: a delivery, or the decided permission
/// requests of one agent session folded into a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListRow {
    /// The delivery at this position of the list's deliveries.
    Delivery(usize),
    /// An agent session's decided permission requests.
    Folded(Fold),
}

/// The decided permission requests of one agent session, as one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// The session's key ([`AgentRecord::key`]): what expands it.
    pub key: String,
    /// Which agent.
    pub agent: AgentKind,
    /// Its session, as the agent names it.
    pub session: String,
    /// The started agent it is (its launch's name), when it is one.
    pub launch: Option<String>,
    /// Its requests' positions, in list order.
    pub members: Vec<usize>,
    /// How many were allowed.
    pub allowed: usize,
    /// How many were denied.
    pub denied: usize,
}

impl Fold {
    /// The line's words: "tidy (Claude Code) · 5 decided requests (3
    /// allowed, 2 denied)" for a started agent; else "Claude Code
    /// 5c23dece · …", the session's first eight characters telling two
    /// sessions of one agent apart.
    pub fn label(&self) -> String {
        let count = self.members.len();
        let requests = if count == 1 { "request" } else { "requests" };
        let mut parts = Vec::new();
        if self.allowed > 0 {
            parts.push(format!("{} allowed", self.allowed));
        }
        if self.denied > 0 {
            parts.push(format!("{} denied", self.denied));
        }
        let parts = if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        };
        let who = match &self.launch {
            Some(launch) => crate::agent::named(Some(launch), self.agent.label()),
            None => format!("{} {}", self.agent.label(), short_session(&self.session)),
        };
        format!("{who} · {count} decided {requests}{parts}")
    }
}

/// The list's lines for the deliveries at `shown` (positions in
/// `deliveries`, in list order): each agent session's decided permission
/// requests, two or more, fold into one line where the first of them
/// stands, unless its key is in `expanded` — then the line is followed by
/// them. Everything else is a line of its own, in its place.
pub fn fold_decided(
    deliveries: &[Delivery],
    shown: &[usize],
    expanded: &BTreeSet<String>,
) -> Vec<ListRow> {
    let decided = |index: usize| {
        let delivery = deliveries.get(index)?;
        if delivery.check_open_for_reply().is_ok() {
            return None;
        }
        let mark = mark_of(&delivery.extra)?;
        Some((AgentRecord::key(mark.agent, &mark.session_id), mark))
    };
    // Each decided request's fold, by position in `shown`.
    let mut folds: Vec<Fold> = Vec::new();
    let groups: Vec<Option<usize>> = shown
        .iter()
        .map(|&index| {
            let (key, mark) = decided(index)?;
            let at = folds
                .iter()
                .position(|fold| fold.key == key)
                .unwrap_or_else(|| {
                    folds.push(Fold {
                        key,
                        agent: mark.agent,
                        session: mark.session_id.clone(),
                        launch: mark.launch.clone(),
                        members: Vec::new(),
                        allowed: 0,
                        denied: 0,
                    });
                    folds.len() - 1
                });
            let fold = &mut folds[at];
            fold.members.push(index);
            match mark.decided.as_ref().map(Decision::badge) {
                Some("allowed") => fold.allowed += 1,
                Some("denied") => fold.denied += 1,
                _ => {}
            }
            Some(at)
        })
        .collect();
    let mut lines = Vec::with_capacity(shown.len());
    for (&index, group) in shown.iter().zip(groups) {
        match group.map(|at| &folds[at]) {
            // One alone is no fold: it is its own line, below.
            Some(fold) if fold.members.len() > 1 => {
                if fold.members[0] == index {
                    lines.push(ListRow::Folded(fold.clone()));
                    if expanded.contains(&fold.key) {
                        lines.extend(fold.members.iter().copied().map(ListRow::Delivery));
                    }
                }
            }
            _ => lines.push(ListRow::Delivery(index)),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use serde_json::json;

    use super::*;

    /// A delivery of `status`; with `session`, an agent's permission
    /// request of that session, decided as `decided` says.
    fn request(id: &str, status: &str, session: Option<(&str, &str)>) -> Delivery {
        let mut value = json!({
            "id": id, "mode": "blocking", "status": status, "title": id,
            "content": {"type": "markdown", "body": "b"},
            "feedback_schema": {"type": "confirm"},
            "created_at": "2026-11-27T10:00:00.000Z",
        });
        if let Some((session, decided)) = session {
            value["agent_request"] = json!({
                "agent": "claude-code", "session_id": session, "cwd": "/w",
                "tool_name": "Bash", "has_terminal": true,
                "decided": {"kind": decided},
            });
        }
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn decided_permission_requests_fold_under_their_agent_where_the_first_stands() {
        let deliveries = [
            request("d0", "awaiting_feedback", Some(("s1", "allowed"))),
            request("d1", "completed", Some(("s1", "allowed"))),
            request("d2", "completed", None),
            request("d3", "completed", Some(("s1", "denied"))),
            request("d4", "completed", Some(("s2", "allowed"))),
        ];
        let shown: Vec<usize> = (0..deliveries.len()).collect();
        let rows = fold_decided(&deliveries, &shown, &BTreeSet::new());
        let ListRow::Folded(s1) = &rows[1] else {
            panic!("{rows:?}");
        };
        assert_eq!(
            rows[0],
            ListRow::Delivery(0),
            "an open request stays a line"
        );
        assert_eq!(rows[1], ListRow::Folded(s1.clone()));
        assert_eq!(s1.members, [1, 3]);
        assert_eq!(
            s1.label(),
            "Claude Code s1 · 2 decided requests (1 allowed, 1 denied)"
        );
        assert_eq!(rows[2], ListRow::Delivery(2));
        assert!(
            rows[3] == ListRow::Delivery(4),
            "one decided request alone is its own line: {rows:?}"
        );
        assert_eq!(rows.len(), 4);
        // Expanded: the line, then its requests.
        let expanded = BTreeSet::from([s1.key.clone()]);
        let rows = fold_decided(&deliveries, &shown, &expanded);
        assert_eq!(rows[1], ListRow::Folded(s1.clone()));
        assert_eq!(rows[2..4], [ListRow::Delivery(1), ListRow::Delivery(3)]);
        assert_eq!(rows[4], ListRow::Delivery(2));
    }

    #[test]
    fn a_started_agents_decided_requests_fold_under_its_name() {
        let mut deliveries = [
            request("d0", "completed", Some(("s9", "allowed"))),
            request("d1", "completed", Some(("s9", "denied"))),
        ];
        for delivery in &mut deliveries {
            delivery.extra[crate::agent::permission::REQUEST_FIELD]["launch"] = json!("tidy");
        }
        let rows = fold_decided(&deliveries, &[0, 1], &BTreeSet::new());
        let ListRow::Folded(fold) = &rows[0] else {
            panic!("{rows:?}");
        };
        assert_eq!(
            fold.label(),
            "tidy (Claude Code) · 2 decided requests (1 allowed, 1 denied)"
        );
    }

    #[test]
    fn keys_move_the_focus_within_the_list_and_bring_its_row_into_view() {
        assert_eq!(rows_moved("ArrowDown", 20), Some(1));
        assert_eq!(rows_moved("PageUp", 20), Some(-20));
        assert_eq!(rows_moved("a", 20), None);
        assert_eq!(moved_to(5, isize::MAX, 10), 9, "End: the last row");
        assert_eq!(moved_to(5, isize::MIN, 10), 0, "Home: the first");
        assert_eq!(moved_to(0, -1, 10), 0);
        assert_eq!(page_rows(800.0, 40.0), 20);
        assert_eq!(page_rows(10.0, 40.0), 1, "a page is at least a row");
        // 20 rows in view from row 10: row 9 scrolls up, row 30 down, 15 stays.
        assert_eq!(scroll_to_show(9, 40.0, 400.0, 800.0), Some(360.0));
        assert_eq!(scroll_to_show(30, 40.0, 400.0, 800.0), Some(440.0));
        assert_eq!(scroll_to_show(15, 40.0, 400.0, 800.0), None);
    }

    #[test]
    fn drawn_rows_cover_the_view_and_a_screen_either_side() {
        // 20 rows of 40 px in view, scrolled to row 100.
        assert_eq!(drawn_rows(4000.0, 800.0, 40.0, 1000), 80..141);
        // At the top nothing is drawn above.
        assert_eq!(drawn_rows(0.0, 800.0, 40.0, 1000), 0..41);
        // At the bottom nothing past the last row.
        assert_eq!(drawn_rows(39_200.0, 800.0, 40.0, 1000), 960..1000);
        // Scrolled past the end (the list shrank): the last rows, never empty.
        assert_eq!(drawn_rows(1e9, 800.0, 40.0, 1000), 979..1000);
        assert_eq!(drawn_rows(0.0, 800.0, 40.0, 5), 0..5);
        assert_eq!(drawn_rows(0.0, 800.0, 40.0, 0), 0..0);
        // Before layout (no viewport yet) a row's worth is drawn, not nothing.
        assert_eq!(drawn_rows(0.0, 0.0, 40.0, 1000), 0..3);
        assert_eq!(drawn_rows(0.0, 800.0, 0.0, 1000), 0..0);
    }

    #[test]
    fn every_row_in_view_is_drawn() {
        for total in [1, 7, 50, 1000] {
            for top in (0..(total * 40)).step_by(13) {
                let drawn = drawn_rows(top as f64, 600.0, 40.0, total);
                let first_visible = top / 40;
                let last_visible = ((top + 600).div_ceil(40)).min(total);
                assert!(
                    drawn.start <= first_visible.min(total),
                    "{total} {top} {drawn:?}"
                );
                assert!(drawn.end >= last_visible, "{total} {top} {drawn:?}");
            }
        }
    }

    fn delivery(id: &str, mode: &str, status: &str, at: &str) -> Delivery {
        serde_json::from_value(serde_json::json!({
            "id": id, "mode": mode, "status": status, "title": id,
            "content": {"type": "markdown", "body": ""}, "created_at": at
        }))
        .unwrap()
    }

    #[test]
    fn filters_counts_and_the_alert_bar() {
        let list = vec![
            delivery(
                "d_3_001",
                "blocking",
                "awaiting_feedback",
                "2026-01-01T00:03:00Z",
            ),
            delivery(
                "d_2_001",
                "interactive",
                "awaiting_feedback",
                "2026-01-01T00:02:00Z",
            ),
            delivery(
                "d_1_002",
                "blocking",
                "awaiting_feedback",
                "2026-01-01T00:01:00Z",
            ),
            delivery("d_1_001", "blocking", "completed", "2026-01-01T00:00:30Z"),
            delivery("d_0_001", "passive", "delivered", "2026-01-01T00:00:00Z"),
        ];
        let counts = PendingCounts::of(&list);
        assert_eq!(
            (counts.blocking, counts.interactive, counts.total()),
            (2, 1, 3)
        );
        assert_eq!(counts.for_mode(Some(DeliveryMode::Passive)), 0);

        let blocking = InboxFilter {
            mode: Some(DeliveryMode::Blocking),
            status: None,
        };
        assert_eq!(list.iter().filter(|d| blocking.matches(d)).count(), 3);
        let done = InboxFilter {
            mode: None,
            status: Some(DeliveryStatus::Completed),
        };
        assert_eq!(list.iter().filter(|d| done.matches(d)).count(), 1);
        assert!(list.iter().all(|d| InboxFilter::default().matches(d)));

        let alert: Vec<_> = waiting_blocking(&list)
            .iter()
            .map(|d| d.id.as_str())
            .collect();
        assert_eq!(alert, ["d_1_002", "d_3_001"], "oldest waiting agent first");

        let known = std::collections::BTreeSet::from(["d_1_002".to_owned(), "d_gone".to_owned()]);
        let (fresh, now) = newly_waiting(&known, &list);
        assert_eq!(
            fresh.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
            ["d_3_001"]
        );
        assert_eq!(now.len(), 2, "answered questions drop out of the known set");
    }
}
