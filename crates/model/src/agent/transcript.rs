//! The last messages of an agent's transcript, read from its JSONL lines:
//! Claude Code's (`{"type":"user"|"assistant","message":{…}}`) and Codex's
//! rollouts (`{"type":"response_item","payload":{…}}`). Lines of any other
//! kind (attachments, bookkeeping) say nothing and are skipped.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Timestamp;

/// How many characters of one message the view keeps.
pub const MESSAGE_LIMIT: usize = 400;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    /// The developer.
    User,
    /// The agent.
    Agent,
    /// A tool's result, handed back to the model.
    Tool,
}

impl Speaker {
    /// The word the view labels a message with.
    pub fn label(self) -> &'static str {
        match self {
            Self::User => "you",
            Self::Agent => "agent",
            Self::Tool => "tool",
        }
    }
}

/// How the text Codex puts in the user's place for the model (the
/// environment, the project's instructions) begins: not the developer's
/// words.
const CODEX_CONTEXT: [&str; 5] = [
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<developer_instructions>",
    "# AGENTS.md instructions",
];

/// One message, as the Agents view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptMessage {
    /// Who said it.
    pub speaker: Speaker,
    /// What was said, on one line, cut to [`MESSAGE_LIMIT`].
    pub text: String,
    /// When, if the line says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Timestamp>,
}

