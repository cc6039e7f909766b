//! Agents' own questions in the real window: Claude Code (the real CLI,
//! its model scripted on loopback) asks permission through the hook while
//! the developer is in another view; Alt+J finds it, Enter opens its
//! question, `y` allows it, and Claude Code goes on. The Agents view
//! follows agents while it is closed and shows what they do when it opens
//! again.

use std::{io::Write, path::Path, process::Stdio, sync::Arc};

use anyhow::{Context, Result, ensure};
use fantoccini::{Locator, key::Key};
use serde_json::{Value, json};
use switchboard_e2e::{
    Session,
    project::{git, git_project},
};
use switchboard_model_server::{
    anthropic::{MessagesServer, Turn},
    claude_code::ClaudeCode,
};

use crate::harness::{CAPTURE_ERRORS, Environment, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "agents::a_permission_request_is_found_and_allowed_from_the_keyboard",
            a_permission_request_is_found_and_allowed_from_the_keyboard,
        ),
        trial(
            environment,
            "agents::the_agents_view_shows_who_waits_and_the_shortcut_jumps_to_it",
            the_agents_view_shows_who_waits_and_the_shortcut_jumps_to_it,
        ),
        trial(
            environment,
            "agents::the_window_serves_mcp_over_http_when_asked_and_shows_who_delivered",
            the_window_serves_mcp_over_http_when_asked_and_shows_who_delivered,
        ),
        trial(
            environment,
            "agents::an_agent_started_from_the_window_is_answered_reviewed_and_merged",
            an_agent_started_from_the_window_is_answered_reviewed_and_merged,
        ),
        trial(
            environment,
            "agents::an_agent_started_from_a_task_card_claims_it_and_the_card_follows_it",
            an_agent_started_from_a_task_card_claims_it_and_the_card_follows_it,
        ),
        trial(
            environment,
            "agents::a_started_agent_is_trusted_from_the_inbox_and_taken_over_for_a_follow_up",
            a_started_agent_is_trusted_from_the_inbox_and_taken_over_for_a_follow_up,
        ),
    ]
}

/// Presses Alt+`key` anywhere in the window.
async fn alt(session: &Session, key: char) -> Result<()> {
    let body = session.client.find(Locator::Css("body")).await?;
    body.send_keys(&format!(
        "{}{key}{}",
        char::from(Key::Alt),
        char::from(Key::Alt)
    ))
    .await?;
    Ok(())
}

/// Presses `keys` where the focus is.
async fn press(session: &Session, keys: &str) -> Result<()> {
    session
        .client
        .active_element()
        .await?
        .send_keys(keys)
        .await?;
    Ok(())
}

