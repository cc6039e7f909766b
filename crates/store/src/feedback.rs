//! Answers to questions: `feedback-responses.json` and `sessions.json`, and
//! the one transaction that records a reply across the three files.

use std::{sync::mpsc, time::Duration};

use serde_json::{Map, Value};

use switchboard_model::{
    Delivery, DeliveryStatus, IdKind, NewDelivery, ReplyRefusal, Timestamp,
    blocking::{
        AwaitOutcome, BlockingSession, BlockingStatus, Closing, FeedbackResponse, LEFT_AT_FIELD,
        Rejoin, Reply, TAKEN_AT_FIELD, closing_response, rejoin,
    },
    delivery::SENT_BY_FIELD,
    ipc::StoreChange,
    receipt::{AnswerReceipt, answer_acts, shown},
};

use crate::{
    StoreError, Workspace, WorkspaceWatcher,
    deliveries::DELIVERIES_FILE,
    deliveries::{self, Appended},
    lock::DirLock,
    receipts,
    records::{self, Editable},
};

/// The feedback file's name inside the inbox data directory.
pub const FEEDBACK_FILE: &str = "feedback-responses.json";
/// The sessions file's name inside the inbox data directory.
pub const SESSIONS_FILE: &str = "sessions.json";

fn not_found(id: &str) -> StoreError {
    StoreError::NotFound {
        what: "delivery",
        id: id.to_owned(),
    }
}

/// What [`reply`] recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct Replied {
    /// The delivery, now completed.
    pub delivery: Delivery,
    /// The stored feedback record; `None` for a decline or dismissal.
    pub feedback: Option<FeedbackResponse>,
    /// How many waiting sessions were told.
    pub sessions_told: usize,
}

/// Records the developer's reply to delivery `id`.
///
/// Under the inbox lock, in this order (so a crash at any point leaves the
/// answer recorded first and the delivery completed last): the feedback
/// record (answers only), the delivery's open sessions (`responded`, with
/// the answer or, for a decline or dismissal, a response that says which —
/// the seed knows no other status), the delivery (`completed`) — and, before
/// all of them, for an answer Switchboard acts on itself (a permission, a
/// start-up screen), its receipt outside the workspace ([`receipts`]). An answer is
/// checked against the schema first, and a second reply is refused
/// (`ALREADY_RESPONDED`); nothing is written then.
pub fn reply(
    workspace: &Workspace,
    id: &str,
    reply: Reply,
    now: Timestamp,
) -> Result<Replied, StoreError> {
    reply_checked(workspace, id, reply, Shown::Unchecked, now)
}

/// [`reply`] as an edge gives it (the window's page, a paired browser,
/// `switchboard answer`), to the question as it showed it (`seen`,
/// [`shown`]): refused (`CONFLICT`, nothing written) when the question
/// says something else now — rewritten in the files after it was read,
/// the answer was to other words — and an answer Switchboard acts on (a
/// permission, a start-up screen's keys) given without `seen` is refused
/// (`INVALID_REQUEST`).
pub fn reply_as_seen(
    workspace: &Workspace,
    id: &str,
    reply: Reply,
    seen: Option<&str>,
    now: Timestamp,
) -> Result<Replied, StoreError> {
    reply_checked(workspace, id, reply, Shown::As(seen), now)
}

/// What a reply says of the question it answers.
enum Shown<'a> {
    /// Nothing (a caller inside Switchboard).
    Unchecked,
    /// As an edge showed it: its digest, if it said.
    As(Option<&'a str>),
}

