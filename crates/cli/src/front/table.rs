//! The front's rules over the connections it holds, without I/O or time:
//! which connection a newcomer may have, whose place it takes when all
//! are held, and how many one peer address or one credential holds.
//!
//! - At most `places` connections are held. When all are, a newcomer takes
//!   a place from the peer that holds the most connections without a valid
//!   credential (loopback's `127.0.0.1` and `::1` one peer): so a flood from
//!   one address — a process on this host most of all — makes way for
//!   itself and never for a phone arriving from its own address, however
//!   slow its TLS handshake. Of that peer's, it takes the place of the
//!   oldest connection that has not shown a valid
//!   credential: first one that has sent nothing for [`SILENT_AFTER`] (a
//!   real client sends its request at once), then one whose requests showed
//!   none (an unpaired browser, a request without a valid bearer token),
//!   then one accepted just now whose request the server has not read yet
//!   (on a busy server, a real client's may be among them). Only when every
//!   held connection showed a credential is the newcomer refused
//!   ([`Refused::Full`]). So connections without a credential — silent or
//!   asking again and again — never keep out a client that has one.
//! - A credential (one bearer token, one paired browser) holds at most half
//!   the places, so one credential cannot take them all either.
//! - A peer address that is not loopback holds at most `per_peer` (an IPv6
//!   peer is its /64, as a host picks any address in it). `127.0.0.1` and
//!   `::1` are not counted: every browser behind a proxy or an SSH tunnel,
//!   every agent behind `ssh -R`, arrives from there.

use std::{
    collections::{BTreeMap, HashMap},
    net::{IpAddr, Ipv4Addr, Ipv6Addr},
    time::{Duration, Instant},
};

/// How long a connection may send nothing before it is the first to make
/// way: a client sends its request as soon as it is connected.
pub const SILENT_AFTER: Duration = Duration::from_secs(1);

/// What a held connection has shown so far.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stage {
    /// Nothing yet: the first to make way for a newcomer.
    Silent,
    /// Requests, none with a valid credential: the next to make way.
    Unproven,
    /// A request with this credential: it keeps its place.
    Holder(String),
}

/// One held connection.
#[derive(Debug)]
struct Held<T> {
    stage: Stage,
    /// When it was given its place.
    since: Instant,
    /// The peer it counts against, if counted.
    peer: Option<IpAddr>,
    /// The peer it makes way for a newcomer as (loopback's one).
    from: IpAddr,
    /// What its holder keeps with it (the front: how to close it).
    payload: T,
}

/// Why a newcomer was not given a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Its peer address holds its share already.
    PeerFull,
    /// Every place is held by a connection that showed a credential.
    Full,
}

/// A newcomer given a place.
#[derive(Debug)]
pub struct Admitted<T> {
    /// Its number, to name it later.
    pub id: u64,
    /// The payload of the connection whose place it took, if it took one:
    /// that connection is to be closed.
    pub made_way: Option<T>,
}

/// The connections held now, oldest first.
#[derive(Debug)]
pub struct Table<T> {
    places: usize,
    per_peer: usize,
    next: u64,
    held: BTreeMap<u64, Held<T>>,
    peers: HashMap<IpAddr, usize>,
}

impl<T> Table<T> {
    /// At most `places` connections (at least 2), `per_peer` of them from
    /// one peer address that is not loopback.
    pub fn new(places: usize, per_peer: usize) -> Self {
        Self {
            places: places.max(2),
            per_peer,
            next: 0,
            held: BTreeMap::new(),
            peers: HashMap::new(),
        }
    }

    /// How many one credential may hold: half the places.
    pub fn per_holder(&self) -> usize {
        self.places / 2
    }

    /// How many are held now.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// A place for a newcomer from `peer` at `now`: a free one, or the place
    /// of the oldest that has sent nothing for [`SILENT_AFTER`], else of the
    /// oldest that showed no credential, else of the oldest that has sent
    /// nothing yet (its payload handed back, to close it).
    pub fn admit(
        &mut self,
        peer: IpAddr,
        now: Instant,
        payload: T,
    ) -> Result<Admitted<T>, Refused> {
        let counted = counted(peer);
        if let Some(network) = counted
            && self.peers.get(&network).copied().unwrap_or(0) >= self.per_peer
        {
            return Err(Refused::PeerFull);
        }
        let mut made_way = None;
        if self.held.len() >= self.places {
            let from = self.heaviest().ok_or(Refused::Full)?;
            let silent = self.oldest(&Stage::Silent, from);
            let oldest = match silent {
                Some((id, since)) if now.saturating_duration_since(since) >= SILENT_AFTER => id,
                _ => self
                    .oldest(&Stage::Unproven, from)
                    .or(silent)
                    .map(|(id, _)| id)
                    .ok_or(Refused::Full)?,
            };
            made_way = self.release(oldest);
        }
        let id = self.next;
        self.next += 1;
        if let Some(network) = counted {
            *self.peers.entry(network).or_default() += 1;
        }
        self.held.insert(
            id,
            Held {
                stage: Stage::Silent,
                since: now,
                peer: counted,
                from: from(peer),
                payload,
            },
        );
        Ok(Admitted { id, made_way })
    }

