//! An agent's own permission request answered in the window: Allow,
//! Always allow (the agent keeps the rule), Deny with a reason the model
//! reads, or Answer in the terminal (the agent asks there instead). Keys
//! when not typing: `y` allows, `n` goes to the reason (Enter there
//! denies), `t` leaves it to the terminal.

use leptos::{html, prelude::*};
use switchboard_model::{
    ErrorCode,
    agent::{AgentKind, permission::RequestMark},
    blocking::Reply,
    feedback::ConfirmAnswer,
};

use crate::{ipc, tasks};

/// The answer buttons of permission request `id`, shown as `seen` says
/// ([`switchboard_model::receipt::shown`]).
#[component]
pub fn PermissionForm(
    id: String,
    seen: String,
    mark: RequestMark,
    on_done: Callback<()>,
) -> impl IntoView {
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let reason = RwSignal::new(String::new());
    let reason_box = NodeRef::<html::Input>::new();
    let form = NodeRef::<html::Section>::new();
    let id = StoredValue::new(id);
    let seen = StoredValue::new(seen);
    let elsewhere = use_context::<super::detail::AnsweredElsewhere>();
    let answered = use_context::<super::detail::AnsweredNow>();
    let workspace = StoredValue::new(super::detail::in_workspace());
    let send = Callback::new(move |reply: Reply| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        let (id, seen) = (id.get_value(), seen.get_value());
        let workspace = workspace.get_value();
        tasks::act(async move {
            match ipc::reply(&id, reply, workspace, seen).await {
                Ok(detail) => {
                    super::detail::AnsweredNow::keep(answered, detail);
                    on_done.try_run(());
                }
                Err(failure) if failure.code == ErrorCode::AlreadyResponded => {
                    if let Some(super::detail::AnsweredElsewhere(flag)) = elsewhere {
                        flag.set(true);
                    }
                    on_done.try_run(());
                }
                Err(failure) => error.set(Some(failure.message)),
            }
            busy.set(false);
        });
    });
    let allow = Callback::new(move |always: bool| {
        let answer = ConfirmAnswer {
            remember: always,
            ..ConfirmAnswer::yes()
        };
        send.run(Reply::Answer {
            answer: answer.to_value(),
        });
    });
    let deny = Callback::new(move |()| {
        send.run(Reply::Answer {
            answer: ConfirmAnswer::no(&reason.get_untracked()).to_value(),
        });
    });
    let has_terminal = mark.has_terminal;
    let keys = listen_to_keys(allow, send, reason_box, has_terminal);
    on_cleanup(move || keys.remove());
    // The form, not Allow, has the focus: the Enter that opened the
    // question (or a second one after it) decides nothing; `y`, `n` and
    // `t` do, and Tab reaches the buttons.
    Effect::new(move |_| {
        if let Some(form) = form.get() {
            let _ = form.focus();
        }
    });
    let label = format!("{} asks to use {}", mark.agent.label(), mark.tool_name);
    view! {
        <section class="permission-form" id="permission-form" tabindex="-1" node_ref=form aria-label=label>
            {(!crate::browser::touch_only()).then(|| view! {
                <p class="muted permission-keys key-hint">"y allows · n gives a reason and denies"{has_terminal.then_some(" · t leaves it to the terminal")}</p>
            })}
            <div class="confirm">
                <button type="button" class="primary" id="permission-allow" disabled=move || busy.get() title="Allow (y)" on:click=move |_| allow.run(false)>
                    "Allow"
                </button>
                <AlwaysAllow mark busy allow />
            </div>
            <DenyForm reason reason_box busy deny />
            {has_terminal.then(|| view! {
                <button type="button" class="quiet" id="permission-terminal" disabled=move || busy.get() title="The agent asks in its own terminal instead (t)" on:click=move |_| send.run(Reply::Dismiss)>
                    {if ipc::in_browser() { "Leave it to its terminal on the machine" } else { "Answer in the terminal" }}
                </button>
            })}
            {move || error.get().map(|message| view! { <p class="error" role="alert" id="permission-error">{message}</p> })}
        </section>
    }
}

/// The form's keys, while it is shown: `y` allows, `n` goes to the
/// reason (Enter there denies), `t` leaves it to the agent's terminal.
fn listen_to_keys(
    allow: Callback<bool>,
    send: Callback<Reply>,
    reason_box: NodeRef<html::Input>,
    has_terminal: bool,
) -> WindowListenerHandle {
    window_event_listener(leptos::ev::keydown, move |event| {
        if event.alt_key() || event.ctrl_key() || event.meta_key() {
            return;
        }
        if crate::keys::is_typing(&event) {
            return;
        }
        match event.key().as_str() {
            "y" => {
                event.prevent_default();
                allow.run(false);
            }
            "n" => {
                event.prevent_default();
                if let Some(input) = reason_box.get_untracked() {
                    let _ = input.focus();
                }
            }
            "t" if has_terminal => {
                event.prevent_default();
                send.run(Reply::Dismiss);
            }
            _ => {}
        }
    })
}

/// "Always allow" with the rule it keeps, or why it is not offered (only
/// Claude Code keeps rules; where no rule allows exactly this request,
/// it says so).
#[component]
fn AlwaysAllow(mark: RequestMark, busy: RwSignal<bool>, allow: Callback<bool>) -> impl IntoView {
    let agent = mark.agent.label();
    let rules = mark
        .always
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let no_rule = mark.always.is_empty() && mark.agent == AgentKind::ClaudeCode;
    view! {
        {(!rules.is_empty()).then(|| view! {
            <button type="button" id="permission-always" disabled=move || busy.get() title=format!("Allow, and let {agent} keep the rule: it will not ask again for exactly this") on:click=move |_| allow.run(true)>
                "Always allow"
            </button>
            <span class="always-rule" id="permission-always-rule">
                "keeps " <code>{rules.clone()}</code>
            </span>
        })}
        {no_rule.then(|| view! {
            <span class="always-rule muted" id="permission-no-always">
                {mark.no_always.clone().unwrap_or_else(|| "“Always” is not offered: no rule would allow exactly this.".to_owned())}
            </span>
        })}
    }
}

/// The reason the agent reads, and Deny.
#[component]
fn DenyForm(
    reason: RwSignal<String>,
    reason_box: NodeRef<html::Input>,
    busy: RwSignal<bool>,
    deny: Callback<()>,
) -> impl IntoView {
    view! {
        <form class="permission-deny" on:submit=move |event| {
            event.prevent_default();
            deny.run(());
        }>
            <input
                type="text"
                id="permission-reason"
                node_ref=reason_box
                placeholder="Why not? (the agent reads it; n)"
                maxlength="4000"
                prop:value=move || reason.get()
                on:input=move |event| reason.set(event_target_value(&event))
            />
            <button type="submit" id="permission-deny" disabled=move || busy.get() title="Deny (Enter in the reason)">"Deny"</button>
        </form>
    }
}
