//! A session's header, one line: for a started agent who it is — its
//! name, its agent, where it works, its state — with its command line (its
//! hooks' JSON and all) only on demand; for any other session its name
//! and its command line, cut to one line. Then how the session is now and
//! the caller's controls.

use leptos::prelude::*;
use switchboard_model::program::ProgramSession;

use super::TerminalsState;

/// The header of `session`, `said` saying how it is now, `children` its
/// controls.
#[component]
pub(super) fn Head(
    state: TerminalsState,
    session: ProgramSession,
    said: String,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let command = session.command_line();
    let Some(row) = state.agent_of(&session.id) else {
        return view! {
            <div class="terminal-head">
                <strong id="terminal-title">{session.label().to_owned()}</strong>
                <code class="muted terminal-command-line" title=command.clone()>{command.clone()}</code>
                <span class="muted" id="terminal-state">{said}</span>
                {children.map(|children| children())}
            </div>
        }
        .into_any();
    };
    let open = state.command_open;
    let place = row.place(session.workspace.as_deref().unwrap_or_default());
    view! {
        <div class="terminal-head agent-head">
            <strong id="terminal-title">{row.launch.name.clone()}</strong>
            <span class="muted" id="terminal-agent">{row.launch.agent.label()}</span>
            <span class=format!("badge agent-state state-{}", row.shown.as_str()) id="terminal-agent-state">{row.label()}</span>
            <span class="muted" id="terminal-place" title=row.launch.cwd.clone()>{place}</span>
            <span class="muted" id="terminal-state">{said}</span>
            {children.map(|children| children())}
        </div>
        <details
            class="terminal-command"
            id="terminal-command"
            prop:open=move || open.get()
            on:toggle=move |event| open.set(event_target::<web_sys::HtmlDetailsElement>(&event).open())
        >
            <summary>"Its command line"</summary>
            <code>{command}</code>
        </details>
    }
    .into_any()
}