    /// The peer holding the most connections that showed no credential
    /// (of two as many, the one whose such connection is oldest).
    fn heaviest(&self) -> Option<IpAddr> {
        let mut held_by: HashMap<IpAddr, (usize, u64)> = HashMap::new();
        for (id, held) in &self.held {
            if !matches!(held.stage, Stage::Holder(_)) {
                let (count, _) = held_by.entry(held.from).or_insert((0, *id));
                *count += 1;
            }
        }
        held_by
            .into_iter()
            .max_by_key(|(_, (count, oldest))| (*count, std::cmp::Reverse(*oldest)))
            .map(|(from, _)| from)
    }

    /// The oldest connection of peer `from` at `stage`, and since when it
    /// is held.
    fn oldest(&self, stage: &Stage, from: IpAddr) -> Option<(u64, Instant)> {
        self.held
            .iter()
            .find(|(_, held)| held.stage == *stage && held.from == from)
            .map(|(id, held)| (*id, held.since))
    }

    /// Connection `id` sent a request: it no longer counts as silent (a
    /// credential it showed before stays).
    pub fn asked(&mut self, id: u64) {
        if let Some(held) = self.held.get_mut(&id)
            && held.stage == Stage::Silent
        {
            held.stage = Stage::Unproven;
        }
    }

    /// Connection `id`'s request showed credential `holder`: it keeps its
    /// place from now on, counted against `holder`. `false` (and nothing
    /// changed) when `holder` holds its share with other connections.
    pub fn claim(&mut self, id: u64, holder: &str) -> bool {
        self.claim_within(id, holder, self.per_holder())
    }

    /// [`Table::claim`], `holder` holding `share` places at most (no more
    /// than half).
    pub fn claim_within(&mut self, id: u64, holder: &str, share: usize) -> bool {
        let share = share.min(self.per_holder());
        let others = self
            .held
            .iter()
            .filter(|(each, held)| {
                **each != id && matches!(&held.stage, Stage::Holder(name) if name == holder)
            })
            .count();
        if others >= share {
            return false;
        }
        if let Some(held) = self.held.get_mut(&id) {
            held.stage = Stage::Holder(holder.to_owned());
        }
        true
    }

    /// Whether connection `id` showed a credential that keeps its place.
    pub fn claimed(&self, id: u64) -> bool {
        self.held
            .get(&id)
            .is_some_and(|held| matches!(held.stage, Stage::Holder(_)))
    }

    /// Connection `id` ended (or made way): its place, and its peer's,
    /// are free. Its payload, if it was held.
    pub fn release(&mut self, id: u64) -> Option<T> {
        let held = self.held.remove(&id)?;
        if let Some(network) = held.peer
            && let Some(count) = self.peers.get_mut(&network)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.peers.remove(&network);
            }
        }
        Some(held.payload)
    }
}

