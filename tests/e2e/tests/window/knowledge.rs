//! The Knowledge view in the real window: a learning added by the CLI
//! while the window is open is found by the search box and opened; a vote
//! changes the count on disk; the curator lists prune candidates and
//! duplicates; a learning added in the window lands in the file, and a
//! bullet edited there lands in the playbook — each half-written form
//! outliving the view left and (a bullet's edit) another agent's vote.

use std::{path::Path, sync::Arc};

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};
use switchboard_e2e::Session;

use fantoccini::key::Key;

use crate::harness::{CAPTURE_ERRORS, Environment, eventually, go, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "knowledge::search_votes_curator_and_adding",
        search_votes_curator_and_adding,
    )]
}

fn playbook(root: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(root.join(".delia/playbooks/coding.json"))?;
    Ok(serde_json::from_str(&text)?)
}

fn search_votes_curator_and_adding(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let root = workspace.path();
    std::fs::create_dir_all(root.join(".naide/learnings"))?;
    std::fs::create_dir_all(root.join(".delia/playbooks"))?;
    std::fs::create_dir_all(root.join(".prompts/plan"))?;
    std::fs::write(
        root.join(".prompts/plan/sign-in.md"),
        "# Sign-in plan\n\nOffer passkeys first, passwords second.\n",
    )?;
    std::fs::write(
        root.join(".naide/learnings/ui.md"),
        "## Focus rings stay (2026-11-01)\n\nKeyboard users need them.\n",
    )?;
    std::fs::write(
        root.join(".delia/playbooks/coding.json"),
        json!({"schema_version": 2, "task_type": "coding", "updated_at": "2026-11-01T00:00:00.000000",
            "bullets": [
                {"id": "strat-0000000a", "content": "Use pathlib.Path over os.path", "section": "style", "helpful_count": 2, "source": "learned", "source_task": "coding"},
                {"id": "strat-0000000b", "content": "Use pathlib.Path over os.path!", "section": "style"},
                {"id": "strat-0000000c", "content": "Catch every exception at the top", "section": "errors", "helpful_count": 1, "harmful_count": 6}
            ]})
        .to_string(),
    )?;
    environment
        .with_app(root, async |session: &Session| {
            session.client.execute(CAPTURE_ERRORS, vec![]).await?;
            session.find("#nav-knowledge").await?.click().await?;
            session
                .wait_for_text("#view-knowledge", |text| text.contains("Focus rings stay"))
                .await?;

            // A learning written by an agent while the window is open is found.
            let cli = environment
                .binaries
                .cli(root)
                .args([
                    "learn",
                    "--category",
                    "testing",
                    "--title",
                    "Flaky watcher tests",
                    "--body",
                    "Wait for the inotify event instead of sleeping.",
                ])
                .output()?;
            ensure!(
                cli.status.success(),
                "{}",
                String::from_utf8_lossy(&cli.stderr)
            );
            session
                .find("#knowledge-search")
                .await?
                .send_keys("inotify")
                .await?;
            let hits = session
                .wait_for_text("#knowledge-results", |text| {
                    text.contains("Flaky watcher tests")
                })
                .await?;
            ensure!(hits.contains(".naide/learnings/testing.md:1"), "{hits:?}");
            let marked = session.texts("#knowledge-results mark").await?;
            ensure!(
                marked == ["inotify"],
                "the match is highlighted: {marked:?}"
            );
            session
                .find("#knowledge-results .search-hit-open")
                .await?
                .click()
                .await?;
            let jumped = session
                .wait_for_text(".learning-entry.jumped", |text| !text.is_empty())
                .await?;
            ensure!(jumped.contains("Wait for the inotify event"), "{jumped:?}");

            // A spec hit opens the spec among the documents.
            let search = session.find("#knowledge-search").await?;
            search.clear().await?;
            search.send_keys("passkeys").await?;
            session
                .wait_for_text("#knowledge-results", |text| text.contains("Sign-in plan"))
                .await?;
            session
                .find("#knowledge-results .search-hit-open")
                .await?
                .click()
                .await?;
            let spec = session
                .wait_for_text(".document.jumped", |text| !text.is_empty())
                .await?;
            ensure!(spec.contains(".prompts/plan/sign-in.md"), "{spec:?}");

            // A vote changes the count on disk, and the window shows it.
            session
                .find("#knowledge-tab-playbooks")
                .await?
                .click()
                .await?;
            let row = "[data-bullet='coding/strat-0000000a']";
            session
                .wait_for_text(&format!("{row} .helpful-count"), |text| text == "+2")
                .await?;
            session
                .find(&format!("{row} .vote-helpful"))
                .await?
                .click()
                .await?;
            eventually("the helpful vote is saved", || {
                Ok(playbook(root)?["bullets"][0]["helpful_count"] == 3)
            })
            .await?;
            session
                .wait_for_text(&format!("{row} .helpful-count"), |text| text == "+3")
                .await?;
            let utility = session
                .wait_for_text(&format!("{row} .utility"), |t| !t.is_empty())
                .await?;
            ensure!(utility == "0.75", "3 / (3 + 0 + 1): {utility:?}");

            // The curator: prune candidate with its origin, the duplicate pair.
            session
                .find("#knowledge-tab-curator")
                .await?
                .click()
                .await?;
            let prune = session
                .wait_for_text("#curator-prune", |text| {
                    text.contains("Catch every exception")
                })
                .await?;
            ensure!(prune.contains(".delia/playbooks/coding.json"), "{prune:?}");
            let duplicates = session
                .wait_for_text("#curator-duplicates", |text| text.contains("alike"))
                .await?;
            ensure!(
                duplicates.matches("Use pathlib.Path over os.path").count() == 2,
                "{duplicates:?}"
            );
            session
                .find("#curator-prune .quarantine-bullet")
                .await?
                .click()
                .await?;
            session
                .wait_for_text("#curator-quarantine", |text| {
                    text.contains("Catch every exception")
                })
                .await?;
            let quarantined: Value = serde_json::from_str(&std::fs::read_to_string(
                root.join(".switchboard/knowledge/quarantine.json"),
            )?)?;
            ensure!(quarantined[0]["id"] == "strat-0000000c", "{quarantined}");

            // A learning added in the window lands in Naide's format.
            session
                .find("#knowledge-tab-learnings")
                .await?
                .click()
                .await?;
            session.find(".add-learning summary").await?.click().await?;
            session
                .find("#learning-category")
                .await?
                .send_keys("ui")
                .await?;
            session
                .find("#learning-title")
                .await?
                .send_keys("Contrast first")
                .await?;
            // Left half-written and opened again: the form is as it was.
            go(session, "inbox").await?;
            go(session, "knowledge").await?;
            let open = session.find(".add-learning").await?.attr("open").await?;
            ensure!(open.is_some(), "the started form is open again");
            let title = session.find("#learning-title").await?.prop("value").await?;
            ensure!(title.as_deref() == Some("Contrast first"), "{title:?}");
            session
                .find("#learning-body")
                .await?
                .send_keys("Check WCAG AA before shipping.")
                .await?;
            session.find("#learning-add").await?.click().await?;
            eventually("the learning is appended", || {
                let text = std::fs::read_to_string(root.join(".naide/learnings/ui.md"))?;
                Ok(text.contains("\n\n## Contrast first (")
                    && text.ends_with("Check WCAG AA before shipping.\n"))
            })
            .await?;
            session
                .wait_for_text("#view-knowledge", |text| text.contains("Contrast first"))
                .await?;
            environment.screenshot("knowledge.png")?;

            // A bullet's edit under way outlives another agent's vote (the
            // playbooks read again) and leaving the view; Enter saves it.
            session
                .find("#knowledge-tab-playbooks")
                .await?
                .click()
                .await?;
            session
                .find(&format!("{row} .edit-bullet"))
                .await?
                .click()
                .await?;
            let editor = session.find(&format!("{row} .bullet-edit")).await?;
            editor.clear().await?;
            editor.send_keys("Prefer pathlib.Path to os.path").await?;
            let store = switchboard_store::Workspace::open(root)?;
            switchboard_store::knowledge::playbooks::vote(
                &store,
                "coding",
                "strat-0000000b",
                true,
                switchboard_store::clock::now(),
            )?;
            session
                .wait_for_text(
                    "[data-bullet='coding/strat-0000000b'] .helpful-count",
                    |text| text == "+1",
                )
                .await?;
            let edited =
                |kept: Option<String>| kept.as_deref() == Some("Prefer pathlib.Path to os.path");
            let kept = session
                .find(&format!("{row} .bullet-edit"))
                .await?
                .prop("value")
                .await?;
            ensure!(edited(kept.clone()), "the edit outlives the vote: {kept:?}");
            go(session, "inbox").await?;
            go(session, "knowledge").await?;
            session
                .find("#knowledge-tab-playbooks")
                .await?
                .click()
                .await?;
            let editor = session.find(&format!("{row} .bullet-edit")).await?;
            let kept = editor.prop("value").await?;
            ensure!(edited(kept.clone()), "the edit outlives leaving: {kept:?}");
            editor.send_keys(&Key::Enter.to_string()).await?;
            eventually("the edit is saved", || {
                Ok(playbook(root)?["bullets"][0]["content"] == "Prefer pathlib.Path to os.path")
            })
            .await?;
            session
                .wait_for_text(&format!("{row} .bullet-text"), |text| {
                    text == "Prefer pathlib.Path to os.path"
                })
                .await?;
            let errors = page_errors(session).await?;
            ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
            Ok(())
        })
        .context("the knowledge view")
}
