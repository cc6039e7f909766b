//! One WebDriver session: the app running on one workspace, driven through
//! its real WebKitGTK webview.

use std::{
    path::Path,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use fantoccini::{Client, ClientBuilder, Locator, elements::Element};
use hyper_util::client::legacy::connect::HttpConnector;

use crate::{Binaries, Driver};

/// How long a test waits for something to appear before failing. A bound
/// against hangs, not a performance goal.
pub const WAIT: Duration = Duration::from_secs(20);

/// The longest an app may take to open its window for the driver (a few
/// seconds on a loaded machine; far more means it never will).
const START: Duration = Duration::from_secs(180);

/// The app on a workspace, under WebDriver control. Call [`Session::close`]
/// to end the app.
pub struct Session {
    /// The raw WebDriver client, for anything the helpers do not cover.
    pub client: Client,
}

impl Session {
    /// Launches the app on `workspace` through `driver`.
    pub async fn open(driver: &Driver, binaries: &Binaries, workspace: &Path) -> Result<Self> {
        Self::open_with(driver, binaries, workspace, &[]).await
    }

    /// Launches the app on `workspace` with extra command-line `arguments`.
    pub async fn open_with(
        driver: &Driver,
        binaries: &Binaries,
        workspace: &Path,
        arguments: &[&str],
    ) -> Result<Self> {
        let mut args = vec![serde_json::Value::from(workspace.display().to_string())];
        args.extend(
            arguments
                .iter()
                .map(|argument| serde_json::Value::from(*argument)),
        );
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), "wry".into());
        capabilities.insert(
            "tauri:options".into(),
            serde_json::json!({
                "application": binaries.app,
                "args": args,
            }),
        );
        // An app that dies before its webview reaches the driver (its
        // display refused it) leaves the driver waiting for good: the
        // test fails saying so instead of hanging the run.
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(capabilities);
        let connecting = builder.connect(&driver.url);
        let client = tokio::time::timeout(START, connecting)
            .await
            .with_context(|| {
                format!(
                    "the app did not reach the WebDriver within {START:?} (see its output above)"
                )
            })?
            .context("could not start a WebDriver session with the app")?;
        Ok(Self { client })
    }

    /// Waits for an element matching `css`.
    pub async fn find(&self, css: &str) -> Result<Element> {
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .with_context(|| format!("no element {css} appeared within {WAIT:?}"))
    }

    /// Waits until the element matching `css` has text for which `accept`
    /// holds, and returns that text.
    pub async fn wait_for_text(&self, css: &str, accept: impl Fn(&str) -> bool) -> Result<String> {
        let deadline = Instant::now() + WAIT;
        let mut last = String::new();
        loop {
            if let Ok(element) = self.client.find(Locator::Css(css)).await
                && let Ok(text) = element.text().await
            {
                if accept(&text) {
                    return Ok(text);
                }
                last = text;
            }
            if Instant::now() > deadline {
                bail!("{css} never showed the expected text within {WAIT:?}; last text: {last:?}");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Waits until the JavaScript expression `condition` is true in the page
    /// (the focus or a count the UI updates after an event, say).
    pub async fn wait_until(&self, condition: &str) -> Result<()> {
        let deadline = Instant::now() + WAIT;
        let script = format!("return Boolean({condition});");
        loop {
            if let Ok(serde_json::Value::Bool(true)) = self.client.execute(&script, vec![]).await {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("{condition} never held within {WAIT:?}");
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The texts of every element matching `css`, in document order.
    pub async fn texts(&self, css: &str) -> Result<Vec<String>> {
        let mut texts = Vec::new();
        for element in self.client.find_all(Locator::Css(css)).await? {
            texts.push(element.text().await?);
        }
        Ok(texts)
    }

    /// Opens the Agents view's "New agent" form and types `prompt` and
    /// `name` in it (Start is left to the caller).
    pub async fn fill_new_agent(&self, prompt: &str, name: &str) -> Result<()> {
        self.find("#nav-agents").await?.click().await?;
        self.find("#new-agent").await?.click().await?;
        self.find("#new-agent-prompt")
            .await?
            .send_keys(prompt)
            .await?;
        self.find("#new-agent-name").await?.send_keys(name).await?;
        Ok(())
    }

    /// Ends the session and with it the app.
    pub async fn close(self) -> Result<()> {
        self.client
            .close()
            .await
            .context("could not end the WebDriver session")
    }
}
