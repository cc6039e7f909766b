//! The Inbox in the real window: empty state, deliveries from the CLI
//! arriving live, and what the list shows of each.

use std::sync::Arc;

use anyhow::{Result, ensure};
use switchboard_e2e::Session;

use crate::harness::{Environment, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "inbox::empty_workspace_shows_the_empty_state",
            empty_workspace_shows_the_empty_state,
        ),
        trial(
            environment,
            "inbox::cli_deliveries_appear_live_newest_first",
            cli_deliveries_appear_live_newest_first,
        ),
        trial(
            environment,
            "inbox::unreadable_records_are_reported_not_hidden",
            unreadable_records_are_reported_not_hidden,
        ),
    ]
}

fn empty_workspace_shows_the_empty_state(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let expected_path = workspace.path().canonicalize()?;
    environment.with_app(workspace.path(), async |session: &Session| {
        let empty = session
            .wait_for_text("#inbox-empty", |text| !text.is_empty())
            .await?;
        ensure!(
            empty.contains("No deliveries yet"),
            "empty state says so: {empty:?}"
        );
        let shown = session
            .wait_for_text("#workspace-path .workspace-path", |text| !text.is_empty())
            .await?;
        ensure!(
            shown == expected_path.display().to_string(),
            "the sidebar shows the workspace path: {shown:?}"
        );
        ensure!(
            session.texts("#inbox-list .delivery").await?.is_empty(),
            "no rows in an empty inbox"
        );
        ensure!(
            !workspace.path().join(".visual-delivery").exists(),
            "opening a workspace must not create data folders"
        );
        Ok(())
    })
}

fn cli_deliveries_appear_live_newest_first(environment: &Environment) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    // A readable folder name: this test's screenshot is the README's.
    let workspace = scratch.path().join("acme-api");
    std::fs::create_dir(&workspace)?;
    let workspace = workspace.as_path();
    let binaries = &environment.binaries;
    environment.with_app(workspace, async |session: &Session| {
        session.find("#inbox-empty").await?;
        // The first delivery creates .visual-delivery/data while the window
        // is open; the second goes through the now-watched folder.
        let first_id =
            binaries.deliver(workspace, "Refactor finished", "# Done\n\nAll tests pass.")?;
        session
            .wait_for_text("#inbox-list", |text| text.contains("Refactor finished"))
            .await?;
        let second_id = binaries.deliver(workspace, "Deploy plan ready", "Read me")?;
        session
            .wait_for_text("#inbox-list", |text| text.contains("Deploy plan ready"))
            .await?;

        let titles = session.texts("#inbox-list .delivery .title").await?;
        ensure!(
            titles == ["Deploy plan ready", "Refactor finished"],
            "newest first: {titles:?}"
        );
        let row = session
            .wait_for_text(
                &format!("#inbox-list .delivery[data-id='{first_id}']"),
                |text| !text.is_empty(),
            )
            .await?;
        ensure!(row.contains("passive"), "the row shows the mode: {row:?}");
        ensure!(
            row.contains("delivered"),
            "the row shows the status: {row:?}"
        );
        ensure!(row.contains("just now"), "the row shows the age: {row:?}");
        ensure!(first_id != second_id, "ids are distinct");
        ensure!(
            session.texts("#inbox-empty").await?.is_empty(),
            "the empty state is gone"
        );
        environment.screenshot("inbox.png")?;
        Ok(())
    })
}

fn unreadable_records_are_reported_not_hidden(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let data = workspace.path().join(".visual-delivery/data");
    std::fs::create_dir_all(&data)?;
    std::fs::write(
        data.join("deliveries.json"),
        r#"[
  {"id": "d_1738850400_001", "mode": "passive", "status": "delivered", "title": "From visual-delivery",
   "content": {"type": "markdown", "body": "x"}, "feedback_schema": null,
   "created_at": "2025-02-06T14:00:00.000Z", "completed_at": null},
  {"id": "d_1738850400_002", "mode": "telepathic"}
]"#,
    )?;
    environment.with_app(workspace.path(), async |session: &Session| {
        let list = session
            .wait_for_text("#inbox-list", |text| text.contains("From visual-delivery"))
            .await?;
        ensure!(
            list.contains("d ago"),
            "an old delivery shows its age in days: {list:?}"
        );
        let warning = session
            .wait_for_text(".warning", |text| !text.is_empty())
            .await?;
        ensure!(
            warning.contains("record 2"),
            "the bad record is named: {warning:?}"
        );
        Ok(())
    })
}
