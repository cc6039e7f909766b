//! The server's resources: each delivery with its answers and annotations
//! (`switchboard://delivery/{id}`, JSON as `switchboard show --json` prints
//! it) and each learnings file (`switchboard://learnings/{path}`,
//! markdown). A client subscribed to one gets
//! `notifications/resources/updated` when what it reads changes: the store's
//! watcher says which files changed, and only a resource whose text really
//! differs is announced — to the client of a `resources/subscribe`
//! (2025-11-25), or on the stream of a `subscriptions/listen` (2026-07-28).

use std::{
    collections::HashMap,
    hash::{DefaultHasher, Hash, Hasher},
    sync::{Arc, Mutex},
};

use anyhow::Result;
use rmcp::{
    Peer, RoleServer,
    model::{
        Resource, ResourceUpdatedNotification, ResourceUpdatedNotificationParam, ServerNotification,
    },
    service::SubscriptionSink,
};
use serde_json::json;
use switchboard_model::ipc::StoreChange;
use switchboard_store::{Workspace, WorkspaceWatcher, deliveries, knowledge::learnings};

/// The prefix of a delivery's URI.
pub const DELIVERY: &str = "switchboard://delivery/";
/// The prefix of a learnings file's URI.
pub const LEARNINGS: &str = "switchboard://learnings/";

/// Who reads the resources: a local client reads them all; an agent over
/// HTTP (its token's name) only the deliveries it sent, and the learnings
/// when its token holds the knowledge scope.
#[derive(Debug, Clone)]
pub struct Viewer {
    /// The token's agent, over HTTP.
    pub caller: Option<String>,
    /// Whether it may read the learnings.
    pub knowledge: bool,
}

impl Viewer {
    /// A local client: every resource.
    pub fn local() -> Self {
        Self {
            caller: None,
            knowledge: true,
        }
    }
}

/// Every resource `viewer` may read, deliveries newest first, then the
/// learnings files.
pub fn list(workspace: &Workspace, viewer: &Viewer) -> Result<Vec<Resource>> {
    let mut resources = Vec::new();
    for delivery in deliveries::list(workspace)?
        .deliveries
        .into_iter()
        .filter(|delivery| delivery.visible_to(viewer.caller.as_deref()))
    {
        resources.push(
            Resource::new(format!("{DELIVERY}{}", delivery.id), delivery.id.clone())
                .with_title(delivery.title.clone())
                .with_description(format!(
                    "{} delivery, {}, with its answers and annotations",
                    delivery.mode.as_str(),
                    delivery.status.as_str().replace('_', " ")
                ))
                .with_mime_type("application/json"),
        );
    }
    let learned = if viewer.knowledge {
        learnings::list(workspace)?
    } else {
        Vec::new()
    };
    for file in learned {
        resources.push(
            Resource::new(format!("{LEARNINGS}{}", file.path), file.path.clone())
                .with_title(format!("Learnings: {}", file.file.category))
                .with_description(format!("{} entries", file.file.entries.len()))
                .with_mime_type("text/markdown"),
        );
    }
    Ok(resources)
}

/// The text of the resource at `uri` and its MIME type, when `viewer` may
/// read it (else it is not found, as one that does not exist).
pub fn read(workspace: &Workspace, uri: &str, viewer: &Viewer) -> Result<(String, &'static str)> {
    let not_found = || switchboard_store::StoreError::NotFound {
        what: "resource",
        id: uri.to_owned(),
    };
    if let Some(id) = uri.strip_prefix(DELIVERY) {
        let detail = deliveries::detail_settled(workspace, id)?;
        if !detail.delivery.visible_to(viewer.caller.as_deref()) {
            return Err(not_found().into());
        }
        let value = json!({
            "delivery": detail.delivery,
            "annotations": detail.annotations,
            "quotes": detail.quotes,
            "feedback": detail.feedback,
        });
        return Ok((serde_json::to_string_pretty(&value)?, "application/json"));
    }
    if let Some(path) = uri.strip_prefix(LEARNINGS)
        && viewer.knowledge
    {
        return Ok((learnings::text(workspace, path)?, "text/markdown"));
    }
    Err(not_found().into())
}

