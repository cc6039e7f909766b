//! Getting the developer's attention for blocking questions and for program
//! sessions waiting for a secret (a password prompt): an OS notification
//! and an urgency hint for each new one, and the number waiting in the
//! window title, the badge and the tray icon.

use std::{collections::BTreeSet, sync::Mutex};

use switchboard_model::agent::{
    AgentRow,
    announce::{self, Told},
    transcript,
};
use switchboard_model::{
    inbox::newly_waiting,
    program::ProgramSession,
    registry::{TrayLine, WorkspaceAttention, to_announce, tray_lines},
};
use switchboard_store::{
    Workspace, agents as agent_records, clock, deliveries, everywhere, registry,
};
use tauri::{
    AppHandle, Manager, UserAttentionType,
    menu::{Menu, MenuItem, PredefinedMenuItem},
    tray::TrayIconBuilder,
};
use tauri_plugin_notification::NotificationExt;

/// The tray icon's id.
const TRAY: &str = "switchboard";

/// How many other workspaces the tray's menu names at most.
const TRAY_WORKSPACES: usize = 12;

/// The menu item that brings this window forward.
const SHOW: &str = "show";

/// The prefix of a menu item's id that opens another workspace's window.
const OPEN: &str = "open:";

/// Puts Switchboard in the system tray, its menu naming the other running
/// workspaces; a desktop without a tray only loses the icon, not the count
/// in the title.
pub fn add_tray(app: &AppHandle, announced: &Announced) {
    let mut builder = TrayIconBuilder::with_id(TRAY)
        .tooltip("Switchboard")
        .on_menu_event(|app, event| on_tray_menu(app, event.id().as_ref()));
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    match tray_menu(app, &announced.tray_lines()) {
        Ok(menu) => builder = builder.menu(&menu),
        Err(error) => tracing::debug!(%error, "the tray has no menu"),
    }
    if let Err(error) = builder.build(app) {
        tracing::debug!(%error, "no system tray");
    }
}

/// The tray's menu: this window, then a line per other running workspace.
fn tray_menu(app: &AppHandle, lines: &[TrayLine]) -> tauri::Result<Menu<tauri::Wry>> {
    let menu = Menu::new(app)?;
    menu.append(&MenuItem::with_id(
        app,
        SHOW,
        "Show this window",
        true,
        None::<&str>,
    )?)?;
    if !lines.is_empty() {
        menu.append(&PredefinedMenuItem::separator(app)?)?;
        menu.append(&MenuItem::new(app, "All workspaces", false, None::<&str>)?)?;
    }
    for line in lines {
        let item = if line.workspace.is_empty() {
            MenuItem::new(app, &line.label, false, None::<&str>)?
        } else {
            let id = format!("{OPEN}{}", line.workspace);
            MenuItem::with_id(app, id, &line.label, true, None::<&str>)?
        };
        menu.append(&item)?;
    }
    Ok(menu)
}

/// A choice in the tray's menu: this window forward, or another running
/// workspace's window opened (only one registered now).
fn on_tray_menu(app: &AppHandle, id: &str) {
    if id == SHOW {
        crate::instance::focus(app);
        return;
    }
    let Some(root) = id.strip_prefix(OPEN) else {
        return;
    };
    let Some(state) = app.try_state::<crate::state::AppState>() else {
        return;
    };
    let opened = everywhere::reachable(&registry::list(), &state.workspace, root)
        .map_err(|error| error.to_string())
        .and_then(|workspace| {
            crate::instance::open_window(state.config.config_dir.as_deref(), workspace.root())
        });
    if let Err(error) = opened {
        tracing::warn!(%error, "the workspace's window was not opened");
    }
}

/// The blocking questions of other workspaces already seen (workspace, id;
/// `None` before the first reading), and what they count.
type Elsewhere = (Option<BTreeSet<(String, String)>>, usize);

/// What was already announced: the blocking questions, and the sessions
/// waiting for a secret.
#[derive(Default)]
pub struct Announced {
    questions: Mutex<BTreeSet<String>>,
    secrets: Mutex<BTreeSet<String>>,
    /// Agents waiting at their own prompt (no question here) and agents
    /// whose turn finished (told only when the developer asked for it).
    agents: Mutex<Told>,
    /// The questions waiting at start-up are known: newer ones notify.
    primed: std::sync::atomic::AtomicBool,
    /// What waits in the other running workspaces ("All workspaces"):
    /// their blocking questions already seen (workspace, id; `None`
    /// before the first reading), and the count they add.
    elsewhere: Mutex<Elsewhere>,
    /// The tray menu's lines for the other workspaces, as last shown.
    tray: Mutex<Vec<TrayLine>>,
    /// Held while the other workspaces are read and what they hold is
    /// stored: the first reading at start-up and the follower's are one
    /// after the other, so an older one never overwrites a newer.
    reading: Mutex<()>,
}

