//! A real browser on the page `switchboard serve` serves: Debian's
//! Chromium, headless, driven through its chromedriver, on a phone's
//! screen; and the server itself, paired.

use std::{
    io::{BufRead, BufReader},
    net::TcpStream,
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use fantoccini::{Client, ClientBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

use crate::{Binaries, process::Guarded};

/// `switchboard serve --pair` on a free port for `workspace`, its browser
/// sessions in `config`.
pub struct Served {
    /// `http://127.0.0.1:PORT`.
    pub origin: String,
    /// The one-time pairing link it printed.
    pub link: String,
    server: Guarded,
}

impl Served {
    /// The runtime folder of the server whose config folder is `config`
    /// (a process that starts program sessions it watches uses it too).
    pub fn runtime(config: &Path) -> std::path::PathBuf {
        config.with_file_name("rt")
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.server.pid()
    }

    /// Starts it and reads its origin and link. Its runtime folder (the
    /// session host it watches, the workspace's registration) is `rt`
    /// beside `config`: [`Served::runtime`].
    pub fn start(binaries: &Binaries, workspace: &Path, config: &Path) -> Result<Self> {
        Self::start_with(binaries, workspace, config, &[])
    }

    /// [`Served::start`] with more of `switchboard serve`'s flags
    /// (`--tls-self-signed`).
    pub fn start_with(
        binaries: &Binaries,
        workspace: &Path,
        config: &Path,
        more: &[&str],
    ) -> Result<Self> {
        Self::start_listening(binaries, workspace, config, "127.0.0.1:0", more)
    }

    /// [`Served::start_with`] on `listen` (`127.0.0.1:PORT`: a server
    /// started again where its pages find it).
    pub fn start_listening(
        binaries: &Binaries,
        workspace: &Path,
        config: &Path,
        listen: &str,
        more: &[&str],
    ) -> Result<Self> {
        let mut child = binaries
            .cli(workspace)
            .args(["serve", "--listen", listen, "--pair"])
            .args(more)
            .env("SWITCHBOARD_CONFIG_DIR", config)
            .env("SWITCHBOARD_RUNTIME_DIR", Self::runtime(config))
            .stdout(Stdio::piped())
            .spawn()
            .context("could not start switchboard serve")?;
        let mut lines = BufReader::new(child.stdout.take().context("its stdout")?).lines();
        let origin = lines
            .next()
            .context("it printed nothing")??
            .trim_end_matches('/')
            .to_owned();
        let link = lines
            .by_ref()
            .map_while(Result::ok)
            .find(|line| line.contains("/pair?code="))
            .context("no pairing link was printed")?;
        std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
        Ok(Self {
            origin,
            link,
            server: Guarded::new("switchboard serve", child),
        })
    }
}

/// Chromium under chromedriver; both end when dropped (close the client
/// first).
pub struct Chromium {
    /// The WebDriver client.
    pub client: Client,
    _driver: Guarded,
}

impl Chromium {
    /// Starts chromedriver on a free port and Chromium, headless, on a
    /// 360-px phone's screen (Chromium's device mode: a headless window is
    /// never narrower than 500 px), its profile in `profile`.
    pub async fn start(profile: &Path) -> Result<Self> {
        Self::start_trusting(profile, None).await
    }

    /// [`Chromium::start`], trusting the certificate whose public key's
    /// SHA-256 digest (base64) is `spki` as a phone's user does once they
    /// checked its fingerprint (Chromium's
    /// `--ignore-certificate-errors-spki-list`, which holds for that key
    /// only).
    pub async fn start_trusting(profile: &Path, spki: Option<&str>) -> Result<Self> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context(
                "could not start chromedriver (scripts/setup.sh test installs chromium-driver)",
            )?;
        let mut driver = Guarded::new("chromedriver", child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            driver.ensure_running()?;
            if Instant::now() > deadline {
                bail!("chromedriver did not listen within 20 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            format!("--user-data-dir={}", profile.display()),
        ];
        if let Some(spki) = spki {
            args.push(format!("--ignore-certificate-errors-spki-list={spki}"));
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), "chrome".into());
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": "/usr/bin/chromium",
                "args": args,
                "mobileEmulation": {"deviceMetrics": {"width": 360, "height": 780, "pixelRatio": 2.0}},
            }),
        );
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .context("could not start Chromium through chromedriver")?;
        Ok(Self {
            client,
            _driver: driver,
        })
    }

    /// Pairs with `served` through its link and opens the inbox.
    pub async fn pair(&self, served: &Served) -> Result<()> {
        self.client.goto(&served.link).await?;
        self.client
            .wait()
            .at_most(crate::WAIT)
            .for_element(fantoccini::Locator::Css("#open-inbox"))
            .await?
            .click()
            .await?;
        Ok(())
    }
}

/// Waits until `condition` (a JavaScript expression) holds on the page of
/// `client`, within [`crate::WAIT`]; `what` names it when it never does.
/// The page's state is polled: a browser gives a test no other signal.
pub async fn until(client: &Client, condition: &str, what: &str) -> Result<()> {
    let deadline = Instant::now() + crate::WAIT;
    let script = format!("return !!({condition});");
    loop {
        if client.execute(&script, vec![]).await?.as_bool() == Some(true) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{what}: not within {:?} ({condition})", crate::WAIT);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The elements wider than a 360-px screen reaches, if any (their tag,
/// class, id and right edge): a phone's page scrolls sideways for them.
pub async fn wider_than_the_screen(client: &Client) -> Result<Option<String>> {
    let width = client
        .execute("return document.documentElement.scrollWidth", vec![])
        .await?;
    if width.as_f64().is_some_and(|width| width <= 360.0) {
        return Ok(None);
    }
    let wide = client
        .execute(
            "return [...document.querySelectorAll('body *')]\
             .filter(e => e.getBoundingClientRect().right > 361).slice(0, 8)\
             .map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right))",
            vec![],
        )
        .await?;
    Ok(Some(format!("{width} px: {wide}")))
}

/// The base64 SHA-256 digest of the public key of the PEM certificate at
/// `cert` (what [`Chromium::start_trusting`] takes).
pub fn spki_digest(cert: &Path) -> Result<String> {
    let cert = openssl::x509::X509::from_pem(&std::fs::read(cert)?)?;
    let key = cert.public_key()?.public_key_to_der()?;
    let digest = openssl::hash::hash(openssl::hash::MessageDigest::sha256(), &key)?;
    Ok(openssl::base64::encode_block(&digest))
}

/// A browser test's folders, gone when dropped: the workspace (`ws`,
/// made), the config folder the server keeps its browsers in (`config`)
/// and Chromium's profile (`chromium`).
pub struct Folders {
    /// The workspace.
    pub workspace: std::path::PathBuf,
    /// The server's config folder.
    pub config: std::path::PathBuf,
    /// Chromium's profile.
    pub profile: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Folders {
    /// New folders in a temporary one.
    pub fn new() -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&workspace)?;
        Ok(Self {
            workspace,
            config: dir.path().join("config"),
            profile: dir.path().join("chromium"),
            _dir: dir,
        })
    }
}
