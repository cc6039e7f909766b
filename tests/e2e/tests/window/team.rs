//! The Team view in the real window over opencode-teams' files: a task
//! completed from the CLI moves on the board and frees its dependent in
//! the ready queue while the view is open and after leaving it; a cycle is
//! refused in the form with the plugin's words; a message sent from the
//! window lands in the member's inbox file in the plugin's form.

use std::{fs, path::Path, sync::Arc};

use anyhow::{Context, Result, ensure};
use fantoccini::{Locator, key::Key};
use serde_json::{Value, json};
use switchboard_e2e::Session;

use crate::harness::{CAPTURE_ERRORS, Environment, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "team::the_board_follows_the_cli_refuses_cycles_and_sends_messages",
            the_board_follows_the_cli_refuses_cycles_and_sends_messages,
        ),
        trial(
            environment,
            "team::a_long_ready_queue_shows_its_first_few_and_expands",
            a_long_ready_queue_shows_its_first_few_and_expands,
        ),
        trial(
            environment,
            "team::claude_code_teams_show_read_only_and_follow_their_agents",
            claude_code_teams_show_read_only_and_follow_their_agents,
        ),
    ]
}

/// Team `alpha` (lead, b) in the plugin's folder.
fn team(workspace: &Path) -> Result<()> {
    let config = workspace.join(".opencode/opencode-teams/teams/alpha/config.json");
    fs::create_dir_all(config.parent().context("parent")?)?;
    let member = |id: &str, kind: &str| {
        json!({"agentId": id, "agentName": id, "agentType": kind,
               "joinedAt": "2026-02-10T09:00:00.000Z"})
    };
    let body = json!({
        "name": "alpha", "created": "2026-02-10T09:00:00.000Z", "leader": "lead",
        "members": [member("lead", "leader"), member("b", "worker")],
        "dispatchRules": [], "dispatchLog": []
    });
    fs::write(&config, serde_json::to_string_pretty(&body)?)?;
    Ok(())
}

fn a_long_ready_queue_shows_its_first_few_and_expands(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    team(workspace.path())?;
    for n in 1..=8 {
        let output = environment
            .binaries
            .cli(workspace.path())
            .args([
                "task",
                "create",
                "--team",
                "alpha",
                "--title",
                &format!("Step {n}"),
            ])
            .output()?;
        ensure!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session.find("#nav-team").await?.click().await?;
        session.find("#ready-more").await?;
        let rows = "return document.querySelectorAll('#ready-queue li').length";
        let shown = session.client.execute(rows, vec![]).await?;
        ensure!(shown == json!(5), "the first five: {shown}");
        ensure!(
            session.texts("#ready-count").await? == ["8"],
            "and how many there are"
        );
        let more = session.find("#ready-more").await?;
        ensure!(more.text().await? == "Show all 8", "offered");
        more.click().await?;
        session
            .wait_for_text("#ready-more", |text| text == "Show fewer")
            .await?;
        let shown = session.client.execute(rows, vec![]).await?;
        ensure!(shown == json!(8), "all of them, on demand: {shown}");
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })
}

