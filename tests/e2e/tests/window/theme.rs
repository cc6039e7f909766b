//! `custom/theme.json` overrides apply to the open window, live.

use std::sync::Arc;

use anyhow::{Result, ensure};
use serde_json::Value;
use switchboard_e2e::{Session, WAIT};

use crate::harness::{Environment, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "theme::theme_json_overrides_apply_live",
        theme_json_overrides_apply_live,
    )]
}

async fn body_color(session: &Session) -> Result<String> {
    let color = session
        .client
        .execute("return getComputedStyle(document.body).color", vec![])
        .await?;
    Ok(color.as_str().unwrap_or_default().to_owned())
}

fn theme_json_overrides_apply_live(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-empty").await?;
        let before = body_color(session).await?;
        ensure!(
            before != "rgb(1, 2, 3)",
            "the default text colour: {before}"
        );
        let custom = workspace.path().join(".visual-delivery/custom");
        std::fs::create_dir_all(&custom)?;
        std::fs::write(
            custom.join("theme.json"),
            r#"{"colors": {"text": "rgb(1, 2, 3)", "primary": "url(https://evil.example)"}}"#,
        )?;
        crate::harness::until("the theme's colour", WAIT, || async {
            Ok((body_color(session).await? == "rgb(1, 2, 3)").then_some(()))
        })
        .await?;
        let primary = session
            .client
            .execute(
                "return document.documentElement.style.getPropertyValue('--vds-colors-primary')",
                vec![],
            )
            .await?;
        ensure!(
            primary == Value::String(String::new()),
            "unsafe values are never applied: {primary}"
        );
        Ok(())
    })
}
