//! `switchboard-ui-build WASM OUT`: the window's page from the UI's wasm
//! (built by cargo for wasm32) — the loader and module through
//! wasm-bindgen's library, `ui/index.html` with its styles inline and its
//! boot script filled in — written to OUT (the shell embeds `ui/dist`),
//! replacing what was there. In place of Trunk: nothing to install, and
//! wasm-bindgen at the version the lockfile pins.

#![allow(clippy::disallowed_methods)] // Test and build code reads the files it made.
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
    // The old page is moved aside, not removed, until the new one is in
    // its place: a failure between the two renames puts it back.
    let old = parent.join(format!(".dist-replaced-{}", std::process::id()));
    let had_old = args.out.exists();
    if had_old {
        std::fs::rename(&args.out, &old)
            .with_context(|| format!("could not replace {}", args.out.display()))?;
    }
    if let Err(error) = std::fs::rename(staging.path(), &args.out) {
        if had_old {
            let _ = std::fs::rename(&old, &args.out);
        }
        return Err(error).with_context(|| format!("could not write {}", args.out.display()));
    }
    // In its place now: nothing of the build is left to remove.
    let _ = staging.keep();
    if had_old {
        std::fs::remove_dir_all(&old)
            .with_context(|| format!("could not remove the old page {}", old.display()))?;
    }
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
