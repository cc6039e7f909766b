//! The inbox's list rules: filtering by mode and status, and the counts of
//! questions waiting for an answer.

use crate::{Delivery, DeliveryMode, DeliveryStatus};

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

#[cfg(test)]
mod tests {
    use super::*;

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
