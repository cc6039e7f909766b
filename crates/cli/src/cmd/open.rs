//! `switchboard open [WORKSPACE]`: brings the developer to a workspace's
//! window — opens it, or focuses it when it is open already (the app's
//! single-instance name is per workspace, so a second app on the same
//! workspace hands over to the first and exits). Returns once the app is
//! started; the app outlives the command, in a process group of its own so
//! the terminal's Ctrl-C does not reach it.

use std::{
    os::unix::process::CommandExt as _,
    path::{Path, PathBuf},
    process::{Command, Stdio},
};

use anyhow::{Context, Result};
use clap::Args;
use switchboard_store::Workspace;

/// `switchboard open`.
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// The workspace (default: `-C`, else the current folder).
    pub workspace: Option<PathBuf>,
}

/// The app: `$SWITCHBOARD_APP`, else `switchboard-app` beside this binary
/// when it is there (a build or an install), else on `PATH`.
fn app() -> PathBuf {
    if let Some(path) = std::env::var_os("SWITCHBOARD_APP") {
        return PathBuf::from(path);
    }
    std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name("switchboard-app"))
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from("switchboard-app"))
}

/// Starts the app on the workspace.
pub fn run(workspace: &Workspace, args: OpenArgs) -> Result<()> {
    let opened;
    let root: &Path = match &args.workspace {
        Some(path) => {
            opened = Workspace::open(path)?;
            opened.root()
        }
        None => workspace.root(),
    };
    let app = app();
    let child = Command::new(&app)
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .with_context(|| format!("could not start {}", app.display()))?;
    println!(
        "opening {} (switchboard-app, pid {})",
        root.display(),
        child.id()
    );
    Ok(())
}