fn reply_checked(
    workspace: &Workspace,
    id: &str,
    reply: Reply,
    seen: Shown<'_>,
    now: Timestamp,
) -> Result<Replied, StoreError> {
    let dir = workspace.inbox_data_dir();
    let lock = DirLock::acquire_sweeping(workspace.root(), &dir)?;
    // Both files are read before anything is written, and an unparsable
    // one refuses the answer where it lies: moved aside, the question (or
    // the agents waiting on it) would be lost with it.
    let mut deliveries = Editable::load_existing(&lock, DELIVERIES_FILE)?;
    let mut sessions = Editable::load_existing(&lock, SESSIONS_FILE)?;
    let index = deliveries.position(id).ok_or_else(|| not_found(id))?;
    let mut delivery: Delivery = deliveries.decode(index)?;
    delivery.check_open_for_reply()?;
    if let Shown::As(seen) = seen {
        match seen {
            Some(seen) if seen != shown(&delivery) => {
                return Err(switchboard_model::ReplyRefusal::ChangedSinceShown.into());
            }
            None if matches!(reply, Reply::Answer { .. }) && answer_acts(&delivery) => {
                return Err(switchboard_model::ReplyRefusal::NotShown.into());
            }
            _ => {}
        }
    }

    let (values, response, outcome) = match reply {
        Reply::Answer { answer } => {
            let schema = delivery
                .schema()?
                .ok_or(switchboard_model::ReplyRefusal::NoFeedbackExpected)?;
            let values = schema.check_answer(&answer)?;
            let outcome = AwaitOutcome::Responded {
                delivery_id: id.to_owned(),
                response: values.clone(),
            };
            (Some(values.clone()), values, outcome)
        }
        Reply::Decline => (
            None,
            closing_response(Closing::Declined),
            AwaitOutcome::Declined {
                delivery_id: id.to_owned(),
            },
        ),
        Reply::Dismiss => (
            None,
            closing_response(Closing::Dismissed),
            AwaitOutcome::Dismissed {
                delivery_id: id.to_owned(),
            },
        ),
    };

    let open: Vec<(usize, BlockingSession)> = sessions
        .decode_each::<BlockingSession>()
        .filter(|(_, session)| session.delivery_id == id && session.status.is_open())
        .collect();
    // An answer Switchboard acts on (a permission, a start-up screen) is
    // vouched for outside the workspace first: the files below are anyone's
    // who works there to write.
    if let Some(values) = values.as_ref().filter(|_| answer_acts(&delivery)) {
        for (_, session) in &open {
            receipts::write(
                workspace,
                &AnswerReceipt {
                    session_id: session.id.clone(),
                    delivery_id: id.to_owned(),
                    response: values.clone(),
                    at: now,
                    shown: shown(&delivery),
                    extra: Map::new(),
                },
            )?;
        }
    }

    let feedback = match &values {
        Some(values) => {
            let (record, _) = records::append_one(
                &lock,
                FEEDBACK_FILE,
                now,
                IdKind::Feedback,
                "feedback response",
                |feedback_id| FeedbackResponse {
                    id: feedback_id.to_string(),
                    delivery_id: id.to_owned(),
                    values: values.clone(),
                    created_at: now,
                    extra: Default::default(),
                },
            )?;
            Some(record)
        }
        None => None,
    };

    for (index, mut session) in open.iter().cloned() {
        session.status = BlockingStatus::Responded;
        session.response = Some(response.clone());
        session.responded_at = Some(now);
        sessions.replace(index, &session, "session")?;
    }
    if !open.is_empty() {
        sessions.save()?;
    }

    delivery.complete(now);
    switchboard_model::agent::permission::record_answer(&mut delivery, &outcome);
    deliveries.replace(index, &delivery, "delivery")?;
    deliveries.save()?;
    Ok(Replied {
        delivery,
        feedback,
        sessions_told: open.len(),
    })
}

