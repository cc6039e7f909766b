//! The sidebar: every view is reachable by mouse and keyboard.

use std::sync::Arc;

use anyhow::{Result, ensure};
use fantoccini::{Locator, key::Key};
use switchboard_e2e::Session;

use crate::harness::{Environment, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "navigation::sidebar_switches_views_by_click_and_keyboard",
        sidebar_switches_views_by_click_and_keyboard,
    )]
}

fn sidebar_switches_views_by_click_and_keyboard(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#view-inbox").await?;
        let labels = session.texts(".sidebar .nav-item").await?;
        ensure!(
            labels
                == [
                    "Inbox",
                    "Agents",
                    "Chat",
                    "Knowledge",
                    "Team",
                    "Tapes",
                    "Terminals",
                    "Settings"
                ],
            "the sidebar lists the eight views: {labels:?}"
        );
        session.find("#nav-chat").await?.click().await?;
        session.find("#view-chat").await?;
        session.find("#nav-knowledge").await?.click().await?;
        session.find("#view-knowledge").await?;
        session.find("#nav-team").await?.click().await?;
        session.find("#view-team #team-empty").await?;
        session.find("#nav-tapes").await?.click().await?;
        session.find("#view-tapes #tapes-empty").await?;
        // Alt+1 goes back to the inbox from the keyboard.
        let body = session.client.find(Locator::Css("body")).await?;
        body.send_keys(&format!(
            "{}1{}",
            char::from(Key::Alt),
            char::from(Key::Alt)
        ))
        .await?;
        session.find("#view-inbox").await?;
        ensure!(
            session
                .texts("#nav-inbox[aria-current='page']")
                .await?
                .len()
                == 1,
            "the inbox is marked current"
        );
        Ok(())
    })
}
