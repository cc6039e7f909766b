//! Where the built binaries under test are.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};

/// The app and CLI binaries of one build profile.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// The desktop app (`switchboard-app`).
    pub app: PathBuf,
    /// The CLI (`switchboard`).
    pub cli: PathBuf,
    /// The sidecar (`switchboard-sidecar`), which the CLI finds beside itself.
    pub sidecar: PathBuf,
}

impl Binaries {
    /// The binaries beside the running test or bench executable (cargo puts
    /// those in `target/<profile>/deps/`), or in `$SWITCHBOARD_BIN_DIR`.
    pub fn locate() -> Result<Self> {
        let dir = match std::env::var_os("SWITCHBOARD_BIN_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => {
                let exe =
                    std::env::current_exe().context("could not locate the test executable")?;
                exe.parent()
                    .and_then(Path::parent)
                    .context("the test executable has no target directory")?
                    .to_owned()
            }
        };
        let binaries = Self {
            app: dir.join("switchboard-app"),
            cli: dir.join("switchboard"),
            sidecar: dir.join("switchboard-sidecar"),
        };
        for path in [&binaries.app, &binaries.cli, &binaries.sidecar] {
            ensure!(
                path.is_file(),
                "{} is missing: build it first (make test and make bench do)",
                path.display()
            );
        }
        Ok(binaries)
    }

    /// A `switchboard -C workspace` command, to add arguments to.
    pub fn cli(&self, workspace: &Path) -> std::process::Command {
        let mut command = std::process::Command::new(&self.cli);
        command.arg("-C").arg(workspace);
        command
    }

    /// Runs `switchboard -C workspace deliver --title T --content B` and
    /// returns the id it printed.
    pub fn deliver(&self, workspace: &Path, title: &str, body: &str) -> Result<String> {
        self.deliver_typed(workspace, title, "markdown", body)
    }

    /// Runs `switchboard deliver` with a body of `kind` (`markdown` or
    /// `html`) and returns the printed id.
    pub fn deliver_typed(
        &self,
        workspace: &Path,
        title: &str,
        kind: &str,
        body: &str,
    ) -> Result<String> {
        let output = std::process::Command::new(&self.cli)
            .arg("-C")
            .arg(workspace)
            .args([
                "deliver",
                "--title",
                title,
                "--type",
                kind,
                "--content",
                body,
            ])
            .output()
            .context("could not run the switchboard CLI")?;
        ensure!(
            output.status.success(),
            "switchboard deliver failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        Ok(String::from_utf8(output.stdout)?.trim().to_owned())
    }
}