/// Publishes a question and opens the session its agent waits on, under
/// one lock, so no answer can come between the two (visual-delivery's
/// server creates both in one request too).
pub fn ask(
    workspace: &Workspace,
    new: NewDelivery,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<(Appended, BlockingSession), StoreError> {
    ask_marked(workspace, new, Map::new(), now, timeout_at)
}

/// [`ask`], the question carrying `extra` beside visual-delivery's fields
/// (an agent's permission request carries its mark).
pub fn ask_marked(
    workspace: &Workspace,
    new: NewDelivery,
    extra: Map<String, Value>,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<(Appended, BlockingSession), StoreError> {
    new.validate()?;
    let lock = DirLock::acquire_sweeping(workspace.root(), &workspace.inbox_data_dir())?;
    put_locked(&lock, new, extra, now, timeout_at)
}

/// A new question and the session its asker waits on, the inbox locked.
fn put_locked(
    lock: &DirLock,
    new: NewDelivery,
    extra: Map<String, Value>,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<(Appended, BlockingSession), StoreError> {
    let appended = deliveries::append_locked(lock, new, extra, now)?;
    let session = append_session(lock, &appended.delivery.id, now, timeout_at)?;
    Ok((appended, session))
}

/// Asks `new` as an agent's `ask` does, where the asker may have asked
/// the same before and left (its client gave up on the call): under the
/// inbox lock, the newest question of the same asker (`extra`'s
/// `sent_by`, or none) that asks the same thing
/// ([`Delivery::asks_the_same`]) is rejoined as [`rejoin`] says — its
/// waiting session taken up again, a session opened beside it, or the
/// answer that came after its asker left returned at once (and marked
/// taken) — else a new question is put, as [`ask_marked`] does. Returns
/// the question and the session to wait on (settled already when the
/// answer was there).
pub fn ask_again(
    workspace: &Workspace,
    new: NewDelivery,
    extra: Map<String, Value>,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<(Delivery, BlockingSession), StoreError> {
    new.validate()?;
    let lock = DirLock::acquire_sweeping(workspace.root(), &workspace.inbox_data_dir())?;
    /// A delivery's title alone: read first, so only questions with the
    /// same title are decoded whole (bodies can be large).
    #[derive(serde::Deserialize)]
    struct Titled {
        title: String,
    }
    let deliveries = Editable::load(&lock, DELIVERIES_FILE, now)?;
    // Only the asker's own question is rejoined: the same words from
    // another agent's token (or a local client) are another question.
    let asker = extra.get(SENT_BY_FIELD).and_then(Value::as_str);
    // The newest first: the first that asks the same is the one.
    let same = deliveries.records.iter().rev().find_map(|raw| {
        let titled = serde_json::from_str::<Titled>(raw.get()).ok()?;
        if titled.title != new.title {
            return None;
        }
        serde_json::from_str::<Delivery>(raw.get())
            .ok()
            .filter(|delivery| delivery.asks_the_same(&new) && delivery.sent_by() == asker)
    });
    drop(deliveries);
    if let Some(question) = same {
        let mut sessions = Editable::load(&lock, SESSIONS_FILE, now)?;
        let its: Vec<(usize, BlockingSession)> = sessions
            .decode_each::<BlockingSession>()
            .filter(|(_, session)| session.delivery_id == question.id)
            .collect();
        let found = match rejoin(&question, &its) {
            Rejoin::Resume(index) => Some((index, LEFT_AT_FIELD, None)),
            Rejoin::Answered(index) => Some((index, TAKEN_AT_FIELD, Some(now))),
            Rejoin::Join => {
                drop(sessions);
                let session = append_session(&lock, &question.id, now, timeout_at)?;
                return Ok((question, session));
            }
            Rejoin::Anew => None,
        };
        if let Some((index, field, stamp)) = found {
            let mut session: BlockingSession = sessions.decode(index)?;
            session.set_stamp(field, stamp);
            sessions.replace(index, &session, "session")?;
            sessions.save()?;
            return Ok((question, session));
        }
    }
    let (appended, session) = put_locked(&lock, new, extra, now, timeout_at)?;
    Ok((appended.delivery, session))
}

/// Notes that the asker waiting on `session_id` left without taking its
/// question back (its client gave up on the call): the question stays,
/// answerable, and an answer given later is kept for the asker that asks
/// again ([`ask_again`]). Returns the session's outcome when it had
/// already settled (nothing is noted then).
pub fn leave(
    workspace: &Workspace,
    session_id: &str,
    now: Timestamp,
) -> Result<Option<AwaitOutcome>, StoreError> {
    let lock = DirLock::acquire_sweeping(workspace.root(), &workspace.inbox_data_dir())?;
    let mut sessions = Editable::load(&lock, SESSIONS_FILE, now)?;
    let index = sessions
        .position(session_id)
        .ok_or_else(|| StoreError::NotFound {
            what: "session",
            id: session_id.to_owned(),
        })?;
    let mut session: BlockingSession = sessions.decode(index)?;
    if let Some(outcome) = AwaitOutcome::of_session(&session) {
        return Ok(Some(outcome));
    }
    session.set_stamp(LEFT_AT_FIELD, Some(now));
    sessions.replace(index, &session, "session")?;
    sessions.save()?;
    Ok(None)
}

/// Takes back a question whose agent decided without it (its own terminal
/// prompt — the developer dismissed it to answer there —, a wait that ran
/// out, a window that closed): under the inbox lock, an open session ends
/// as `timeout` with a `withdrawn_at` stamp and the delivery leaves the
/// inbox — unless an answer or a decline came first, which is then
/// returned and kept. Nothing stays in the inbox that answers nothing.
pub fn retract(
    workspace: &Workspace,
    session_id: &str,
    now: Timestamp,
) -> Result<AwaitOutcome, StoreError> {
    end_wait(workspace, session_id, now, Ending::Retracted)
}

/// Opens a waiting session on delivery `id` that times out at `timeout_at`.
/// Refused (`ALREADY_RESPONDED`, or no feedback expected) when the delivery
/// does not wait for an answer any more; checked under the lock, so an
/// answer cannot slip in between the check and the session.
pub fn open_session(
    workspace: &Workspace,
    id: &str,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<BlockingSession, StoreError> {
    let lock = DirLock::acquire_sweeping(workspace.root(), &workspace.inbox_data_dir())?;
    deliveries::get(workspace, id)?.check_open_for_reply()?;
    append_session(&lock, id, now, timeout_at)
}

fn append_session(
    lock: &DirLock,
    id: &str,
    now: Timestamp,
    timeout_at: Timestamp,
) -> Result<BlockingSession, StoreError> {
    let (session, _) = records::append_one(
        lock,
        SESSIONS_FILE,
        now,
        IdKind::Session,
        "session",
        |session_id| BlockingSession::create(session_id, id, now, timeout_at),
    )?;
    Ok(session)
}

/// The session with `session_id`, as stored now.
pub fn session(workspace: &Workspace, session_id: &str) -> Result<BlockingSession, StoreError> {
    let sessions: Vec<BlockingSession> = records::read_decoded(workspace, SESSIONS_FILE)?;
    sessions
        .into_iter()
        .find(|session| session.id == session_id)
        .ok_or_else(|| StoreError::NotFound {
            what: "session",
            id: session_id.to_owned(),
        })
}

/// Ends a wait that ran out: the session becomes `timeout`, and the
/// delivery too if no answer came. Returns what the agent is told, which is
/// the answer if one raced in just before.
pub fn expire_session(
    workspace: &Workspace,
    session_id: &str,
    now: Timestamp,
) -> Result<AwaitOutcome, StoreError> {
    end_wait(workspace, session_id, now, Ending::Expired)
}

/// Withdraws a question its agent takes back (an MCP client cancelled
/// its task with `tasks/cancel`): the session ends as `timeout` with a
/// `withdrawn_at` stamp, and the delivery, if still unanswered, is marked
/// withdrawn ([`Delivery::withdraw`]) so the window shows it — never
/// silently gone — and still takes an answer. Returns how the question
/// stands: `timeout` when it was withdrawn now, else the outcome it
/// already had.
pub fn withdraw_session(
    workspace: &Workspace,
    session_id: &str,
    now: Timestamp,
) -> Result<AwaitOutcome, StoreError> {
    end_wait(workspace, session_id, now, Ending::Withdrawn)
}

/// Why a wait ends without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// Its time ran out.
    Expired,
    /// Its agent stopped waiting.
    Withdrawn,
    /// Its agent decided elsewhere: the question leaves the inbox.
    Retracted,
}

/// Ends the wait of `session_id` (under the inbox lock) unless it already
/// ended, in which case its outcome is returned unchanged — but for a
/// retraction, which still takes out a question that was only dismissed
/// or ran out.
fn end_wait(
    workspace: &Workspace,
    session_id: &str,
    now: Timestamp,
    ending: Ending,
) -> Result<AwaitOutcome, StoreError> {
    let dir = workspace.inbox_data_dir();
    let lock = DirLock::acquire_sweeping(workspace.root(), &dir)?;
    let mut sessions = Editable::load(&lock, SESSIONS_FILE, now)?;
    let index = sessions
        .position(session_id)
        .ok_or_else(|| StoreError::NotFound {
            what: "session",
            id: session_id.to_owned(),
        })?;
    let mut session: BlockingSession = sessions.decode(index)?;
    let settled = AwaitOutcome::of_session(&session);
    let dismissed = matches!(settled, Some(AwaitOutcome::Dismissed { .. }));
    if let Some(outcome) = &settled {
        let decided = matches!(
            outcome,
            AwaitOutcome::Responded { .. } | AwaitOutcome::Declined { .. }
        );
        if ending != Ending::Retracted || decided {
            return Ok(outcome.clone());
        }
    }
    if session.status.is_open() {
        session.status = BlockingStatus::Timeout;
        if ending != Ending::Expired {
            let stamp = serde_json::to_value(now).map_err(|source| StoreError::Encode {
                what: "session",
                source,
            })?;
            session.extra.insert("withdrawn_at".to_owned(), stamp);
        }
        sessions.replace(index, &session, "session")?;
        sessions.save()?;
    }

    let mut deliveries = Editable::load(&lock, DELIVERIES_FILE, now)?;
    if let Some(index) = deliveries.position(&session.delivery_id) {
        let mut delivery: Delivery = deliveries.decode(index)?;
        let changed = match ending {
            Ending::Expired => delivery.time_out(),
            Ending::Withdrawn => delivery.withdraw(now),
            Ending::Retracted => {
                let take =
                    dismissed || delivery.status != switchboard_model::DeliveryStatus::Completed;
                if take {
                    deliveries.records.remove(index);
                }
                take
            }
        };
        if changed {
            if ending != Ending::Retracted {
                deliveries.replace(index, &delivery, "delivery")?;
            }
            deliveries.save()?;
        }
    }
    Ok(match settled {
        Some(outcome) if dismissed => outcome,
        _ => AwaitOutcome::Timeout {
            delivery_id: session.delivery_id,
        },
    })
}

/// The feedback records for delivery `id`, oldest first.
pub fn responses_for(workspace: &Workspace, id: &str) -> Result<Vec<FeedbackResponse>, StoreError> {
    let responses: Vec<FeedbackResponse> = records::read_decoded(workspace, FEEDBACK_FILE)?;
    Ok(responses
        .into_iter()
        .filter(|response| response.delivery_id == id)
        .collect())
}

/// How often a waiting agent re-reads the sessions file even without a
/// change notification: a safety net, not the way answers arrive.
pub const SAFETY_POLL: Duration = Duration::from_secs(5);

/// Waits until `session` is answered, declined or dismissed, or its time
/// runs out (then it is expired, see [`expire_session`]): a
/// [`ReplyWait`] with no heartbeat that is never cancelled.
pub fn wait_for_reply(
    workspace: &Workspace,
    session_id: &str,
    clock: impl Fn() -> Timestamp,
) -> Result<AwaitOutcome, StoreError> {
    match ReplyWait::new().run(workspace, session_id, clock, |_| {})? {
        Waited::Settled(outcome) | Waited::Left(Some(outcome)) => Ok(outcome),
        Waited::Left(None) => Err(StoreError::NotFound {
            what: "answer",
            id: session_id.to_owned(),
        }),
    }
}

/// How a [`ReplyWait`] ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Waited {
    /// The question was answered, declined, dismissed or ran out.
    Settled(AwaitOutcome),
    /// The waiter was cancelled and left the question (see [`leave`]);
    /// how it had settled, if it had just before.
    Left(Option<AwaitOutcome>),
}

/// Wakes a [`ReplyWait`].
#[derive(Debug)]
enum Wake {
    /// `sessions.json` changed.
    Sessions,
    /// The waiter gave up.
    Cancel,
}

/// The one wait for an answer, used by every edge (`switchboard await`,
/// `deliver --mode blocking`, MCP `ask`): it wakes on the watcher's word
/// that `sessions.json` changed, re-reads every [`SAFETY_POLL`] in case a
/// notification is lost, calls back every heartbeat with the time waited
/// (an MCP client's progress), and leaves the question (see [`leave`])
/// when cancelled from another thread ([`ReplyWait::canceller`]).
#[derive(Debug)]
pub struct ReplyWait {
    wake: mpsc::Sender<Wake>,
    woken: mpsc::Receiver<Wake>,
    poll: Duration,
    heartbeat: Option<Duration>,
}

/// Cancels the [`ReplyWait`] it came from; cancelling a wait that ended
/// does nothing.
#[derive(Debug, Clone)]
pub struct Canceller(mpsc::Sender<Wake>);

impl Canceller {
    /// Ends the wait: the waiter leaves the question, which stays.
    pub fn cancel(&self) {
        let _ = self.0.send(Wake::Cancel);
    }
}

impl Default for ReplyWait {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplyWait {
    /// A wait with the default safety poll and no heartbeat.
    pub fn new() -> Self {
        let (wake, woken) = mpsc::channel();
        Self {
            wake,
            woken,
            poll: SAFETY_POLL,
            heartbeat: None,
        }
    }

    /// The same, calling back with the time waited as soon as the wait is
    /// under way, then every `every`.
    pub fn heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = Some(every);
        self
    }

    /// The same, re-reading every `poll` without a notification (a test
    /// makes it so long that only the watcher can wake the waiter).
    pub fn safety_poll(mut self, poll: Duration) -> Self {
        self.poll = poll;
        self
    }

    /// What cancels this wait from elsewhere.
    pub fn canceller(&self) -> Canceller {
        Canceller(self.wake.clone())
    }

    /// Waits for `session_id` to settle; `clock` gives the time, `beat`
    /// hears of the time waited each heartbeat.
    pub fn run(
        self,
        workspace: &Workspace,
        session_id: &str,
        clock: impl Fn() -> Timestamp,
        mut beat: impl FnMut(Duration),
    ) -> Result<Waited, StoreError> {
        let wake = self.wake.clone();
        // Started before the first read, so no answer can slip in unseen.
        let _watcher = WorkspaceWatcher::start(workspace, move |change| {
            if change == StoreChange::Sessions {
                let _ = wake.send(Wake::Sessions);
            }
        })?;
        let started = std::time::Instant::now();
        // A beat as soon as the wait is under way (the question read, the
        // watcher started), then one each heartbeat.
        let mut next_beat = self.heartbeat.map(|_| Duration::ZERO);
        loop {
            let current = session(workspace, session_id)?;
            if let Some(outcome) = AwaitOutcome::of_session(&current) {
                return Ok(Waited::Settled(outcome));
            }
            let left_ms = current.timeout_at.unix_millis() - clock().unix_millis();
            if left_ms <= 0 {
                return expire_session(workspace, session_id, clock()).map(Waited::Settled);
            }
            let left = Duration::from_millis(u64::try_from(left_ms).unwrap_or(0));
            let mut nap = left.min(self.poll);
            if let Some(at) = next_beat {
                nap = nap.min(at.saturating_sub(started.elapsed()));
            }
            // A change, a cancellation, the safety poll, a beat or the
            // deadline: all re-check.
            let mut cancelled = matches!(self.woken.recv_timeout(nap), Ok(Wake::Cancel));
            while let Ok(wake) = self.woken.try_recv() {
                cancelled |= matches!(wake, Wake::Cancel);
            }
            if cancelled {
                return leave(workspace, session_id, clock()).map(Waited::Left);
            }
            if let (Some(at), Some(every)) = (next_beat, self.heartbeat)
                && started.elapsed() >= at
            {
                beat(started.elapsed());
                next_beat = Some(at + every);
            }
        }
    }
}

/// Waits for the answer to delivery `id` as an agent that asked it earlier
/// does (visual-delivery's `await-feedback`): what settled it already,
/// else a new waiting session until it is answered or `timeout_at` — an
/// answer that comes between the look and the session is reported, not
/// missed. A passive delivery is refused: nothing waits for it.
pub fn await_answer(
    workspace: &Workspace,
    id: &str,
    timeout_at: Timestamp,
    now: impl Fn() -> Timestamp,
) -> Result<AwaitOutcome, StoreError> {
    let delivery = deliveries::get(workspace, id)?;
    if delivery.status == DeliveryStatus::Delivered {
        return Err(ReplyRefusal::NoFeedbackExpected.into());
    }
    if let Some(outcome) = settled_outcome(workspace, &delivery)? {
        return Ok(outcome);
    }
    let session = match open_session(workspace, &delivery.id, now(), timeout_at) {
        Ok(session) => session,
        Err(StoreError::Refused(refusal)) => {
            let delivery = deliveries::get(workspace, id)?;
            return settled_outcome(workspace, &delivery)?.ok_or(StoreError::Refused(refusal));
        }
        Err(error) => return Err(error),
    };
    wait_for_reply(workspace, &session.id, now)
}

/// What an agent asking about delivery `id` after the fact is told: the
/// first answer if there is one, else how its last session ended, else
/// `None` while it is still open.
pub fn settled_outcome(
    workspace: &Workspace,
    delivery: &Delivery,
) -> Result<Option<AwaitOutcome>, StoreError> {
    if delivery.status != switchboard_model::DeliveryStatus::Completed {
        return Ok(None);
    }
    if let Some(first) = responses_for(workspace, &delivery.id)?.into_iter().next() {
        return Ok(Some(AwaitOutcome::Responded {
            delivery_id: delivery.id.clone(),
            response: first.values,
        }));
    }
    let sessions: Vec<BlockingSession> = records::read_decoded(workspace, SESSIONS_FILE)?;
    let last_closed = sessions
        .iter()
        .rev()
        .filter(|session| session.delivery_id == delivery.id)
        .find_map(AwaitOutcome::of_session);
    Ok(Some(last_closed.unwrap_or(AwaitOutcome::Dismissed {
        delivery_id: delivery.id.clone(),
    })))
}
