//! What the pages hear: the workspace's changes and the other running
//! workspaces', as the window's shell emits them, each a server-sent event
//! `{"event": NAME, "payload": …}` on every open stream.

use std::{
    pin::Pin,
    task::{Context, Poll},
    time::Duration,
};

use hyper::body::{Bytes, Frame};
use serde_json::json;
use switchboard_commands::terminals;
use switchboard_model::ipc::{EVENT_EVERYWHERE, EVENT_SESSIONS, EVENT_STORE_CHANGED};
use switchboard_store::{StoreError, Workspace, WorkspaceWatcher, everywhere, registry};
use tokio::sync::{broadcast, mpsc};

/// How often an idle stream says it is alive (a comment line), so a proxy
/// or a phone's browser keeps it open and a gone page is noticed.
const HEARTBEAT: Duration = Duration::from_secs(15);

pub use switchboard_model::browser::STREAMS_PER_BROWSER;

/// The streams open per browser (by its cookie's digest).
type Open = std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, usize>>>;

/// The workspace's changes, followed while the server runs.
pub struct Events {
    sender: broadcast::Sender<Bytes>,
    open: Open,
    _watcher: WorkspaceWatcher,
    _others: Option<everywhere::Follower>,
}

impl Events {
    /// Starts following `workspace`, its program sessions (kept in
    /// `sessions` as well) and the other running workspaces. Runs in a
    /// Tokio runtime.
    pub fn follow(
        workspace: &Workspace,
        sessions: std::sync::Arc<terminals::Followed>,
    ) -> Result<Self, StoreError> {
        let (sender, _) = broadcast::channel(64);
        let changes = sender.clone();
        let watcher = WorkspaceWatcher::start(workspace, move |change| {
            let _ = changes.send(message(EVENT_STORE_CHANGED, &json!(change)));
        })?;
        follow_sessions(workspace, sessions, sender.clone());
        let others = sender.clone();
        let follower = registry::Registry::locate().and_then(|registry| {
            everywhere::follow(&registry, workspace, move || {
                let _ = others.send(message(EVENT_EVERYWHERE, &serde_json::Value::Null));
            })
        });
        let follower = match follower {
            Ok(follower) => Some(follower),
            Err(error) => {
                tracing::warn!(%error, "other workspaces are not followed");
                None
            }
        };
        Ok(Self {
            sender,
            open: Open::default(),
            _watcher: watcher,
            _others: follower,
        })
    }

    /// A new page's stream of events, from now on, while `still_paired`
    /// (asked before each event and heartbeat): a revoked browser's
    /// stream ends at its next one.
    /// `None` when browser `holder` (its cookie's digest) already holds
    /// [`STREAMS_PER_BROWSER`] open.
    pub fn stream(
        &self,
        holder: String,
        still_paired: impl Fn() -> bool + Send + 'static,
    ) -> Option<EventBody> {
        {
            let mut open = self
                .open
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let held = open.entry(holder.clone()).or_default();
            if *held >= STREAMS_PER_BROWSER {
                return None;
            }
            *held += 1;
        }
        let place = Place {
            holder,
            open: std::sync::Arc::clone(&self.open),
        };
        let mut heard = self.sender.subscribe();
        let (send, receive) = mpsc::channel(16);
        tokio::spawn(async move {
            // Says at once that the stream is open.
            if send.send(Bytes::from_static(b": open\n\n")).await.is_err() {
                return;
            }
            loop {
                let next = tokio::time::timeout(HEARTBEAT, heard.recv()).await;
                let bytes = match next {
                    Ok(Ok(bytes)) => bytes,
                    // Fell behind: the page reads everything again.
                    Ok(Err(broadcast::error::RecvError::Lagged(_))) => read_again(),
                    Ok(Err(broadcast::error::RecvError::Closed)) => return,
                    Err(_) => Bytes::from_static(b": alive\n\n"),
                };
                if !still_paired() {
                    return;
                }
                if send.send(bytes).await.is_err() {
                    return;
                }
            }
        });
        Some(EventBody {
            receive,
            _place: place,
        })
    }
}

/// Follows the program sessions of `workspace` while the server runs (a
/// session host is never started for it), each change an
/// [`EVENT_SESSIONS`] on every stream.
fn follow_sessions(
    workspace: &Workspace,
    sessions: std::sync::Arc<terminals::Followed>,
    sender: broadcast::Sender<Bytes>,
) {
    let client = match switchboard_session::Client::new() {
        Ok(client) => client,
        Err(error) => {
            tracing::warn!(%error, "program sessions are not followed");
            return;
        }
    };
    let root = workspace.root().to_owned();
    tokio::spawn(async move {
        let result = terminals::follow(client, root, &sessions, |now| {
            let _ = sender.send(message(EVENT_SESSIONS, &json!(now)));
        })
        .await;
        if let Err(error) = result {
            tracing::warn!(%error, "stopped following the program sessions");
        }
    });
}

/// What a page that missed events is told: everything it shows may have
/// changed, so each view reads again.
fn read_again() -> Bytes {
    let mut said = Vec::new();
    for change in ["deliveries", "sessions", "agents", "team", "knowledge"] {
        said.extend_from_slice(&message(EVENT_STORE_CHANGED, &json!(change)));
    }
    said.extend_from_slice(&message(EVENT_EVERYWHERE, &serde_json::Value::Null));
    Bytes::from(said)
}

/// One server-sent event.
fn message(event: &str, payload: &serde_json::Value) -> Bytes {
    Bytes::from(format!(
        "data: {}\n\n",
        json!({"event": event, "payload": payload})
    ))
}

/// A page's event stream as a response body.
pub struct EventBody {
    receive: mpsc::Receiver<Bytes>,
    _place: Place,
}

/// One of a browser's open streams; given back when its body is dropped
/// (the page went, the connection closed).
struct Place {
    holder: String,
    open: Open,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(held) = open.get_mut(&self.holder) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                open.remove(&self.holder);
            }
        }
    }
}

impl hyper::body::Body for EventBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.receive
            .poll_recv(cx)
            .map(|bytes| bytes.map(|bytes| Ok(Frame::data(bytes))))
    }
}