/// The message one transcript line holds, if it holds one.
pub fn message_of(line: &str) -> Option<TranscriptMessage> {
    let value: Value = serde_json::from_str(line).ok()?;
    let at = value
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(Timestamp::parse_lenient);
    let (role, content) = match value.get("type")?.as_str()? {
        "user" | "assistant" => {
            if value.get("isSidechain").and_then(Value::as_bool) == Some(true)
                || value.get("isMeta").and_then(Value::as_bool) == Some(true)
            {
                return None;
            }
            let message = value.get("message")?;
            (message.get("role")?.as_str()?, message.get("content")?)
        }
        "response_item" => {
            let payload = value.get("payload")?;
            match payload.get("type")?.as_str()? {
                "message" => (payload.get("role")?.as_str()?, payload.get("content")?),
                "function_call" | "custom_tool_call" => {
                    return Some(message(Speaker::Agent, codex_call(payload)?, at));
                }
                "function_call_output" | "custom_tool_call_output" => {
                    let output = payload.get("output")?;
                    let text = output
                        .as_str()
                        .map(str::to_owned)
                        .or_else(|| Some(output.get("content")?.as_str()?.to_owned()))?;
                    return Some(message(
                        Speaker::Tool,
                        format!("← {}", codex_output(&text)?),
                        at,
                    ));
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    let tool_results_only = content.as_array().is_some_and(|blocks| {
        !blocks.is_empty()
            && blocks
                .iter()
                .all(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
    });
    let speaker = match role {
        "user" if tool_results_only => Speaker::Tool,
        "user" => Speaker::User,
        "assistant" => Speaker::Agent,
        _ => return None,
    };
    let text = match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(block_text)
            .collect::<Vec<_>>()
            .join(" · "),
        _ => return None,
    };
    let text = text.trim();
    if speaker == Speaker::User && CODEX_CONTEXT.iter().any(|start| text.starts_with(start)) {
        return None;
    }
    (!text.is_empty()).then(|| message(speaker, text.to_owned(), at))
}

/// The first line worth reading of a Codex tool's output. Its shell tool
/// heads what the command printed with `Chunk ID:`, `Wall time:`,
/// `Process exited with code N` and `Output:` lines: the first line after
/// them, else how the command exited.
fn codex_output(text: &str) -> Option<String> {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    let first = lines.next()?;
    if !first.starts_with("Chunk ID:") {
        return Some(first.to_owned());
    }
    let mut exited = None;
    for line in lines.by_ref() {
        if line == "Output:" {
            break;
        }
        if let Some(code) = line.strip_prefix("Process exited with code ") {
            exited = Some(code.to_owned());
        }
    }
    lines.next().map(str::to_owned).or_else(|| {
        Some(match exited {
            Some(code) => format!("(exited with code {code}, no output)"),
            None => "(no output)".to_owned(),
        })
    })
}

/// A Codex tool call as `→ tool: what` — the command a shell call runs
/// (`cmd`, or `command` as a list or a line), else the call's name.
fn codex_call(payload: &Value) -> Option<String> {
    let name = payload.get("name")?.as_str()?;
    let arguments: Option<Value> = payload
        .get("arguments")
        .and_then(Value::as_str)
        .and_then(|text| serde_json::from_str(text).ok());
    let what = arguments.as_ref().and_then(|arguments| {
        match arguments.get("cmd").or_else(|| arguments.get("command"))? {
            Value::String(command) => Some(command.clone()),
            Value::Array(words) => {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                // `["bash", "-lc", "the line"]`: the line is what runs.
                match words.as_slice() {
                    [shell, "-lc" | "-c", line] if shell.ends_with("sh") => {
                        Some((*line).to_owned())
                    }
                    _ => Some(words.join(" ")),
                }
            }
            _ => None,
        }
    });
    Some(match what {
        Some(what) => format!("→ {name}: {what}"),
        None => format!("→ {name}"),
    })
}

/// One content block's words: text as is, a tool call as `→ Tool: what`,
/// a tool's result as `← first line`.
fn block_text(block: &Value) -> Option<String> {
    match block.get("type")?.as_str()? {
        "text" | "input_text" | "output_text" => Some(block.get("text")?.as_str()?.to_owned()),
        "tool_use" => {
            let name = block.get("name")?.as_str()?;
            let input = block.get("input");
            let what = ["command", "file_path", "pattern", "url", "description"]
                .iter()
                .find_map(|key| input?.get(key)?.as_str());
            Some(match what {
                Some(what) => format!("→ {name}: {what}"),
                None => format!("→ {name}"),
            })
        }
        "tool_result" => {
            let content = block.get("content")?;
            let text = match content {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(block_text)
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => return None,
            };
            Some(format!("← {}", text.lines().next().unwrap_or_default()))
        }
        _ => None,
    }
}

fn message(speaker: Speaker, text: String, at: Option<Timestamp>) -> TranscriptMessage {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = if flat.chars().count() > MESSAGE_LIMIT {
        let cut: String = flat.chars().take(MESSAGE_LIMIT).collect();
        format!("{cut}…")
    } else {
        flat
    };
    TranscriptMessage { speaker, text, at }
}

/// What the agent said last among `messages` (oldest first).
pub fn last_said(messages: &[TranscriptMessage]) -> Option<&str> {
    messages
        .iter()
        .rev()
        .find(|message| message.speaker == Speaker::Agent)
        .map(|message| message.text.as_str())
}

/// The last `count` messages of `lines` (oldest first).
pub fn last_messages<'a>(
    lines: impl DoubleEndedIterator<Item = &'a str>,
    count: usize,
) -> Vec<TranscriptMessage> {
    let mut last: Vec<TranscriptMessage> = lines.rev().filter_map(message_of).take(count).collect();
    last.reverse();
    last
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn claude_codes_lines_become_messages_and_bookkeeping_is_skipped() {
        let lines = [
            r#"{"type":"queue-operation","operation":"enqueue","content":"make the file"}"#,
            r#"{"type":"user","message":{"role":"user","content":"make the file"},"timestamp":"2026-11-26T19:15:33.530Z"}"#,
            r#"{"type":"attachment","attachment":{"type":"date","date":"2026-11-26"}}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Removing it."},{"type":"tool_use","id":"t","name":"Bash","input":{"command":"rm -rf build"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"(Bash completed with no output)\nmore"}]}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"role":"assistant","content":"a subagent"}}"#,
            "not json at all",
        ];
        let messages = last_messages(lines.into_iter(), 10);
        let texts: Vec<(Speaker, &str)> = messages
            .iter()
            .map(|m| (m.speaker, m.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                (Speaker::User, "make the file"),
                (Speaker::Agent, "Removing it. · → Bash: rm -rf build"),
                (Speaker::Tool, "← (Bash completed with no output)"),
            ]
        );
        assert!(messages[0].at.is_some());
        assert_eq!(
            last_said(&messages),
            Some("Removing it. · → Bash: rm -rf build")
        );
        assert_eq!(last_messages(lines.into_iter(), 1).len(), 1);
    }

    #[test]
    fn codex_rollout_lines_become_messages_without_its_context_and_with_the_commands_run() {
        let lines = [
            r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/tmp/proj</cwd>\n</environment_context>"}]}}"#,
            r##"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /tmp/proj\n\nBe nice."}]}}"##,
            r#"{"timestamp":"2026-11-26T10:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"publish it"}]}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cargo publish --dry-run\"}","call_id":"c"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"\nPackaging switchboard\nmore"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}","call_id":"d"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"not json","call_id":"e"}}"#,
            r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
            r#"{"type":"event_msg","payload":{"type":"token_count"}}"#,
        ];
        let said: Vec<(Speaker, String)> = last_messages(lines.into_iter(), 10)
            .into_iter()
            .map(|m| (m.speaker, m.text))
            .collect();
        let said: Vec<(Speaker, &str)> = said
            .iter()
            .map(|(who, text)| (*who, text.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (Speaker::User, "publish it"),
                (Speaker::Agent, "→ exec_command: cargo publish --dry-run"),
                (Speaker::Tool, "← Packaging switchboard"),
                (Speaker::Agent, "→ shell: ls -la"),
                (Speaker::Agent, "→ update_plan"),
                (Speaker::Agent, "Done."),
            ]
        );
    }

    #[test]
    fn a_long_message_is_cut_and_flattened() {
        let long = format!(
            r#"{{"type":"user","message":{{"role":"user","content":"a\n\nb {}"}}}}"#,
            "x".repeat(1000)
        );
        let message = message_of(&long).unwrap();
        assert!(message.text.starts_with("a b xxx") && message.text.ends_with('…'));
        assert_eq!(message.text.chars().count(), MESSAGE_LIMIT + 1);
    }

    #[test]
    fn a_codex_shell_result_reads_as_what_the_command_printed() {
        let headed = |output: &str| {
            format!(
                r#"{{"type":"response_item","payload":{{"type":"function_call_output","call_id":"c","output":{}}}}}"#,
                serde_json::Value::String(output.to_owned())
            )
        };
        let said = message_of(&headed(
            "Chunk ID: 3f2a1c\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 4\nOutput:\nremoved build/\n",
        ))
        .unwrap();
        assert_eq!(said.text, "← removed build/");
        let silent = message_of(&headed(
            "Chunk ID: 3f2a1c\nWall time: 0.0100 seconds\nProcess exited with code 1\nOutput:\n",
        ))
        .unwrap();
        assert_eq!(silent.text, "← (exited with code 1, no output)");
    }
}
