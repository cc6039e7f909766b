//! Hostile delivery bodies shown in the real window run no script: every
//! payload tries to mark the page (`data-pwned` on its root element, and
//! `top.__pwned`), and after each is shown — as markdown in the app's page
//! and as HTML in its sandboxed frame, with its links and body clicked —
//! neither mark exists and the app is still on its own page.

use std::sync::Arc;

use anyhow::{Context, Result, ensure};
use fantoccini::Locator;
use switchboard_e2e::Session;

use crate::harness::{Environment, open_delivery, trial};

/// What a payload's script would do if it ran.
const MARK: &str = "document.documentElement.setAttribute('data-pwned','1');top.__pwned=1";

/// Payload templates; `MARK` replaces `$`.
const PAYLOADS: &[&str] = &[
    "<script>$</script>",
    "<img src=x onerror=\"$\">",
    "<svg onload=\"$\"></svg>",
    "<svg><script>$</script></svg>",
    "<iframe src=\"javascript:$\"></iframe>",
    "<iframe srcdoc=\"<script>$</script>\"></iframe>",
    "<object data=\"javascript:$\"></object>",
    "<embed src=\"javascript:$\">",
    "<body onload=\"$\">",
    "<details open ontoggle=\"$\"><summary>x</summary></details>",
    "<video><source onerror=\"$\"></video>",
    "<audio src=x onerror=\"$\"></audio>",
    "<input autofocus onfocus=\"$\">",
    "<marquee onstart=\"$\">x</marquee>",
    "<a href=\"javascript:$\">link</a>",
    "<a href=\"JaVaScRiPt:$\">link</a>",
    "<a href=\"&#106;avascript:$\">link</a>",
    "<a href=\"data:text/html,<script>$</script>\">link</a>",
    "<form action=\"javascript:$\"><button>go</button></form>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:$\">",
    "<base href=\"javascript:$//\"><a href=\"x\">link</a>",
    "<link rel=stylesheet href=\"javascript:$\">",
    "<style>@import 'javascript:$';</style>",
    "<div style=\"background:url(javascript:$)\">x</div>",
    "<math><maction actiontype=\"statusline\" xlink:href=\"javascript:$\">x</maction></math>",
    "<svg><a xlink:href=\"javascript:$\"><text x=\"10\" y=\"20\">link</text></a></svg>",
    "<svg><animate onbegin=\"$\" attributeName=\"x\" dur=\"1s\"></animate></svg>",
    "<svg><set attributeName=\"onmouseover\" to=\"$\"></set></svg>",
    "<img src=\"x\" onerror=\"&#100;ocument.documentElement.setAttribute('data-pwned','1')\">",
    "<scr<script>ipt>$</scr</script>ipt>",
    "<noscript><p title=\"</noscript><img src=x onerror=$>\"></p></noscript>",
    "<template><img src=x onerror=\"$\"></template>",
    "<img src=x:alert onerror=\"$\" //",
    "<table background=\"javascript:$\"><tr><td>x</td></tr></table>",
    "<object type=\"text/html\" data=\"data:text/html,<script>$</script>\"></object>",
    "![img](javascript:$)",
    "[link](javascript:$)",
    "<javascript:$>",
    "| a |\n|---|\n| <img src=x onerror=\"$\"> |",
    "<select autofocus onfocus=\"$\"></select>",
    "<x onclick=\"$\">click me</x>",
    "<a href=\"#\" onclick=\"$\">link</a>",
    "<div onmouseover=\"$\" style=\"position:fixed;inset:0\">cover</div>",
    "<img srcset=\"x 1x\" onerror=\"$\">",
    "<svg><foreignObject><img src=x onerror=\"$\"></foreignObject></svg>",
    "```html\n<script>$</script>\n```\n<script>$</script>",
];

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![trial(
        environment,
        "hostile::no_payload_runs_script_in_markdown_or_html_bodies",
        no_payload_runs_script_in_markdown_or_html_bodies,
    )]
}