/// The peer a connection from `ip` makes way as: every loopback address
/// one (a process of this host picks any of `127.0.0.0/8`), else the peer
/// it counts against.
fn from(ip: IpAddr) -> IpAddr {
    let ip = ip.to_canonical();
    if ip.is_loopback() {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else {
        counted(ip).unwrap_or(ip)
    }
}

/// What a connection from `ip` counts against: nothing for loopback's
/// `127.0.0.1` and `::1` (a proxy's, a tunnel's), else the IPv4 address or
/// the IPv6 address's /64 (an IPv4 address mapped into IPv6 is its IPv4
/// form).
fn counted(ip: IpAddr) -> Option<IpAddr> {
    match ip.to_canonical() {
        IpAddr::V4(v4) if v4 == Ipv4Addr::LOCALHOST => None,
        IpAddr::V6(v6) if v6 == Ipv6Addr::LOCALHOST => None,
        v4 @ IpAddr::V4(_) => Some(v4),
        IpAddr::V6(v6) => Some(IpAddr::V6(Ipv6Addr::from_bits(
            v6.to_bits() & !u128::from(u64::MAX),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    /// `count` admitted from `peer` at `now`, their ids.
    fn fill(table: &mut Table<u64>, peer: IpAddr, now: Instant, count: usize) -> Vec<u64> {
        (0..count)
            .map(|_| {
                let admitted = table.admit(peer, now, 0).unwrap();
                assert!(admitted.made_way.is_none(), "a free place was taken");
                admitted.id
            })
            .collect()
    }

    #[test]
    fn a_newcomer_takes_the_place_of_the_long_silent_then_the_unproven_then_the_just_arrived() {
        let start = Instant::now();
        let later = |millis| start + Duration::from_millis(millis);
        let mut table = Table::new(4, 64);
        let ids: Vec<u64> = (0..4)
            .map(|each| table.admit(LOOPBACK, start, each).unwrap().id)
            .collect();
        table.asked(ids[0]);
        table.asked(ids[1]);
        assert!(table.claim(ids[1], "phone"));
        // ids[2] and ids[3] have sent nothing for a second: the older of
        // them goes first, though ids[0] is older still (it asked).
        let fifth = table.admit(LOOPBACK, later(1000), 4).unwrap();
        assert_eq!(fifth.made_way, Some(2), "the oldest long silent one");
        // Just arrived (the fifth) is kept over one that asked without a
        // credential: its request may be on its way.
        let sixth = table.admit(LOOPBACK, later(1100), 5).unwrap();
        assert_eq!(sixth.made_way, Some(3), "silent for 1.1 s");
        let seventh = table.admit(LOOPBACK, later(1200), 6).unwrap();
        assert_eq!(seventh.made_way, Some(0), "the unproven one, not the fresh");
        // None unproven, none long silent: the oldest just arrived goes.
        let eighth = table.admit(LOOPBACK, later(1300), 7).unwrap();
        assert_eq!(eighth.made_way, Some(4), "the oldest of those just arrived");
        assert!(table.claimed(ids[1]), "the holder kept its place");
        assert_eq!(table.len(), 4);
    }

    #[test]
    fn a_flood_from_one_peer_makes_way_for_itself_never_for_another_peers_newcomer() {
        let start = Instant::now();
        let later = |millis| start + Duration::from_millis(millis);
        let phone_address = IpAddr::V4(Ipv4Addr::new(192, 168, 1, 20));
        let mut table = Table::new(8, 64);
        fill(&mut table, LOOPBACK, start, 7);
        // A phone arrives; its TLS handshake is slow: it sends nothing yet.
        const PHONE: u64 = u64::MAX;
        let phone = table.admit(phone_address, later(10), PHONE).unwrap();
        // Meanwhile the host's own flood renews itself, young and silent,
        // long past a second: its own connections make way, oldest first.
        for round in 0..1000 {
            let newcomer = table.admit(LOOPBACK, later(20 + round), round).unwrap();
            assert_ne!(newcomer.made_way, Some(PHONE), "round {round}");
        }
        // Even silent past a second, the lone phone is not the one to go;
        // nor when the flood comes from every address of loopback's.
        let newcomer = table.admit(LOOPBACK, later(5000), 7).unwrap();
        assert_ne!(newcomer.made_way, Some(PHONE));
        for round in 0..1000_u64 {
            let spread = IpAddr::V4(Ipv4Addr::new(
                127,
                0,
                (round / 250) as u8,
                (round % 250) as u8 + 2,
            ));
            let newcomer = table.admit(spread, later(6000 + round), round).unwrap();
            assert_ne!(newcomer.made_way, Some(PHONE), "round {round}");
        }
        table.asked(phone.id);
        assert!(table.claim(phone.id, "phone"));
        // Of two peers as heavy, the one whose connection is older gives.
        let mut table = Table::new(4, 64);
        let lan = IpAddr::V4(Ipv4Addr::new(192, 168, 1, 30));
        for (payload, from, at) in [(1, lan, 0), (2, lan, 1), (3, LOOPBACK, 2), (4, LOOPBACK, 3)] {
            table.admit(from, later(at), payload).unwrap();
        }
        let newcomer = table.admit(LOOPBACK, later(4), 5).unwrap();
        assert_eq!(newcomer.made_way, Some(1));
    }

    #[test]
    fn connections_asking_again_and_again_without_a_credential_never_keep_a_holder_out() {
        let now = Instant::now();
        let mut table = Table::new(8, 64);
        let flood = fill(&mut table, LOOPBACK, now, 8);
        for id in &flood {
            table.asked(*id);
        }
        // A holder's connection gets a place, shows its credential, keeps it
        // however many unproven ones come after.
        let phone = table.admit(LOOPBACK, now, 100).unwrap();
        assert!(phone.made_way.is_some());
        table.asked(phone.id);
        assert!(table.claim(phone.id, "phone"));
        for round in 0..100 {
            let newcomer = table.admit(LOOPBACK, now, round).unwrap();
            table.asked(newcomer.id);
            assert!(table.claimed(phone.id), "round {round}");
        }
        // A second holder's connection, not yet read while the flood comes
        // on: the flood's connections make way, not it.
        let agent = table.admit(LOOPBACK, now, 200).unwrap();
        for round in 0..20 {
            let newcomer = table.admit(LOOPBACK, now, round).unwrap();
            assert_ne!(newcomer.made_way, Some(200), "round {round}");
            table.asked(newcomer.id);
        }
        table.asked(agent.id);
        assert!(table.claim(agent.id, "agent"));
        assert!(table.claimed(phone.id) && table.claimed(agent.id));
    }

    #[test]
    fn one_credential_holds_half_the_places_and_a_full_table_of_holders_refuses() {
        let now = Instant::now();
        let mut table = Table::new(4, 64);
        let ids = fill(&mut table, LOOPBACK, now, 4);
        assert!(table.claim(ids[0], "greedy"));
        assert!(table.claim(ids[1], "greedy"));
        assert!(table.claim(ids[1], "greedy"), "the same connection again");
        assert!(!table.claim(ids[2], "greedy"), "a third for one credential");
        assert!(!table.claimed(ids[2]), "refused, it keeps no place");
        assert!(table.claim(ids[2], "other"));
        assert!(table.claim(ids[3], "third"));
        assert_eq!(
            table.admit(LOOPBACK, now, 9).err(),
            Some(Refused::Full),
            "every place held by a credential"
        );
        assert_eq!(table.release(ids[0]), Some(0));
        assert_eq!(table.release(ids[0]), None, "released once");
        assert!(
            table.admit(LOOPBACK, now, 9).is_ok(),
            "a place freed is taken"
        );
    }

    #[test]
    fn a_smaller_share_holds_no_more_and_leaves_the_rest_unclaimed() {
        let now = Instant::now();
        let mut table = Table::new(100, 64);
        let ids = fill(&mut table, LOOPBACK, now, 5);
        assert!(table.claim_within(ids[0], "page:b", 2));
        assert!(table.claim_within(ids[1], "page:b", 2));
        assert!(!table.claim_within(ids[2], "page:b", 2), "past its share");
        assert!(!table.claimed(ids[2]), "held as one without a credential");
        // The keyed session's share is its own.
        assert!(table.claim(ids[2], "b"));
        assert!(table.claim_within(ids[3], "b", 1000), "never past half");
    }

    #[test]
    fn a_non_loopback_address_holds_its_share_loopback_is_not_counted_ipv6_is_its_64() {
        let now = Instant::now();
        let lan = IpAddr::V4(Ipv4Addr::new(192, 168, 1, 20));
        let mut table = Table::new(1000, 4);
        let held = fill(&mut table, lan, now, 4);
        assert_eq!(table.admit(lan, now, 0).err(), Some(Refused::PeerFull));
        let mapped = IpAddr::V6(Ipv4Addr::new(192, 168, 1, 20).to_ipv6_mapped());
        assert_eq!(
            table.admit(mapped, now, 0).err(),
            Some(Refused::PeerFull),
            "counted with its IPv4 form"
        );
        // 127.0.0.2 is another address of this machine, as a LAN host's.
        let other_loopback = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
        fill(&mut table, other_loopback, now, 4);
        assert_eq!(
            table.admit(other_loopback, now, 0).err(),
            Some(Refused::PeerFull)
        );
        table.release(held[0]);
        assert!(table.admit(lan, now, 0).is_ok(), "given back");
        // A proxy's or a tunnel's clients all share loopback: not counted.
        fill(&mut table, LOOPBACK, now, 20);
        let mapped_loopback = IpAddr::V6(Ipv4Addr::LOCALHOST.to_ipv6_mapped());
        fill(&mut table, mapped_loopback, now, 20);
        fill(&mut table, IpAddr::V6(Ipv6Addr::LOCALHOST), now, 20);
        let host = |last: u16| IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0, 0, 0, last));
        for last in 0..4 {
            assert!(table.admit(host(last), now, 0).is_ok());
        }
        assert_eq!(
            table.admit(host(9999), now, 0).err(),
            Some(Refused::PeerFull),
            "the same /64"
        );
        let other = IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 2, 0, 0, 0, 1));
        assert!(table.admit(other, now, 0).is_ok(), "another /64");
    }

    #[test]
    fn a_connection_that_made_way_gives_its_peer_its_place_back() {
        let now = Instant::now();
        let lan = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 7));
        let mut table = Table::new(2, 1);
        let first = table.admit(lan, now, 1).unwrap();
        fill(&mut table, LOOPBACK, now, 1);
        // Full: the LAN host's silent connection makes way for a loopback one.
        let newcomer = table.admit(LOOPBACK, now, 3).unwrap();
        assert_eq!(newcomer.made_way, Some(1));
        assert!(!table.claimed(first.id));
        // Its address holds nothing now: it may come again (and take the
        // place of the oldest silent one).
        assert!(table.admit(lan, now, 4).is_ok());
    }
}
