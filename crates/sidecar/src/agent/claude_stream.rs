//! Claude Code's `--output-format stream-json` (with
//! `--include-partial-messages`), one JSON object a line: the text of the
//! answer as it streams, and the result line that ends the run.

use serde_json::Value;

use super::Said;

/// Reads one line of the stream (a line that is not JSON is [`Said::Other`]:
/// the CLI may print a warning among them).
pub fn read(line: &str) -> Said {
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        return Said::Other;
    };
    match value.get("type").and_then(Value::as_str) {
        Some("stream_event") => {
            let event = &value["event"];
            let delta = &event["delta"];
            if event["type"] == "content_block_delta" && delta["type"] == "text_delta" {
                delta["text"]
                    .as_str()
                    .map_or(Said::Other, |text| Said::Text(text.to_owned()))
            } else {
                Said::Other
            }
        }
        Some("result") => {
            let text = value["result"].as_str().unwrap_or_default().to_owned();
            let failed = value["is_error"].as_bool().unwrap_or(false)
                || value["subtype"]
                    .as_str()
                    .is_some_and(|subtype| subtype != "success");
            if failed {
                let why = if text.is_empty() {
                    value["subtype"].as_str().unwrap_or("error").to_owned()
                } else {
                    text
                };
                Said::Result(Err(why))
            } else {
                Said::Result(Ok(text))
            }
        }
        _ => Said::Other,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn text_deltas_and_the_result_are_read_and_the_rest_passed_over() {
        assert_eq!(
            read(
                r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}}"#
            ),
            Said::Text("Hel".into())
        );
        assert_eq!(
            read(
                r#"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}}"#
            ),
            Said::Other,
            "a tool call's arguments are not the answer"
        );
        assert_eq!(
            read(r#"{"type":"result","subtype":"success","is_error":false,"result":"Hello."}"#),
            Said::Result(Ok("Hello.".into()))
        );
        assert_eq!(
            read(
                r#"{"type":"result","subtype":"success","is_error":true,"result":"Not logged in · Please run /login"}"#
            ),
            Said::Result(Err("Not logged in · Please run /login".into()))
        );
        assert_eq!(
            read(r#"{"type":"result","subtype":"error_max_turns","is_error":true}"#),
            Said::Result(Err("error_max_turns".into()))
        );
        assert_eq!(read(r#"{"type":"system","subtype":"init"}"#), Said::Other);
        assert_eq!(read("warning: something"), Said::Other);
    }
}
