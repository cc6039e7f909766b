//! The real Claude Code (the version `scripts/setup.sh test` installs)
//! set up to run whole turns in a test: its own configuration folder that
//! trusts the project, its model the scripted [`MessagesServer`] on
//! loopback, no key and no network.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::{Value, json};

use crate::anthropic::MessagesServer;

/// The key Claude Code is given (the scripted server takes any).
const TEST_KEY: &str = "sk-test";

/// The Claude Code binary the setup script installs.
pub fn binary() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/claude-code/node_modules/.bin/claude");
    assert!(
        path.exists(),
        "Claude Code is not installed at {}: run scripts/setup.sh test",
        path.display()
    );
    path
}

/// Claude Code for one project: its configuration folder and the project.
pub struct ClaudeCode {
    config: PathBuf,
    project: PathBuf,
}

impl ClaudeCode {
    /// Makes `config` a Claude Code configuration folder that has been
    /// through onboarding, uses the test key without asking (its
    /// interactive interface asks once per key) and trusts `project` (a
    /// canonical path).
    pub fn configure(config: &Path, project: &Path) -> Self {
        std::fs::create_dir_all(config).unwrap();
        let settings = json!({
            "hasCompletedOnboarding": true,
            "customApiKeyResponses": {"approved": [TEST_KEY], "rejected": []},
            "projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}},
        });
        std::fs::write(config.join(".claude.json"), settings.to_string()).unwrap();
        Self {
            config: config.to_owned(),
            project: project.to_owned(),
        }
    }

    /// Changes Claude Code's own settings file, `.claude.json`.
    fn edit_settings(&self, change: impl FnOnce(&mut Value)) {
        let path = self.config.join(".claude.json");
        let mut settings: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        change(&mut settings);
        std::fs::write(path, settings.to_string()).unwrap();
    }

    /// Makes `servers` (name → `mcpServers` entry) the user's own MCP
    /// servers, which start in every project without asking.
    pub fn set_user_servers(&self, servers: Value) {
        self.edit_settings(|settings| settings["mcpServers"] = servers);
    }

    /// Lets the project's `.mcp.json` servers start without asking.
    pub fn enable_project_servers(&self, names: &[&str]) {
        let project = self.project.display().to_string();
        self.edit_settings(|settings| {
            settings["projects"][project]["enabledMcpjsonServers"] = json!(names);
        });
    }

    /// `claude ARGS…` in the project, `bin` first on PATH (where
    /// `switchboard` is), under `timeout 120`, with no model to talk to.
    pub fn command(&self, args: &[&str], bin: &Path) -> Command {
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new("timeout");
        command
            .arg("120")
            .arg(binary())
            .args(args)
            .current_dir(&self.project)
            .env("PATH", path)
            // No model unless one is given: a closed loopback port, so
            // nothing it does waits on a network it cannot reach.
            .envs(self.environment("http://127.0.0.1:9"))
            .env_remove("CLAUDE_PROJECT_DIR");
        command
    }

    /// The environment Claude Code runs in here, its model at `model_url`:
    /// a test key, this configuration folder, no traffic but the model's.
    /// (For a process that starts Claude Code itself, as the sidecar does.)
    pub fn environment(&self, model_url: &str) -> Vec<(&'static str, String)> {
        vec![
            ("ANTHROPIC_API_KEY", TEST_KEY.to_owned()),
            ("ANTHROPIC_BASE_URL", model_url.to_owned()),
            ("CLAUDE_CONFIG_DIR", self.config.display().to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
            ("ENABLE_TOOL_SEARCH", "false".to_owned()),
        ]
    }

    /// `claude -p PROMPT --output-format json` in the project, talking to
    /// `server` (see [`ClaudeCode::command`]).
    pub fn print(&self, server: &MessagesServer, prompt: &str, bin: &Path) -> Command {
        let mut command = self.command(&["-p", prompt, "--output-format", "json"], bin);
        command.env("ANTHROPIC_BASE_URL", server.url());
        command
    }
}
