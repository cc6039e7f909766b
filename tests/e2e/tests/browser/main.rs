//! The inbox in a real browser: Debian's Chromium, headless, driven
//! through its chromedriver, on a phone's screen (360 px wide), against
//! the real `switchboard serve`. It pairs with the one-time link, sees the
//! question a blocking agent asks, answers it, and the agent gets the
//! answer, its page key kept in the page's storage and out of the
//! address; it watches a program session an agent drives, and is told up
//! front that taking it over needs the developer's leave; a form another site posts
//! carries no cookie and is refused; a page whose key was cleared is told
//! to pair again; a revoked browser is turned away.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.

mod phone;

use std::{
    path::Path,
    process::Stdio,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail, ensure};
use fantoccini::Locator;
use serde_json::{Value, json};
use switchboard_e2e::{
    Binaries, WAIT,
    browser::{Chromium, Folders, Served},
    pages,
};

#[tokio::test(flavor = "current_thread")]
async fn a_phone_pairs_answers_a_blocking_agent_and_is_turned_away_once_revoked() -> Result<()> {
    let binaries = Binaries::locate()?;
    let folders = Folders::new()?;
    let (workspace, config, profile) = (&folders.workspace, &folders.config, &folders.profile);
    let served = Served::start(&binaries, workspace, config)?;
    let (origin, link) = (served.origin.clone(), served.link.clone());
    let agent = binaries
        .cli(workspace)
        .args([
            "deliver",
            "--mode",
            "blocking",
            "--title",
            "Ship it?",
            "--content",
            "All green.",
        ])
        .args(["--schema", r#"{"type": "confirm"}"#, "--timeout", "120"])
        .stdout(Stdio::piped())
        .spawn()?;
    let chromium = Chromium::start(profile).await?;
    let client = chromium.client.clone();
    let find = async |css: &str| {
        client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("no {css} within {WAIT:?}"))
    };

    // Paired by the link, as a phone opens it from the QR code.
    client.goto(&link).await?;
    find("#open-inbox").await?.click().await?;
    let question = find("#inbox-list .delivery").await?;
    ensure!(
        question.text().await?.contains("Ship it?"),
        "the agent's question shows"
    );
    // The page key the link handed over: kept in this origin's storage,
    // gone from the address (and so from the history and a shared link).
    let kept: Value = client
        .execute(
            "return [localStorage.getItem('switchboard-page-key'), location.href]",
            vec![],
        )
        .await?;
    let (key, address) = (
        kept[0].as_str().unwrap_or_default(),
        kept[1].as_str().unwrap_or_default(),
    );
    ensure!(
        key.len() == 64 && key.bytes().all(|byte| byte.is_ascii_hexdigit()),
        "the page keeps its key: {kept}"
    );
    ensure!(
        address == format!("{origin}/"),
        "the key left the address bar: {address}"
    );
    if let Some(wide) = switchboard_e2e::browser::wider_than_the_screen(&client).await? {
        bail!("the page is wider than a phone's screen: {wide}");
    }
    question.click().await?;
    find("#feedback-confirm").await?.click().await?;
    let output = agent.wait_with_output()?;
    let line: Value = serde_json::from_slice(&output.stdout)?;
    ensure!(
        line["status"] == "responded" && line["response"]["value"] == true,
        "the agent got the answer: {line}"
    );
    ensure!(
        client.find_all(Locator::Css(".export")).await?.is_empty(),
        "saving a delivery (a window's dialog) is not offered in a browser"
    );
    let shot = client.screenshot().await?;
    let shots = binaries
        .cli
        .parent()
        .and_then(Path::parent)
        .context("the target folder")?
        .join("e2e");
    std::fs::create_dir_all(&shots)?;
    std::fs::write(shots.join("browser-phone.png"), shot)?;

    // A program an agent drives, watched from the phone; taking it over
    // is refused until Settings allow it.
    let session = |args: &[&str]| -> Result<String> {
        let output = binaries
            .cli(workspace)
            .arg("session")
            .args(args)
            .env("SWITCHBOARD_RUNTIME_DIR", Served::runtime(config))
            .output()?;
        ensure!(output.status.success(), "session {args:?}: {output:?}");
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let name = format!("watched-{}", std::process::id());
    let id = session(&["start", "--name", &name, "--", "cat"])?;
    // Ended however the test ends.
    struct Ends(std::process::Command);
    impl Drop for Ends {
        fn drop(&mut self) {
            let _ = self.0.output();
        }
    }
    let mut kill = binaries.cli(workspace);
    kill.args(["session", "kill", &id])
        .env("SWITCHBOARD_RUNTIME_DIR", Served::runtime(config));
    let _ends = Ends(kill);
    find("#nav-terminals").await?.click().await?;
    find(&format!(".session-item[data-id='{id}']")).await?;
    session(&["send", &id, "--line", "typed by an agent"])?;
    let screen = find("#terminal-screen").await?;
    let deadline = std::time::Instant::now() + WAIT;
    while !screen.text().await?.contains("typed by an agent") {
        ensure!(
            std::time::Instant::now() < deadline,
            "the session's output never showed on the phone"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Not offered, and said up front: no button to tap and be refused.
    let off = find("#terminal-take-off").await?.text().await?;
    std::fs::write(
        shots.join("browser-terminals.png"),
        client.screenshot().await?,
    )?;
    ensure!(
        off.contains("Settings") && off.contains("Paired browsers may take program sessions over"),
        "taking over says how it is allowed: {off:?}"
    );
    ensure!(
        client
            .find_all(Locator::Css("#terminal-take, #terminal-end"))
            .await?
            .is_empty(),
        "taking over is not offered to a browser without the grant"
    );

    // Another site's form, posted while this browser is paired: the
    // cookie stays home (SameSite=Strict), so nothing is answered.
    client.goto("about:blank").await?;
    client
        .execute(
            "const form = document.createElement('form'); form.method = 'post'; \
             form.enctype = 'text/plain'; form.action = arguments[0]; \
             const field = document.createElement('input'); field.name = '{\"request\":{\"id\":\"x\",\"x\":\"'; \
             field.value = '\"}}'; form.appendChild(field); document.body.appendChild(form); form.submit();",
            vec![json!(format!("{origin}/api/invoke/reply"))],
        )
        .await?;
    let refused = find("body").await?.text().await?;
    ensure!(
        refused.contains("not paired"),
        "a cross-site form is refused: {refused:?}"
    );

    // The page's storage cleared: the cookie alone opens the page but
    // runs nothing, and the page says to pair again.
    client.goto(&format!("{origin}/")).await?;
    find("#inbox-list").await?;
    client
        .execute("localStorage.removeItem('switchboard-page-key')", vec![])
        .await?;
    client.refresh().await?;
    let told = find("#view-inbox .error").await?.text().await?;
    ensure!(
        told.contains("pair again")
            && told.contains("switchboard pair")
            && !told.contains("NOT_PAIRED")
            && !told.contains('{'),
        "a page without its key is told, in words, to pair again: {told:?}"
    );

    // Revoked: the next visit is turned away.
    let listed = binaries
        .cli(workspace)
        .args(["serve", "--sessions"])
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .output()?;
    let session = String::from_utf8_lossy(&listed.stdout)
        .split('\t')
        .next()
        .unwrap_or_default()
        .to_owned();
    let revoked = binaries
        .cli(workspace)
        .args(["serve", "--revoke", &session])
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .status()?;
    ensure!(revoked.success(), "could not revoke {session:?}");
    client.goto(&format!("{origin}/")).await?;
    let turned_away = find("body").await?.text().await?;
    ensure!(
        turned_away.contains("not paired"),
        "a revoked browser is turned away: {turned_away:?}"
    );
    client.close().await?;
    Ok(())
}

/// How many paired pages the load test holds at once.
const PAGES: usize = 200;

/// How long the whole load test may take: pairing every page, each
/// opening its stream and reading the inbox, the floods, and every page
/// hearing an agent's delivery (a debug build on two cores takes a few
/// seconds; a server that stalls under the load never gets there).
const LOAD_WITHIN: Duration = Duration::from_secs(90);

#[test]
fn two_hundred_paired_pages_are_served_at_once_within_the_servers_limits() -> Result<()> {
    let binaries = Binaries::locate()?;
    let folders = Folders::new()?;
    let (workspace, config) = (&folders.workspace, &folders.config);
    let served = Served::start(&binaries, workspace, config)?;
    let origin = served.origin.clone();
    let started = Instant::now();
    let paired = (0..PAGES)
        .map(|_| pages::pair(&origin, config))
        .collect::<Result<Vec<_>>>()?;
    // Every page at once: its event stream, then the inbox read.
    let opening: Vec<_> = paired
        .iter()
        .map(|page| {
            let (origin, page) = (origin.clone(), page.clone());
            std::thread::spawn(move || -> Result<pages::Events> {
                let events = pages::Events::open(&origin, &page)?;
                let (status, listed) =
                    pages::invoke(&origin, &page, "list_deliveries", &Value::Null)?;
                ensure!(status == 200, "list_deliveries answered {status}: {listed}");
                Ok(events)
            })
        })
        .collect();
    // Meanwhile, floods: bodies past the limit, unpaired calls, one
    // browser's streams past its share.
    let floods: Vec<_> = (0..20)
        .map(|each| {
            let (origin, page) = (origin.clone(), paired[each].clone());
            std::thread::spawn(move || -> Result<()> {
                let huge = vec![b' '; 2 << 20];
                let [cookie, key] = page.headers();
                let (status, _, _) = pages::request(
                    &origin,
                    "POST",
                    "/api/invoke/list_deliveries",
                    &[
                        cookie,
                        key,
                        ("Origin", &origin),
                        ("Content-Type", "application/json"),
                    ],
                    &huge,
                )?;
                ensure!(status == 413, "a 2 MiB body answered {status}");
                let forged = pages::Paired {
                    cookie: "switchboard_session=forged".into(),
                    key: page.key.clone(),
                };
                let (status, _) = pages::invoke(&origin, &forged, "list_deliveries", &Value::Null)?;
                ensure!(status == 401, "an unpaired call answered {status}");
                Ok(())
            })
        })
        .collect();
    let mut streams = Vec::new();
    for page in opening {
        streams.push(
            page.join()
                .map_err(|_| anyhow::anyhow!("a page panicked"))??,
        );
    }
    for flood in floods {
        flood
            .join()
            .map_err(|_| anyhow::anyhow!("a flood panicked"))??;
    }
    let share: Vec<_> = (1..switchboard_model::browser::STREAMS_PER_BROWSER)
        .map(|_| pages::Events::open(&origin, &paired[0]))
        .collect::<Result<_>>()?;
    let past = pages::Events::open(&origin, &paired[0]).err();
    ensure!(
        past.as_ref()
            .and_then(|error| error.downcast_ref::<pages::Refused>())
            .map(|refused| refused.0)
            == Some(429),
        "one browser's streams past its share are refused: {past:?}"
    );
    drop(share);
    // An agent delivers: every page hears it.
    binaries.deliver(workspace, "For every page", "hello")?;
    let hearing: Vec<_> = streams
        .into_iter()
        .map(|mut events| {
            std::thread::spawn(move || {
                events.until(|line| line.contains("store-changed") && line.contains("deliveries"))
            })
        })
        .collect();
    for page in hearing {
        page.join()
            .map_err(|_| anyhow::anyhow!("a page panicked"))??;
    }
    let took = started.elapsed();
    println!("{PAGES} pages paired, served and told in {took:?}");
    ensure!(
        took < LOAD_WITHIN,
        "{PAGES} pages took {took:?}, past {LOAD_WITHIN:?}"
    );
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
async fn over_tls_a_phone_trusting_the_made_certificate_pairs_with_a_secure_cookie_and_answers()
-> Result<()> {
    let binaries = Binaries::locate()?;
    let folders = Folders::new()?;
    let (workspace, config, profile) = (&folders.workspace, &folders.config, &folders.profile);
    let served = Served::start_with(&binaries, workspace, config, &["--tls-self-signed"])?;
    ensure!(
        served.origin.starts_with("https://") && served.link.starts_with("https://"),
        "served over TLS: {} {}",
        served.origin,
        served.link
    );
    // The phone's user checked the fingerprint and trusts this key only.
    let spki =
        switchboard_e2e::browser::spki_digest(&switchboard_store::browser_tls::cert_path(config))?;
    let agent = binaries
        .cli(workspace)
        .args(["deliver", "--mode", "blocking", "--title", "Over TLS?"])
        .args([
            "--content",
            "Yes or no.",
            "--schema",
            r#"{"type": "confirm"}"#,
        ])
        .args(["--timeout", "120"])
        .stdout(Stdio::piped())
        .spawn()?;
    let chromium = Chromium::start_trusting(profile, Some(&spki)).await?;
    let client = chromium.client.clone();
    chromium.pair(&served).await?;
    let cookies = client.get_all_cookies().await?;
    let cookie = cookies
        .iter()
        .find(|cookie| cookie.name() == "switchboard_session")
        .context("the browser holds the session cookie")?;
    ensure!(
        cookie.secure() == Some(true) && cookie.http_only() == Some(true),
        "over HTTPS the cookie is Secure and HttpOnly: {cookie:?}"
    );
    let question = client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("#inbox-list .delivery"))
        .await?;
    ensure!(question.text().await?.contains("Over TLS?"));
    question.click().await?;
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("#feedback-confirm"))
        .await?
        .click()
        .await?;
    let line: Value = serde_json::from_slice(&agent.wait_with_output()?.stdout)?;
    ensure!(
        line["status"] == "responded" && line["response"]["value"] == true,
        "the agent got the answer given over TLS: {line}"
    );
    client.close().await?;
    Ok(())
}
