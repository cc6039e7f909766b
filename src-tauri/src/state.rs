//! What the shell keeps for the lifetime of the window.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex, atomic::AtomicBool},
    time::Instant,
};

use switchboard_model::ipc::StartPhase;

use switchboard_store::{Workspace, WorkspaceWatcher, search::SharedIndex, team::ClaudeTeams};

use crate::sidecar::Sidecar;

/// The open workspace and the resources tied to it.
pub struct AppState {
    /// The workspace folder this window shows.
    pub workspace: Workspace,
    /// When the process started, for start-up timing.
    pub started: Instant,
    /// Whether the UI has reported its first paint.
    pub painted: AtomicBool,
    /// When each start-up phase was reached, in ms since `started`.
    pub phases: Mutex<Vec<(StartPhase, u128)>>,
    /// The sidecar process, for chat.
    pub sidecar: Arc<Sidecar>,
    /// What the command line set.
    pub config: Config,
    /// The knowledge index, opened at the first search (so opening a
    /// workspace creates nothing in it).
    pub search: SharedIndex,
    /// What was announced to the developer (blocking questions, secrets
    /// asked for), for the tray's count once it exists.
    pub announced: Arc<crate::attention::Announced>,
    /// The program sessions as last heard (followed for the window's life).
    pub sessions: Arc<switchboard_commands::terminals::Followed>,
    /// Kept alive so file changes keep reaching the UI.
    _watcher: WorkspaceWatcher,
    /// The window's own MCP HTTP server, when the settings ask for it.
    pub http: Arc<crate::http_server::HttpServer>,
    /// The window's own server of the inbox for browsers, when the
    /// settings ask for it.
    pub browser: Arc<crate::http_server::HttpServer>,
    /// Held while the window runs: agents' hooks ask here only then.
    _window: Option<switchboard_store::window::WindowHold>,
    /// The window's registration on this machine, so every window's "All
    /// workspaces" lists this one (and hooks elsewhere know a window runs).
    _registered: Option<switchboard_store::registry::Registered>,
    /// Follows the other running workspaces while the window runs.
    everywhere: Mutex<Option<switchboard_store::everywhere::Follower>>,
}

impl AppState {
    /// Bundles the workspace with its running watcher.
    pub fn new(
        workspace: Workspace,
        watcher: WorkspaceWatcher,
        sidecar: Arc<Sidecar>,
        config: Config,
        started: Instant,
        announced: Arc<crate::attention::Announced>,
    ) -> Self {
        Self {
            workspace,
            started,
            painted: AtomicBool::new(false),
            phases: Mutex::new(Vec::new()),
            sidecar,
            config,
            search: SharedIndex::default(),
            announced,
            sessions: Arc::default(),
            _watcher: watcher,
            http: Arc::default(),
            browser: Arc::new(crate::http_server::HttpServer::of(
                crate::http_server::Kind::Browser,
            )),
            _window: None,
            _registered: None,
            everywhere: Mutex::new(None),
        }
    }
}

impl AppState {
    /// The same, marking the workspace as having a window open (see
    /// `switchboard_store::window`) for as long as the state lives.
    pub fn holding_window(mut self) -> Self {
        match switchboard_store::window::hold(&self.workspace) {
            Ok(hold) => self._window = Some(hold),
            Err(error) => {
                tracing::warn!(%error, "agents' hooks will not ask in this window");
            }
        }
        let registered = switchboard_store::registry::Registry::locate().and_then(|registry| {
            registry.register(
                &self.workspace,
                switchboard_model::registry::Presence::Window,
                switchboard_store::clock::now(),
            )
        });
        match registered {
            Ok(registered) => self._registered = Some(registered),
            Err(error) => {
                tracing::warn!(%error, "other windows will not list this workspace");
            }
        }
        self
    }

    /// Keeps `follower` for the window's life.
    pub fn keep_following(&self, follower: Option<switchboard_store::everywhere::Follower>) {
        *self
            .everywhere
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = follower;
    }

    /// The ms after the process's start of wall-clock time `epoch_ms` (ms
    /// since the Unix epoch), if it is not before the start.
    pub fn since_start(&self, epoch_ms: f64) -> Option<u128> {
        let now = switchboard_store::clock::now().unix_millis() as f64;
        let start = now - self.started.elapsed().as_secs_f64() * 1000.0;
        let since = epoch_ms - start;
        (since.is_finite() && since >= 0.0).then_some(since as u128)
    }

    /// Notes that start-up reached `phase` now (once; later calls are
    /// ignored), or `at` ms after the start when it is given.
    pub fn reach(&self, phase: StartPhase, at: Option<u128>) {
        let at = at.unwrap_or_else(|| self.started.elapsed().as_millis());
        let mut phases = self
            .phases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !phases.iter().any(|(known, _)| *known == phase) {
            phases.push((phase, at));
        }
    }

    /// The phases reached, in their order, as the start-up line lists them:
    /// `webview_created=120 page_loaded=260 …` (ms after the start).
    pub fn phase_list(&self) -> String {
        let phases = self
            .phases
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        StartPhase::ALL
            .iter()
            .filter_map(|phase| {
                phases
                    .iter()
                    .find(|(known, _)| known == phase)
                    .map(|(_, at)| format!("{}={at}", phase.as_str()))
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What the app's command line sets beside the workspace.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// `--model-url`: the model server, over the settings.
    pub model_url: Option<String>,
    /// `--config-dir`: where the settings live instead of the OS config
    /// directory.
    pub config_dir: Option<PathBuf>,
    /// `--claude-dir`: Claude Code's config folder, for its agent teams.
    pub claude_dir: Option<PathBuf>,
    /// `--claude-control-dir`: ClaudeControl's home, for its reports.
    pub claude_control_dir: Option<PathBuf>,
    /// `--sidecar`: the sidecar binary instead of the one beside the app.
    pub sidecar: Option<PathBuf>,
}

impl Config {
    /// Claude Code's config folder in effect: `--claude-dir`, else where
    /// Claude Code itself looks.
    pub fn claude_teams(&self) -> Option<ClaudeTeams> {
        match &self.claude_dir {
            Some(dir) => Some(ClaudeTeams::at(dir)),
            None => ClaudeTeams::locate(),
        }
    }

    /// ClaudeControl's reports folders in effect: `--claude-control-dir`,
    /// else where ClaudeControl itself keeps them.
    pub fn probe_reports(
        &self,
    ) -> Result<switchboard_store::probe_reports::ProbeReports, switchboard_store::StoreError> {
        match &self.claude_control_dir {
            Some(dir) => Ok(switchboard_store::probe_reports::ProbeReports::at(
                dir.clone(),
            )),
            None => switchboard_store::probe_reports::ProbeReports::located(),
        }
    }

    /// The settings folder in effect.
    pub fn settings_dir(&self) -> Option<PathBuf> {
        self.config_dir
            .clone()
            .or_else(switchboard_store::settings::config_dir)
    }
}
