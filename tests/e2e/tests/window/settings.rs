//! The Settings view as it is drawn — every field sits beside its own
//! label — and what Save applies at once: the window's MCP HTTP server.

use std::sync::Arc;

use anyhow::{Result, ensure};
use switchboard_e2e::Session;

use crate::harness::{Environment, go, trial};

pub fn trials(environment: &Arc<Environment>) -> Vec<libtest_mimic::Trial> {
    vec![
        trial(
            environment,
            "settings::every_field_sits_beside_its_own_label",
            every_field_sits_beside_its_own_label,
        ),
        trial(
            environment,
            "settings::serving_mcp_over_http_starts_and_stops_when_saved",
            serving_mcp_over_http_starts_and_stops_when_saved,
        ),
        trial(
            environment,
            "settings::the_inbox_is_served_to_a_browser_paired_from_settings",
            the_inbox_is_served_to_a_browser_paired_from_settings,
        ),
    ]
}

/// For each `label[for]` of the form, where it and its field are drawn:
/// the fields whose label is not on their row, left of them.
const MISPLACED: &str = r#"
const misplaced = [];
for (const label of document.querySelectorAll('.settings-form label[for]')) {
  const field = document.getElementById(label.htmlFor);
  const l = label.getBoundingClientRect();
  const f = field.getBoundingClientRect();
  const shared = Math.min(l.bottom, f.bottom) - Math.max(l.top, f.top);
  if (shared <= 0 || l.right > f.left) {
    misplaced.push(`${label.htmlFor}: "${label.textContent}" at ${l.top}..${l.bottom}, its field at ${f.top}..${f.bottom}`);
  }
}
return [document.querySelectorAll('.settings-form label[for]').length, misplaced];
"#;

/// Issue 39, item 14a: under "Program sessions" a note took a cell of the
/// form's grid, so each number showed beside the next field's label
/// (idle = 20 s was the live-sessions limit).
fn every_field_sits_beside_its_own_label(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    environment.with_app(workspace.path(), async |session: &Session| {
        go(session, "settings").await?;
        session.find("#settings-path").await?;
        let answer = session.client.execute(MISPLACED, vec![]).await?;
        let (count, misplaced): (usize, Vec<String>) = serde_json::from_value(answer)?;
        ensure!(
            count >= 12,
            "the form's labelled fields were found: {count}"
        );
        ensure!(
            misplaced.is_empty(),
            "fields drawn away from their labels: {misplaced:#?}"
        );
        Ok(())
    })
}