impl Announced {
    fn tray_lines(&self) -> Vec<TrayLine> {
        self.tray
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn waiting(&self) -> usize {
        let count = |set: &Mutex<BTreeSet<String>>| {
            set.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .len()
        };
        let agents = self
            .agents
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .waiting
            .len();
        let elsewhere = self
            .elsewhere
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .1;
        count(&self.questions) + count(&self.secrets) + agents + elsewhere
    }
}

/// Shows an OS notification of `title` and `body`, text others wrote
/// shown as written (`switchboard_model::notice`): on the freedesktop
/// servers a body is markup, escaped.
fn show_notice(app: &AppHandle, title: &str, body: &str) {
    let markup = cfg!(all(unix, not(target_os = "macos")));
    let shown = app
        .notification()
        .builder()
        .title(switchboard_model::notice::title(title))
        .body(switchboard_model::notice::body(body, markup))
        .show();
    if let Err(error) = shown {
        tracing::debug!(%error, "no notification service");
    }
}

/// Announces the sessions in `sessions` that began waiting for a secret
/// since the last call.
pub fn secrets(app: &AppHandle, sessions: &[ProgramSession], announced: &Announced) {
    let wanting: BTreeSet<String> = sessions
        .iter()
        .filter(|session| session.wants_secret)
        .map(|session| session.id.clone())
        .collect();
    let fresh: Vec<&ProgramSession> = {
        let Ok(mut known) = announced.secrets.lock() else {
            return;
        };
        let fresh = sessions
            .iter()
            .filter(|session| session.wants_secret && !known.contains(&session.id))
            .collect();
        if *known == wanting {
            return;
        }
        *known = wanting;
        fresh
    };
    for session in &fresh {
        show_notice(
            app,
            "A program asks for a secret",
            &format!(
                "{} ({}) waits for a password: type it in Terminals",
                session.label(),
                session.command_line()
            ),
        );
    }
    let window = app.get_webview_window("main");
    if !fresh.is_empty()
        && let Some(window) = &window
        && let Err(error) = window.request_user_attention(Some(UserAttentionType::Critical))
    {
        tracing::debug!(%error, "could not ask for attention");
    }
    show_count(app, announced.waiting());
}

/// Announces agents that began waiting on the developer at their own
/// prompt since the last call (a permission asked in the terminal,
/// "waiting for your input"): who, where, why, and what it said last. An
/// agent waiting on a question in the inbox is announced by the question.
pub fn agents(app: &AppHandle, workspace: &Workspace, announced: &Announced) {
    // States only: the few transcripts a notification quotes are read
    // for it (the view reads its own).
    let rows = match agent_records::states(workspace, clock::now()) {
        Ok(rows) => rows,
        Err(error) => {
            tracing::warn!(%error, "could not read the agents for notifications");
            return;
        }
    };
    let news = {
        let Ok(mut told) = announced.agents.lock() else {
            return;
        };
        told.update(&rows)
    };
    let primed = announced.primed.load(std::sync::atomic::Ordering::SeqCst);
    let notify = |(title, body): (String, String)| show_notice(app, &title, &body);
    if primed && !news.finished.is_empty() && wants_turn_notifications(app) {
        for row in &news.finished {
            notify(announce::finished_notice(
                row,
                &workspace.name(),
                last_said(row).as_deref(),
            ));
        }
    }
    if primed {
        for row in &news.waiting {
            notify(announce::waiting_notice(
                row,
                &workspace.name(),
                last_said(row).as_deref(),
            ));
        }
    }
    show_count(app, announced.waiting());
}

/// What an agent said last, read from the end of its transcript.
fn last_said(row: &AgentRow) -> Option<String> {
    transcript::last_said(&agent_records::last_messages(&row.record)).map(str::to_owned)
}

/// Whether the developer asked to hear of finished turns (the settings'
/// `notifyTurnFinished`).
fn wants_turn_notifications(app: &AppHandle) -> bool {
    app.try_state::<crate::state::AppState>()
        .and_then(|state| state.config.settings_dir())
        .and_then(|dir| switchboard_store::settings::load(&dir).ok())
        .is_some_and(|settings| settings.notify_turn_finished)
}

/// Learns the questions that waited before the window opened: they update
/// the count but raise no notification. Until it has run, no refresh
/// notifies.
pub fn prime(app: &AppHandle, workspace: &Workspace, announced: &Announced) {
    refresh(app, workspace, announced, false);
    if let Err(error) = agent_records::sweep(workspace, clock::now()) {
        tracing::debug!(%error, "gone agents were not swept");
    }
    agents(app, workspace, announced);
    announced
        .primed
        .store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Re-reads the inbox and announces blocking questions that are new since
/// the last call (once [`prime`] has run; before, only the count changes).
pub fn refresh(app: &AppHandle, workspace: &Workspace, announced: &Announced, notify: bool) {
    let notify = notify && announced.primed.load(std::sync::atomic::Ordering::SeqCst);
    let listed = match deliveries::list(workspace) {
        Ok(listed) => listed,
        Err(error) => {
            tracing::warn!(%error, "could not read the inbox for notifications");
            return;
        }
    };
    {
        let Ok(mut known) = announced.questions.lock() else {
            return;
        };
        let (fresh, waiting) = newly_waiting(&known, &listed.deliveries);
        if notify && !fresh.is_empty() {
            for delivery in &fresh {
                show_notice(app, "An agent is waiting for your answer", &delivery.title);
            }
            if let Some(window) = app.get_webview_window("main")
                && let Err(error) = window.request_user_attention(Some(UserAttentionType::Critical))
            {
                tracing::debug!(%error, "could not ask for attention");
            }
        }
        *known = waiting;
    }
    show_count(app, announced.waiting());
}

/// Reads what waits in the other running workspaces: their count joins the
/// title's, and a blocking question new since the last call is announced
/// with its workspace's name — once, and only where no window of its own
/// announces it (not those found at the first call; `registry::to_announce`).
pub fn elsewhere(app: &AppHandle, workspace: &Workspace, announced: &Announced) {
    let _reading = announced
        .reading
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let lines = everywhere::attention(&registry::list(), workspace, clock::now());
    let fresh = {
        let mut known = announced
            .elsewhere
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        known.1 = lines
            .iter()
            .filter(|line| !line.current)
            .map(WorkspaceAttention::waiting)
            .sum();
        to_announce(&lines, &mut known.0)
    };
    let tray = tray_lines(&lines, TRAY_WORKSPACES);
    let changed = {
        let mut shown = announced
            .tray
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let changed = *shown != tray;
        *shown = tray.clone();
        changed
    };
    if changed && let Some(icon) = app.tray_by_id(TRAY) {
        match tray_menu(app, &tray) {
            Ok(menu) => {
                if let Err(error) = icon.set_menu(Some(menu)) {
                    tracing::debug!(%error, "the tray's menu was not updated");
                }
            }
            Err(error) => tracing::debug!(%error, "the tray's menu was not made"),
        }
    }
    for (line, question) in fresh {
        show_notice(
            app,
            &format!("An agent in {} is waiting for your answer", line.name),
            &question.title,
        );
    }
    show_count(app, announced.waiting());
}

/// Shows what `announced` counts as waiting (once the tray exists, say).
pub fn show_waiting(app: &AppHandle, announced: &Announced) {
    show_count(app, announced.waiting());
}

/// Shows how many things wait for the developer in the title (after the
/// workspace's name, so two windows read apart), the badge and the tray.
fn show_count(app: &AppHandle, waiting: usize) {
    if let Some(window) = app.get_webview_window("main") {
        let name = app
            .try_state::<crate::state::AppState>()
            .map(|state| state.workspace.name())
            .unwrap_or_default();
        let _ = window.set_title(&switchboard_model::ipc::window_title(&name, waiting));
        let badge = (waiting > 0).then_some(waiting as i64);
        if let Err(error) = window.set_badge_count(badge) {
            tracing::debug!(%error, "no badge on this desktop");
        }
    }
    if let Some(tray) = app.tray_by_id(TRAY) {
        let tooltip = match waiting {
            0 => "Switchboard: nothing waiting".to_owned(),
            count => format!("Switchboard: {count} waiting for you"),
        };
        let _ = tray.set_tooltip(Some(&tooltip));
        let _ = tray.set_title((waiting > 0).then(|| waiting.to_string()));
    }
}
