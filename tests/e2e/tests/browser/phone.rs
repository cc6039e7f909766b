//! A phone's page, as a person meets it: it names its workspace (in the
//! page and its tab, with what waits), offers only what this browser may
//! do and says up front what it may not, in words; a question waiting in
//! another workspace shows in an empty inbox with a way to it, and the
//! keys reach it; the waiting badge reads (WCAG's 4.5:1); a lost
//! connection says so in words, everything is read again once it is back
//! without switching views, and a revoked browser is told it is no longer
//! paired before anything is tapped. Screenshots at 360 px go to
//! `target/e2e/phone-*.png`.

use std::{path::Path, process::Stdio};

use anyhow::{Context, Result, ensure};
use fantoccini::{Client, Locator, key::Key};
use serde_json::Value;
use switchboard_e2e::{
    Binaries, WAIT,
    browser::{Chromium, Folders, Served, until, wider_than_the_screen},
};

/// Where the screenshots go: `target/e2e`.
fn shots(binaries: &Binaries) -> Result<std::path::PathBuf> {
    let shots = binaries
        .cli
        .parent()
        .and_then(Path::parent)
        .context("the target folder")?
        .join("e2e");
    std::fs::create_dir_all(&shots)?;
    Ok(shots)
}

/// Saves the page as `phone-NAME.png`, once it fits the screen.
async fn shot(client: &Client, binaries: &Binaries, name: &str) -> Result<()> {
    if let Some(wide) = wider_than_the_screen(client).await? {
        anyhow::bail!("{name}: the page is wider than a phone's screen: {wide}");
    }
    std::fs::write(
        shots(binaries)?.join(format!("phone-{name}.png")),
        client.screenshot().await?,
    )?;
    Ok(())
}

async fn text(client: &Client, css: &str) -> Result<String> {
    Ok(client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
        .with_context(|| format!("no {css} within {WAIT:?}"))?
        .text()
        .await?)
}

async fn click(client: &Client, css: &str) -> Result<()> {
    client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(css))
        .await
        .with_context(|| format!("no {css} within {WAIT:?}"))?
        .click()
        .await?;
    Ok(())
}

/// The contrast ratio (WCAG's) of the text of the first `css` against its
/// own background.
async fn contrast(client: &Client, css: &str) -> Result<f64> {
    let ratio = client
        .execute(
            "const e = document.querySelector(arguments[0]); const s = getComputedStyle(e); \
             const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number); \
             const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255; \
               return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }) \
               .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0); \
             const [a, b] = [lum(rgb(s.color)), lum(rgb(s.backgroundColor))]; \
             const alpha = (s.backgroundColor.match(/[\\d.]+/g)[3] ?? '1'); \
             if (Number(alpha) < 1) return 0; \
             return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);",
            vec![Value::from(css)],
        )
        .await?;
    ratio.as_f64().context("a contrast ratio")
}

