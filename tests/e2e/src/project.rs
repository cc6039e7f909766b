//! Projects the agent trials and benchmarks start agents in: a git
//! repository, and a settings folder naming the agent the window starts.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};

/// `dir/project`: a git repository on `main` whose first commit holds
/// `files` (path, text), canonical.
pub fn git_project(dir: &Path, files: &[(&str, &str)]) -> Result<PathBuf> {
    let project = dir.join("project");
    std::fs::create_dir_all(&project)?;
    let project = project.canonicalize()?;
    for (path, text) in files {
        let path = project.join(path);
        std::fs::create_dir_all(path.parent().context("a folder")?)?;
        std::fs::write(path, text)?;
    }
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "Dev"],
        &["config", "user.email", "dev@example.com"],
        &["add", "."],
        &["commit", "-q", "-m", "First"],
    ] {
        git(&project, args)?;
    }
    Ok(project)
}

/// git in `dir`, which must succeed: its output.
pub fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()?;
    ensure!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(String::from_utf8(output.stdout)?)
}

/// A settings folder in `dir` naming, as the window's Claude Code,
/// `binary` run with `environment` (the window starts agents with its own
/// environment, which a test cannot choose): a wrapper script exports it.
pub fn claude_code_settings(
    dir: &Path,
    binary: &Path,
    environment: &[(&str, String)],
) -> Result<PathBuf> {
    let wrapper = dir.join("claude");
    let exports: Vec<String> = environment
        .iter()
        .map(|(key, value)| format!("export {key}='{value}'"))
        .collect();
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n{}\nexec '{}' \"$@\"\n",
            exports.join("\n"),
            binary.display()
        ),
    )?;
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )?;
    let config = dir.join("config");
    std::fs::create_dir_all(&config)?;
    std::fs::write(
        config.join("settings.json"),
        serde_json::json!({"claudeCodePath": wrapper}).to_string(),
    )?;
    Ok(config)
}
