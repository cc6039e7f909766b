//! Views that were left get no events: the shell's events reach only the
//! views that are open, however many times the developer switched views,
//! and a change made while a view is closed is there when it comes back.

use std::sync::Arc;

use anyhow::{Result, ensure};
use switchboard_e2e::Session;

use switchboard_model_server::{Reply, ScriptedServer, text_chunk as text};

use crate::harness::{CAPTURE_ERRORS, Environment, go, page_errors, send_chat, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "lifetimes::events_reach_only_open_views_after_many_switches",
        events_reach_only_open_views_after_many_switches,
    )]
}

/// A `data-*` count on the root element.
async fn root_count(session: &Session, name: &str) -> Result<u64> {
    let value = session
        .client
        .execute(
            &format!("return document.documentElement.getAttribute('data-{name}')"),
            vec![],
        )
        .await?;
    Ok(value
        .as_str()
        .and_then(|text| text.parse().ok())
        .unwrap_or(0))
}

fn events_reach_only_open_views_after_many_switches(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let server = ScriptedServer::with_models(
        vec![Reply::sse(&[&text("Still here."), "[DONE]"])],
        &["test-model"],
    );
    let url = server.url();
    environment.with_app_args(
        workspace.path(),
        &["--model-url", &url],
        async |session: &Session| {
            session.find("#view-inbox").await?;
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            for _ in 0..10 {
                go(session, "knowledge").await?;
                go(session, "inbox").await?;
            }
            // Away from the inbox, an agent delivers.
            go(session, "knowledge").await?;
            let id = environment
                .binaries
                .deliver(workspace.path(), "Delivered while away", "Body")
                .map_err(|error| anyhow::anyhow!("{error:#}"))?;
            go(session, "chat").await?;
            go(session, "settings").await?;
            go(session, "chat").await?;
            send_chat(session, "Are you there?").await?;
            session
                .wait_for_text("#chat-transcript", |text| text.contains("Still here."))
                .await?;
            go(session, "inbox").await?;
            session
                .wait_for_text("#inbox-list", |text| text.contains("Delivered while away"))
                .await?;
            // The page still answers clicks: the delivery opens.
            session
                .find(&format!(".delivery[data-id='{id}']"))
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#delivery-title", |text| text == "Delivered while away")
                .await?;
            session.find("#delivery-back").await?.click().await?;

            // Thirty more switches; then one change reaches each open view once.
            for _ in 0..15 {
                go(session, "knowledge").await?;
                go(session, "inbox").await?;
            }
            let subscribers = root_count(session, "subscribers-store").await?;
            ensure!(
                subscribers == 4,
                "the theme, the agents and All workspaces (followed for the window's life: the sidebar's and the title's counts) and the inbox listen, nothing left over: {subscribers}"
            );
            let (dispatched, handled) = (
                root_count(session, "dispatched-store").await?,
                root_count(session, "handled-store").await?,
            );
            environment
                .binaries
                .deliver(workspace.path(), "One more", "Body")
                .map_err(|error| anyhow::anyhow!("{error:#}"))?;
            session
                .wait_for_text("#inbox-list", |text| text.contains("One more"))
                .await?;
            let changes = root_count(session, "dispatched-store").await? - dispatched;
            let calls = root_count(session, "handled-store").await? - handled;
            ensure!(changes >= 1, "the change arrived");
            ensure!(
                calls == changes * subscribers,
                "{changes} change(s) made {calls} handler calls for {subscribers} open views"
            );
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        },
    )
}
