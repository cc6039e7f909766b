//! Paired pages of `switchboard serve` without a browser: what a page
//! sends and hears, over raw HTTP on loopback — for the load test and the
//! server's benchmark, where 200 of them are held at once.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    path::Path,
    time::Duration,
};

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

/// `host:port` of `origin` (`http://host:port`).
fn address(origin: &str) -> &str {
    origin.trim_start_matches("http://")
}

/// An answer: its status, its headers (lowercase names) and its body.
pub type Answer = (u16, Vec<(String, String)>, String);

/// One request as a browser's page sends it.
pub fn request(
    origin: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Answer> {
    let mut stream = TcpStream::connect(address(origin))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        address(origin),
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    // A server that refuses early may close before the whole body is sent.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").context("no answer's head")?;
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .context("no status")?;
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_lowercase(), value.trim().to_owned()))
        .collect();
    Ok((status, headers, body.to_owned()))
}

/// What a paired page holds: its browser's cookie and the page key the
/// pairing page's link handed over (which the page's shim keeps).
#[derive(Debug, Clone)]
pub struct Paired {
    /// `switchboard_session=…`, as the browser sends it.
    pub cookie: String,
    /// The page key, sent as `X-Switchboard-Key`.
    pub key: String,
}

impl Paired {
    /// The headers a page's command and stream carry: the cookie and the
    /// key.
    pub fn headers(&self) -> [(&str, &str); 2] {
        [("Cookie", &self.cookie), ("X-Switchboard-Key", &self.key)]
    }
}

/// Pairs a new page with the server at `origin` whose browser sessions
/// live in `config`: a one-time code made there, exchanged over HTTP for
/// the cookie and the page key the pairing page links to the inbox with.
pub fn pair(origin: &str, config: &Path) -> Result<Paired> {
    let code = switchboard_store::browsers::new_pairing(config, switchboard_store::clock::now())?;
    let (status, headers, body) = request(origin, "GET", &format!("/pair?code={code}"), &[], b"")?;
    ensure!(status == 200, "pairing answered {status}: {body}");
    let cookie = headers
        .iter()
        .find(|(name, _)| name == "set-cookie")
        .and_then(|(_, cookie)| cookie.split(';').next())
        .map(str::to_owned)
        .context("no cookie was set")?;
    Ok(Paired {
        cookie,
        key: page_key(&body).context("the pairing page gave no page key")?,
    })
}

/// The page key in a pairing page's link to the inbox (`/#key=…`).
pub fn page_key(page: &str) -> Option<String> {
    const LINK: &str = "href=\"/#key=";
    let start = page.find(LINK)? + LINK.len();
    let end = start + page[start..].find('"')?;
    Some(page[start..end].to_owned())
}

/// A command as the page's shim sends it: the status and the answer.
pub fn invoke(
    origin: &str,
    page: &Paired,
    command: &str,
    arguments: &Value,
) -> Result<(u16, Value)> {
    let [cookie, key] = page.headers();
    let (status, _, body) = request(
        origin,
        "POST",
        &format!("/api/invoke/{command}"),
        &[
            cookie,
            key,
            ("Origin", origin),
            ("Content-Type", "application/json"),
        ],
        arguments.to_string().as_bytes(),
    )?;
    Ok((status, serde_json::from_str(&body).unwrap_or(Value::Null)))
}

/// A page's open event stream.
pub struct Events {
    reader: BufReader<TcpStream>,
}

impl Events {
    /// Opens the stream of `page`; `Err` with the status when it is
    /// refused.
    pub fn open(origin: &str, page: &Paired) -> Result<Self> {
        let stream = TcpStream::connect(address(origin))?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        write!(
            &stream,
            "GET /api/events HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\nX-Switchboard-Key: {}\r\n\r\n",
            address(origin),
            page.cookie,
            page.key
        )?;
        let mut reader = BufReader::new(stream);
        let mut status = String::new();
        reader.read_line(&mut status)?;
        let code: u16 = status
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .context("no status")?;
        if code != 200 {
            bail!(Refused(code));
        }
        let mut events = Self { reader };
        events.until(|line| line.starts_with(": open"))?;
        Ok(events)
    }

    /// Reads lines until one `wanted`; that line.
    pub fn until(&mut self, wanted: impl Fn(&str) -> bool) -> Result<String> {
        let mut line = String::new();
        loop {
            line.clear();
            ensure!(self.reader.read_line(&mut line)? > 0, "the stream ended");
            if wanted(&line) {
                return Ok(line);
            }
        }
    }
}

/// A stream refused with this status.
#[derive(Debug)]
pub struct Refused(pub u16);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the event stream was refused with {}", self.0)
    }
}

impl std::error::Error for Refused {}
