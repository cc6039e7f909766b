//! The settings view (how to reach the model, how the chat behaves) and
//! the model picker the chat header shares. The settings live in the OS
//! config directory, never in the workspace; environment variables win
//! over them and are shown as such.

use leptos::prelude::*;
use switchboard_model::ipc::ModelList;
use switchboard_model::program::Limits;
use switchboard_model::settings::{
    DEFAULT_CONTEXT_TOKENS, DEFAULT_FIRST_TOKEN_SECS, DEFAULT_IDLE_SECS, DEFAULT_MAX_OUTPUT_TOKENS,
    DEFAULT_MODEL, DEFAULT_MODEL_URL, ModelBackend, Settings, SettingsView, saved_note,
    split_globs,
};

use crate::{ipc, tasks};

/// Which variable overrides `setting`, if one does.
fn overridden_by(view: &SettingsView, setting: &str) -> Option<String> {
    view.overridden
        .iter()
        .find(|(_, name)| name == setting)
        .map(|(variable, _)| variable.clone())
}

/// The model picker: the backend's models, the stored choice selected,
/// and which backend the chat uses (and why) beside it.
#[component]
pub fn ModelPicker() -> impl IntoView {
    let stored = RwSignal::new(None::<SettingsView>);
    let listed = RwSignal::new(ModelList::default());
    let problem = RwSignal::new(None::<String>);
    // Why the backend could not list its models: the chat has no model.
    let no_model = RwSignal::new(None::<String>);
    tasks::fetch(async move {
        match ipc::get_settings().await {
            Ok(view) => stored.set(Some(view)),
            Err(failure) => problem.set(Some(failure.message)),
        }
        match ipc::list_models().await {
            Ok(list) => listed.set(list),
            Err(failure) => {
                problem.set(Some(failure.message.clone()));
                no_model.set(Some(failure.message));
            }
        }
    });
    let current = move || {
        stored.with(|view| {
            view.as_ref()
                .map(|view| view.effective.model().to_owned())
                .unwrap_or_else(|| DEFAULT_MODEL.to_owned())
        })
    };
    let locked =
        move || stored.with(|view| view.as_ref().and_then(|view| overridden_by(view, "model")));
    let choose = move |model: String| {
        let Some(mut settings) = stored.with_untracked(|v| v.as_ref().map(|v| v.settings.clone()))
        else {
            return;
        };
        // The empty choice is the agent's own default.
        settings.model = Some(model).filter(|model| !model.is_empty());
        tasks::act(async move {
            match ipc::save_settings(settings).await {
                Ok(view) => stored.set(Some(view)),
                Err(failure) => problem.set(Some(failure.message)),
            }
        });
    };
    view! {
        <BackendNote listed no_model />
        <select
            id="chat-model"
            aria-label="Model"
            disabled=move || locked().is_some()
            title=move || match (locked(), problem.get()) {
                (Some(variable), _) => format!("Set by {variable}"),
                (None, Some(problem)) => format!("Model list unavailable: {problem}"),
                (None, None) => "The model for the next message".to_owned(),
            }
            on:change=move |event| choose(event_target_value(&event))
        >
            {move || {
                let current = current();
                listed
                    .with(|list| list.options(&current))
                    .into_iter()
                    .map(|option| {
                        view! { <option value=option.value selected=option.selected>{option.label}</option> }
                    })
                    .collect_view()
            }}
        </select>
    }
}

/// Which backend answers the chat and why — or, when none can, that the
/// chat has no model and why, before a message is sent; a click opens
/// Settings.
#[component]
fn BackendNote(listed: RwSignal<ModelList>, no_model: RwSignal<Option<String>>) -> impl IntoView {
    move || {
        // Which backend answers and why — or, when none can, that the
        // chat has no model and why, before a message is sent.
        let (text, class, why) = match (listed.with(|list| list.backend.clone()), no_model.get()) {
            (Some(resolved), _) => (
                format!("via {}", resolved.backend.short_label()),
                "link muted chat-backend",
                resolved.reason,
            ),
            (None, Some(problem)) => (
                "no model answers".to_owned(),
                "link chat-backend missing",
                problem,
            ),
            (None, None) => return None,
        };
        let navigation = use_context::<crate::app::Navigation>();
        let spoken = format!("The chat: {text}. {why}. Open Settings to change it.");
        Some(view! {
            <button
                class=class
                id="chat-backend"
                title=format!("{why} — change it in Settings")
                aria-label=spoken
                on:click=move |_| {
                    if let Some(navigation) = navigation {
                        navigation.show_settings();
                    }
                }
            >
                {text}
            </button>
        })
    }
}

