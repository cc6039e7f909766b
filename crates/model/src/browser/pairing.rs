//! What pairing a browser says, wherever it is said (`serve --pair`,
//! `switchboard pair`, the pairing page, the window's Settings): what a
//! paired browser reaches, and how a phone reaches a server that listens
//! on this machine's loopback only.

/// What a paired browser reaches: every server of this user's, not only
/// the one it paired with (the sessions live in the config folder all of
/// them share).
pub const REACHES_EVERY_WORKSPACE: &str = "A paired browser reaches every workspace served to \
     browsers on this machine (each `switchboard serve`, and each window serving the inbox), not \
     only this one, until it is revoked: `switchboard serve --sessions` lists paired browsers, \
     `switchboard serve --revoke ID` ends one.";

/// The port of `origin` (`http://127.0.0.1:8766`), or its scheme's.
fn port(origin: &str) -> u16 {
    let (scheme, authority) = origin.split_once("://").unwrap_or(("http", origin));
    authority
        .rsplit_once(':')
        .filter(|(host, _)| !host.ends_with('[') && !authority.ends_with(']'))
        .and_then(|(_, port)| port.parse().ok())
        .unwrap_or(if scheme == "https" { 443 } else { 80 })
}

/// Whether `origin` is this machine's loopback, which no phone opens as
/// it is.
pub fn is_loopback(origin: &str) -> bool {
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host.starts_with("127.")
        || host == "::1"
        || host == "0:0:0:0:0:0:0:1"
}

/// How a phone reaches `origin` when it is this machine's loopback (none
/// otherwise): an SSH tunnel to `login` (`you@machine`), TLS on the LAN,
/// or a tailnet's HTTPS.
pub fn reach_hint(origin: &str, login: &str) -> Option<String> {
    if !is_loopback(origin) {
        return None;
    }
    let port = port(origin);
    Some(format!(
        "This address is this machine's own (loopback): a phone cannot open it as it is. Either \
         forward it from the phone over SSH (in an SSH app: `ssh -N -L {port}:127.0.0.1:{port} \
         {login}`) and open the link there; or serve your network over TLS instead, `switchboard \
         serve --listen 0.0.0.0:{port} --tls-self-signed --pair`, and open the link it prints; or \
         use a tailnet's HTTPS (`tailscale serve {port}`, then `switchboard serve --origin \
         https://NAME.ts.net`)."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_link_says_how_a_phone_reaches_it_and_another_says_nothing() {
        let said = reach_hint("http://127.0.0.1:8766", "dev@box").unwrap();
        assert!(
            said.contains("ssh -N -L 8766:127.0.0.1:8766 dev@box")
                && said.contains("--tls-self-signed")
                && said.contains("loopback"),
            "{said}"
        );
        assert!(
            reach_hint("http://[::1]:9000", "dev@box")
                .unwrap()
                .contains("9000:127.0.0.1:9000")
        );
        assert!(reach_hint("http://localhost:8766", "dev@box").is_some());
        assert_eq!(reach_hint("https://box.local:8766", "dev@box"), None);
        assert_eq!(reach_hint("https://192.168.1.20:8766", "dev@box"), None);
        assert_eq!(port("https://box.ts.net"), 443);
    }
}