fn a_permission_request_is_found_and_allowed_from_the_keyboard(
    environment: &Environment,
) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join("build"))?;
    let project = project.canonicalize()?;
    let installed = environment
        .binaries
        .cli(&project)
        .args(["hooks", "install", "claude-code", "--write"])
        .output()?;
    ensure!(installed.status.success(), "hooks install failed");
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &project);
    let server = MessagesServer::start(vec![
        Turn::tool(
            "Bash",
            json!({"command": "rm -rf build", "description": "Remove the build"}),
        ),
        Turn::text("Done."),
    ]);
    let bin = environment
        .binaries
        .cli
        .parent()
        .context("the CLI has a folder")?
        .to_owned();
    // The window and the agent's hook share a config folder, as they do
    // by default: the answer's receipt is kept there.
    let config = dir.path().join("config");
    let config_dir = config.display().to_string();
    environment.with_app_args(
        &project,
        &["--config-dir", &config_dir],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            // The developer is elsewhere when the agent asks.
            session.find("#nav-terminals").await?.click().await?;
            session.find("#view-terminals").await?;
            let agent = claude
                .print(&server, "tidy up", &bin)
                .env("SWITCHBOARD_CONFIG_DIR", &config)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()?;
            // The sidebar counts the waiting agent while the developer looks
            // elsewhere.
            if let Err(error) = session
                .wait_for_text("#agents-waiting", |text| text == "1")
                .await
            {
                let mut agent = agent;
                let _ = agent.kill();
                let output = agent.wait_with_output()?;
                let agents = std::fs::read_dir(project.join(".switchboard/agents"))
                    .map(|entries| entries.count())
                    .unwrap_or(0);
                anyhow::bail!(
                    "{error}; {agents} agent files; claude said: {} {}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            alt(session, 'j').await?;
            session
                .find("#view-agents .agent-row.selected.waits")
                .await?;
            let row = session
                .wait_for_text("#view-agents .agent-row.selected", |text| {
                    text.contains("needs permission")
                })
                .await?;
            ensure!(
                row.contains("Claude Code"),
                "the row names the agent: {row:?}"
            );
            session.find("#nav-agents[aria-current='page']").await?;
            let body = session.client.find(Locator::Css("body")).await?;
            body.send_keys(&Key::Enter.to_string()).await?;
            session
                .wait_for_text("#delivery-title", |text| {
                    text == "Claude Code wants to run `rm -rf build`"
                })
                .await?;
            let shown = session
                .wait_for_text("#delivery-view", |text| text.contains("rm -rf build"))
                .await?;
            ensure!(
                shown.contains("Remove the build"),
                "the description shows: {shown:?}"
            );
            session.find("#permission-terminal").await?;
            // `rm -rf build` is kept by Claude Code as a folder for the
            // session, never a rule: no "always", and why.
            session.find("#permission-no-always").await?;
            ensure!(
                session.texts("#permission-always").await?.is_empty(),
                "no \"always\" where no rule allows exactly this"
            );
            // The window noted that the developer has it open (an agent
            // polling a task hears "opened in the window").
            crate::harness::eventually("the question is marked opened", || {
                let text =
                    std::fs::read_to_string(project.join(".visual-delivery/data/deliveries.json"))?;
                Ok(text.contains("\"opened_at\""))
            })
            .await?;
            // A second Enter (one more than opened it) decides nothing: the
            // form, not Allow, has the focus.
            press(session, &Key::Enter.to_string()).await?;
            let focused = session
                .client
                .execute(
                    "return document.activeElement && document.activeElement.id",
                    vec![],
                )
                .await?;
            ensure!(
                focused == json!("permission-form"),
                "the focus after a stray Enter: {focused}"
            );
            ensure!(
                std::fs::read_to_string(project.join(".visual-delivery/data/deliveries.json"))?
                    .contains("awaiting_feedback"),
                "a stray Enter allowed the request"
            );
            press(session, "y").await?;

            let output = agent.wait_with_output()?;
            let result: Value = serde_json::from_slice(&output.stdout)?;
            ensure!(result["result"] == "Done.", "Claude Code went on: {result}");
            ensure!(!project.join("build").exists(), "the allowed command ran");
            session
                .wait_for_text("#delivery-status", |text| text == "allowed")
                .await?;
            // Decided, it reads as the decision, here and in the list.
            session
                .wait_for_text("#permission-decision", |text| text == "Allowed")
                .await?;
            session.find("#nav-inbox").await?.click().await?;
            session
                .wait_for_text("#inbox-list .delivery .badge.status-allowed", |text| {
                    text == "allowed"
                })
                .await?;
            // Another session's two requests, decided: they fold under it,
            // and open in place.
            decide(
                environment,
                &project,
                "s-fold1234",
                None,
                ["--value", "true"],
            )?;
            decide(
                environment,
                &project,
                "s-fold1234",
                None,
                ["--value", "false"],
            )?;
            let fold = session
                .wait_for_text("#inbox-list .delivery.fold", |text| {
                    text.contains("Claude Code s-fold12 · 2 decided requests (1 allowed, 1 denied)")
                })
                .await?;
            ensure!(fold.contains("decided"), "{fold:?}");
            // A started agent's decided requests fold under its name.
            decide(
                environment,
                &project,
                "s-help5678",
                Some("helper"),
                ["--value", "true"],
            )?;
            decide(
                environment,
                &project,
                "s-help5678",
                Some("helper"),
                ["--value", "true"],
            )?;
            session
                .wait_for_text("#inbox-list", |text| {
                    text.contains("helper (Claude Code) · 2 decided requests (2 allowed)")
                })
                .await?;
            environment.screenshot("inbox-decided-named.png")?;
            ensure!(
                session
                    .texts("#inbox-list .badge.status-denied")
                    .await?
                    .is_empty(),
                "folded away"
            );
            session
                .find("#inbox-list .delivery.fold[data-id='fold:claude-code-s-fold1234']")
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#inbox-list .delivery .badge.status-denied", |text| {
                    text == "denied"
                })
                .await?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        },
    )
}

