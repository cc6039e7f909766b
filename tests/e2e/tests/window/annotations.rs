//! Annotations in the real window: a selection becomes a comment stored as
//! UTF-16 offsets into the body, shown at its range after the app restarts;
//! general comments have no range.

use std::sync::Arc;

use anyhow::{Context, Result, ensure};
use serde_json::Value;
use switchboard_e2e::Session;

use crate::harness::{CAPTURE_ERRORS, Environment, go, open_delivery, page_errors, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "annotations::selected_text_is_annotated_and_kept_across_restarts",
            selected_text_is_annotated_and_kept_across_restarts,
        ),
        trial(
            environment,
            "annotations::code_and_html_bodies_are_annotated_at_their_ranges",
            code_and_html_bodies_are_annotated_at_their_ranges,
        ),
    ]
}

/// Selects `needle`, which may run across elements, in the text of the
/// element with id `root` (the document's body when `root` is null), then
/// lets go of the mouse there, as the end of a drag would.
const SELECT_ACROSS: &str = r#"
const [needle, root] = arguments;
const body = root ? document.getElementById(root) : document.body;
const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
const nodes = [];
let text = '';
while (walker.nextNode()) {
  nodes.push([walker.currentNode, text.length]);
  text += walker.currentNode.data;
}
const at = text.indexOf(needle);
if (at < 0) return false;
const point = (index, end) => {
  for (let i = nodes.length - 1; i >= 0; i--) {
    const [node, from] = nodes[i];
    if (end ? from < index : from <= index) return [node, index - from];
  }
};
const range = document.createRange();
range.setStart(...point(at, false));
range.setEnd(...point(at + needle.length, true));
const selection = window.getSelection();
selection.removeAllRanges();
selection.addRange(range);
body.dispatchEvent(new MouseEvent('mouseup', {bubbles: true}));
return true;
"#;

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
            .send_keys("Good plan")
            .await?;
        // Half written, the developer looks elsewhere and comes back.
        go(session, "knowledge").await?;
        go(session, "inbox").await?;
        open_delivery(session, &id).await?;
        let comment = session.find("#general-comment").await?;
        let kept = comment.prop("value").await?;
        ensure!(
            kept.as_deref() == Some("Good plan"),
            "the unsent comment is kept: {kept:?}"
        );
        comment.send_keys(" overall").await?;
        session.find("#general-comment-add").await?.click().await?;
        session
            .wait_for_text("#annotations", |text| text.contains("Good plan overall"))
            .await?;
        Ok(())
    })?;

    let stored = stored_annotations(workspace.path())?;
    ensure!(stored.len() == 2, "two annotations stored: {stored:?}");
    let annotated = covered(body, &stored[0])?;
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

/// The workspace's `annotations.json`, parsed.
fn stored_annotations(workspace: &std::path::Path) -> Result<Vec<Value>> {
    let path = workspace.join(".visual-delivery/data/annotations.json");
    Ok(serde_json::from_str(&std::fs::read_to_string(path)?)?)
}

/// The part of `body` an annotation's `text_range` covers.
fn covered(body: &str, annotation: &Value) -> Result<String> {
    let target = &annotation["target"];
    ensure!(target["type"] == "text_range", "{target}");
    let start = target["start"].as_u64().context("start")? as usize;
    let end = target["end"].as_u64().context("end")? as usize;
    let units: Vec<u16> = body.encode_utf16().collect();
    Ok(String::from_utf16(
        units.get(start..end).context("range in body")?,
    )?)
}

/// Comments the open selection through the floating bar.
async fn comment(session: &Session, remark: &str) -> Result<()> {
    session.find("#annotate-comment").await?.click().await?;
    session
        .find("#annotate-text")
        .await?
        .send_keys(remark)
        .await?;
    session.find("#annotate-save").await?.click().await?;
    session
        .wait_for_text("#annotations", |text| text.contains(remark))
        .await?;
    Ok(())
}

/// The texts of the marks in the HTML body's frame, joined.
async fn frame_marks(session: &Session) -> Result<String> {
    session.find("#delivery-frame").await?.enter_frame().await?;
    let marks = session
        .client
        .wait()
        .for_element(fantoccini::Locator::Css("mark"))
        .await;
    let marks = match marks {
        Ok(_) => session.client.execute(
            "return Array.from(document.querySelectorAll('mark')).map(m => m.textContent).join('')",
            vec![],
        )
        .await.map_err(anyhow::Error::from),
        Err(error) => Err(error.into()),
    };
    session.client.enter_parent_frame().await?;
    Ok(marks?.as_str().unwrap_or_default().to_owned())
}

