//! Codex's `exec --json` events, one JSON object a line: the answer comes
//! as whole `agent_message` items (no token deltas), the turn ends with
//! `turn.completed` or `turn.failed`, and settings it did not take are
//! reported as an `error` item naming them.

use serde_json::Value;

use super::Said;

/// Where Codex reports the `-c` settings of this run it ignored.
const OUR_SETTINGS: &str = "session-flags:";

/// The reader of one run's events: it remembers whether text came before
/// (messages are told apart by a blank line) and the last error said.
#[derive(Debug, Default)]
pub struct Events {
    said_any: bool,
    last_error: Option<String>,
}

impl Events {
    /// Reads one line (a line that is not JSON is [`Said::Other`]).
    pub fn read(&mut self, line: &str) -> Said {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            return Said::Other;
        };
        let message = |value: &Value| value["message"].as_str().unwrap_or_default().to_owned();
        match event["type"].as_str().unwrap_or_default() {
            "item.completed" => {
                let item = &event["item"];
                match item["type"].as_str().unwrap_or_default() {
                    "agent_message" => {
                        let text = item["text"].as_str().unwrap_or_default();
                        if text.is_empty() {
                            return Said::Other;
                        }
                        let gap = if self.said_any { "\n\n" } else { "" };
                        self.said_any = true;
                        Said::Text(format!("{gap}{text}"))
                    }
                    // A setting this turn passed was not taken: the turn
                    // would run with less than it was promised (a tool left
                    // on, a prompt part left in).
                    "error" if message(item).contains(OUR_SETTINGS) => Said::TooOld(message(item)),
                    _ => Said::Other,
                }
            }
            "error" => {
                let said = message(&event);
                if said.starts_with("Reconnecting") {
                    Said::Waiting(said)
                } else {
                    self.last_error = Some(said);
                    Said::Other
                }
            }
            "turn.completed" => Said::Result(Ok(String::new())),
            "turn.failed" => {
                let said = message(&event["error"]);
                let said = if said.is_empty() {
                    self.last_error
                        .take()
                        .unwrap_or_else(|| "the turn failed".to_owned())
                } else {
                    said
                };
                Said::Result(Err(said))
            }
            _ => Said::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn messages_the_end_and_ignored_settings_are_read_and_the_rest_passed_over() {
        let mut events = Events::default();
        assert_eq!(
            events.read(r#"{"type":"thread.started","thread_id":"t"}"#),
            Said::Other
        );
        assert_eq!(
            events.read(r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `gpt-5` not found."}}"#),
            Said::Other,
            "a warning is not the turn's failure"
        );
        assert_eq!(
            events.read(r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"First."}}"#),
            Said::Text("First.".into())
        );
        assert_eq!(
            events.read(r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"switchboard","tool":"write_file"}}"#),
            Said::Other
        );
        assert_eq!(
            events.read(r#"{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Second."}}"#),
            Said::Text("\n\nSecond.".into()),
            "a later message is set apart from the one before"
        );
        assert_eq!(
            events
                .read(r#"{"type":"error","message":"Reconnecting... 2/5 (stream disconnected)"}"#),
            Said::Waiting("Reconnecting... 2/5 (stream disconnected)".into())
        );
        assert_eq!(
            events.read(r#"{"type":"turn.completed","usage":{"input_tokens":20}}"#),
            Said::Result(Ok(String::new()))
        );
        assert_eq!(
            events.read(
                r#"{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized"}}"#
            ),
            Said::Result(Err("unexpected status 401 Unauthorized".into()))
        );
        assert_eq!(
            events.read(r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Codex is ignoring 1 unrecognized configuration setting.\n  session-flags: `include_permissions_instructions` is ignored."}}"#),
            Said::TooOld("Codex is ignoring 1 unrecognized configuration setting.\n  session-flags: `include_permissions_instructions` is ignored.".into())
        );
        assert_eq!(events.read("Reading prompt from stdin..."), Said::Other);
    }

    #[test]
    fn a_failed_turn_without_words_says_the_last_error() {
        let mut events = Events::default();
        events.read(r#"{"type":"error","message":"stream closed"}"#);
        assert_eq!(
            events.read(r#"{"type":"turn.failed","error":{}}"#),
            Said::Result(Err("stream closed".into()))
        );
    }
}
