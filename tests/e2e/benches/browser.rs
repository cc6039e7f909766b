//! The inbox in a browser beside the window, in one run (printed as a
//! table by `make bench`): a question asked (`switchboard deliver --mode
//! interactive`, started) → its row painted in the window, and on the page
//! `switchboard serve` serves to a paired Chromium (headless, a phone's
//! screen), both observed by the same MutationObserver against the wall
//! clock the harness reads (median and p95 of 20 each).

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
use anyhow::{Context, Result, ensure};
use serde_json::json;
use switchboard_e2e::{
    Binaries, Display, Driver, Session,
    browser::{Chromium, Served},
    measure::{INBOX_OBSERVER, percentile, recorded_at, wall_clock_ms},
};

const ROUNDS: usize = 20;

fn main() -> Result<()> {
    let binaries = Binaries::locate()?;
    let display = Display::start()?;
    let driver = Driver::start(&display)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (window, page) = runtime.block_on(side_by_side(&driver, &binaries))?;

    println!();
    println!("| a question asked → its row painted | n | median | p95 |");
    println!("|---|---|---|---|");
    for (what, samples) in [
        ("in the window", &window),
        ("on the web page (switchboard serve, Chromium)", &page),
    ] {
        println!(
            "| {what} | {} | {:.1} ms | {:.1} ms |",
            samples.len(),
            percentile(samples, 50.0),
            percentile(samples, 95.0)
        );
    }
    Ok(())
}

async fn side_by_side(driver: &Driver, binaries: &Binaries) -> Result<(Vec<f64>, Vec<f64>)> {
    let dir = tempfile::tempdir()?;
    let (workspace, config) = (dir.path().join("ws"), dir.path().join("config"));
    std::fs::create_dir_all(&workspace)?;
    let window = Session::open(driver, binaries, &workspace).await?;
    window.find("#inbox-empty").await?;
    window.client.execute(INBOX_OBSERVER, vec![]).await?;
    let served = Served::start(binaries, &workspace, &config)?;
    let chromium = Chromium::start(&dir.path().join("chromium")).await?;
    chromium.pair(&served).await?;
    let page = Session {
        client: chromium.client.clone(),
    };
    page.find("#inbox-empty").await?;
    page.client.execute(INBOX_OBSERVER, vec![]).await?;
    let (mut in_window, mut on_page) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let title = format!("question {round}");
        let started = wall_clock_ms();
        let asked = binaries
            .cli(&workspace)
            .args([
                "deliver",
                "--mode",
                "interactive",
                "--title",
                &title,
                "--content",
                "Go on?",
            ])
            .args(["--schema", &json!({"type": "confirm"}).to_string()])
            .output()
            .context("could not ask")?;
        ensure!(asked.status.success(), "deliver failed");
        in_window.push((recorded_at(&window, "__seen", &title).await? - started).max(0.0));
        on_page.push((recorded_at(&page, "__seen", &title).await? - started).max(0.0));
    }
    window.close().await?;
    chromium.client.close().await?;
    Ok((in_window, on_page))
}