fn code_and_html_bodies_are_annotated_at_their_ranges(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let code = "Retry loop:\n\n```rust\nfn main() {\n    let retries = 3;\n}\n```\n";
    let html = "<h1>Report</h1>\n<p>The <b>cache layer</b> cuts p95 latency &amp; cost.</p>";
    let ids = [
        environment
            .binaries
            .deliver_typed(workspace.path(), "Code", "markdown", code)?,
        environment
            .binaries
            .deliver_typed(workspace.path(), "Page", "html", html)?,
    ];
    let open = open_delivery;

    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-list").await?;
        session.client.execute(CAPTURE_ERRORS, vec![]).await?;
        // A word inside the highlighted code block.
        open(session, &ids[0]).await?;
        let selected = session
            .client
            .execute(SELECT_ACROSS, vec!["retries".into(), "delivery-body".into()])
            .await?;
        ensure!(selected == Value::Bool(true), "the word is in the code");
        comment(session, "Read the retry count from settings").await?;
        session.find("#delivery-back").await?.click().await?;

        // A phrase in the HTML body's frame, across the end of its bold.
        // With nothing selected, the frame's toolbar says so.
        open(session, &ids[1]).await?;
        session.find("#frame-highlight").await?.click().await?;
        session.find("#frame-hint").await?;
        session.find("#delivery-frame").await?.enter_frame().await?;
        session
            .client
            .wait()
            .for_element(fantoccini::Locator::Css("body b"))
            .await?;
        let selected = session
            .client
            .execute(SELECT_ACROSS, vec!["cache layer cuts".into(), Value::Null])
            .await;
        session.client.enter_parent_frame().await?;
        ensure!(selected? == Value::Bool(true), "the phrase is in the frame");
        session.find("#frame-comment").await?.click().await?;
        session.find("#annotate-bar #annotate-text").await?;
        let apart = session
            .client
            .execute(
                "const frame = document.getElementById('delivery-frame'); \
                 const top = frame.getBoundingClientRect().top + frame.clientTop; \
                 const sel = frame.contentWindow.getSelection().getRangeAt(0).getBoundingClientRect(); \
                 const bar = document.getElementById('annotate-bar').getBoundingClientRect(); \
                 return bar.bottom <= top + sel.top + 1 || bar.top >= top + sel.bottom - 1;",
                vec![],
            )
            .await?;
        ensure!(
            apart == Value::Bool(true),
            "the bar floats beside the selection in the frame, not over it"
        );
        session
            .find("#annotate-text")
            .await?
            .send_keys("Say which cache")
            .await?;
        session.find("#annotate-save").await?.click().await?;
        session
            .wait_for_text("#annotations", |text| text.contains("Say which cache"))
            .await?;
        ensure!(
            session.texts("#frame-hint").await?.is_empty(),
            "the hint is gone once text was selected"
        );
        let errors = page_errors(session).await?;
        ensure!(errors.is_empty(), "the page logged errors: {errors:?}");
        Ok(())
    })?;

    let stored = stored_annotations(workspace.path())?;
    ensure!(stored.len() == 2, "two annotations stored: {stored:?}");
    let in_code = covered(code, &stored[0])?;
    ensure!(
        in_code == "retries",
        "the code comment covers the word: {in_code:?}"
    );
    let in_page = covered(html, &stored[1])?;
    ensure!(
        in_page == "cache layer</b> cuts",
        "the HTML comment covers the phrase in the source: {in_page:?}"
    );

    // A new app process shows both at their ranges.
    environment.with_app(workspace.path(), async |session: &Session| {
        open(session, &ids[0]).await?;
        let marked = session
            .wait_for_text("#delivery-body mark", |text| !text.is_empty())
            .await?;
        ensure!(marked == "retries", "the code mark: {marked:?}");
        session
            .wait_for_text("#annotations", |text| text.contains("retry count"))
            .await?;
        session.find("#delivery-back").await?.click().await?;
        open(session, &ids[1]).await?;
        let quote = session
            .wait_for_text("#annotations blockquote", |text| !text.is_empty())
            .await?;
        ensure!(
            quote == "cache layer cuts",
            "the sidebar quotes the text as shown, without markup: {quote:?}"
        );
        let marked = frame_marks(session).await?;
        ensure!(
            marked == "cache layer cuts",
            "the frame's marks: {marked:?}"
        );
        environment.screenshot("delivery-html-annotated.png")?;
        Ok(())
    })
}
