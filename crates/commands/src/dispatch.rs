//! Routing a browser's call by the command's name (`switchboard serve`):
//! the same functions the shell's commands call, for the commands a
//! browser may use; any other is refused, saying so.

use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use switchboard_model::{
    ErrorCode, ErrorPayload,
    ipc::{
        CMD_ADD_ANNOTATION, CMD_CODEX_HOOKS_TRUST, CMD_EVERYWHERE, CMD_GET_DELIVERY, CMD_GET_THEME,
        CMD_LIST_AGENTS, CMD_LIST_DELIVERIES, CMD_MARK_OPENED, CMD_REPLY, CMD_UI_PHASE,
        CMD_UI_READY, CMD_WORKSPACE_INFO,
    },
};
use switchboard_store::{StoreError, Workspace};

use crate::{agents, inbox};

/// The commands a browser may call: reading the inbox and answering it
/// (forms, approvals, annotations), the agents and "All workspaces". Never
/// one that starts a program, an agent or a chat, nor one that writes a
/// file the developer picks.
pub const BROWSER_COMMANDS: [&str; 12] = [
    CMD_WORKSPACE_INFO,
    CMD_LIST_DELIVERIES,
    CMD_GET_DELIVERY,
    CMD_MARK_OPENED,
    CMD_REPLY,
    CMD_ADD_ANNOTATION,
    CMD_GET_THEME,
    CMD_LIST_AGENTS,
    CMD_CODEX_HOOKS_TRUST,
    CMD_EVERYWHERE,
    CMD_UI_READY,
    CMD_UI_PHASE,
];

/// Runs command `name` on `own` with `arguments` as the page sends them
/// (`{"request": …}`, or nothing), answering what the shell's command
/// answers, as JSON.
pub fn dispatch(own: &Workspace, name: &str, arguments: &Value) -> Result<Value, ErrorPayload> {
    match name {
        CMD_WORKSPACE_INFO => answer(Ok::<_, StoreError>(inbox::workspace_info(own))),
        CMD_LIST_DELIVERIES => answer(inbox::list_deliveries(own)),
        CMD_GET_DELIVERY => answer(inbox::get_delivery(own, &request(name, arguments)?)),
        CMD_MARK_OPENED => answer(inbox::mark_opened(own, &request(name, arguments)?)),
        CMD_REPLY => answer(inbox::reply(own, request(name, arguments)?)),
        CMD_ADD_ANNOTATION => answer(inbox::add_annotation(own, request(name, arguments)?)),
        CMD_GET_THEME => answer(inbox::get_theme(own)),
        CMD_LIST_AGENTS => answer(agents::list_agents(own)),
        CMD_CODEX_HOOKS_TRUST => answer(agents::codex_hooks_trust(own)),
        CMD_EVERYWHERE => answer(Ok::<_, StoreError>(agents::everywhere(own))),
        // The window's start-up marks: nothing to record for a browser.
        CMD_UI_READY | CMD_UI_PHASE => Ok(Value::Null),
        _ => Err(ErrorPayload::new(
            ErrorCode::Forbidden,
            format!("{name} is not available in a browser (yet): use the Switchboard window"),
        )),
    }
}

/// The call's one `request` argument.
fn request<T: DeserializeOwned>(name: &str, arguments: &Value) -> Result<T, ErrorPayload> {
    let request = arguments.get("request").cloned().unwrap_or(Value::Null);
    serde_json::from_value(request).map_err(|error| {
        ErrorPayload::new(
            ErrorCode::InvalidRequest,
            format!("{name}: the request is not what it takes: {error}"),
        )
    })
}

fn answer<T: Serialize>(result: Result<T, StoreError>) -> Result<Value, ErrorPayload> {
    let value = result?;
    serde_json::to_value(value).map_err(|error| {
        ErrorPayload::new(
            ErrorCode::Internal,
            format!("could not encode the answer: {error}"),
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use switchboard_model::ipc::{CMD_CHAT_SEND, CMD_LAUNCH_START, CMD_SESSION_TYPE, COMMANDS};

    use super::*;

    #[test]
    fn a_browser_may_read_and_answer_but_never_start_anything() {
        let dir = tempfile::tempdir().unwrap();
        let own = Workspace::open(dir.path()).unwrap();
        for name in [
            CMD_LAUNCH_START,
            CMD_CHAT_SEND,
            CMD_SESSION_TYPE,
            "no_such_command",
        ] {
            let refused = dispatch(&own, name, &json!({"request": {}})).unwrap_err();
            assert_eq!(refused.code, ErrorCode::Forbidden, "{name}");
            assert!(
                refused.message.contains("not available in a browser"),
                "{}",
                refused.message
            );
        }
        for name in BROWSER_COMMANDS {
            assert!(COMMANDS.contains(&name), "{name} is a command of the page");
        }
        let listed = dispatch(&own, CMD_LIST_DELIVERIES, &Value::Null).unwrap();
        assert_eq!(listed["deliveries"], json!([]));
        let malformed = dispatch(&own, CMD_REPLY, &json!({"request": {"id": 3}})).unwrap_err();
        assert_eq!(malformed.code, ErrorCode::InvalidRequest);
        let elsewhere = dispatch(
            &own,
            CMD_GET_DELIVERY,
            &json!({"request": {"id": "d_1_001", "workspace": "/etc"}}),
        )
        .unwrap_err();
        assert_eq!(
            elsewhere.code,
            ErrorCode::NotFound,
            "an unregistered folder is never reached"
        );
    }
}