/// A permission request of agent session `session` in `workspace` (of
/// the started agent `launch`, when given), asked through `switchboard
/// hook`, read with `switchboard show ID` and answered with `switchboard
/// answer ID --seen … ANSWER…`, as an agent and a developer's script would.
fn decide(
    environment: &Environment,
    workspace: &Path,
    session: &str,
    launch: Option<&str>,
    answer: [&str; 2],
) -> Result<()> {
    let mut command = environment.binaries.cli(workspace);
    command
        .args(["hook", "--agent", "claude-code", "--wait", "60"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    if let Some(launch) = launch {
        command.env(switchboard_model::agent::launch::AGENT_ENV, launch);
    }
    let mut child = command.spawn()?;
    let event = json!({
        "session_id": session, "cwd": workspace, "hook_event_name": "PermissionRequest",
        "tool_name": "Bash", "tool_input": {"command": "cargo test"},
    });
    child
        .stdin
        .take()
        .context("stdin")?
        .write_all(event.to_string().as_bytes())?;
    let id = asked(workspace)?;
    // Read first, then answered as read (`show` prints the --seen).
    let shown = environment
        .binaries
        .cli(workspace)
        .args(["show", &id])
        .output()?;
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    let seen = shown
        .split_once("--seen ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .with_context(|| format!("show says how to answer what it shows: {shown}"))?;
    let answered = environment
        .binaries
        .cli(workspace)
        .args(["answer", &id, "--seen", seen, answer[0], answer[1]])
        .output()?;
    ensure!(
        answered.status.success(),
        "answer failed: {}",
        String::from_utf8_lossy(&answered.stderr)
    );
    ensure!(child.wait()?.success(), "the hook failed");
    Ok(())
}

/// The id of the question waiting in `workspace`'s inbox, once there is
/// one: looked for now and at each change the store's watcher reports,
/// for the harness's wait at most.
fn asked(workspace: &Path) -> Result<String> {
    let store = switchboard_store::Workspace::open(workspace)?;
    let (changed, changes) = std::sync::mpsc::channel();
    let _watcher = switchboard_store::WorkspaceWatcher::start(&store, move |_| {
        let _ = changed.send(());
    })?;
    let deadline = std::time::Instant::now() + switchboard_e2e::WAIT;
    loop {
        let listed = switchboard_store::deliveries::list(&store)?;
        if let Some(open) = listed
            .deliveries
            .iter()
            .find(|delivery| delivery.status == switchboard_model::DeliveryStatus::AwaitingFeedback)
        {
            return Ok(open.id.clone());
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        ensure!(!left.is_zero(), "no question was asked");
        let _ = changes.recv_timeout(left);
    }
}

/// Runs `switchboard hook` with `event` on stdin, as an agent does.
fn hook(environment: &Environment, workspace: &Path, event: &Value) -> Result<()> {
    hook_of(environment, workspace, event, None)
}

/// [`hook`] as the started agent `launch` runs it, when given.
fn hook_of(
    environment: &Environment,
    workspace: &Path,
    event: &Value,
    launch: Option<&str>,
) -> Result<()> {
    let mut command = environment.binaries.cli(workspace);
    command
        .args(["hook", "--agent", "claude-code"])
        .stdin(Stdio::piped());
    if let Some(launch) = launch {
        command.env(switchboard_model::agent::launch::AGENT_ENV, launch);
    }
    let mut child = command.spawn()?;
    child
        .stdin
        .take()
        .context("stdin")?
        .write_all(event.to_string().as_bytes())?;
    ensure!(child.wait()?.success(), "the hook failed");
    Ok(())
}

fn the_agents_view_shows_who_waits_and_the_shortcut_jumps_to_it(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path().canonicalize()?;
    let event = |session: &str, name: &str, extra: Value| {
        let mut event = json!({"session_id": session, "cwd": root, "hook_event_name": name});
        if let (Some(event), Some(extra)) = (event.as_object_mut(), extra.as_object()) {
            event.extend(extra.clone());
        }
        event
    };
    environment.with_app(&root, async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        alt(session, '2').await?;
        session.find("#view-agents #agents-empty").await?;
        // Two agents appear while the view is open: one working, one
        // waiting for input.
        hook(environment, &root, &event("busy-one", "SessionStart", json!({})))?;
        hook(environment, &root, &event("idle-one", "SessionStart", json!({})))?;
        hook(environment, &root, &event("idle-one", "Notification", json!({"message": "Claude is waiting for your input", "notification_type": "idle_prompt"})))?;
        session
            .wait_for_text("#agent-list", |text| text.contains("waiting for input") && text.contains("working"))
            .await?;
        let rows = session.texts("#agent-list > .agent-row").await?;
        ensure!(rows.len() == 2, "two rows: {rows:?}");
        ensure!(rows[0].contains("waiting for input") && rows[0].contains("Claude is waiting for your input"), "the waiting one first, with why: {rows:?}");
        // The inbox shows a strip for it; Alt+J comes back to it selected.
        alt(session, '1').await?;
        let strip = session.wait_for_text("#agents-strip", |text| text.contains("1 agent waiting")).await?;
        ensure!(strip.contains("waiting for input"), "{strip:?}");
        // Meanwhile the busy agent finishes its turn, unseen; a minute on,
        // Claude Code says it idles at its prompt: no question, nothing
        // more waits.
        hook(environment, &root, &event("busy-one", "Stop", json!({})))?;
        hook(environment, &root, &event("busy-one", "Notification", json!({"message": "Claude is waiting for your input", "notification_type": "idle_prompt"})))?;
        // Another agent starts after both were told: once it shows, so
        // does what they said.
        hook(environment, &root, &event("short-one", "SessionStart", json!({})))?;
        alt(session, 'j').await?;
        session.find("#view-agents").await?;
        let selected = session.find("#view-agents .agent-row.selected").await?;
        let id = selected.attr("id").await?.unwrap_or_default();
        ensure!(id.ends_with("idle-one"), "Alt+J selects the waiting agent: {id}");
        session
            .wait_for_text("#agent-list", |text| text.contains("turn finished"))
            .await?;
        crate::harness::until("the third agent shows", switchboard_e2e::WAIT, || async {
            Ok((session.texts("#agent-list > .agent-row").await?.len() == 3).then_some(()))
        })
        .await?;
        ensure!(
            session.find("#agents-waiting").await?.text().await? == "1",
            "a finished turn is not counted as waiting"
        );
        // The developer answers it at its prompt: it works again.
        hook(environment, &root, &event("idle-one", "UserPromptSubmit", json!({"prompt": "go on"})))?;
        session
            .wait_for_text("#agent-list > .agent-row:first-child", |text| text.contains("working"))
            .await?;
        // An agent that ends folds away into one line, out of the list.
        hook(environment, &root, &event("short-one", "SessionEnd", json!({})))?;
        session
            .wait_for_text("#agents-gone summary", |text| text == "1 agent ended")
            .await?;
        let live = session.texts("#agent-list > .agent-row").await?;
        ensure!(live.len() == 2, "the ended agent left the list: {live:?}");
        // Opened from the sidebar, the view takes the keys at once.
        session.find("#nav-inbox").await?.click().await?;
        session.find("#view-inbox").await?;
        session.find("#nav-agents").await?.click().await?;
        session.find("#view-agents #agent-list").await?;
        let first = session
            .find("#view-agents #agent-list .agent-row.selected")
            .await?
            .attr("id")
            .await?
            .unwrap_or_default();
        // A key from the keyboard, as a person presses it (not into an
        // element, as WebDriver types).
        environment.xdotool(&["key", "Down"])?;
        let moved = crate::harness::until("the arrow moves the selection", switchboard_e2e::WAIT, || async {
            let now = session
                .find("#view-agents #agent-list .agent-row.selected")
                .await?
                .attr("id")
                .await?
                .unwrap_or_default();
            Ok((now != first).then_some(now))
        })
        .await?;
        ensure!(moved.starts_with("agent-"), "{moved}");
        // A started agent waiting at its prompt is named in the strip.
        hook_of(environment, &root, &event("named-one", "SessionStart", json!({})), Some("helper"))?;
        hook_of(environment, &root, &event("named-one", "Notification", json!({"message": "Claude is waiting for your input", "notification_type": "idle_prompt"})), Some("helper"))?;
        alt(session, '1').await?;
        session
            .wait_for_text("#agents-strip", |text| {
                text.contains("helper (Claude Code): waiting for input")
            })
            .await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })
}

/// POSTs a stateless (2026-07-28) `method` to `address`'s `/mcp`; the
/// status and the answer's text.
fn post(
    address: &str,
    bearer: Option<&str>,
    method: &str,
    name: &str,
    params: Value,
) -> Result<(u16, String)> {
    use std::io::Read;
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "1"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut stream = std::net::TcpStream::connect(address)?;
    let authorization = bearer
        .map(|token| format!("Authorization: Bearer {token}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\n{authorization}Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    Ok((status, answer))
}

fn the_window_serves_mcp_over_http_when_asked_and_shows_who_delivered(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let config = tempfile::tempdir()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    std::fs::write(
        config.path().join("settings.json"),
        json!({"serveHttp": true, "httpPort": port}).to_string(),
    )?;
    let made = environment
        .binaries
        .cli(workspace.path())
        .args(["mcp", "token", "--name", "container:web"])
        .env("SWITCHBOARD_CONFIG_DIR", config.path())
        .output()?;
    ensure!(made.status.success(), "no token");
    let token = String::from_utf8(made.stdout)?.trim().to_owned();
    let config_dir = config.path().display().to_string();
    let address = format!("127.0.0.1:{port}");
    environment.with_app_args(workspace.path(), &["--config-dir", &config_dir], async |session: &Session| {
        session.find("#view-inbox").await?;
        // Settings names the URL once the server said it.
        let shown = crate::harness::until("the HTTP server's URL in Settings", switchboard_e2e::WAIT, || async {
            session.find("#nav-settings").await?.click().await?;
            session.find("#settings-path").await?;
            let urls = session.texts("#settings-http-url").await?;
            if urls.is_empty() {
                session.find("#nav-inbox").await?.click().await?;
            }
            Ok(urls.into_iter().next())
        })
        .await?;
        ensure!(shown == format!("http://{address}/mcp"), "{shown}");
        let (status, _) = post(&address, None, "tools/list", "tools/list", json!({}))?;
        ensure!(status == 401, "without a token: {status}");
        let (status, answer) = post(
            &address,
            Some(&token),
            "tools/call",
            "deliver",
            json!({"name": "deliver", "arguments": {"title": "Built in the container", "content": "Done."}}),
        )?;
        ensure!(status == 200, "with its token: {status} {answer}");
        session.find("#nav-inbox").await?.click().await?;
        let row = session
            .wait_for_text("#inbox-list", |text| text.contains("Built in the container"))
            .await?;
        ensure!(row.contains("from container:web"), "the row names who sent it: {row:?}");
        Ok(())
    })
}

/// A started agent the trial ends: `stop` ends it and says whether that
/// worked; a trial that fails before ends it on the way out.
struct Started<'a> {
    environment: &'a Environment,
    project: std::path::PathBuf,
    /// The window's config folder, which keeps its records of the agents
    /// it starts.
    config: std::path::PathBuf,
    name: &'static str,
    stopped: bool,
}

impl<'a> Started<'a> {
    fn new(
        environment: &'a Environment,
        project: &Path,
        config: &Path,
        name: &'static str,
    ) -> Self {
        Self {
            environment,
            project: project.to_owned(),
            config: config.to_owned(),
            name,
            stopped: false,
        }
    }

    /// `switchboard agent ARGS…` as the window's: its config folder.
    fn agent(&self, args: &[&str]) -> std::io::Result<std::process::Output> {
        self.environment
            .binaries
            .cli(&self.project)
            .env("SWITCHBOARD_CONFIG_DIR", &self.config)
            .arg("agent")
            .args(args)
            .output()
    }

    fn run_stop(&self) -> std::io::Result<std::process::Output> {
        self.agent(&["stop", self.name])
    }

    /// Ends the agent, which must work.
    fn stop(mut self) -> Result<()> {
        self.stopped = true;
        let stopped = self.run_stop()?;
        ensure!(
            stopped.status.success(),
            "{}",
            String::from_utf8_lossy(&stopped.stderr)
        );
        Ok(())
    }
}

impl Drop for Started<'_> {
    fn drop(&mut self) {
        if !self.stopped {
            let _ = self.run_stop();
        }
    }
}

/// A settings folder in `dir` naming, as the window's Claude Code, the
/// real one with `server` as its model and `claude`'s configuration.
fn scripted_claude(
    dir: &Path,
    claude: &ClaudeCode,
    server: &MessagesServer,
) -> Result<std::path::PathBuf> {
    switchboard_e2e::project::claude_code_settings(
        dir,
        &switchboard_model_server::claude_code::binary(),
        &claude.environment(&server.url()),
    )
}

fn an_agent_started_from_the_window_is_answered_reviewed_and_merged(
    environment: &Environment,
) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let project = git_project(dir.path(), &[("build/out.txt", "old\n")])?;
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &project);
    let server = MessagesServer::start(vec![
        Turn::tool(
            "Bash",
            json!({"command": "rm -rf build", "description": "Remove the build"}),
        ),
        Turn::text("Removed it."),
    ]);
    let config = scripted_claude(dir.path(), &claude, &server)?;
    let config_arg = config.display().to_string();
    // The agent runs in the session host: ended whatever the trial does.
    let started = Started::new(environment, &project, &config, "tidy");
    environment.with_app_args(
        &project,
        &["--config-dir", &config_arg],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            session
                .fill_new_agent("Remove the build folder", "tidy")
                .await?;
            session.find("#new-agent-start").await?.click().await?;
            // Its question comes to the inbox; the developer left the view and
            // the row follows meanwhile.
            session
                .wait_for_text("#launch-tidy .agent-state", |text| {
                    text == "needs permission"
                })
                .await?;
            session.find("#nav-inbox").await?.click().await?;
            session
                .wait_for_text("#inbox-list", |text| {
                    text.contains("tidy (Claude Code) wants to run `rm -rf build`")
                })
                .await?;
            let open =
                std::fs::read_to_string(project.join(".visual-delivery/data/deliveries.json"))?;
            let deliveries: Value = serde_json::from_str(&open)?;
            let id = deliveries[0]["id"]
                .as_str()
                .context("a question")?
                .to_owned();
            crate::harness::open_delivery(session, &id).await?;
            session.find("#permission-form").await?;
            press(session, "y").await?;
            session.find("#nav-agents").await?.click().await?;
            session
                .wait_for_text("#launch-tidy .agent-state", |text| text == "turn finished")
                .await?;
            ensure!(
                !project.join(".claude/worktrees/tidy/build").exists(),
                "it ran in its worktree"
            );
            // One agent, one row: its hooks' record is its started row's.
            ensure!(
                session.texts("#agent-list .agent-row").await?.is_empty(),
                "the started agent is listed twice"
            );
            let row = session
                .wait_for_text("#launch-tidy", |text| text.contains("Bash: rm -rf build"))
                .await?;
            ensure!(row.contains("switchboard/tidy"), "{row}");
            ensure!(
                project.join("build/out.txt").exists(),
                "the workspace is untouched until merged"
            );
            // Its terminal opens on the agent, not on its command line: who,
            // where, its state; the screen in view and all of its columns
            // in the pane.
            session
                .find("#launch-tidy .launch-terminal")
                .await?
                .click()
                .await?;
            session.find("#view-terminals").await?;
            session
                .wait_for_text("#terminal-screen", |text| text.contains("Removed it."))
                .await?;
            session
                .wait_for_text("#terminal-agent-state", |text| text == "turn finished")
                .await?;
            let head = session.find(".terminal-head").await?.text().await?;
            ensure!(
                head.contains("tidy")
                    && head.contains("Claude Code")
                    && head.contains(".claude/worktrees/tidy on switchboard/tidy"),
                "the header says who, where and how: {head:?}"
            );
            ensure!(
                !head.contains("--settings") && !head.contains("hook_event"),
                "no command line in the header: {head:?}"
            );
            let fits = session
                .client
                .execute(
                    "const screen = document.querySelector('#terminal-screen');
                     const box = screen.getBoundingClientRect();
                     return {top: box.top, bottom: box.bottom, height: window.innerHeight,
                             scroll: screen.scrollWidth, client: screen.clientWidth,
                             closed: !document.querySelector('#terminal-command').open};",
                    vec![],
                )
                .await?;
            ensure!(
                fits["closed"] == true,
                "the command line is on demand: {fits}"
            );
            ensure!(
                fits["top"].as_f64().unwrap_or(f64::MAX) < 200.0
                    && fits["bottom"].as_f64().unwrap_or(f64::MAX)
                        <= fits["height"].as_f64().unwrap_or(0.0),
                "the screen starts in view, whole: {fits}"
            );
            ensure!(
                fits["scroll"].as_f64() <= fits["client"].as_f64(),
                "its 120 columns fit the pane, nothing scrolls sideways: {fits}"
            );
            environment.screenshot("agents-terminal.png")?;
            session
                .find("#terminal-command summary")
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#terminal-command code", |text| text.contains("--settings"))
                .await?;
            session.find("#nav-agents").await?.click().await?;
            // Review: the removal, shown as a diff, under the one merge
            // there is for uncommitted work.
            session
                .find("#launch-tidy .launch-review")
                .await?
                .click()
                .await?;
            let review = session
                .wait_for_text("#review-tidy", |text| text.contains("build/out.txt"))
                .await?;
            ensure!(review.contains("1 not committed"), "{review}");
            session.find("#review-tidy .hl-deleted").await?;
            session
                .wait_for_text("#review-tidy .launch-merge", |text| {
                    text == "Commit its uncommitted work and merge"
                })
                .await?;
            environment.screenshot("agents-review.png")?;
            // Main changed the same file meanwhile: the refusal shows by
            // the button, in view, in the window's words.
            std::fs::write(project.join("build/out.txt"), "changed on main\n")?;
            git(&project, &["commit", "-qam", "Change the build on main"])?;
            session
                .find("#review-tidy .launch-merge")
                .await?
                .click()
                .await?;
            let refused = session
                .wait_for_text("#review-tidy .launch-outcome", |text| {
                    text.contains("would conflict")
                })
                .await?;
            ensure!(!refused.contains("--"), "no command-line words: {refused}");
            session
                .wait_until(
                    "document.querySelector('#review-tidy .launch-outcome').getBoundingClientRect().bottom <= window.innerHeight",
                )
                .await?;
            environment.screenshot("agents-merge-refused.png")?;
            // Its work was committed for the merge: the next one is a merge.
            session
                .wait_for_text("#review-tidy .launch-merge", |text| text == "Merge")
                .await?;
            git(&project, &["reset", "-q", "--hard", "HEAD~1"])?;
            session
                .find("#review-tidy .launch-merge")
                .await?
                .click()
                .await?;
            let landed = session.wait_for_text("#launch-landed", |_| true).await?;
            let head = git(&project, &["rev-parse", "HEAD"])?;
            ensure!(
                landed
                    == format!(
                        "Merged tidy into main: commit {}. Its program was ended: the agent is done.",
                        &head[..8]
                    ),
                "the merge names its commit: {landed}"
            );
            let folded = session
                .wait_for_text("#launches-folded #launch-tidy", |text| {
                    text.contains("Its program ended.")
                })
                .await?;
            ensure!(folded.contains(&head[..8]), "{folded}");
            ensure!(!project.join("build").exists(), "merged into main");
            ensure!(
                git(&project, &["log", "-1", "--format=%s"])?.trim()
                    == "Merge agent tidy (switchboard/tidy)",
                "the merge commit"
            );
            // A landed agent is done: its program ended with the merge.
            let listed = started.agent(&["list", "--json"])?;
            let rows: Value = serde_json::from_slice(&listed.stdout)?;
            ensure!(rows[0]["runs"] == false, "it still runs: {rows}");
            environment.screenshot("agents-merged.png")?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "page errors: {errors:?}");
            Ok(())
        },
    )?;
    started.stop()?;
    Ok(())
}