fn the_board_follows_the_cli_refuses_cycles_and_sends_messages(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    team(workspace.path())?;
    let cli = |args: &[&str]| -> Result<String> {
        let output = environment
            .binaries
            .cli(workspace.path())
            .args(args)
            .output()?;
        ensure!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(String::from_utf8(output.stdout)?.trim().to_owned())
    };
    let design = cli(&["task", "create", "--team", "alpha", "--title", "Design"])?;
    let build = cli(&[
        "task", "create", "--team", "alpha", "--title", "Build", "--dep", &design,
    ])?;
    let ship = cli(&[
        "task", "create", "--team", "alpha", "--title", "Ship", "--dep", &build,
    ])?;

    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#view-inbox").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session.find("#nav-team").await?.click().await?;
        session
            .find(&format!("#ready-queue [data-id='{design}']"))
            .await?;
        ensure!(
            session
                .texts(&format!("#ready-queue [data-id='{build}']"))
                .await?
                .is_empty(),
            "Build waits for Design"
        );

        // An agent works Design from the terminal while the board is open.
        cli(&["task", "claim", &design, "--as", "b"])?;
        session
            .find(&format!("#column-in_progress .task[data-id='{design}']"))
            .await?;
        cli(&["task", "done", &design])?;
        session
            .find(&format!("#column-completed .task[data-id='{design}']"))
            .await?;
        session
            .find(&format!("#ready-queue [data-id='{build}']"))
            .await?;

        // Away from the view, Build is claimed and done; back, it shows,
        // and a task title left half-written is still in its box.
        session
            .find("#new-task-title")
            .await?
            .send_keys("Write the changel")
            .await?;
        session.find("#nav-inbox").await?.click().await?;
        session.find("#inbox-list, #inbox-empty, .inbox").await?;
        cli(&["task", "claim", &build, "--as", "b"])?;
        cli(&["task", "done", &build])?;
        session.find("#nav-team").await?.click().await?;
        session
            .find(&format!("#column-completed .task[data-id='{build}']"))
            .await?;
        let kept = session.find("#new-task-title").await?.prop("value").await?;
        ensure!(
            kept.as_deref() == Some("Write the changel"),
            "the unsent title is kept: {kept:?}"
        );
        session
            .find(&format!("#ready-queue [data-id='{ship}']"))
            .await?;

        // A cycle, refused in the form with the plugin's words: Ship may
        // not become a dependency of a task it waits for. Make one first.
        let last = cli(&[
            "task", "create", "--team", "alpha", "--title", "Announce", "--dep", &ship,
        ])?;
        let card = session
            .find(&format!("#column-pending .task[data-id='{ship}']"))
            .await?;
        let shown = card.text().await?;
        ensure!(
            shown.starts_with("Ship") && !shown.contains(&ship),
            "a card leads with its title, not its id: {shown:?}"
        );
        // Picked by its title, as a person finds it.
        card.find(Locator::Css(".dependency-search"))
            .await?
            .send_keys("annou")
            .await?;
        session
            .find(&format!(
                ".task[data-id='{ship}'] .dependency-option[data-id='{last}']"
            ))
            .await?
            .click()
            .await?;
        let refused = session
            .wait_for_text(
                &format!(".task[data-id='{ship}'] #team-error"),
                |text| !text.is_empty(),
            )
            .await?;
        ensure!(
            refused == format!("Circular dependency detected: {ship}"),
            "the refusal: {refused:?}"
        );

        // The graph, opened, picks out what is left of the longest chain.
        session
            .find("#task-graph-details summary")
            .await?
            .click()
            .await?;
        session.find("#task-graph .node.critical").await?;
        let critical = session
            .client
            .execute(
                "return Array.from(document.querySelectorAll('#task-graph .node.critical')).map(n => n.dataset.id)",
                vec![],
            )
            .await?;
        ensure!(
            critical == json!([ship, last]),
            "the critical path is Ship → Announce: {critical}"
        );

        // The drawer: what a task waits for, as links to those tasks.
        session
            .find(&format!(".task[data-id='{last}'] .task-title"))
            .await?
            .click()
            .await?;
        session
            .find(&format!("#task-drawer[data-id='{last}'] .drawer-dependencies [data-id='{ship}']"))
            .await?
            .click()
            .await?;
        session
            .find(&format!("#task-drawer[data-id='{ship}'] .drawer-dependents [data-id='{last}']"))
            .await?;
        let history = session
            .wait_for_text("#task-drawer .history", |text| text.contains("created"))
            .await?;
        ensure!(history.contains("Z created"), "times as the files hold them: {history}");
        session.find("#task-drawer-close").await?.click().await?;
        ensure!(
            session.texts("#task-drawer").await?.is_empty(),
            "the drawer closed"
        );

        // Announce no longer waits for Ship: removed on its card, it is
        // ready at once.
        session
            .find(&format!(
                ".task[data-id='{last}'] .task-dep[data-id='{ship}'] .remove-dependency"
            ))
            .await?
            .click()
            .await?;
        session
            .find(&format!("#ready-queue [data-id='{last}']"))
            .await?;

        // A dependency added by title from the keyboard: typed, the first
        // match taken with Enter; Announce waits for it at once.
        let notes = cli(&[
            "task", "create", "--team", "alpha", "--title", "Write release notes",
        ])?;
        session
            .find(&format!("#ready-queue [data-id='{notes}']"))
            .await?;
        session
            .find(&format!(".task[data-id='{last}'] .dependency-search"))
            .await?
            .send_keys(&format!("release{}", char::from(Key::Enter)))
            .await?;
        let needs = session
            .wait_for_text(
                &format!(".task[data-id='{last}'] .task-dep[data-id='{notes}']"),
                |text| !text.is_empty(),
            )
            .await?;
        ensure!(needs.contains("Write release notes"), "by its title: {needs:?}");
        session
            .wait_for_text(&format!(".task[data-id='{last}'] .task-state"), |text| {
                text == "waits for 1 task"
            })
            .await?;
        ensure!(
            session
                .texts(&format!("#ready-queue [data-id='{last}']"))
                .await?
                .is_empty(),
            "Announce left the ready queue"
        );
        let stored: Value = serde_json::from_str(&fs::read_to_string(
            workspace
                .path()
                .join(format!(".opencode/opencode-teams/tasks/alpha/{last}.json")),
        )?)?;
        ensure!(
            stored["dependencies"] == json!([notes]),
            "in the plugin's file: {stored}"
        );
        session
            .client
            .execute("document.querySelector('#ready-queue').scrollIntoView()", vec![])
            .await?;
        environment.screenshot("team-board.png")?;

        // A message from the window, to b.
        let from = session.find("#msg-from").await?;
        from.clear().await?;
        from.send_keys("reviewer").await?;
        session
            .find("#msg-to option[value='b']")
            .await?
            .click()
            .await?;
        session
            .find("#msg-text")
            .await?
            .send_keys("Please add the changelog entry")
            .await?;
        session.find("#msg-send").await?.click().await?;
        session.find("#msg-sent").await?;
        session
            .find("#team-members .member[data-agent='b'] button")
            .await?
            .click()
            .await?;
        session
            .wait_for_text("#member-inbox", |text| text.contains("changelog"))
            .await?;
        environment.screenshot("team.png")?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })?;

    let inbox: Value = serde_json::from_str(&fs::read_to_string(
        workspace
            .path()
            .join(".opencode/opencode-teams/teams/alpha/inboxes/b.json"),
    )?)?;
    let message = &inbox[0];
    ensure!(
        message["from"] == "reviewer" && message["to"] == "b",
        "{message}"
    );
    ensure!(
        message["type"] == "plain" && message["read"] == false,
        "{message}"
    );
    let time = message["timestamp"].as_str().context("timestamp")?;
    ensure!(
        time.ends_with('Z') && time.len() == "2026-02-10T09:00:00.000Z".len(),
        "toISOString form: {time}"
    );
    let keys: Vec<&String> = message.as_object().context("object")?.keys().collect();
    ensure!(keys.len() == 6, "no fields of ours: {keys:?}");
    let tasks = cli(&["task", "list", "--team", "alpha", "--json"])?;
    let tasks: Value = serde_json::from_str(&tasks)?;
    let ship_task = tasks
        .as_array()
        .context("array")?
        .iter()
        .find(|row| row["task"]["id"] == ship.as_str())
        .context("ship")?;
    ensure!(
        ship_task["task"]["dependencies"] == json!([]),
        "the refused edit changed nothing: {ship_task}"
    );
    Ok(())
}