/// A number field for an optional setting, at least `min`; empty means the
/// default.
fn number_field(
    id: &'static str,
    label: &'static str,
    min: &'static str,
    default: u64,
    get: impl Fn(&Settings) -> Option<u64> + Copy + Send + Sync + 'static,
    set: impl Fn(&mut Settings, Option<u64>) + Copy + Send + Sync + 'static,
    draft: RwSignal<Settings>,
) -> impl IntoView {
    view! {
        <label for=id>{label}</label>
        <input
            id=id
            type="number"
            min=min
            placeholder=default.to_string()
            prop:value=move || draft.with(|s| get(s).map(|v| v.to_string()).unwrap_or_default())
            on:input=move |event| {
                let value = event_target_value(&event).trim().parse().ok();
                draft.update(|s| set(s, value));
            }
        />
    }
}

/// A checkbox bound to the draft's `field`.
fn check_field(
    id: &'static str,
    label: &'static str,
    get: fn(&Settings) -> bool,
    field: fn(&mut Settings) -> &mut bool,
    draft: RwSignal<Settings>,
) -> impl IntoView {
    view! {
        <label class="checkbox">
            <input
                id=id
                type="checkbox"
                prop:checked=move || draft.with(get)
                on:change=move |event| draft.update(|s| *field(s) = event_target_checked(&event))
            />
            {label}
        </label>
    }
}

/// A text field for an optional setting; empty means the default.
fn text_field(
    id: &'static str,
    label: &'static str,
    default: &'static str,
    kind: &'static str,
    field: fn(&mut Settings) -> &mut Option<String>,
    draft: RwSignal<Settings>,
) -> impl IntoView {
    view! {
        <label for=id>{label}</label>
        <input
            id=id
            type=kind
            autocomplete="off"
            placeholder=default
            prop:value=move || draft.with(|s| field(&mut s.clone()).clone().unwrap_or_default())
            on:input=move |event| {
                let value = event_target_value(&event).trim().to_owned();
                draft.update(|s| *field(s) = (!value.is_empty()).then_some(value));
            }
        />
    }
}

/// The settings view.
#[component]
pub fn SettingsPane() -> impl IntoView {
    let stored = RwSignal::new(None::<SettingsView>);
    let draft = RwSignal::new(Settings::default());
    let note = RwSignal::new(None::<Result<String, String>>);
    tasks::fetch(async move {
        match ipc::get_settings().await {
            Ok(view) => {
                draft.set(view.settings.clone());
                stored.set(Some(view));
            }
            Err(failure) => note.set(Some(Err(failure.message))),
        }
    });
    let save = move || {
        let settings = draft.get_untracked();
        let before = stored
            .with_untracked(|view| view.as_ref().map(|view| view.settings.clone()))
            .unwrap_or_default();
        tasks::act(async move {
            match ipc::save_settings(settings).await {
                Ok(view) => {
                    draft.set(view.settings.clone());
                    note.set(Some(saved_note(&before, &view)));
                    stored.set(Some(view));
                }
                Err(failure) => note.set(Some(Err(failure.message))),
            }
        });
    };

    view! {
        <section class="settings" id="view-settings">
            <header class="view-header"><h1>"Settings"</h1></header>
            <form
                class="settings-form"
                on:submit=move |event| {
                    event.prevent_default();
                    save();
                }
                on:keydown=move |event| {
                    if crate::keys::is_submit(&event) {
                        event.prevent_default();
                        save();
                    }
                }
            >
                <ModelSection draft />
                <ChatSection draft />
                <AgentSections draft />
                <div class="settings-actions">
                    <button type="submit" class="primary" id="settings-save">"Save"</button>
                    {move || note.get().map(|note| match note {
                        Ok(text) => view! { <span class="muted" id="settings-note">{text}</span> }.into_any(),
                        Err(text) => view! { <span class="error" role="alert" id="settings-note">{text}</span> }.into_any(),
                    })}
                </div>
            </form>
            <StoredAt stored />
        </section>
    }
}