fn an_agent_started_from_a_task_card_claims_it_and_the_card_follows_it(
    environment: &Environment,
) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let project = git_project(dir.path(), &[("README.md", "# Project\n")])?;
    let claude = ClaudeCode::configure(&dir.path().join("claude-config"), &project);
    let server = MessagesServer::start(vec![Turn::text("Logged in.")]);
    let config = scripted_claude(dir.path(), &claude, &server)?;
    let config_arg = config.display().to_string();
    // The agent runs in the session host: ended whatever the trial does.
    let started = Started::new(environment, &project, &config, "add-login");
    environment.with_app_args(
        &project,
        &["--config-dir", &config_arg],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            // No team yet: the developer makes one here.
            session.find("#nav-team").await?.click().await?;
            session.find("#team-empty").await?;
            session.find("#team-new").await?.click().await?;
            session
                .find("#team-new-name")
                .await?
                .send_keys("a b")
                .await?;
            session.find("#team-create").await?.click().await?;
            session
                .wait_for_text("#team-create-error", |text| {
                    text.contains("Team name must be alphanumeric with hyphens/underscores")
                })
                .await?;
            let name = session.find("#team-new-name").await?;
            name.clear().await?;
            name.send_keys("web").await?;
            session.find("#team-create").await?.click().await?;
            session.find("#team-picker").await?;
            let config: Value = serde_json::from_str(&std::fs::read_to_string(
                project.join(".opencode/opencode-teams/teams/web/config.json"),
            )?)?;
            ensure!(
                config["leader"] == "leader" && config["dispatchRules"] == json!([]),
                "made as opencode-teams makes a team: {config}"
            );
            // An agent (or the developer) adds a task; the board follows.
            let created = environment
                .binaries
                .cli(&project)
                .args([
                    "task",
                    "create",
                    "--team",
                    "web",
                    "--title",
                    "Add login",
                    "--description",
                    "Use OAuth.",
                ])
                .output()?;
            ensure!(
                created.status.success(),
                "{}",
                String::from_utf8_lossy(&created.stderr)
            );
            let id = String::from_utf8(created.stdout)?.trim().to_owned();
            let card = format!(".task[data-id='{id}']");
            session
                .find(&format!("{card} .start-agent"))
                .await?
                .click()
                .await?;
            // The card follows its agent: claimed, working, ready to review.
            session
                .wait_for_text(&format!("{card} .task-agent"), |text| {
                    text == "add-login: ready to review"
                })
                .await?;
            session
                .wait_for_text(&format!("{card} .owner"), |text| text == "@add-login")
                .await?;
            let asked = server.loop_requests();
            ensure!(
                asked
                    .first()
                    .is_some_and(|request| request.to_string().contains("Use OAuth.")),
                "the agent was told its task"
            );
            ensure!(
                project.join(".claude/worktrees/add-login").is_dir(),
                "in its own worktree"
            );
            environment.screenshot("team-card.png")?;
            // The card leads to its agent: its review, its terminal.
            session
                .find(&format!("{card} .task-agent-review"))
                .await?
                .click()
                .await?;
            session.find("#view-agents #review-add-login").await?;
            session
                .wait_for_text("#review-add-login .launch-merge", |text| text == "Merge")
                .await?;
            session.find("#nav-team").await?.click().await?;
            session
                .find(&format!("{card} .task-agent-terminal"))
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#view-terminals #terminal-title", |text| {
                    text == "add-login"
                })
                .await?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "page errors: {errors:?}");
            Ok(())
        },
    )?;
    started.stop()?;
    Ok(())
}

