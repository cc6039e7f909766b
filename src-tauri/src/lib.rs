//! Switchboard's desktop shell: opens the workspace, registers the commands,
//! forwards watcher events to the UI. Everything with logic lives in
//! `switchboard-store` and `switchboard-model`; this crate is wiring.

mod args;
mod attention;
mod commands;
mod events;
mod http_server;
mod instance;
mod program_sessions;
mod sidecar;
mod state;

use std::{path::PathBuf, process::ExitCode, time::Instant};

use switchboard_model::ipc::StartPhase;
use switchboard_store::Workspace;
use tauri::Manager;

use crate::state::AppState;

/// Starts the app on the workspace named by the first argument, or on the
/// current directory, and runs until the window closes (see
/// [`args::USAGE`]; `--help` and `--version` print and exit).
pub fn run() -> ExitCode {
    let started = Instant::now();
    let options = match args::parse(std::env::args_os().skip(1)) {
        Ok(args::Launch::Open(options)) => options,
        Ok(args::Launch::Help) => {
            print!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(args::Launch::Version) => {
            println!("switchboard-app {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("switchboard-app: {error}");
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SWITCHBOARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    let args::Options {
        workspace: path,
        model_url,
        config_dir,
        claude_dir,
        claude_control_dir,
        sidecar,
    } = options;
    if let Some(dir) = &config_dir {
        // One config folder for the whole process: the workspace's records
        // are found where its agents' minders look.
        switchboard_store::settings::choose_config_dir(dir.clone());
    }
    let path = path
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let workspace = match Workspace::open(&path) {
        Ok(workspace) => workspace,
        Err(error) => {
            eprintln!("switchboard: {error}");
            return ExitCode::from(2);
        }
    };
    tracing::info!(workspace = %workspace.root().display(), "opening");
    let window_state = state::Config {
        model_url: None,
        config_dir: config_dir.clone(),
        claude_dir: None,
        claude_control_dir: None,
        sidecar: None,
    }
    .settings_dir()
    .map(|dir| dir.join("window-state.json"));

    let mut builder = tauri::Builder::default()
        // First: a second launch on this workspace hands over and exits
        // before anything else starts.
        .plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(instance::bus_name(workspace.root()))
                .callback(|app, _args, _cwd| instance::focus(app))
                .build(),
        )
        .plugin(tauri_plugin_notification::init())
        // Exports: the save dialog adds the one file the user picked to the
        // fs plugin's scope, which holds nothing else (capabilities/).
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_fs::init());
    if let Some(file) = window_state {
        // Kept beside the settings (an absolute name: not in Tauri's own
        // config folder, so `--config-dir` keeps tests apart too).
        builder = builder.plugin(
            tauri_plugin_window_state::Builder::new()
                .with_filename(file.display().to_string())
                .build(),
        );
    }
    let result = builder
        // The document loaded: a start-up phase.
        .on_page_load(|webview, payload| {
            if payload.event() == tauri::webview::PageLoadEvent::Finished
                && let Some(state) = webview.try_state::<AppState>()
            {
                state.reach(StartPhase::PageLoaded, None);
            }
        })
        .setup(move |app| {
            // Tauri creates the configured window and its webview just
            // before this runs.
            let webview_created = started.elapsed().as_millis();
            // The tray waits for the first paint (`ui_ready`): creating it
            // here held the page's first load by ~10 ms.
            let config = state::Config {
                model_url: model_url.clone(),
                config_dir: config_dir.clone(),
                claude_dir: claude_dir.clone(),
                claude_control_dir: claude_control_dir.clone(),
                sidecar: sidecar.clone(),
            };
            let announced = std::sync::Arc::new(attention::Announced::default());
            let watcher = events::forward_store_changes(
                app.handle(),
                &workspace,
                &config,
                std::sync::Arc::clone(&announced),
            )?;
            let sidecar = sidecar::Sidecar::start(app.handle().clone(), config.clone());
            let state = AppState::new(
                workspace,
                watcher,
                sidecar,
                config,
                started,
                std::sync::Arc::clone(&announced),
            )
            .holding_window();
            state.reach(StartPhase::WebviewCreated, Some(webview_created));
            state.keep_following(events::follow_everywhere(
                app.handle(),
                &state.workspace,
                std::sync::Arc::clone(&state.announced),
            ));
            // The window's own servers, when the settings ask for them
            // (read off the start-up path).
            state
                .http
                .start(state.workspace.root(), state.config.settings_dir());
            state
                .browser
                .start(state.workspace.root(), state.config.settings_dir());
            program_sessions::follow(
                app.handle().clone(),
                state.workspace.root().to_owned(),
                std::sync::Arc::clone(&state.sessions),
                announced,
            );
            app.manage(state);
            instance::exit_on_signals(app.handle());
            instance::lighten_webview(app.handle());
            if let Some(state) = app.try_state::<AppState>() {
                state.reach(StartPhase::ShellReady, None);
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::workspace::workspace_info,
            commands::inbox::list_deliveries,
            commands::inbox::get_delivery,
            commands::inbox::mark_opened,
            commands::inbox::reply,
            commands::inbox::add_annotation,
            commands::inbox::export_delivery,
            commands::agents::list_agents,
            commands::everywhere::everywhere,
            commands::everywhere::open_workspace,
            commands::agents::codex_hooks_trust,
            commands::launches::launches,
            commands::launches::launch_start,
            commands::launches::launch_diff,
            commands::launches::launch_merge,
            commands::launches::launch_discard,
            commands::launches::launch_send,
            commands::launches::launch_stop,
            commands::theme::get_theme,
            commands::chat::chat_send,
            commands::chat::chat_stop,
            commands::chat::chat_history,
            commands::chat::sidecar_health,
            commands::chat::chat_sessions,
            commands::chat::chat_new,
            commands::chat::chat_resume,
            commands::chat::chat_trash,
            commands::chat::chat_set_summary,
            commands::chat::chat_settle_write,
            commands::chat::list_models,
            commands::chat::render_markdown,
            commands::knowledge::knowledge,
            commands::knowledge::knowledge_search,
            commands::knowledge::learn,
            commands::knowledge::bullet_vote,
            commands::knowledge::bullet_edit,
            commands::knowledge::bullet_add,
            commands::knowledge::quarantine,
            commands::tapes::tapes,
            commands::tapes::tape,
            commands::tapes::tapes_search,
            commands::tapes::tape_note,
            commands::tapes::tape_export_cast,
            commands::team::teams,
            commands::team::team_board,
            commands::team::task_create,
            commands::team::task_claim,
            commands::team::task_advance,
            commands::team::task_deps,
            commands::team::team_send,
            commands::team::team_create,
            commands::settings::get_settings,
            commands::settings::save_settings,
            commands::settings::pair_browser,
            commands::program_sessions::sessions,
            commands::program_sessions::session_replay,
            commands::program_sessions::session_output,
            commands::program_sessions::session_type,
            commands::program_sessions::session_control,
            commands::program_sessions::session_end,
            commands::probes::probe_reports,
            commands::probes::probe_report,
            commands::lifecycle::ui_ready,
            commands::lifecycle::ui_phase,
        ])
        .run(tauri::generate_context!("../tauri.conf.json"));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("switchboard: the window could not run: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    /// The handlers `generate_handler!` registers, by name (Tauri names a
    /// command after its function).
    fn registered() -> Vec<String> {
        let source = include_str!("lib.rs");
        let marker = "generate_handler![";
        let start = source.find(marker).map_or(0, |at| at + marker.len());
        let block = &source[start..];
        let block = &block[..block.find(']').unwrap_or(block.len())];
        block
            .split(',')
            .filter_map(|entry| entry.trim().strip_prefix("commands::"))
            .filter_map(|path| path.rsplit("::").next())
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_command_the_ui_calls_has_a_registered_handler() {
        let mut registered = registered();
        registered.sort();
        let mut expected: Vec<String> = switchboard_model::ipc::COMMANDS
            .iter()
            .map(|name| (*name).to_owned())
            .collect();
        expected.sort();
        assert_eq!(registered, expected);
    }
}