/// Whether an HTTP server answers on `port` (a request it refuses counts:
/// it is there).
fn answers(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let request =
        format!("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && answer.starts_with("HTTP/1.1 ")
}

/// Types `port` into the port field, in place of what was there.
async fn set_port(session: &Session, port: u16) -> Result<()> {
    let field = session.find("#settings-http-port").await?;
    field.clear().await?;
    field.send_keys(&port.to_string()).await?;
    Ok(())
}

/// Issue 39, item 14f: "Serve MCP over HTTP" applied only at the next
/// window start while Save said the settings were in use. Now Save starts
/// the server, stops it, or says why it did not start.
fn serving_mcp_over_http_starts_and_stops_when_saved(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    environment.with_app(workspace.path(), async |session: &Session| {
        go(session, "settings").await?;
        session.find("#settings-path").await?;
        ensure!(!answers(port), "nothing serves before it is asked");
        set_port(session, port).await?;
        session.find("#settings-serve-http").await?.click().await?;
        session.find("#settings-save").await?.click().await?;
        let url = format!("http://127.0.0.1:{port}/mcp");
        let note = session
            .wait_for_text("#settings-note", |text| text.starts_with("Saved"))
            .await?;
        ensure!(note.contains(&url), "Save says where it serves: {note:?}");
        let shown = session
            .wait_for_text("#settings-http-url", |text| !text.is_empty())
            .await?;
        ensure!(shown == url, "{shown}");
        ensure!(answers(port), "the server answers as soon as Save returned");

        // Off again: stopped when saved.
        session.find("#settings-serve-http").await?.click().await?;
        session.find("#settings-save").await?.click().await?;
        session
            .wait_for_text("#settings-note", |text| !text.contains(&url))
            .await?;
        ensure!(!answers(port), "the server stopped when Save returned");
        ensure!(
            session.texts("#settings-http-url").await?.is_empty(),
            "no URL is shown"
        );

        // A port another program holds: Save says the server did not start.
        let taken = std::net::TcpListener::bind("127.0.0.1:0")?;
        set_port(session, taken.local_addr()?.port()).await?;
        session.find("#settings-serve-http").await?.click().await?;
        session.find("#settings-save").await?.click().await?;
        let note = session
            .wait_for_text("#settings-note", |text| text.contains("did not start"))
            .await?;
        ensure!(note.starts_with("Saved, but"), "{note:?}");
        Ok(())
    })
}

/// One GET as a browser sends it: the status line and the head.
fn get(port: u16, path: &str, cookie: Option<&str>) -> Result<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    let cookie = cookie
        .map(|cookie| format!("Cookie: {cookie}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{cookie}Connection: close\r\n\r\n"
    )?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    Ok(answer)
}

/// Serving the inbox to browsers is a setting, applied when saved; a
/// button in Settings makes the one-time pairing link, shown with its QR
/// code, and that link pairs a browser with the window's server.
fn the_inbox_is_served_to_a_browser_paired_from_settings(environment: &Environment) -> Result<()> {
    let workspace = tempfile::tempdir()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    environment.with_app(workspace.path(), async |session: &Session| {
        go(session, "settings").await?;
        session.find("#settings-path").await?;
        let field = session.find("#settings-browser-port").await?;
        field.clear().await?;
        field.send_keys(&port.to_string()).await?;
        session
            .find("#settings-serve-browser")
            .await?
            .click()
            .await?;
        session.find("#settings-save").await?.click().await?;
        let shown = session
            .wait_for_text("#settings-browser-url", |text| !text.is_empty())
            .await?;
        ensure!(shown == format!("http://127.0.0.1:{port}/"), "{shown}");
        session
            .find("#settings-pair-browser")
            .await?
            .click()
            .await?;
        let link = session
            .wait_for_text("#settings-pairing-link", |text| {
                text.contains("/pair?code=")
            })
            .await?;
        session.find("#settings-pairing-qr path").await?;
        // Where the phone is told how it reaches this loopback address.
        let reach = session
            .wait_for_text("#settings-pairing-reach", |text| !text.is_empty())
            .await?;
        ensure!(
            reach.contains(&format!("ssh -N -L {port}:127.0.0.1:{port} ")),
            "Pair a browser says how a phone reaches loopback: {reach:?}"
        );
        session
            .client
            .execute(
                "document.getElementById('settings-pairing-qr').scrollIntoView()",
                vec![],
            )
            .await?;
        environment.screenshot("settings-pair-browser.png")?;
        // Not paired yet: turned away.
        ensure!(
            get(port, "/", None)?.starts_with("HTTP/1.1 401"),
            "an unpaired browser is turned away"
        );
        let path = link.trim_start_matches(&format!("http://127.0.0.1:{port}"));
        let paired = get(port, path, None)?;
        let cookie = paired
            .lines()
            .find_map(|line| line.strip_prefix("set-cookie: "))
            .and_then(|cookie| cookie.split(';').next())
            .map(str::to_owned);
        ensure!(
            paired.starts_with("HTTP/1.1 200"),
            "the link pairs: {paired}"
        );
        let cookie = cookie.ok_or_else(|| anyhow::anyhow!("no cookie was set: {paired}"))?;
        let key = switchboard_e2e::pages::page_key(&paired)
            .ok_or_else(|| anyhow::anyhow!("no page key was given: {paired}"))?;
        let page = get(port, "/", Some(&cookie))?;
        ensure!(
            page.starts_with("HTTP/1.1 200") && page.contains("/shim.js"),
            "the paired browser gets the page"
        );

        // Taking a session over is the developer's to allow, here.
        let origin = format!("http://127.0.0.1:{port}");
        let browser = switchboard_e2e::pages::Paired { cookie, key };
        let end = serde_json::json!({"request": {"session": "ps-000000000000"}});
        let (status, refused) =
            switchboard_e2e::pages::invoke(&origin, &browser, "session_end", &end)?;
        ensure!(status == 403, "not allowed yet: {status} {refused}");
        session
            .find("#settings-browser-take-over")
            .await?
            .click()
            .await?;
        session.find("#settings-save").await?.click().await?;
        session
            .wait_for_text("#settings-note", |text| text.starts_with("Saved"))
            .await?;
        let (status, answer) =
            switchboard_e2e::pages::invoke(&origin, &browser, "session_end", &end)?;
        ensure!(
            status == 404,
            "allowed once saved, so the unknown session is what is refused: {status} {answer}"
        );

        // Off again: stopped when saved.
        session
            .find("#settings-serve-browser")
            .await?
            .click()
            .await?;
        session.find("#settings-save").await?.click().await?;
        session
            .wait_for_text("#settings-note", |text| text.starts_with("Saved"))
            .await?;
        crate::harness::eventually("the server of the inbox stops", || {
            Ok(get(port, "/", None).is_err())
        })
        .await?;
        Ok(())
    })
}