/// The settings of the model the chat talks to.
#[component]
fn ModelSection(draft: RwSignal<Settings>) -> impl IntoView {
    view! {
        <h2>"Model"</h2>
        <fieldset class="settings-backend" id="settings-backend">
            <legend>"The chat talks to"</legend>
            <label>
                <input
                    type="radio"
                    name="settings-backend"
                    value=""
                    prop:checked=move || draft.with(|s| s.model_backend.is_none())
                    on:change=move |_| draft.update(|s| s.model_backend = None)
                />
                "The first that works: a configured server, a signed-in Claude Code, a signed-in Codex, a local Ollama"
            </label>
            {ModelBackend::ALL
                .into_iter()
                .map(|backend| view! {
                    <label>
                        <input
                            type="radio"
                            name="settings-backend"
                            value=backend.as_str()
                            prop:checked=move || draft.with(|s| s.model_backend == Some(backend))
                            on:change=move |_| draft.update(|s| s.model_backend = Some(backend))
                        />
                        {backend.label()}
                    </label>
                })
                .collect_view()}
        </fieldset>
        {text_field("settings-claude-code-path", "Claude Code's `claude` (when not on PATH)", "claude", "text",
            |s| &mut s.claude_code_path, draft)}
        {text_field("settings-codex-path", "Codex's `codex` (when not on PATH)", "codex", "text",
            |s| &mut s.codex_path, draft)}
        {text_field("settings-model-url", "Server URL (OpenAI-compatible)", DEFAULT_MODEL_URL, "text",
            |s| &mut s.model_url, draft)}
        {text_field("settings-model", "Model", DEFAULT_MODEL, "text", |s| &mut s.model, draft)}
        {text_field("settings-api-key", "API key (kept only in this file, readable by you alone)", "", "password",
            |s| &mut s.api_key, draft)}
        {number_field("settings-first-token", "Seconds to wait for the first token", "1", DEFAULT_FIRST_TOKEN_SECS,
            |s| s.first_token_secs, |s, v| s.first_token_secs = v, draft)}
        {number_field("settings-idle", "Seconds of silence before a stream counts as stalled", "1", DEFAULT_IDLE_SECS,
            |s| s.idle_secs, |s, v| s.idle_secs = v, draft)}
    }
}

/// The chat's settings: its budget, what Building may write, dry runs.
#[component]
fn ChatSection(draft: RwSignal<Settings>) -> impl IntoView {
    view! {
        <h2>"Chat"</h2>
        {number_field("settings-context", "Prompt budget (tokens)", "1", DEFAULT_CONTEXT_TOKENS as u64,
            |s| s.context_tokens.map(|v| v as u64), |s, v| s.context_tokens = v.map(|v| v as usize), draft)}
        {number_field("settings-max-output", "Longest answer (tokens)", "1", u64::from(DEFAULT_MAX_OUTPUT_TOKENS),
            |s| s.max_output_tokens.map(u64::from), |s, v| s.max_output_tokens = v.and_then(|v| u32::try_from(v).ok()), draft)}
        <label for="settings-build-globs">"Building mode may also write (globs, comma-separated)"</label>
        <input
            id="settings-build-globs"
            placeholder="src/**"
            prop:value=move || draft.with(|s| s.build_globs().join(", "))
            on:change=move |event| {
                let globs = split_globs(&event_target_value(&event));
                draft.update(|s| s.build_globs = (!globs.is_empty()).then_some(globs));
            }
        />
        {check_field("settings-dry-run", "Dry run: show the model's writes for approval instead of applying them", |s| s.dry_run, |s| &mut s.dry_run, draft)}
    }
}

/// What agents are told and allowed: notifications, program sessions,
/// MCP over HTTP.
#[component]
fn AgentSections(draft: RwSignal<Settings>) -> impl IntoView {
    view! {
        <h2>"Agents"</h2>
        {check_field("settings-notify-turn-finished", "Notify when an agent finishes its turn (agents waiting on you always notify)", |s| s.notify_turn_finished, |s| &mut s.notify_turn_finished, draft)}
        <h2>"Program sessions"</h2>
        <p class="muted">"For the session host agents drive programs through; it reads these when it next starts (a minute after its last session ends)."</p>
        {number_field("settings-max-sessions", "Live sessions at once", "1", Limits::default().max_sessions as u64,
            |s| s.max_sessions, |s, v| s.max_sessions = v, draft)}
        {number_field("settings-session-idle", "Seconds a session may sit idle before it is ended (0: never)", "0",
            Limits::default().idle_secs, |s| s.session_idle_secs, |s, v| s.session_idle_secs = v, draft)}
        {number_field("settings-session-max", "Seconds a session may run before it is ended (0: never)", "0",
            Limits::default().max_runtime_secs, |s| s.session_max_secs, |s, v| s.session_max_secs = v, draft)}
        <h2>"Agents elsewhere"</h2>
        {check_field("settings-serve-http", "Serve MCP over HTTP on loopback while this window is open (each agent needs a token: switchboard mcp token --name AGENT; starts or stops when you save)", |s| s.serve_http, |s| &mut s.serve_http, draft)}
        {number_field("settings-http-port", "Its port", "1024", u64::from(switchboard_model::settings::DEFAULT_HTTP_PORT),
            |s| s.http_port.map(u64::from), |s, v| s.http_port = v.and_then(|v| u16::try_from(v).ok()), draft)}
        <h2>"The inbox in a browser"</h2>
        {check_field("settings-serve-browser", "Serve the inbox to paired browsers on loopback while this window is open (a phone reaches it through an SSH tunnel; starts or stops when you save)", |s| s.serve_browser, |s| &mut s.serve_browser, draft)}
        {number_field("settings-browser-port", "Its port", "1024", u64::from(switchboard_model::settings::DEFAULT_BROWSER_PORT),
            |s| s.browser_port.map(u64::from), |s, v| s.browser_port = v.and_then(|v| u16::try_from(v).ok()), draft)}
        <p class="muted">"A paired browser reads and answers the inbox and watches agents, the team, tapes and program sessions. It does more only when you allow it here (it holds for every paired browser, at once):"</p>
        {check_field("settings-browser-take-over", "Paired browsers may take program sessions over (type anything into them, an agent's shell and slash commands too; hand them back, end them)", |s| s.browser_take_over, |s| &mut s.browser_take_over, draft)}
        {check_field("settings-browser-start", "Paired browsers may start agents (and type follow-up prompts into them, stop them)", |s| s.browser_start, |s| &mut s.browser_start, draft)}
        {check_field("settings-browser-unattended", "Paired browsers may start agents that act without asking (acceptEdits, bypassPermissions, never)", |s| s.browser_unattended, |s| &mut s.browser_unattended, draft)}
    }
}

