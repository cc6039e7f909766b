//! What the window benchmarks measure with: the wall clock the page's
//! observers share, their records read back, and percentiles.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Result, bail};

use crate::{Binaries, Session, WAIT};

/// A page script recording, in `window.__asked`, when each question first
/// shows in the inbox's alert bar (keyed by its text; read with
/// [`recorded_at`]).
pub const ALERT_OBSERVER: &str = r#"
window.__asked = {};
const record = () => {
  for (const el of document.querySelectorAll('#blocking-alert .alert-item')) {
    if (!(el.textContent in window.__asked)) window.__asked[el.textContent] = Date.now();
  }
};
new MutationObserver(record).observe(document.body, {childList: true, subtree: true, characterData: true});
"#;

/// A page script recording, in `window.__seen`, when each delivery's
/// title first shows in the inbox (keyed by the title; read with
/// [`recorded_at`]).
pub const INBOX_OBSERVER: &str = r#"
window.__seen = {};
const record = () => {
  for (const el of document.querySelectorAll('#inbox-list .delivery .title')) {
    if (!(el.textContent in window.__seen)) window.__seen[el.textContent] = Date.now();
  }
};
new MutationObserver(record).observe(document.body, {childList: true, subtree: true, characterData: true});
"#;

/// Milliseconds from `switchboard deliver` returning to its title in the
/// inbox of `session` (its page running [`INBOX_OBSERVER`]), `rounds`
/// times, the titles marked with `label`.
pub async fn deliveries_to_dom(
    session: &Session,
    binaries: &Binaries,
    workspace: &std::path::Path,
    label: &str,
    rounds: usize,
) -> Result<Vec<f64>> {
    let mut samples = Vec::new();
    for round in 0..rounds {
        let title = format!("{label} delivery {round}");
        binaries.deliver(workspace, &title, "x")?;
        let returned = wall_clock_ms();
        let seen = recorded_at(session, "__seen", &title).await?;
        samples.push((seen - returned).max(0.0));
    }
    Ok(samples)
}

/// The wall clock in ms since the Unix epoch, as the page's `Date.now()`.
pub fn wall_clock_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// When the page's observer recorded `key` in `window[map]` (its wall
/// clock, in ms), waiting for it to be recorded.
pub async fn recorded_at(session: &Session, map: &str, key: &str) -> Result<f64> {
    let script = format!("return window.{map}[arguments[0]] || null");
    recorded(session, &script, Some(key)).await
}

/// What `script` (given `key` as its one argument, if any) returns once it
/// returns a number.
pub async fn recorded(session: &Session, script: &str, key: Option<&str>) -> Result<f64> {
    let deadline = Instant::now() + WAIT;
    let arguments: Vec<serde_json::Value> = key.map(|key| key.into()).into_iter().collect();
    loop {
        let seen = session.client.execute(script, arguments.clone()).await?;
        if let Some(at) = seen.as_f64() {
            return Ok(at);
        }
        if Instant::now() > deadline {
            bail!("{script} ({key:?}) never returned a time");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The `p`th percentile (nearest rank) of `samples`.
pub fn percentile(samples: &[f64], p: f64) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
