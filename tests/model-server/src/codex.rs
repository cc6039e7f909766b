//! The real Codex CLI (the version `scripts/setup.sh test` installs) set
//! up to run whole turns in a test: a `CODEX_HOME` of its own whose model
//! provider is the scripted [`ResponsesServer`] on loopback, that trusts
//! the project (so its `.codex/hooks.json` is read) and asks for no update,
//! analytics or plugins — no key and no network.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use crate::responses::ResponsesServer;

/// The Codex binary npm installed (the native one its wrapper runs).
pub fn binary() -> PathBuf {
    let vendor = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/codex/node_modules/@openai/codex-linux-x64/vendor");
    let found = std::fs::read_dir(&vendor)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin/codex"))
        .find(|path| path.exists());
    found.unwrap_or_else(|| {
        panic!(
            "Codex is not installed under {}: run scripts/setup.sh test",
            vendor.display()
        )
    })
}

/// Codex for one project: its home and the project.
pub struct Codex {
    home: PathBuf,
    project: PathBuf,
}

impl Codex {
    /// Makes `home` a `CODEX_HOME` for `project` (a canonical path) whose
    /// model is `server`.
    pub fn configure(home: &Path, project: &Path, server: &ResponsesServer) -> Self {
        std::fs::create_dir_all(home.join("bin")).unwrap();
        let config = format!(
            r#"model = "gpt-5"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{}"
wire_api = "responses"
requires_openai_auth = false
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
apps = false
remote_plugin = false
plugins = false
in_app_updates = false

[projects."{}"]
trust_level = "trusted"
"#,
            server.url(),
            project.display()
        );
        std::fs::write(home.join("config.toml"), config).unwrap();
        // Its Linux sandbox helper, found on PATH.
        let sandbox = home.join("bin/codex-linux-sandbox");
        if !sandbox.exists() {
            std::os::unix::fs::symlink(binary(), sandbox).unwrap();
        }
        Self {
            home: home.to_owned(),
            project: project.to_owned(),
        }
    }

    /// The environment Codex runs in here (its home).
    pub fn environment(&self) -> Vec<(&'static str, String)> {
        vec![("CODEX_HOME", self.home.display().to_string())]
    }

    /// Signs Codex in with an API key (it is checked only when a request
    /// is sent, so none is, offline): `codex login status` then succeeds.
    pub fn sign_in(&self) {
        let mut login = Command::new(binary())
            .args(["login", "--with-api-key"])
            .env("CODEX_HOME", &self.home)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut login.stdin.take().unwrap(), b"sk-test-offline\n").unwrap();
        assert!(login.wait().unwrap().success(), "codex login failed");
    }

    /// `codex exec PROMPT` in the project, approvals on (its escalated
    /// commands ask, and the `PermissionRequest` hook fires), its hooks run
    /// without review, with `bin` first on PATH (where `switchboard` is),
    /// under `timeout 120`.
    pub fn exec(&self, prompt: &str, bin: &Path) -> Command {
        let path = format!(
            "{}:{}:{}",
            bin.display(),
            self.home.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new("timeout");
        command
            .arg("120")
            .arg(binary())
            .args([
                "exec",
                "--approve-for-me",
                "--dangerously-bypass-hook-trust",
                "--skip-git-repo-check",
                prompt,
            ])
            .current_dir(&self.project)
            .env("PATH", path)
            .env("CODEX_HOME", &self.home)
            .env_remove("OPENAI_API_KEY");
        command
    }
}

/// The hooks Codex finds for `project` with `CODEX_HOME=home`, as its own
/// app server lists them (`hooks/list`): each with its `key`,
/// `currentHash` and `trustStatus` — what its `/hooks` review shows and
/// trusts.
pub fn listed_hooks(home: &Path, project: &Path) -> Vec<serde_json::Value> {
    use std::io::{BufRead, BufReader, Write};

    let mut server = Command::new("timeout")
        .arg("60")
        .arg(binary())
        .arg("app-server")
        .current_dir(project)
        .env("CODEX_HOME", home)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    // A request is answered; a notification (no id) is not.
    let mut answer = |request: serde_json::Value| -> serde_json::Value {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        if request.get("id").is_none() {
            return serde_json::Value::Null;
        }
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "codex app-server ended"
            );
            let message: serde_json::Value = serde_json::from_str(&line).unwrap();
            if message.get("id") == request.get("id") {
                return message;
            }
        }
    };
    answer(serde_json::json!({"id": 1, "method": "initialize",
        "params": {"clientInfo": {"name": "switchboard-tests", "version": "1"}}}));
    answer(serde_json::json!({"method": "initialized"}));
    let listed = answer(serde_json::json!({"id": 2, "method": "hooks/list",
        "params": {"cwds": [project]}}));
    let _ = server.kill();
    let _ = server.wait();
    listed["result"]["data"][0]["hooks"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no hooks listed: {listed}"))
}
