//! The HTTP server's connections, held within bounds so that no client —
//! sockets that send nothing, a flood of them, one token's many calls —
//! keeps the others out or ends the server:
//!
//! - a connection that sends no request head within [`HEAD_WITHIN`] is
//!   closed, and so is one idle that long between requests (hyper's header
//!   read timeout, which runs whenever a head is awaited);
//! - at most [`Connections::limit`] connections are held: 256, or half
//!   the process's file limit when that is lower; when all are held, a new
//!   one takes the place of the oldest that has not sent a request yet
//!   (a real client sends its request at once, so sockets that send
//!   nothing make way for it), and when every held one has, the newcomer
//!   is answered 503 and closed;
//! - once a request shows a valid token, its connection counts against
//!   that token, which holds at most half the limit: one agent, or every
//!   agent behind one `ssh -R` tunnel, cannot hold them all. Peers are not
//!   told apart by address: every peer is loopback, and a tunnel's agents
//!   all arrive from 127.0.0.1, as local ones do;
//! - when `accept` fails (no file descriptor left), the loop logs it once
//!   and pauses — until a held connection ends, or 10 ms doubling to 1 s —
//!   and goes on: the server never ends for it.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use tokio::{net::TcpStream, sync::Notify};
use tokio_util::sync::CancellationToken;

/// How long a connection may take to send a request head (and stay idle
/// between requests).
pub const HEAD_WITHIN: Duration = Duration::from_secs(10);

/// The most connections held at once.
pub const MAX_CONNECTIONS: usize = 256;

/// The first pause after `accept` failed, and the longest.
const PAUSES: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// What a held connection has done.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stage {
    /// Nothing yet: it makes way for a newcomer when all are held.
    Waiting,
    /// It sent a request (no valid token shown yet).
    Requested,
    /// A request of its showed the token of this agent.
    Holder(String),
}

/// The connections held now.
#[derive(Debug, Default)]
struct Table {
    next: u64,
    /// By age: the oldest first.
    held: BTreeMap<u64, (Stage, CancellationToken)>,
}

/// Every connection the server holds, within its bounds.
#[derive(Debug)]
pub struct Connections {
    /// The most held at once.
    limit: usize,
    table: std::sync::Mutex<Table>,
    /// Told each time a held connection ends.
    released: Notify,
}

/// A connection that holds its place; it gives it back when dropped.
#[derive(Debug)]
pub struct Slot {
    id: u64,
    made_way: CancellationToken,
    connections: Arc<Connections>,
}

impl Connections {
    /// Bounds for this process: [`MAX_CONNECTIONS`], or half its file
    /// limit when that is lower (the rest is for the files and processes
    /// the tools open).
    pub fn for_this_process() -> Arc<Self> {
        let files = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
            .map_or(u64::MAX, |(soft, _)| soft);
        let half = usize::try_from(files / 2).unwrap_or(usize::MAX);
        Self::new(MAX_CONNECTIONS.min(half).max(2))
    }

    /// At most `limit` connections held at once.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            table: std::sync::Mutex::new(Table::default()),
            released: Notify::new(),
        })
    }

    /// The most held at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many connections one token may hold: half the limit.
    pub fn per_token(&self) -> usize {
        (self.limit / 2).max(1)
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for a new connection: a free one, or the place of the oldest
    /// connection that has sent nothing (which is told to close); `None`
    /// when every held connection has sent a request.
    pub fn admit(self: &Arc<Self>) -> Option<Slot> {
        let mut table = self.table();
        if table.held.len() >= self.limit {
            let oldest = table
                .held
                .iter()
                .find(|(_, (stage, _))| *stage == Stage::Waiting)
                .map(|(id, _)| *id)?;
            if let Some((_, made_way)) = table.held.remove(&oldest) {
                made_way.cancel();
            }
        }
        let id = table.next;
        table.next += 1;
        let made_way = CancellationToken::new();
        table.held.insert(id, (Stage::Waiting, made_way.clone()));
        Some(Slot {
            id,
            made_way,
            connections: Arc::clone(self),
        })
    }

    /// The next connection from `listener`. When `accept` fails for want
    /// of a file descriptor (or any other reason that is not one peer's),
    /// it is logged once and tried again after a held connection ends or
    /// a pause (10 ms, doubling to 1 s), whichever comes first.
    pub async fn accept(&self, listener: &tokio::net::TcpListener) -> TcpStream {
        let mut pause: Option<Duration> = None;
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    if pause.is_some() {
                        tracing::warn!("the HTTP server accepts connections again");
                    }
                    return stream;
                }
                Err(error) if one_peers(&error) => continue,
                Err(error) => {
                    let next = pause.map_or(PAUSES.0, |last| (last * 2).min(PAUSES.1));
                    if pause.is_none() {
                        tracing::warn!(
                            %error,
                            "the HTTP server could not accept a connection; it waits for one to end and tries again"
                        );
                    }
                    pause = Some(next);
                    tokio::select! {
                        () = self.released.notified() => {}
                        () = tokio::time::sleep(next) => {}
                    }
                }
            }
        }
    }
}

/// Whether `accept` failed for one peer only (it went away meanwhile).
fn one_peers(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionAborted
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionRefused
            | ErrorKind::Interrupted
    )
}

impl Slot {
    /// Its connection sent a request: it no longer makes way.
    pub fn requested(&self) {
        let mut table = self.connections.table();
        if let Some((stage, _)) = table.held.get_mut(&self.id)
            && *stage == Stage::Waiting
        {
            *stage = Stage::Requested;
        }
    }

    /// Its connection's request showed the token of `holder`: it counts
    /// against that token from now on. `false` when the token holds as
    /// many connections as it may already (the request is refused).
    pub fn claim(&self, holder: &str) -> bool {
        let mut table = self.connections.table();
        let others = table
            .held
            .iter()
            .filter(|(id, (stage, _))| {
                **id != self.id && matches!(stage, Stage::Holder(name) if name == holder)
            })
            .count();
        if others >= self.connections.per_token() {
            return false;
        }
        if let Some((stage, _)) = table.held.get_mut(&self.id) {
            *stage = Stage::Holder(holder.to_owned());
        }
        true
    }

    /// Ends when its connection was told to make way for a newer one.
    pub async fn made_way(&self) {
        self.made_way.cancelled().await;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.connections.table().held.remove(&self.id);
        self.connections.released.notify_one();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn a_connection_that_sent_nothing_makes_way_and_one_that_did_does_not() {
        let connections = Connections::new(2);
        let first = connections.admit().unwrap();
        let second = connections.admit().unwrap();
        second.requested();
        // Full: the third takes the place of the first, which sent nothing.
        let third = connections.admit().unwrap();
        assert!(first.made_way.is_cancelled(), "the oldest silent one goes");
        assert!(!second.made_way.is_cancelled());
        third.requested();
        // Every held one has sent a request: no place.
        assert!(connections.admit().is_none());
        drop(second);
        assert!(connections.admit().is_some(), "a place freed is taken");
    }

    #[test]
    fn one_token_holds_half_the_places_at_most() {
        let connections = Connections::new(4);
        let slots: Vec<Slot> = (0..4).map(|_| connections.admit().unwrap()).collect();
        assert!(slots[0].claim("ssh:far"));
        assert!(slots[1].claim("ssh:far"));
        assert!(slots[1].claim("ssh:far"), "the same connection again");
        assert!(!slots[2].claim("ssh:far"), "a third for the same token");
        assert!(slots[2].claim("container:web"), "another token's");
        drop(slots);
        assert!(connections.table().held.is_empty());
    }
}
