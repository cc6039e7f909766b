//! The front's table shared by its connections: each held connection has
//! a [`Place`], told to close when a newcomer takes it, given back when
//! the connection ends; `accept` pauses on failure until one is.

use std::{
    net::IpAddr,
    sync::{Arc, Mutex, MutexGuard, PoisonError, Weak},
    time::{Duration, Instant},
};

use tokio::{net::TcpStream, sync::Notify};
use tokio_util::sync::CancellationToken;

use super::table::{Refused, Table};

/// The first pause after `accept` failed, and the longest.
const PAUSES: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// Every connection the front holds.
#[derive(Debug)]
pub struct Places {
    table: Mutex<Table<CancellationToken>>,
    /// Told each time a held connection ends.
    released: Notify,
}

/// One held connection's place; given back when dropped.
#[derive(Debug)]
pub struct Place {
    id: u64,
    made_way: CancellationToken,
    places: Arc<Places>,
}

/// What a request carries to the server behind the front (an extension):
/// its connection's place, to claim it for a credential. Weak: a tool
/// that keeps the request's extensions past its connection does not keep
/// the place.
#[derive(Debug, Clone)]
pub struct Caller(pub(super) Weak<Place>);

impl Places {
    /// At most `places`, `per_peer` from one address that is not loopback.
    pub fn new(places: usize, per_peer: usize) -> Arc<Self> {
        Arc::new(Self {
            table: Mutex::new(Table::new(places, per_peer)),
            released: Notify::new(),
        })
    }

    fn table(&self) -> MutexGuard<'_, Table<CancellationToken>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a connection from `peer`; the connection whose place
    /// it takes, if any, is told to close.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Place, Refused> {
        let made_way = CancellationToken::new();
        let admitted = self.table().admit(peer, Instant::now(), made_way.clone())?;
        if let Some(older) = admitted.made_way {
            older.cancel();
        }
        Ok(Place {
            id: admitted.id,
            made_way,
            places: Arc::clone(self),
        })
    }

    /// The next connection from `listener` and its peer's address. When
    /// `accept` fails for want of a file descriptor (or any other reason
    /// that is not one peer's), it is logged once and tried again after a
    /// held connection ends or a pause (10 ms, doubling to 1 s), whichever
    /// comes first: the server never ends for it.
    pub async fn accept(
        &self,
        listener: &tokio::net::TcpListener,
        server: &str,
    ) -> (TcpStream, IpAddr) {
        let mut pause: Option<Duration> = None;
        loop {
            match listener.accept().await {
                Ok((stream, peer)) => {
                    if pause.is_some() {
                        tracing::warn!("{server} accepts connections again");
                    }
                    return (stream, peer.ip());
                }
                Err(error) if one_peers(&error) => {}
                Err(error) => {
                    let next = pause.map_or(PAUSES.0, |last| (last * 2).min(PAUSES.1));
                    if pause.is_none() {
                        tracing::warn!(
                            %error,
                            "{server} could not accept a connection; it waits for one to end and tries again"
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

impl Place {
    /// Its connection sent a request: it no longer counts as silent.
    pub fn asked(&self) {
        self.places.table().asked(self.id);
    }

    /// Its connection's request showed credential `holder`: it keeps its
    /// place. `false` when `holder` holds its share already.
    pub fn claim(&self, holder: &str) -> bool {
        self.places.table().claim(self.id, holder)
    }

    /// [`Place::claim`], `holder` holding `share` places at most.
    pub fn claim_within(&self, holder: &str, share: usize) -> bool {
        self.places.table().claim_within(self.id, holder, share)
    }

    /// Whether its connection showed a credential that keeps its place.
    pub fn claimed(&self) -> bool {
        self.places.table().claimed(self.id)
    }

    /// Ends when its connection was told to make way for a newer one.
    pub async fn made_way(&self) {
        self.made_way.cancelled().await;
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.places.table().release(self.id);
        self.places.released.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    #[test]
    fn the_place_taken_is_told_to_close_and_a_dropped_place_is_given_back() {
        let places = Places::new(2, 64);
        let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let first = places.admit(loopback).unwrap();
        let second = places.admit(loopback).unwrap();
        second.asked();
        assert!(second.claim("agent"));
        let third = places.admit(loopback).unwrap();
        assert!(first.made_way.is_cancelled(), "the silent one goes");
        assert!(!second.made_way.is_cancelled());
        third.asked();
        assert!(third.claim("other"));
        assert_eq!(places.admit(loopback).err(), Some(Refused::Full));
        drop(third);
        let fourth = places.admit(loopback).expect("a place freed is taken");
        // The one that made way was already released: dropping it later
        // frees nothing more.
        drop(first);
        assert_eq!(places.table().len(), 2);
        drop((second, fourth));
        assert_eq!(places.table().len(), 0);
    }
}
