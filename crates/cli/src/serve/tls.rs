//! `switchboard serve` over TLS: the developer's certificate and key (PEM
//! files, `--tls-cert`/`--tls-key`) or one made for this machine
//! (`--tls-self-signed`: EC P-256, a year, the names it is reached by,
//! kept by `store::browser_tls` and made anew only when it no longer
//! serves). What comes out is an acceptor each connection is wrapped in,
//! the names the certificate covers (the only ones served: a `Host` of
//! another name is refused), and its SHA-256 fingerprint, which a phone's
//! user compares with the one their browser shows.

use std::{
    net::IpAddr,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use openssl::{
    asn1::Asn1Time,
    bn::{BigNum, MsbOption},
    ec::{EcGroup, EcKey},
    hash::MessageDigest,
    nid::Nid,
    pkey::{PKey, Private},
    x509::{
        X509, X509NameBuilder,
        extension::{
            BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAlternativeName,
            SubjectKeyIdentifier,
        },
    },
};
use switchboard_store::{browser_tls, browser_tls::TlsPair, clock};

use crate::failure::{BadInput as _, refuse};

/// How long a made certificate is valid.
const VALID_DAYS: i64 = 365;

/// A made certificate is made anew when it has less than this left.
const RENEW_DAYS: i64 = 30;

/// Where the certificate comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The developer's PEM files.
    Given {
        /// The certificate (perhaps followed by its chain).
        cert: PathBuf,
        /// Its private key.
        key: PathBuf,
    },
    /// One made for this machine, kept in the config folder.
    SelfSigned,
}

impl Source {
    /// The source the flags name, if any; refused when they do not make
    /// one (a certificate without its key, both kinds at once).
    pub fn from_flags(
        cert: Option<&Path>,
        key: Option<&Path>,
        self_signed: bool,
    ) -> Result<Option<Self>> {
        match (cert, key, self_signed) {
            (None, None, false) => Ok(None),
            (None, None, true) => Ok(Some(Self::SelfSigned)),
            (Some(_), _, true) | (_, Some(_), true) => refuse!(
                "--tls-self-signed makes its own certificate: give it alone, or \
                 --tls-cert and --tls-key without it"
            ),
            (Some(cert), Some(key), false) => Ok(Some(Self::Given {
                cert: cert.to_path_buf(),
                key: key.to_path_buf(),
            })),
            (Some(_), None, false) => refuse!("--tls-cert needs its private key: --tls-key FILE"),
            (None, Some(_), false) => refuse!("--tls-key needs its certificate: --tls-cert FILE"),
        }
    }
}

/// A name a browser reaches the server by: a DNS name or an IP address.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Name {
    /// A host name, lowercase.
    Dns(String),
    /// An address.
    Ip(IpAddr),
}

impl Name {
    /// `text` as a name (`machine.local`, `192.168.1.5`, `[::1]`), if it
    /// is one: letters, digits, `-` and `.` for a host name.
    pub fn parse(text: &str) -> Option<Self> {
        let bare = text.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Some(Self::Ip(ip));
        }
        let host = text.trim_end_matches('.').to_ascii_lowercase();
        let fits = !host.is_empty()
            && host.len() <= 253
            && host.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && !label.starts_with('-')
                    && label
                        .bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
            });
        fits.then_some(Self::Dns(host))
    }

    /// `host:port` as a browser's `Host` names it (`[::1]:8766` for IPv6).
    pub fn authority(&self, port: u16) -> String {
        match self {
            Self::Dns(host) => format!("{host}:{port}"),
            Self::Ip(IpAddr::V4(ip)) => format!("{ip}:{port}"),
            Self::Ip(IpAddr::V6(ip)) => format!("[{ip}]:{port}"),
        }
    }
}

/// What serving over TLS needs.
pub struct Tls {
    /// Wraps each accepted connection.
    pub acceptor: tokio_native_tls::TlsAcceptor,
    /// The names the certificate covers, the one to show first.
    pub names: Vec<Name>,
    /// The certificate's SHA-256 fingerprint, `AB:CD:…`.
    pub fingerprint: String,
    /// The made certificate's file (none for the developer's own).
    pub made: Option<PathBuf>,
}

