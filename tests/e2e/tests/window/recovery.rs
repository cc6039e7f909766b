//! Files other tools left unparsable: the window says so and goes on, the
//! CLI moves the bad file aside and keeps delivering, nothing is lost.

use std::sync::Arc;

use anyhow::{Result, ensure};
use switchboard_e2e::Session;

use crate::harness::{Environment, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "recovery::corrupt_files_are_reported_and_work_goes_on",
        corrupt_files_are_reported_and_work_goes_on,
    )]
}

fn corrupt_files_are_reported_and_work_goes_on(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let data = workspace.path().join(".visual-delivery/data");
    std::fs::create_dir_all(&data)?;
    let garbage = "[{\"id\": \"d_1_001\", \"title\": \"half a rec";
    std::fs::write(data.join("deliveries.json"), garbage)?;
    std::fs::write(data.join("annotations.json"), "{oops")?;
    environment.with_app(workspace.path(), async |session: &Session| {
        let warning = session
            .wait_for_text(".warning", |text| !text.is_empty())
            .await?;
        ensure!(
            warning.contains("not a valid data file"),
            "the window says so: {warning:?}"
        );

        let output = environment
            .binaries
            .cli(workspace.path())
            .args([
                "deliver",
                "--title",
                "After the crash",
                "--content",
                "still here",
            ])
            .output()?;
        ensure!(output.status.success(), "the CLI keeps working");
        ensure!(
            String::from_utf8_lossy(&output.stderr).contains(".corrupted."),
            "the CLI says where the bad file went"
        );
        session
            .wait_for_text("#inbox-list", |text| text.contains("After the crash"))
            .await?;
        ensure!(
            session.texts(".warning").await?.is_empty(),
            "the warning goes once the file is good again"
        );

        // A corrupt annotations file does not stop the delivery from opening.
        session.find("#inbox-list .delivery").await?.click().await?;
        let view_warning = session
            .wait_for_text("#delivery-view .warning", |text| !text.is_empty())
            .await?;
        ensure!(
            view_warning.contains("annotations.json"),
            "{view_warning:?}"
        );
        session
            .wait_for_text("#delivery-body", |text| text.contains("still here"))
            .await?;
        Ok(())
    })?;
    let backups: Vec<String> = std::fs::read_dir(&data)?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("deliveries.json.corrupted."))
        .collect();
    ensure!(backups.len() == 1, "one backup: {backups:?}");
    ensure!(
        std::fs::read_to_string(data.join(&backups[0]))? == garbage,
        "the backup holds the original bytes"
    );
    Ok(())
}