fn no_payload_runs_script_in_markdown_or_html_bodies(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let mut ids = Vec::new();
    for (index, template) in PAYLOADS.iter().enumerate() {
        let body = template.replace('$', MARK);
        for kind in ["markdown", "html"] {
            let id = environment
                .binaries
                .deliver_typed(
                    workspace.path(),
                    &format!("payload {index} {kind}"),
                    kind,
                    &body,
                )
                .with_context(|| format!("deliver of payload {index} ({kind})"))?;
            ids.push((id, index, kind));
        }
    }
    ensure!(
        PAYLOADS.len() >= 40,
        "the corpus keeps at least 40 payloads"
    );
    environment.with_app(workspace.path(), async |session: &Session| {
        session.find("#inbox-list").await?;
        let home = session.client.current_url().await?;
        for (id, index, kind) in &ids {
            let label = format!("payload {index} ({kind}): {}", PAYLOADS[*index]);
            open_delivery(session, id)
                .await
                .with_context(|| label.clone())?;
            poke_body(session, kind).await?;
            settled(session, kind).await?;
            let pwned = session
                .client
                .execute(
                    "return document.documentElement.hasAttribute('data-pwned') || window.__pwned === 1",
                    vec![],
                )
                .await?;
            ensure!(pwned == serde_json::Value::Bool(false), "{label} ran script in the app's page");
            if *kind == "html" {
                ensure!(!frame_marked(session).await?, "{label} ran script in its frame");
            }
            ensure!(session.client.current_url().await? == home, "{label} navigated the app away");
            session.find("#delivery-back").await?.click().await?;
            session.find("#inbox-list").await?;
        }
        controls(session, &ids).await
    })
}

/// Proves the checks above can fail: marks made through WebDriver (which
/// is allowed to run script) are seen by the same checks.
async fn controls(session: &Session, ids: &[(String, usize, &str)]) -> Result<()> {
    let (html_id, ..) = ids
        .iter()
        .find(|(_, _, kind)| *kind == "html")
        .context("an html payload")?;
    open_delivery(session, html_id).await?;
    let frame = session.find("#delivery-frame").await?;
    frame.enter_frame().await?;
    session
        .client
        .execute(
            "document.documentElement.setAttribute('data-pwned','1')",
            vec![],
        )
        .await?;
    session.client.enter_parent_frame().await?;
    ensure!(
        frame_marked(session).await?,
        "control: a marked frame is detected"
    );
    session.client.execute("window.__pwned = 1", vec![]).await?;
    let seen = session
        .client
        .execute("return window.__pwned === 1", vec![])
        .await?;
    ensure!(
        seen == serde_json::Value::Bool(true),
        "control: a marked page is detected"
    );
    Ok(())
}

/// Clicks every link and the body itself, so click handlers get their
/// chance to run.
async fn poke_body(session: &Session, kind: &str) -> Result<()> {
    if kind == "markdown" {
        let body = session.find("#delivery-body").await?;
        for link in body.find_all(Locator::Css("a")).await? {
            let _ = link.click().await;
        }
        let _ = body.click().await;
    } else {
        let _ = session.find("#delivery-frame").await?.click().await;
    }
    Ok(())
}

/// Whether the HTML frame's document got marked.
/// Waits for the positive sign that the page has done all it was going to
/// do with the payload: the frame's document is complete (its subresources'
/// load and error handlers have run), then two animation frames and a task
/// have passed in the page (click handlers and their follow-ups ran).
async fn settled(session: &Session, kind: &str) -> Result<()> {
    if kind == "html" {
        let frame = session.find("#delivery-frame").await?;
        frame.enter_frame().await?;
        crate::harness::until("the frame's load", switchboard_e2e::WAIT, || async {
            let state = session
                .client
                .execute("return document.readyState", vec![])
                .await?;
            Ok((state == "complete").then_some(()))
        })
        .await?;
        session.client.enter_parent_frame().await?;
    }
    session
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)));",
            vec![],
        )
        .await?;
    Ok(())
}

async fn frame_marked(session: &Session) -> Result<bool> {
    let frame = session.find("#delivery-frame").await?;
    frame.enter_frame().await?;
    let marked = session
        .client
        .find_all(Locator::Css("html[data-pwned]"))
        .await;
    session.client.enter_parent_frame().await?;
    Ok(!marked?.is_empty())
}