/// TLS from `source`: the developer's files read and checked, or the made
/// certificate kept or made anew to cover `wanted` (the names the server
/// is reached by; the first is shown first).
pub fn load(source: &Source, config_dir: &Path, wanted: &[Name]) -> Result<Tls> {
    let (chain, key, made) = match source {
        Source::Given { cert, key } => {
            let (chain, key) = given(cert, key)?;
            (chain, key, None)
        }
        Source::SelfSigned => {
            let pair = browser_tls::keep_or_replace(config_dir, |kept| {
                let now = clock::now().unix_seconds();
                if let Some(kept) = kept {
                    match serves(&kept, wanted, now) {
                        Ok(()) => return Ok(kept),
                        Err(why) => tracing::info!(%why, "a certificate is made anew"),
                    }
                    let mut names = covered_of_pem(&kept.cert);
                    names.extend(wanted.iter().cloned());
                    return make(&ordered(names), now);
                }
                make(wanted, now)
            })?;
            let chain = X509::stack_from_pem(pair.cert.as_bytes())?;
            let key = PKey::private_key_from_pem(pair.key.as_bytes())?;
            (chain, key, Some(browser_tls::cert_path(config_dir)))
        }
    };
    let Some(leaf) = chain.first() else {
        anyhow::bail!("the certificate is empty");
    };
    let covered = covered(leaf);
    let names = ordered(
        wanted
            .iter()
            .filter(|name| covered.contains(name))
            .cloned()
            .chain(covered.iter().cloned())
            .collect(),
    );
    if names.is_empty() {
        refuse!(
            "the certificate names no host (no subject alternative name, no common name): \
             a browser would refuse it"
        );
    }
    let fingerprint = leaf
        .digest(MessageDigest::sha256())?
        .iter()
        .map(|byte| format!("{byte:02X}"))
        .collect::<Vec<_>>()
        .join(":");
    let mut pem = Vec::new();
    for cert in &chain {
        pem.extend(cert.to_pem()?);
    }
    let identity = native_tls::Identity::from_pkcs8(&pem, &key.private_key_to_pem_pkcs8()?)
        .context("the certificate and key could not be used for TLS")?;
    let acceptor = native_tls::TlsAcceptor::builder(identity)
        .min_protocol_version(Some(native_tls::Protocol::Tlsv12))
        .build()
        .context("could not set up TLS")?;
    Ok(Tls {
        acceptor: acceptor.into(),
        names,
        fingerprint,
        made,
    })
}

/// The developer's certificate (with its chain) and key, refused when a
/// file cannot be read, is not PEM, or the key is not the certificate's.
fn given(cert: &Path, key: &Path) -> Result<(Vec<X509>, PKey<Private>)> {
    let cert_text = browser_tls::read_given(cert).bad_input(format!(
        "--tls-cert {}: the certificate could not be read",
        cert.display()
    ))?;
    let chain = X509::stack_from_pem(&cert_text).unwrap_or_default();
    let Some(leaf) = chain.first() else {
        refuse!(
            "--tls-cert {}: not a PEM certificate (-----BEGIN CERTIFICATE-----)",
            cert.display()
        );
    };
    let key_text = browser_tls::read_given(key).bad_input(format!(
        "--tls-key {}: the private key could not be read",
        key.display()
    ))?;
    let Ok(private) = PKey::private_key_from_pem(&key_text) else {
        refuse!(
            "--tls-key {}: not a PEM private key (-----BEGIN PRIVATE KEY-----, unencrypted)",
            key.display()
        );
    };
    let matches = leaf
        .public_key()
        .is_ok_and(|public| public.public_eq(&private));
    if !matches {
        refuse!(
            "--tls-key {} is not the key of --tls-cert {}",
            key.display(),
            cert.display()
        );
    }
    let now = Asn1Time::from_unix(clock::now().unix_seconds())?;
    if leaf.not_after() < now {
        tracing::warn!(not_after = %leaf.not_after(), "the certificate has expired: browsers will refuse it");
        eprintln!(
            "warning: --tls-cert {} expired on {}; browsers will refuse it",
            cert.display(),
            leaf.not_after()
        );
    }
    Ok((chain, private))
}

