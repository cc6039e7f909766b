//! Each peer's share of the server's connections: one address (a LAN
//! host flooding silent connections, a page's long-polls) holds
//! [`PER_PEER`] at most, so it cannot take every place from the others.
//! An IPv6 peer is its /64. The loopback addresses a proxy or an SSH
//! tunnel connects from are not counted: every browser behind them shares
//! that address.

use std::{
    collections::HashMap,
    net::{IpAddr, Ipv4Addr, Ipv6Addr},
    sync::{Arc, Mutex, PoisonError},
};

/// The most connections one address holds at once.
pub const PER_PEER: usize = 64;

/// The connections each address holds now.
#[derive(Default, Clone)]
pub struct Peers(Arc<Mutex<HashMap<IpAddr, usize>>>);

impl Peers {
    /// A place for a connection from `ip`; none when it holds its share.
    pub fn take(&self, ip: IpAddr) -> Option<Place> {
        let ip = ip.to_canonical();
        if ip == IpAddr::V4(Ipv4Addr::LOCALHOST) || ip == IpAddr::V6(Ipv6Addr::LOCALHOST) {
            return Some(Place(None));
        }
        let ip = network(ip);
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(ip).or_default();
        if *count >= PER_PEER {
            return None;
        }
        *count += 1;
        Some(Place(Some((self.clone(), ip))))
    }
}

/// What counts as one peer: an IPv4 address, or an IPv6 address's /64
/// (one host holds a whole /64 and picks any address in it).
fn network(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !u128::from(u64::MAX))),
    }
}

/// One connection's place, given back when it is dropped.
pub struct Place(Option<(Peers, IpAddr)>);

impl Drop for Place {
    fn drop(&mut self) {
        let Some((peers, ip)) = self.0.take() else {
            return;
        };
        let mut held = peers.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&ip) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn an_address_holds_its_share_and_gets_places_back_and_loopback_is_not_counted() {
        let peers = Peers::default();
        let lan = IpAddr::V4(Ipv4Addr::new(192, 168, 1, 20));
        let held: Vec<Place> = (0..PER_PEER).filter_map(|_| peers.take(lan)).collect();
        assert_eq!(held.len(), PER_PEER);
        assert!(peers.take(lan).is_none(), "past its share");
        assert!(
            peers
                .take(IpAddr::V4(Ipv4Addr::new(192, 168, 1, 21)))
                .is_some(),
            "another address is not held up"
        );
        drop(held);
        assert!(peers.take(lan).is_some(), "given back");
        let proxied: Vec<Place> = (0..PER_PEER * 2)
            .filter_map(|_| peers.take(IpAddr::V4(Ipv4Addr::LOCALHOST)))
            .collect();
        assert_eq!(
            proxied.len(),
            PER_PEER * 2,
            "a proxy's browsers share 127.0.0.1"
        );
        // An IPv4 address mapped into IPv6 is the same address.
        let mapped = IpAddr::V6(Ipv4Addr::new(192, 168, 1, 20).to_ipv6_mapped());
        let held: Vec<Place> = (0..PER_PEER).filter_map(|_| peers.take(lan)).collect();
        assert_eq!(held.len(), PER_PEER);
        assert!(peers.take(mapped).is_none(), "counted with its IPv4 form");
        let loopback = IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped());
        let proxied: Vec<Place> = (0..PER_PEER * 2)
            .filter_map(|_| peers.take(loopback))
            .collect();
        assert_eq!(proxied.len(), PER_PEER * 2, "mapped loopback is loopback");
        // One IPv6 host's /64 is one peer, whichever of its addresses.
        let host = |last: u16| IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0, 0, 0, last));
        let held: Vec<Place> = (0..PER_PEER)
            .filter_map(|each| peers.take(host(u16::try_from(each).unwrap_or(0))))
            .collect();
        assert_eq!(held.len(), PER_PEER);
        assert!(peers.take(host(9999)).is_none(), "the same /64");
        assert!(
            peers
                .take(IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 2, 0, 0, 0, 1)))
                .is_some(),
            "another /64"
        );
    }
}