/// A Claude Code team working in `workspace`, in Claude's folder `root`:
/// a lead and a tester, task 1 done, task 2 waiting on it, task 3 on 2.
fn claude_team(root: &Path, workspace: &Path) -> Result<()> {
    let write = |path: &Path, value: &Value| -> Result<()> {
        fs::create_dir_all(path.parent().context("parent")?)?;
        fs::write(path, serde_json::to_string_pretty(value)?)?;
        Ok(())
    };
    let member = |name: &str, kind: &str| {
        json!({"agentId": format!("{name}@refactor"), "name": name, "agentType": kind,
               "joinedAt": 1_771_000_000_000_i64, "cwd": workspace})
    };
    write(
        &root.join("teams/refactor/config.json"),
        &json!({"name": "refactor", "createdAt": 1_771_000_000_000_i64,
                "leadAgentId": "team-lead@refactor",
                "members": [member("team-lead", "team-lead"), member("tester", "general-purpose")]}),
    )?;
    let tasks = root.join("tasks/refactor");
    for (id, status, blocked_by) in [
        ("1", "completed", vec![]),
        ("2", "in_progress", vec!["1"]),
        ("3", "pending", vec!["2"]),
    ] {
        write(
            &tasks.join(format!("{id}.json")),
            &json!({"id": id, "subject": format!("Step {id}"), "description": "",
                    "activeForm": format!("Doing step {id}"), "status": status,
                    "owner": "tester", "blocks": [], "blockedBy": blocked_by}),
        )?;
    }
    write(
        &root.join("teams/refactor/inboxes/team-lead.json"),
        &json!([{"from": "tester",
                 "text": "{\"type\":\"idle_notification\",\"from\":\"tester\",\"idleReason\":\"available\"}",
                 "timestamp": "2026-02-10T10:05:00.000Z", "read": false}]),
    )?;
    Ok(())
}