#[tokio::test(flavor = "current_thread")]
async fn a_phone_names_its_workspace_offers_only_what_it_may_and_leads_to_questions_elsewhere()
-> Result<()> {
    let binaries = Binaries::locate()?;
    let folders = Folders::new()?;
    let (workspace, config, profile) = (&folders.workspace, &folders.config, &folders.profile);
    let api = workspace.with_file_name("api");
    std::fs::create_dir_all(&api)?;
    let served = Served::start(&binaries, workspace, config)?;
    // Another workspace served here too: its question waits there.
    let _api_served = Served::start(&binaries, &api, config)?;
    let asker = binaries
        .cli(&api)
        .args(["deliver", "--mode", "blocking", "--title", "Deploy api?"])
        .args([
            "--content",
            "All green.",
            "--schema",
            r#"{"type": "confirm"}"#,
        ])
        .args(["--timeout", "120"])
        .stdout(Stdio::piped())
        .spawn()?;
    let chromium = Chromium::start(profile).await?;
    let client = chromium.client.clone();
    chromium.pair(&served).await?;

    // An empty inbox says what comes here and what to do first, and that
    // a question waits elsewhere, with a way to it.
    let empty = text(&client, "#inbox-empty").await?;
    ensure!(
        empty.contains("switchboard hooks install") && empty.contains("New agent"),
        "the first screen says what to do first: {empty:?}"
    );
    until(
        &client,
        "document.querySelector('#elsewhere-bar')",
        "the inbox shows the question waiting in api",
    )
    .await?;
    let elsewhere = text(&client, "#elsewhere-bar").await?;
    ensure!(
        elsewhere.contains("1 question waits in another workspace: api"),
        "{elsewhere:?}"
    );
    // Its workspace, named on the page and in the tab, with the count.
    until(
        &client,
        "document.title === 'ws (1 waiting) — Switchboard'",
        "the tab names its workspace and what waits",
    )
    .await?;
    let named = client
        .execute(
            "const e = document.querySelector('#workspace-path .workspace-name'); \
             return e.getBoundingClientRect().width > 0 ? e.textContent : ''",
            vec![],
        )
        .await?;
    ensure!(named == "ws", "the page names its workspace: {named}");
    until(
        &client,
        "document.querySelector('#connection')?.dataset.state === 'connected'",
        "the page says it is connected",
    )
    .await?;
    shot(&client, &binaries, "inbox").await?;

    // Only what a browser may do is offered.
    for absent in ["#nav-chat", "#nav-knowledge"] {
        ensure!(
            client.find_all(Locator::Css(absent)).await?.is_empty(),
            "{absent} is the window's alone and not offered"
        );
    }
    ensure!(text(&client, "#nav-settings").await? == "This browser");
    click(&client, "#nav-settings").await?;
    let withheld = text(&client, "#this-browser-withheld").await?;
    ensure!(
        withheld.contains("Paired browsers may start agents")
            && withheld.contains("Paired browsers may take program sessions over")
            && withheld.contains("chat")
            && !withheld.contains('_'),
        "what it may not do, up front and in words: {withheld:?}"
    );
    ensure!(
        text(&client, "#this-browser-scope")
            .await?
            .contains("every workspace"),
        "what a paired browser reaches"
    );
    ensure!(
        client
            .find_all(Locator::Css("#settings-save"))
            .await?
            .is_empty(),
        "no Save offered in a browser"
    );
    shot(&client, &binaries, "this-browser").await?;

    click(&client, "#nav-agents").await?;
    let off = text(&client, "#new-agent-off").await?;
    ensure!(
        off.contains("Paired browsers may start agents")
            && client
                .find_all(Locator::Css("#new-agent"))
                .await?
                .is_empty(),
        "New agent is not offered, and why is said: {off:?}"
    );
    until(
        &client,
        "document.querySelector('.workspace-waiting.count')",
        "All workspaces counts what waits in api",
    )
    .await?;
    let ratio = contrast(&client, ".workspace-waiting.count").await?;
    ensure!(
        ratio >= 4.5,
        "the waiting badge reads at {ratio:.2}:1, past WCAG's 4.5:1"
    );
    shot(&client, &binaries, "agents").await?;

    // The keys reach the question elsewhere: Alt+J from the inbox, then
    // Enter opens it; answered here, the agent in api goes on.
    click(&client, "#nav-inbox").await?;
    client
        .find(Locator::Css("body"))
        .await?
        .send_keys(&format!(
            "{}j{}",
            char::from(Key::Alt),
            char::from(Key::Alt)
        ))
        .await?;
    until(
        &client,
        "document.activeElement?.matches('.workspace-question') && \
         document.activeElement.textContent.includes('Deploy api?')",
        "Alt+J brings the focus to the question waiting in api",
    )
    .await?;
    client
        .active_element()
        .await?
        .send_keys(&char::from(Key::Enter).to_string())
        .await?;
    click(&client, "#feedback-confirm").await?;
    let answered: Value = serde_json::from_slice(&asker.wait_with_output()?.stdout)?;
    ensure!(
        answered["status"] == "responded" && answered["response"]["value"] == true,
        "api's agent got the answer given by keys on the phone: {answered}"
    );

    // Allowed in the window's Settings, New agent is offered next time
    // the page reads what it may do.
    std::fs::write(config.join("settings.json"), r#"{"browserStart": true}"#)?;
    click(&client, "#nav-settings").await?;
    until(
        &client,
        "document.querySelector('#this-browser-allowed')?.textContent.includes('Start agents')",
        "the grant shows once allowed",
    )
    .await?;
    click(&client, "#nav-agents").await?;
    text(&client, "#new-agent").await?;
    client.close().await?;
    Ok(())
}

#[tokio::test(flavor = "current_thread")]
async fn a_phone_says_when_it_is_cut_off_reads_again_once_back_and_knows_when_it_is_revoked()
-> Result<()> {
    let binaries = Binaries::locate()?;
    let folders = Folders::new()?;
    let (workspace, config, profile) = (&folders.workspace, &folders.config, &folders.profile);
    let served = Served::start(&binaries, workspace, config)?;
    let listen = served.origin.trim_start_matches("http://").to_owned();
    let chromium = Chromium::start(profile).await?;
    let client = chromium.client.clone();
    chromium.pair(&served).await?;
    text(&client, "#inbox-empty").await?;
    until(
        &client,
        "document.querySelector('#connection')?.dataset.state === 'connected'",
        "connected",
    )
    .await?;

    // The server stops: the page says so before anything is tapped.
    drop(served);
    until(
        &client,
        "document.querySelector('#connection')?.dataset.state === 'reconnecting' && \
         document.querySelector('#connection-banner')",
        "a stopped server shows as a lost connection",
    )
    .await?;
    let banner = text(&client, "#connection-banner").await?;
    ensure!(banner.contains("Not connected"), "{banner:?}");
    // Tapped meanwhile: words, no stack trace.
    click(&client, "#nav-agents").await?;
    click(&client, "#nav-inbox").await?;
    until(
        &client,
        "document.querySelector('#view-inbox .error')",
        "the inbox says it could not read",
    )
    .await?;
    let said = text(&client, "#view-inbox .error").await?;
    ensure!(
        said.contains("cannot be reached")
            && !said.contains("JsValue")
            && !said.contains("TypeError")
            && !said.contains("shim.js"),
        "a lost connection in words: {said:?}"
    );
    shot(&client, &binaries, "reconnecting").await?;

    // An agent delivers while the phone is cut off; the server comes back
    // where the page finds it: the page reads again by itself.
    binaries.deliver(workspace, "Sent while away", "hello")?;
    let served = Served::start_listening(&binaries, workspace, config, &listen, &[])?;
    until(
        &client,
        "document.querySelector('#connection')?.dataset.state === 'connected' && \
         !document.querySelector('#connection-banner') && \
         [...document.querySelectorAll('#inbox-list .delivery')].some(row => row.textContent.includes('Sent while away'))",
        "back, the inbox shows what came meanwhile without switching views",
    )
    .await?;

    // Revoked on the machine: at its next event the page is told, in
    // words, before anything is tapped.
    let listed = binaries
        .cli(workspace)
        .args(["serve", "--sessions"])
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .output()?;
    let id = String::from_utf8_lossy(&listed.stdout)
        .split('\t')
        .next()
        .unwrap_or_default()
        .to_owned();
    let revoked = binaries
        .cli(workspace)
        .args(["serve", "--revoke", &id])
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .status()?;
    ensure!(revoked.success(), "could not revoke {id:?}");
    binaries.deliver(workspace, "After the revocation", "hello")?;
    until(
        &client,
        "document.querySelector('#connection')?.dataset.state === 'unpaired'",
        "a revoked browser is told it is no longer paired",
    )
    .await?;
    let banner = text(&client, "#connection-banner").await?;
    ensure!(
        banner.contains("no longer paired") && banner.contains("switchboard pair"),
        "{banner:?}"
    );
    shot(&client, &binaries, "unpaired").await?;
    drop(served);
    client.close().await?;
    Ok(())
}