/// Whether the kept pair still serves at `now` (unix seconds): it reads,
/// its key is its certificate's, it is valid for a while yet, and it
/// covers every name in `wanted`; why not otherwise.
fn serves(pair: &TlsPair, wanted: &[Name], now: i64) -> Result<(), String> {
    let cert = X509::from_pem(pair.cert.as_bytes()).map_err(|error| error.to_string())?;
    let key = PKey::private_key_from_pem(pair.key.as_bytes()).map_err(|error| error.to_string())?;
    let public = cert.public_key().map_err(|error| error.to_string())?;
    if !public.public_eq(&key) {
        return Err("its key is not its certificate's".into());
    }
    let at = |seconds: i64| Asn1Time::from_unix(seconds).map_err(|error| error.to_string());
    if cert.not_before() > at(now)? || cert.not_after() < at(now + RENEW_DAYS * 24 * 60 * 60)? {
        return Err(format!("it is valid until {} only", cert.not_after()));
    }
    let covered = covered(&cert);
    match wanted.iter().find(|name| !covered.contains(name)) {
        Some(missing) => Err(format!("it does not cover {missing:?}")),
        None => Ok(()),
    }
}

/// The names `cert` covers: its subject alternative names (a wildcard
/// left out: it names no one host to serve), or its common name when it
/// has none.
fn covered(cert: &X509) -> Vec<Name> {
    let alternatives: Vec<Name> = cert
        .subject_alt_names()
        .map(|names| {
            names
                .iter()
                .filter_map(|name| {
                    if let Some(dns) = name.dnsname() {
                        return Name::parse(dns);
                    }
                    match name.ipaddress()? {
                        &[a, b, c, d] => Some(Name::Ip(IpAddr::from([a, b, c, d]))),
                        bytes => <[u8; 16]>::try_from(bytes)
                            .ok()
                            .map(|v6| Name::Ip(IpAddr::from(v6))),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if !alternatives.is_empty() {
        return alternatives;
    }
    cert.subject_name()
        .entries_by_nid(Nid::COMMONNAME)
        .filter_map(|entry| entry.data().to_string().ok())
        .filter_map(|common| Name::parse(&common))
        .collect()
}

fn covered_of_pem(pem: &str) -> Vec<Name> {
    X509::from_pem(pem.as_bytes())
        .map(|cert| covered(&cert))
        .unwrap_or_default()
}

/// `names` without repeats, in their first order.
fn ordered(names: Vec<Name>) -> Vec<Name> {
    let mut seen = Vec::new();
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen
}

/// A certificate for `names`, self-signed with a new EC P-256 key, valid
/// from an hour before `now` (a phone's clock a little behind) for
/// [`VALID_DAYS`].
fn make(names: &[Name], now: i64) -> Result<TlsPair> {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1)?;
    let key = PKey::from_ec_key(EcKey::generate(&group)?)?;
    let mut builder = X509::builder()?;
    builder.set_version(2)?;
    let mut serial = BigNum::new()?;
    serial.rand(127, MsbOption::MAYBE_ZERO, false)?;
    let serial = serial.to_asn1_integer()?;
    builder.set_serial_number(&serial)?;
    let host = nix::unistd::gethostname()
        .ok()
        .and_then(|host| host.into_string().ok())
        .unwrap_or_default();
    let common: String = format!("Switchboard on {host}").chars().take(64).collect();
    let mut subject = X509NameBuilder::new()?;
    subject.append_entry_by_nid(Nid::COMMONNAME, common.trim())?;
    let subject = subject.build();
    builder.set_subject_name(&subject)?;
    builder.set_issuer_name(&subject)?;
    builder.set_pubkey(&key)?;
    let not_before = Asn1Time::from_unix(now - 60 * 60)?;
    let not_after = Asn1Time::from_unix(now + VALID_DAYS * 24 * 60 * 60)?;
    builder.set_not_before(&not_before)?;
    builder.set_not_after(&not_after)?;
    let mut alternatives = SubjectAlternativeName::new();
    for name in names {
        match name {
            Name::Dns(host) => alternatives.dns(host),
            Name::Ip(ip) => alternatives.ip(&ip.to_string()),
        };
    }
    let alternatives = alternatives.build(&builder.x509v3_context(None, None))?;
    builder.append_extension(alternatives)?;
    builder.append_extension(BasicConstraints::new().critical().build()?)?;
    builder.append_extension(
        KeyUsage::new()
            .critical()
            .digital_signature()
            .key_agreement()
            .build()?,
    )?;
    builder.append_extension(ExtendedKeyUsage::new().server_auth().build()?)?;
    let identifier = SubjectKeyIdentifier::new().build(&builder.x509v3_context(None, None))?;
    builder.append_extension(identifier)?;
    builder.sign(&key, MessageDigest::sha256())?;
    let cert = builder.build();
    Ok(TlsPair {
        cert: String::from_utf8(cert.to_pem()?)?,
        key: String::from_utf8(key.private_key_to_pem_pkcs8()?)?,
    })
}

/// The names a made certificate covers: `extra` (`--tls-name`) first,
/// then the listen address when it is one address, this machine's host
/// name, `localhost`, and the proxies' hosts (`--origin`).
pub fn wanted(extra: &[Name], listen: IpAddr, origins: &[String]) -> Vec<Name> {
    let mut names = extra.to_vec();
    if !listen.is_unspecified() {
        names.push(Name::Ip(listen));
    }
    if let Some(host) = nix::unistd::gethostname()
        .ok()
        .and_then(|host| host.into_string().ok())
        .and_then(|host| Name::parse(&host))
    {
        names.push(host);
    }
    names.push(Name::Dns("localhost".into()));
    for origin in origins {
        let host = origin
            .split_once("://")
            .map_or(origin.as_str(), |(_, authority)| authority);
        let host = match host.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|byte| byte.is_ascii_digit()) => host,
            _ => host,
        };
        names.extend(Name::parse(host));
    }
    ordered(names)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn a_name_is_a_host_or_an_address() {
        assert_eq!(
            Name::parse("Machine.Local."),
            Some(Name::Dns("machine.local".into()))
        );
        assert_eq!(
            Name::parse("[::1]").map(|name| name.authority(8766)),
            Some("[::1]:8766".into())
        );
        for refused in ["", "a b", "*.example.com", "-x", "a..b", "https://x"] {
            assert_eq!(Name::parse(refused), None, "{refused}");
        }
    }

    #[test]
    fn a_made_certificate_covers_its_names_and_is_kept_while_it_serves() {
        let now = clock::now().unix_seconds();
        let names = wanted(
            &[Name::parse("phone-facing.example").unwrap()],
            "127.0.0.1".parse().unwrap(),
            &["https://machine.tailnet.example".into()],
        );
        let pair = make(&names, now).unwrap();
        let cert = X509::from_pem(pair.cert.as_bytes()).unwrap();
        assert_eq!(covered(&cert), names);
        assert_eq!(serves(&pair, &names, now), Ok(()));
        let more = [names.clone(), vec![Name::parse("other.example").unwrap()]].concat();
        assert!(serves(&pair, &more, now).is_err(), "a new name: made anew");
        let late = now + (VALID_DAYS - RENEW_DAYS + 1) * 24 * 60 * 60;
        assert!(serves(&pair, &names, late).is_err(), "nearly expired");
        let other = make(&names, now).unwrap();
        let swapped = TlsPair {
            cert: pair.cert,
            key: other.key,
        };
        assert!(serves(&swapped, &names, now).is_err(), "another key");
    }
}
