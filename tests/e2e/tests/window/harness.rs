//! Shared set-up for the window tests: one display and one driver for the
//! whole run, and a helper that runs a test body in a fresh app session.

use std::{path::Path, sync::Arc};

use anyhow::Result;
use switchboard_e2e::{Binaries, Display, Driver, Session};

/// What every test shares.
pub struct Environment {
    pub binaries: Binaries,
    runtime: tokio::runtime::Runtime,
    // Dropped in field order: the driver before the display it draws on.
    driver: Driver,
    display: Display,
}

impl Environment {
    pub fn start() -> Result<Self> {
        let binaries = Binaries::locate()?;
        let display = Display::start()?;
        let driver = Driver::start(&display)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        Ok(Self {
            binaries,
            runtime,
            driver,
            display,
        })
    }

    /// `switchboard-app ARGS…` started outside the driver, on the same
    /// display and session bus as the apps under test.
    pub fn app_command(&self, arguments: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(&self.binaries.app);
        command
            .args(arguments)
            .env("DISPLAY", &self.display.name)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.display.bus)
            .env("NO_AT_BRIDGE", "1")
            .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
        command
    }

    /// `xdotool ARGS…` on the apps' display, given 20 s at most (its
    /// `search --sync` would wait for ever), so a test can type into a
    /// native dialog as a person would.
    pub fn xdotool(&self, arguments: &[&str]) -> Result<String> {
        let output = std::process::Command::new("timeout")
            .arg("20")
            .arg("xdotool")
            .args(arguments)
            .env("DISPLAY", &self.display.name)
            .output()?;
        anyhow::ensure!(
            output.status.success(),
            "xdotool {arguments:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }

    /// Waits for the native save dialog titled `title`, then types `path`
    /// into its name field and presses Enter, or presses Escape for `None`.
    pub fn answer_save_dialog(&self, title: &str, path: Option<&Path>) -> Result<()> {
        let found = self.xdotool(&[
            "search",
            "--sync",
            "--onlyvisible",
            "--name",
            &format!("^{title}$"),
        ])?;
        let window = found.lines().next().unwrap_or_default().to_owned();
        self.xdotool(&["windowfocus", "--sync", &window])?;
        match path {
            Some(path) => {
                self.xdotool(&["key", "--clearmodifiers", "ctrl+a"])?;
                self.xdotool(&["type", "--delay", "5", &path.display().to_string()])?;
                self.xdotool(&["key", "Return"])?;
            }
            None => {
                self.xdotool(&["key", "Escape"])?;
            }
        }
        Ok(())
    }

    /// Saves a screenshot of the display as `target/e2e/<name>`.
    pub fn screenshot(&self, name: &str) -> Result<()> {
        self.display.screenshot(&artifact(name))
    }

    /// Opens the app on `workspace`, runs `body`, and always closes the app.
    pub fn with_app(
        &self,
        workspace: &Path,
        body: impl AsyncFnOnce(&Session) -> Result<()>,
    ) -> Result<()> {
        self.with_app_args(workspace, &[], body)
    }

    /// [`Environment::with_app`] with extra app arguments. The app's
    /// settings, Claude Code's folder and ClaudeControl's are fresh empty
    /// folders unless the arguments name others (`--config-dir`,
    /// `--claude-dir`, `--claude-control-dir`), so the developer's own never
    /// leak in.
    pub fn with_app_args(
        &self,
        workspace: &Path,
        arguments: &[&str],
        body: impl AsyncFnOnce(&Session) -> Result<()>,
    ) -> Result<()> {
        let config = tempfile::tempdir()?;
        let config_path = config.path().display().to_string();
        let claude_path = config.path().join("claude").display().to_string();
        let claude_control_path = config.path().join("claude-control").display().to_string();
        let mut all = vec!["--config-dir", config_path.as_str()];
        if !arguments.contains(&"--claude-dir") {
            all.extend(["--claude-dir", claude_path.as_str()]);
        }
        if !arguments.contains(&"--claude-control-dir") {
            all.extend(["--claude-control-dir", claude_control_path.as_str()]);
        }
        all.extend_from_slice(arguments);
        self.runtime.block_on(async {
            let session = Session::open_with(&self.driver, &self.binaries, workspace, &all).await?;
            let outcome = body(&session).await;
            let closed = session.close().await;
            outcome.and(closed)
        })
    }
}

/// Wraps a test body as a libtest-mimic trial.
pub fn trial(
    environment: &Arc<Environment>,
    name: &'static str,
    test: fn(&Environment) -> Result<()>,
) -> libtest_mimic::Trial {
    let environment = Arc::clone(environment);
    libtest_mimic::Trial::test(name, move || {
        test(&environment).map_err(|error| format!("{error:#}").into())
    })
}

/// Where screenshots go: `target/e2e/`.
fn artifact(name: &str) -> std::path::PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("e2e").join(name)
}