fn fingerprint(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Which store changes can change a resource behind `uri`.
fn touched_by(uri: &str, change: StoreChange) -> bool {
    if uri.starts_with(DELIVERY) {
        matches!(
            change,
            StoreChange::Deliveries | StoreChange::Annotations | StoreChange::FeedbackResponses
        )
    } else {
        change == StoreChange::Knowledge
    }
}

/// Where a subscription's updates go.
#[derive(Clone)]
pub enum Announce {
    /// To the client, as `resources/subscribe` asked (2025-11-25).
    Peer(Peer<RoleServer>),
    /// On the stream of a `subscriptions/listen` request (2026-07-28).
    Listen(SubscriptionSink),
}

impl Announce {
    async fn updated(&self, uri: &str) -> Result<(), String> {
        let param = ResourceUpdatedNotificationParam::new(uri.to_owned());
        match self {
            Self::Peer(peer) => peer
                .notify_resource_updated(param)
                .await
                .map_err(|error| error.to_string()),
            Self::Listen(sink) => sink
                .send(ServerNotification::ResourceUpdatedNotification(
                    ResourceUpdatedNotification::new(param),
                ))
                .await
                .map_err(|error| error.to_string()),
        }
    }
}

/// The subscribed resources, each with the fingerprint of its text as last
/// announced, and the watcher that runs while any is subscribed.
#[derive(Default)]
pub struct Subscriptions {
    uris: Mutex<HashMap<String, u64>>,
    watcher: Mutex<Option<WorkspaceWatcher>>,
}

impl Subscriptions {
    /// Subscribes to `uri` (which must read), its updates told through
    /// `to` (the first subscription's; the watcher starts with it).
    pub fn subscribe(
        self: &Arc<Self>,
        workspace: &Arc<Workspace>,
        uri: &str,
        viewer: &Viewer,
        to: Announce,
    ) -> Result<()> {
        // Read once as `viewer`, which it may: later reads are the same
        // resource's.
        let (text, _) = read(workspace, uri, viewer)?;
        lock(&self.uris).insert(uri.to_owned(), fingerprint(&text));
        let mut watcher = lock(&self.watcher);
        if watcher.is_none() {
            let (changed, mut changes) = tokio::sync::mpsc::unbounded_channel();
            *watcher = Some(WorkspaceWatcher::start(workspace, move |change| {
                let _ = changed.send(change);
            })?);
            let subscriptions = Arc::clone(self);
            let workspace = Arc::clone(workspace);
            tokio::spawn(async move {
                while let Some(change) = changes.recv().await {
                    subscriptions.announce(&workspace, change, &to).await;
                }
            });
        }
        Ok(())
    }

    /// Stops announcing `uri`.
    pub fn unsubscribe(&self, uri: &str) {
        lock(&self.uris).remove(uri);
    }

    /// Stops announcing anything: the watcher ends, and with it the task
    /// that announces.
    pub fn close(&self) {
        lock(&self.uris).clear();
        lock(&self.watcher).take();
    }

    /// Announces each subscribed resource `change` may have changed whose
    /// text did change.
    async fn announce(&self, workspace: &Arc<Workspace>, change: StoreChange, to: &Announce) {
        let candidates: Vec<String> = lock(&self.uris)
            .keys()
            .filter(|uri| touched_by(uri, change))
            .cloned()
            .collect();
        for uri in candidates {
            let reading = {
                let (workspace, uri) = (Arc::clone(workspace), uri.clone());
                tokio::task::spawn_blocking(move || read(&workspace, &uri, &Viewer::local())).await
            };
            let Ok(Ok((text, _))) = reading else {
                continue;
            };
            let now = fingerprint(&text);
            let changed = lock(&self.uris)
                .get_mut(&uri)
                .is_some_and(|last| std::mem::replace(last, now) != now);
            if changed && let Err(error) = to.updated(&uri).await {
                tracing::debug!(%error, %uri, "resource update not sent");
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