/// While the window serves the inbox to browsers: where, and a button that
/// makes a one-time pairing link, shown with its QR code.
#[component]
fn PairBrowser(url: String) -> impl IntoView {
    let made = RwSignal::new(None::<Result<switchboard_model::ipc::PairingLink, String>>);
    let pair = move |_| {
        tasks::act(async move {
            made.set(Some(
                ipc::pair_browser().await.map_err(|failure| failure.message),
            ));
        });
    };
    view! {
        <div class="pair-browser">
            <p class="muted">"Serving the inbox to browsers at " <code id="settings-browser-url">{url}</code></p>
            <button type="button" id="settings-pair-browser" on:click=pair>"Pair a browser"</button>
            {move || made.get().map(|made| match made {
                Ok(made) => view! {
                    <p>"Open this link once, within 10 minutes, in the browser to pair (a phone's camera reads the code):"</p>
                    <p><code id="settings-pairing-link" class="pairing-link">{made.link.clone()}</code></p>
                    <QrCode rows=made.qr />
                    {made.reach.map(|reach| view! { <p class="pairing-reach" id="settings-pairing-reach">{reach}</p> })}
                    <p class="muted" id="settings-pairing-scope">{made.scope}</p>
                }.into_any(),
                Err(message) => view! { <p class="error" role="alert">{message}</p> }.into_any(),
            })}
        </div>
    }
}

/// A QR code drawn from its rows (`#` dark), one square per module.
#[component]
fn QrCode(rows: Vec<String>) -> impl IntoView {
    let size = rows.len();
    let path: String = rows
        .iter()
        .enumerate()
        .flat_map(|(y, row)| {
            row.chars()
                .enumerate()
                .filter(|(_, module)| *module == '#')
                .map(move |(x, _)| format!("M{x} {y}h1v1h-1z"))
        })
        .collect();
    view! {
        <svg class="pairing-qr" id="settings-pairing-qr" role="img" aria-label="The pairing link as a QR code"
            viewBox=format!("0 0 {size} {size}") width="200" height="200" shape-rendering="crispEdges">
            <rect width="100%" height="100%" fill="#fff"></rect>
            <path d=path fill="#000"></path>
        </svg>
    }
}

/// Where the settings are stored, the HTTP server's address, and what the
/// environment overrides.
#[component]
fn StoredAt(stored: RwSignal<Option<SettingsView>>) -> impl IntoView {
    view! {
        {move || stored.get().map(|view| view! {
            <p class="muted" id="settings-path">"Stored in " <code>{view.path.clone()}</code></p>
            {view.http_url.clone().map(|url| view! {
                <p class="muted">"Serving MCP over HTTP at " <code id="settings-http-url">{url}</code></p>
            })}
            {view.browser_url.clone().map(|url| view! { <PairBrowser url /> })}
            {(!view.overridden.is_empty()).then(|| view! {
                <ul class="settings-overrides" id="settings-overrides">
                    {view.overridden.iter().map(|(variable, setting)| {
                        let value = view.effective.shown_value(setting);
                        view! {
                            <li>{format!("{variable} overrides {setting} while it is set; in effect: {value}")}</li>
                        }
                    }).collect_view()}
                </ul>
            })}
        })}
    }
}