fn a_started_agent_is_trusted_from_the_inbox_and_taken_over_for_a_follow_up(
    environment: &Environment,
) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let project = git_project(dir.path(), &[("README.md", "# Project\n")])?;
    // Claude Code trusts some other folder, not this one: it asks first.
    let claude = ClaudeCode::configure(
        &dir.path().join("claude-config"),
        &dir.path().join("elsewhere"),
    );
    let server = MessagesServer::start(vec![
        Turn::text("Hello from a trusted folder."),
        Turn::text("Followed up."),
    ]);
    let config = scripted_claude(dir.path(), &claude, &server)?;
    let config_arg = config.display().to_string();
    // The agent runs in the session host: ended whatever the trial does.
    let started = Started::new(environment, &project, &config, "greet");
    environment.with_app_args(
        &project,
        &["--config-dir", &config_arg],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            session.fill_new_agent("Say hello", "greet").await?;
            session.find("#new-agent-start").await?.click().await?;
            // Its trust screen, which no hook carries, is a question in the
            // inbox quoting the screen.
            session.find("#nav-inbox").await?.click().await?;
            let id = asked(&project)?;
            crate::harness::open_delivery(session, &id)
                .await
                .context("the question opens")?;
            session
                .wait_for_text("#delivery-title", |text| {
                    text == "greet (Claude Code): Does Claude Code trust this folder?"
                })
                .await?;
            session
                .wait_for_text("#delivery-view", |text| {
                    text.contains("Yes, I trust this folder")
                })
                .await?;
            session
                .find("#feedback-confirm")
                .await?
                .click()
                .await
                .context("yes")?;
            session.find("#nav-agents").await?.click().await?;
            session
                .wait_for_text("#launch-greet .agent-state", |text| text == "turn finished")
                .await?;
            ensure!(server.turns_left() == 1, "the trusted agent ran its turn");
            // Its terminal: taken over, a follow-up typed into its prompt,
            // handed back.
            session
                .find("#launch-greet .launch-terminal")
                .await?
                .click()
                .await?;
            session.find("#view-terminals").await?;
            session
                .wait_for_text("#terminal-screen", |text| {
                    text.contains("Hello from a trusted folder.")
                })
                .await?;
            session.find("#terminal-take").await?.click().await?;
            session
                .wait_for_text("#terminal-state", |text| text.contains("you have it"))
                .await?;
            session
                .find("#terminal-line")
                .await?
                .send_keys(&format!("Now the follow-up{}", char::from(Key::Enter)))
                .await?;
            session
                .wait_for_text("#terminal-screen", |text| text.contains("Followed up."))
                .await?;
            environment.screenshot("agents-take-over.png")?;
            session.find("#terminal-take").await?.click().await?;
            session
                .wait_for_text("#terminal-state", |text| text.contains("agents drive it"))
                .await?;
            ensure!(server.turns_left() == 0, "the follow-up ran a turn");
            let asked = server.loop_requests();
            ensure!(
                asked
                    .last()
                    .is_some_and(|request| request.to_string().contains("Now the follow-up")),
                "the follow-up reached the model as one prompt"
            );
            // The row follows the turn the developer started.
            session.find("#nav-agents").await?.click().await?;
            session
                .wait_for_text("#launch-greet .agent-state", |text| text == "turn finished")
                .await?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "page errors: {errors:?}");
            Ok(())
        },
    )?;
    started.stop()?;
    Ok(())
}
