//! Annotations in the real window: a selection becomes a comment stored as
//! UTF-16 offsets into the body, shown at its range after the app restarts;
//! general comments have no range.

use std::sync::Arc;

use anyhow::{Context, Result, ensure};
use serde_json::Value;
use switchboard_e2e::Session;

use crate::harness::{Environment, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "annotations::selected_text_is_annotated_and_kept_across_restarts",
        selected_text_is_annotated_and_kept_across_restarts,
    )]
}

/// Selects `needle` inside the rendered body the way a mouse drag would end
/// (a DOM selection, then mouseup on the body).
const SELECT: &str = r#"
const [needle] = arguments;
const body = document.getElementById('delivery-body');
const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const at = walker.currentNode.data.indexOf(needle);
  if (at >= 0) {
    const range = document.createRange();
    range.setStart(walker.currentNode, at);
    range.setEnd(walker.currentNode, at + needle.length);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    body.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
    return true;
  }
}
return false;
"#;

fn selected_text_is_annotated_and_kept_across_restarts(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let body = "# API plan 👋\n\nUse **PATCH** for partial updates, not PUT.";
    let output = environment
        .binaries
        .cli(workspace.path())
        .args(["deliver", "--title", "API plan", "--content", body])
        .output()?;
    ensure!(output.status.success(), "deliver failed");
    let id = String::from_utf8(output.stdout)?.trim().to_owned();

    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-list .delivery").await?.click().await?;
        session.find("#delivery-body").await?;
        let body_top =
            "return document.getElementById('delivery-body').getBoundingClientRect().top";
        let before = session.client.execute(body_top, vec![]).await?;
        let selected = session
            .client
            .execute(SELECT, vec!["partial updates".into()])
            .await?;
        ensure!(selected == Value::Bool(true), "the text is in the body");
        session.find("#annotate-bar").await?;
        let after = session.client.execute(body_top, vec![]).await?;
        ensure!(
            before == after,
            "the bar floats: the selected text stays put ({before} → {after})"
        );
        let apart = session
            .client
            .execute(
                "const bar = document.getElementById('annotate-bar').getBoundingClientRect(); \
                 const sel = window.getSelection().getRangeAt(0).getBoundingClientRect(); \
                 return bar.bottom <= sel.top + 1 || bar.top >= sel.bottom - 1;",
                vec![],
            )
            .await?;
        ensure!(
            apart == Value::Bool(true),
            "the bar does not cover the selection"
        );
        session.find("#annotate-comment").await?.click().await?;
        session
            .find("#annotate-text")
            .await?
            .send_keys("PATCH semantics need a JSON merge patch")
            .await?;
        session.find("#annotate-save").await?.click().await?;
        session
            .wait_for_text("#annotations", |text| text.contains("JSON merge patch"))
            .await?;
        session
            .find("#general-comment")
            .await?
            .send_keys("Good plan overall")
            .await?;
        session.find("#general-comment-add").await?.click().await?;
        session
            .wait_for_text("#annotations", |text| text.contains("Good plan overall"))
            .await?;
        Ok(())
    })?;

    let stored: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(
        workspace
            .path()
            .join(".visual-delivery/data/annotations.json"),
    )?)?;
    ensure!(stored.len() == 2, "two annotations stored: {stored:?}");
    let target = &stored[0]["target"];
    ensure!(target["type"] == "text_range", "{target}");
    let start = target["start"].as_u64().context("start")? as usize;
    let end = target["end"].as_u64().context("end")? as usize;
    let units: Vec<u16> = body.encode_utf16().collect();
    let annotated = String::from_utf16(&units[start..end])?;
    ensure!(
        annotated == "partial updates",
        "the offsets are UTF-16 offsets into the body: {annotated:?}"
    );
    ensure!(stored[0]["delivery_id"] == id.as_str());
    ensure!(
        stored[1]["target"].is_null(),
        "a general comment has no range"
    );

    // A new app process shows the annotation at its range.
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-list .delivery").await?.click().await?;
        let marked = session
            .wait_for_text("#delivery-body mark", |text| !text.is_empty())
            .await?;
        ensure!(
            marked == "partial updates",
            "the mark covers the range: {marked:?}"
        );
        session
            .wait_for_text("#annotations", |text| text.contains("JSON merge patch"))
            .await?;
        environment.screenshot("delivery.png")?;
        Ok(())
    })
}