fn claude_code_teams_show_read_only_and_follow_their_agents(
    environment: &Environment,
) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let claude = tempfile::tempdir()?;
    claude_team(claude.path(), workspace.path())?;
    let claude_dir = claude.path().display().to_string();
    environment.with_app_args(
        workspace.path(),
        &["--claude-dir", &claude_dir],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            session.find("#nav-team").await?.click().await?;
            session.find("#team-read-only").await?;
            session.find("#column-in_progress .task[data-id='2']").await?;
            let picker = session.texts("#team-picker option").await?;
            ensure!(
                picker == ["refactor (Claude Code, read only)"],
                "the picker: {picker:?}"
            );
            for (selector, what) in [
                (".task .claim, .task .complete, .task .add-dependency, .remove-dependency", "card actions"),
                ("#new-task", "the new-task form"),
                ("#msg-send", "the send form"),
            ] {
                let shown = session
                    .client
                    .execute(
                        "return Array.from(document.querySelectorAll(arguments[0])).some(e => e.offsetParent !== null)",
                        vec![json!(selector)],
                    )
                    .await?;
                ensure!(shown == json!(false), "{what} hidden on a read-only board");
            }
            session
                .find("#team-members .member[data-agent='team-lead'] button")
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#member-inbox", |text| text.contains("available"))
                .await?;

            // The tester finishes step 2 the way Claude Code writes: the
            // whole file replaced. Step 3 becomes ready while watched.
            let done = json!({"id": "2", "subject": "Step 2", "description": "",
                              "activeForm": "Doing step 2", "status": "completed",
                              "owner": "tester", "blocks": [], "blockedBy": ["1"]});
            let path = claude.path().join("tasks/refactor/2.json");
            let temp = path.with_extension("json.tmp");
            fs::write(&temp, serde_json::to_string_pretty(&done)?)?;
            fs::rename(&temp, &path)?;
            session.find("#column-completed .task[data-id='2']").await?;
            session.find("#ready-queue [data-id='3']").await?;

            // Away from the view, the tester takes step 3; back, it shows.
            session.find("#nav-inbox").await?.click().await?;
            session.find("#inbox-list, #inbox-empty, .inbox").await?;
            let taken = json!({"id": "3", "subject": "Step 3", "description": "",
                               "activeForm": "Doing step 3", "status": "in_progress",
                               "owner": "tester", "blocks": [], "blockedBy": ["2"]});
            let path = claude.path().join("tasks/refactor/3.json");
            let temp = path.with_extension("json.tmp");
            fs::write(&temp, serde_json::to_string_pretty(&taken)?)?;
            fs::rename(&temp, &path)?;
            session.find("#nav-team").await?.click().await?;
            session.find("#team-read-only").await?;
            session.find("#column-in_progress .task[data-id='3']").await?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        },
    )?;
    ensure!(
        !claude.path().join("tasks/refactor/.lock").exists()
            && !claude.path().join("teams/refactor/.lock").exists(),
        "no lock files made in Claude's folder"
    );
    Ok(())
}
