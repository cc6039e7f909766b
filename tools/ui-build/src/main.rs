//! `switchboard-ui-build WASM OUT`: the window's page from the UI's wasm
//! (built by cargo for wasm32) — the loader and module through
//! wasm-bindgen's library, `ui/index.html` with its styles inline and its
//! boot script filled in — written to OUT (the shell embeds `ui/dist`),
//! replacing what was there. In place of Trunk: nothing to install, and
//! wasm-bindgen at the version the lockfile pins.

mod page;
mod wasm;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;

/// Builds the window's page.
#[derive(Parser)]
#[command(name = "switchboard-ui-build")]
struct Args {
    /// The UI's wasm as cargo built it
    /// (`target/wasm32-unknown-unknown/PROFILE/switchboard-ui.wasm`).
    wasm: PathBuf,
    /// The folder the page goes into (its old contents are replaced).
    out: PathBuf,
    /// The page's template.
    #[arg(long, default_value = "ui/index.html")]
    page: PathBuf,
    /// The stylesheet put inline in the page.
    #[arg(long, default_value = "ui/styles/app.css")]
    styles: PathBuf,
    /// binaryen's `wasm-opt`, to shrink the module (the shipped UI).
    #[arg(long)]
    wasm_opt: Option<PathBuf>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let template = std::fs::read_to_string(&args.page)
        .with_context(|| format!("could not read {}", args.page.display()))?;
    let css = std::fs::read_to_string(&args.styles)
        .with_context(|| format!("could not read {}", args.styles.display()))?;
    // Built beside the output, then put in its place: a failed build
    // leaves the last page whole.
    let parent = args
        .out
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let staging = tempfile::Builder::new()
        .prefix(".dist-building-")
        .tempdir_in(parent)
        .with_context(|| format!("could not make a folder in {}", parent.display()))?;
    let built = wasm::bindgen(&args.wasm, staging.path(), args.wasm_opt.as_deref())?;
    let page = page::assemble(
        &template,
        &page::Parts {
            css: &css,
            js: &built.js,
            wasm: &built.wasm,
        },
    )
    .with_context(|| format!("in {}", args.page.display()))?;
    std::fs::write(staging.path().join("index.html"), page)?;
    if args.out.exists() {
        std::fs::remove_dir_all(&args.out)
            .with_context(|| format!("could not replace {}", args.out.display()))?;
    }
    std::fs::rename(staging.keep(), &args.out)
        .with_context(|| format!("could not write {}", args.out.display()))?;
    let size = std::fs::metadata(args.out.join(&built.wasm))?.len();
    println!(
        "{}: {} and {} ({:.1} MB)",
        args.out.display(),
        built.js,
        built.wasm,
        size as f64 / 1e6
    );
    Ok(())
}
