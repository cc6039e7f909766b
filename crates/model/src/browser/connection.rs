//! How a paired browser's page reaches its server, as the page shows it:
//! the shim before the page (`switchboard serve`) tells each change as the
//! [`EVENT_CONNECTION`] event.

use serde::{Deserialize, Serialize};

/// The event the page hears its connection's state by (a browser's page
/// only; the window has no such event).
pub const EVENT_CONNECTION: &str = "browser-connection";

/// A paired page's connection to its server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Connection {
    /// Its first stream is being opened.
    #[default]
    Connecting,
    /// Its stream is open: what shows is current.
    Connected,
    /// The network or the server went away; tried again, and everything
    /// is read again once it is back.
    Reconnecting,
    /// The server refuses this browser: it was revoked, or the page lost
    /// its key.
    Unpaired,
}

impl Connection {
    /// Its name, as the page's bar shows it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Connecting => "connecting…",
            Self::Connected => "connected",
            Self::Reconnecting => "reconnecting…",
            Self::Unpaired => "not paired",
        }
    }

    /// What the page says across its top while this holds, if anything.
    pub fn banner(self) -> Option<&'static str> {
        match self {
            Self::Connecting | Self::Connected => None,
            Self::Reconnecting => Some(
                "Not connected to Switchboard: the network or the server is down. Trying again; \
                 what shows may be out of date until then, and is read again once it is back.",
            ),
            Self::Unpaired => Some(
                "This browser is no longer paired (it was revoked, or its pairing was cleared \
                 from this browser): on the machine, run `switchboard pair` (or, in the window's \
                 Settings, Pair a browser) and open the link it gives here.",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shims_states_read_as_words_and_only_a_lost_connection_has_a_banner() {
        for (said, state) in [
            ("\"connected\"", Connection::Connected),
            ("\"reconnecting\"", Connection::Reconnecting),
            ("\"unpaired\"", Connection::Unpaired),
            ("\"connecting\"", Connection::Connecting),
        ] {
            assert_eq!(serde_json::from_str::<Connection>(said).unwrap(), state);
        }
        assert_eq!(Connection::Connected.banner(), None);
        assert!(
            Connection::Unpaired
                .banner()
                .unwrap()
                .contains("switchboard pair")
        );
        assert!(
            Connection::Reconnecting
                .banner()
                .unwrap()
                .contains("Trying again")
        );
    }
}
