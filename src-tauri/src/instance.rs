//! One window per workspace. The single-instance plugin owns a D-Bus name
//! while the app runs; the name carries a digest of the workspace's path,
//! so a second launch on the same workspace finds the first (which brings
//! its window forward) and exits, while another workspace gets its own
//! window. Without a session bus, every launch opens its window.

use std::path::Path;

use tauri::{AppHandle, Manager, Runtime};

/// The D-Bus name prefix of the window for `workspace` (the plugin adds
/// `.SingleInstance`): the app's identifier and the workspace's key
/// (`model::id::workspace_key`, the same on every run and build).
pub fn bus_name(workspace: &Path) -> String {
    format!(
        "dev.switchboard.desktop.w{}",
        switchboard_model::id::workspace_key(workspace)
    )
}

/// Brings the window forward: shown, unminimised, focused, and asking for
/// attention where focus is refused.
pub fn focus<R: Runtime>(app: &AppHandle<R>) {
    tracing::info!("a second launch on this workspace: focusing its window");
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let _ = window.show();
    let _ = window.unminimize();
    if window.set_focus().is_err() {
        let _ = window.request_user_attention(Some(tauri::UserAttentionType::Informational));
    }
}

/// Opens a window on `root` (one already open there comes forward: one
/// window per workspace), with the settings folder `config_dir` if this
/// window was given one; the error is a sentence.
pub fn open_window(config_dir: Option<&Path>, root: &Path) -> Result<(), String> {
    let app =
        std::env::current_exe().map_err(|error| format!("could not find this app: {error}"))?;
    let mut command = std::process::Command::new(app);
    if let Some(dir) = config_dir {
        command.arg("--config-dir").arg(dir);
    }
    let mut child = command
        .arg(root)
        .spawn()
        .map_err(|error| format!("could not open a window on {}: {error}", root.display()))?;
    // Reaped when it ends; it outlives this window otherwise.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Turns WebKit's accelerated compositing off for the window (WebKitGTK's
/// hardware acceleration policy `NEVER`, what `WEBKIT_DISABLE_COMPOSITING_MODE=1`
/// does): measured with 1,000 deliveries, the web process idles at ~110 MB
/// instead of ~190 MB, and nothing here animates enough to need the GPU.
pub fn lighten_webview<R: Runtime>(app: &AppHandle<R>) {
    #[cfg(target_os = "linux")]
    if let Some(window) = app.get_webview_window("main") {
        let applied = window.with_webview(|webview| {
            use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt as _, WebViewExt as _};
            if let Some(settings) = webview.inner().settings() {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
        if let Err(error) = applied {
            tracing::warn!(%error, "the webview's compositing stays on");
        }
    }
}

/// Ends the app the way closing its window does when the session asks it
/// to stop (`SIGTERM`, `SIGINT`, `SIGHUP`): plugins finish — the window's
/// size and position are saved — and the sidecar stops with it.
pub fn exit_on_signals<R: Runtime>(app: &AppHandle<R>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(signals) => signals,
        Err(error) => {
            tracing::warn!(%error, "stop signals not handled; the window state is saved on close only");
            return;
        }
    };
    let app = app.clone();
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            tracing::info!(signal, "asked to stop");
            app.exit(0);
        }
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn each_workspace_has_its_own_stable_valid_name() {
        let one = bus_name(Path::new("/home/dev/project"));
        assert_eq!(one, bus_name(Path::new("/home/dev/project")));
        assert_ne!(one, bus_name(Path::new("/home/dev/other")));
        // D-Bus: elements of [A-Za-z0-9_-], none starting with a digit.
        for element in one.split('.') {
            assert!(!element.is_empty() && !element.starts_with(|c: char| c.is_ascii_digit()));
            assert!(
                element
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
            );
        }
    }
}
