//! The Inbox in the real window: empty state, deliveries from the CLI
//! arriving live, and what the list shows of each.

use std::sync::Arc;

use anyhow::{Context as _, Result, ensure};
use fantoccini::key::Key;
use switchboard_e2e::Session;
use switchboard_model::{ContentType, DeliveryMode, NewDelivery};
use switchboard_store::{Workspace, clock, deliveries};

use crate::harness::{CAPTURE_ERRORS, Environment, page_errors, trial};

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
        trial(
            environment,
            "inbox::a_long_inbox_draws_the_rows_in_view_and_keys_reach_every_row",
            a_long_inbox_draws_the_rows_in_view_and_keys_reach_every_row,
        ),
        trial(
            environment,
            "inbox::a_diff_shows_added_and_removed_lines_in_their_colours",
            a_diff_shows_added_and_removed_lines_in_their_colours,
        ),
    ]
}

/// The colours a diff's added, removed and plain lines are drawn in.
const DIFF_COLOURS: &str = "const colour = (selector) => { \
  const element = document.querySelector(selector); \
  return element ? getComputedStyle(element).color : null; }; \
return [colour('#delivery-view .hl-inserted'), colour('#delivery-view .hl-deleted'), \
  colour('#delivery-view pre code')];";

fn a_diff_shows_added_and_removed_lines_in_their_colours(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let binaries = &environment.binaries;
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-empty").await?;
        let body =
            "```diff\n--- a/notes.md\n+++ b/notes.md\n@@ -1 +1 @@\n-old line\n+new line\n```\n";
        let id = binaries.deliver(workspace.path(), "An edit", body)?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        crate::harness::open_delivery(session, &id).await?;
        session
            .wait_for_text("#delivery-view", |text| text.contains("new line"))
            .await?;
        let colours: Vec<Option<String>> =
            serde_json::from_value(session.client.execute(DIFF_COLOURS, vec![]).await?)?;
        let [Some(added), Some(removed), Some(plain)] = colours.as_slice() else {
            anyhow::bail!("a diff line is not marked: {colours:?}");
        };
        ensure!(
            added != removed && added != plain && removed != plain,
            "added {added}, removed {removed}, plain {plain}"
        );
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })
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

/// How many rows the list has, how many are in the page, and the focused
/// row's title.
const DRAWN: &str = r#"
const focused = document.activeElement;
return {
  drawn: document.querySelectorAll('#inbox-list .delivery').length,
  rows: Number(document.getElementById('inbox-list').dataset.rows),
  focused: focused && focused.classList.contains('delivery')
    ? focused.querySelector('.title').textContent : null,
};
"#;

#[derive(Debug)]
struct Drawn {
    drawn: u64,
    rows: u64,
    focused: Option<String>,
}

async fn drawn(session: &Session) -> Result<Drawn> {
    let value = session.client.execute(DRAWN, vec![]).await?;
    Ok(Drawn {
        drawn: value["drawn"].as_u64().context("drawn")?,
        rows: value["rows"].as_u64().context("rows")?,
        focused: value["focused"].as_str().map(str::to_owned),
    })
}

/// Presses `key` on whatever has the focus.
async fn press(session: &Session, key: Key) -> Result<()> {
    session
        .client
        .active_element()
        .await?
        .send_keys(&char::from(key).to_string())
        .await?;
    Ok(())
}

/// Waits until the focused row is the one titled `title`.
async fn focused_on(session: &Session, title: &str) -> Result<Drawn> {
    let condition = format!(
        "document.activeElement.matches('.delivery') && \
         document.activeElement.querySelector('.title').textContent === {}",
        serde_json::to_string(title)?
    );
    session.wait_until(&condition).await?;
    drawn(session).await
}

fn a_long_inbox_draws_the_rows_in_view_and_keys_reach_every_row(
    environment: &Environment,
) -> Result<()> {
    const TOTAL: u64 = 600;
    let workspace = tempfile::tempdir()?;
    let store = Workspace::open(workspace.path())?;
    for n in 0..TOTAL {
        let new = NewDelivery {
            mode: DeliveryMode::Passive,
            title: format!("delivery {n}"),
            content_type: ContentType::Markdown,
            body: format!("Result {n}"),
            feedback_schema: None,
        };
        deliveries::append(&store, new, clock::now())?;
    }
    let binaries = &environment.binaries;
    environment.with_app(workspace.path(), async |session: &Session| {
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        session
            .wait_for_text("#inbox-list", |text| text.contains("delivery 599"))
            .await?;
        let top = drawn(session).await?;
        ensure!(top.rows == TOTAL, "the list knows all its rows: {top:?}");
        ensure!(
            top.drawn >= 10 && top.drawn < 100,
            "only the rows near the view are in the page: {top:?}"
        );

        // The keyboard walks the list: down a row, a page, to the end.
        session
            .find("#inbox-list .delivery")
            .await?
            .send_keys(&char::from(Key::Down).to_string())
            .await?;
        focused_on(session, "delivery 598").await?;
        press(session, Key::PageDown).await?;
        let paged = drawn(session).await?;
        let title = paged.focused.clone().context("a row keeps the focus")?;
        let number: u64 = title.trim_start_matches("delivery ").parse()?;
        ensure!(
            (570..598).contains(&number),
            "Page Down moves a screenful: {paged:?}"
        );
        press(session, Key::End).await?;
        let bottom = focused_on(session, "delivery 0").await?;
        ensure!(
            bottom.drawn < 100,
            "at the end, still only the rows near the view: {bottom:?}"
        );

        // Opened, a delivery arrives while the list is away, and closed
        // again: the list is where it was left, the row still focused
        // though it is far below the first screen, and the newcomer is
        // counted; Home reaches it.
        press(session, Key::Enter).await?;
        session
            .wait_for_text("#delivery-title", |text| text == "delivery 0")
            .await?;
        const HANDLED: &str = "Number(document.documentElement.dataset.handledStore || 0)";
        let handled = session
            .client
            .execute(&format!("return {HANDLED}"), vec![])
            .await?
            .as_u64()
            .context("the handled-store count")?;
        binaries.deliver(workspace.path(), "Arrived while away", "x")?;
        session
            .wait_until(&format!("{HANDLED} > {handled}"))
            .await?;
        session.find("#delivery-back").await?.click().await?;
        focused_on(session, "delivery 0").await?;
        session
            .wait_until(&format!(
                "document.getElementById('inbox-list').dataset.rows === '{}'",
                TOTAL + 1
            ))
            .await?;
        press(session, Key::Home).await?;
        focused_on(session, "Arrived while away").await?;
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "no page errors: {errors:?}");
        Ok(())
    })
}