/// Waits until `check` holds (the UI saves asynchronously); an error from
/// `check` counts as "not yet".
pub async fn eventually(what: &str, check: impl Fn() -> Result<bool>) -> Result<()> {
    until(what, switchboard_e2e::WAIT, || {
        let held = check().unwrap_or(false);
        async move { Ok(held.then_some(())) }
    })
    .await
}

/// What `check` finds once it finds something: the one wait of these
/// tests for what nothing announces (a file another process writes, the
/// page's state), asked every 25 ms for `limit`; an error from `check`
/// ends the wait, `what` names it when time runs out.
pub async fn until<T, Found: Future<Output = Result<Option<T>>>>(
    what: &str,
    limit: std::time::Duration,
    mut check: impl FnMut() -> Found,
) -> Result<T> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(found) = check().await? {
            return Ok(found);
        }
        if std::time::Instant::now() > deadline {
            anyhow::bail!("{what} never happened within {limit:?}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

/// Opens `view` from the navigation and waits until it shows.
pub async fn go(session: &switchboard_e2e::Session, view: &str) -> Result<()> {
    session.find(&format!("#nav-{view}")).await?.click().await?;
    session.find(&format!("#view-{view}")).await?;
    Ok(())
}

/// Waits until the Chat view's model link is up, then sends `message`
/// as a person would: typed into the composer, sent with the button.
pub async fn send_chat(session: &switchboard_e2e::Session, message: &str) -> Result<()> {
    session
        .wait_for_text("#sidecar-health", |text| text == "model link ready")
        .await?;
    session
        .find("#chat-input")
        .await?
        .send_keys(message)
        .await?;
    session.find("#chat-send").await?.click().await?;
    Ok(())
}

/// Run in the page: collects its errors and panics (`console.error`,
/// uncaught errors) into `window.__errors`.
pub const CAPTURE_ERRORS: &str = r#"
window.__errors = [];
const original = console.error;
console.error = (...parts) => { window.__errors.push(parts.map(String).join(' ')); original(...parts); };
window.addEventListener('error', (event) => window.__errors.push(String(event.message)));
"#;

/// The errors [`CAPTURE_ERRORS`] collected so far.
pub async fn page_errors(session: &Session) -> Result<Vec<String>> {
    let errors = session
        .client
        .execute("return window.__errors", vec![])
        .await?;
    Ok(serde_json::from_value(errors).unwrap_or_default())
}

/// Scrolls the inbox list down a screen at a time, as a user looks for a
/// row, until delivery `id`'s row is drawn (only the rows near the view
/// are). Answers whether it was found.
const SCROLL_TO_ROW: &str = r#"
const [id, done] = arguments;
const scroller = document.querySelector('.delivery-scroller');
const row = () => document.querySelector(`#inbox-list .delivery[data-id='${id}']`);
let top = 0;
const look = () => {
  if (row()) {
    row().scrollIntoView({block: 'center'});
    return requestAnimationFrame(() => requestAnimationFrame(() => done(true)));
  }
  if (!scroller || top > scroller.scrollHeight) return done(false);
  scroller.scrollTop = top;
  top += scroller.clientHeight;
  requestAnimationFrame(() => requestAnimationFrame(look));
};
look();
"#;

/// Opens delivery `id` from the inbox list and waits for its view.
pub async fn open_delivery(session: &Session, id: &str) -> Result<()> {
    session.find("#inbox-list").await?;
    session
        .client
        .execute_async(SCROLL_TO_ROW, vec![serde_json::Value::from(id)])
        .await?;
    session
        .find(&format!("#inbox-list .delivery[data-id='{id}']"))
        .await?
        .click()
        .await?;
    session
        .find(&format!("#delivery-view[data-id='{id}'] #delivery-title"))
        .await?;
    Ok(())
}
