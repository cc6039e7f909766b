//! Members with their role and unread count, a member's inbox, and the form
//! that sends or broadcasts under a sender name the developer picks.

use leptos::prelude::*;
use switchboard_model::{
    ipc::TeamSendRequest,
    team::{MessageType, TeamBoard},
};

use super::TeamState;
use crate::{ipc, kept::KeptText, tasks, views::composer::Composer};

/// The members, and the inbox of the one picked.
#[component]
pub fn Members(board: TeamBoard) -> impl IntoView {
    let shown = RwSignal::new(None::<String>);
    let config = board.config.clone();
    let inboxes = StoredValue::new(board.inboxes.clone());
    let members = config
        .members
        .iter()
        .map(|member| {
            let agent = member.agent_id.clone();
            let unread = board
                .inboxes
                .iter()
                .find(|inbox| inbox.agent == agent)
                .map_or(0, |inbox| inbox.unread());
            let role = config.role_of(&agent).unwrap_or("member").to_owned();
            let pick = agent.clone();
            view! {
                <li class="member" data-agent=agent.clone()>
                    <button class="member-open" on:click=move |_| shown.set(Some(pick.clone()))>
                        <strong>{agent.clone()}</strong>
                        <span class="muted">" " {role}</span>
                        {(unread > 0).then(|| view! { <span class="count unread">{unread}</span> })}
                    </button>
                </li>
            }
        })
        .collect_view();
    let inbox = move || {
        shown.get().map(|agent| {
            let messages = inboxes
                .get_value()
                .into_iter()
                .find(|inbox| inbox.agent == agent)
                .map(|inbox| inbox.messages)
                .unwrap_or_default();
            view! {
                <section class="inbox" id="member-inbox" data-agent=agent.clone()>
                    <h3>{format!("{agent}'s inbox")}</h3>
                    {messages.is_empty().then(|| view! { <p class="muted">"No messages."</p> })}
                    <ul>
                        {messages
                            .into_iter()
                            .rev()
                            .map(|message| view! {
                                <li class=format!("message type-{}", message.kind.as_str())>
                                    <span class="badge">{message.kind.as_str().replace('_', " ")}</span>
                                    " " <strong>{message.from}</strong>
                                    {(!message.read).then(|| view! { <span class="count unread">"new"</span> })}
                                    <p>{message.message}</p>
                                </li>
                            })
                            .collect_view()}
                    </ul>
                </section>
            }
        })
    };
    view! {
        <h2>"Members"</h2>
        <ul class="members" id="team-members">{members}</ul>
        {inbox}
    }
}

/// Sends to one member, or to everyone, under a sender name the developer
/// picks.
#[component]
pub fn SendForm(state: TeamState) -> impl IntoView {
    let from = RwSignal::new("developer".to_owned());
    let to = RwSignal::new(String::new());
    let kind = RwSignal::new(MessageType::Plain);
    // What is written is the window's until it is sent.
    let text = KeptText::new(format!("team-message:{}", state.team_name()), String::new()).text;
    let error = RwSignal::new(None::<String>);
    let sent = RwSignal::new(false);
    let send = move || {
        let recipient = to.get_untracked();
        let request = TeamSendRequest {
            team: state.team_name(),
            from: from.get_untracked().trim().to_owned(),
            to: (!recipient.is_empty()).then_some(recipient),
            kind: kind.get_untracked(),
            text: text.get_untracked(),
        };
        tasks::act(async move {
            match ipc::team_send(&request).await {
                Ok(()) => {
                    error.set(None);
                    text.set(String::new());
                    sent.set(true);
                    state.reload();
                }
                Err(failure) => error.set(Some(failure.message)),
            }
        });
    };
    view! {
        <form class="send-message" id="send-message" on:submit=move |event| {
            event.prevent_default();
            send();
        }>
            <h2>"Message"</h2>
            <label>"From " <input id="msg-from" prop:value=move || from.get() on:input=move |event| from.set(event_target_value(&event)) /></label>
            <Recipient state to />
            <label>"Type "
                <select id="msg-type" on:change=move |event| kind.set(MessageType::parse(&event_target_value(&event)).unwrap_or_default())>
                    {MessageType::ALL.map(|kind| view! { <option value=kind.as_str()>{kind.as_str().replace('_', " ")}</option> }).collect_view()}
                </select>
            </label>
            <Composer
                id="msg-text"
                placeholder="Message (Ctrl+Enter sends)"
                text
                on_submit=move |()| send()
                on_edit=move |()| sent.set(false)
            />
            <button type="submit" class="primary" id="msg-send">"Send"</button>
            {move || sent.get().then(|| view! { <span class="muted" id="msg-sent" role="status">"Sent."</span> })}
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </form>
    }
}

/// Whom a message goes to: everyone, or one of the team's members.
#[component]
fn Recipient(state: TeamState, to: RwSignal<String>) -> impl IntoView {
    let members = move || -> Vec<String> {
        state
            .board
            .get()
            .map(|board| {
                board
                    .config
                    .members
                    .into_iter()
                    .map(|member| member.agent_id)
                    .collect()
            })
            .unwrap_or_default()
    };
    view! {
        <label>"To "
            <select id="msg-to" on:change=move |event| to.set(event_target_value(&event))>
                <option value="">"Everyone (broadcast)"</option>
                {move || {
                    let chosen = to.get_untracked();
                    members()
                        .into_iter()
                        .map(|member| view! { <option value=member.clone() selected=member == chosen>{member.clone()}</option> })
                        .collect_view()
                }}
            </select>
        </label>
    }
}
