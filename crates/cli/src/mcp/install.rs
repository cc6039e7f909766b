//! `switchboard mcp install CLIENT [--write]`: the entry that makes an
//! agent client start `switchboard mcp` for this project, printed, or
//! added to the project's config file for that client. Editing keeps every
//! other entry, comment and blank line of the file as it was (JSON with
//! comments through jsonc-parser's CST, TOML through toml_edit); our own
//! entry is added or replaced.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::ValueEnum;
use jsonc_parser::{
    ParseOptions,
    cst::{CstInputValue, CstRootNode},
};
use serde_json::{Value, json};
use switchboard_store::Workspace;

/// The name the server is registered under in every client.
pub const SERVER_NAME: &str = "switchboard";

/// The agent clients Switchboard knows how to register with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Client {
    /// Claude Code: `.mcp.json` (project scope).
    ClaudeCode,
    /// OpenAI Codex: `.codex/config.toml` (read in trusted projects).
    Codex,
    /// OpenCode: `opencode.json`.
    Opencode,
    /// Cursor: `.cursor/mcp.json`.
    Cursor,
    /// VS Code: `.vscode/mcp.json`.
    Vscode,
    /// Zed: `.zed/settings.json`.
    Zed,
    /// Gemini CLI: `.gemini/settings.json` (project settings).
    Gemini,
}

/// Where a client's entry goes and what it holds.
struct Entry {
    /// The config file, relative to the workspace.
    file: &'static str,
    /// The keys of the object holding the servers.
    container: &'static [&'static str],
    /// The server's entry, its keys in the order written.
    value: Vec<(&'static str, Value)>,
    /// The top of a new file (e.g. its `$schema`).
    preamble: Option<(&'static str, Value)>,
}

fn entry(client: Client, workspace: &Path) -> Entry {
    let absolute = workspace.display().to_string();
    match client {
        // Claude Code and OpenCode start project servers in the project
        // folder; Codex too. VS Code and Cursor expand ${workspaceFolder}.
        // Zed is given the folder itself. Clients that offer roots are
        // followed when no -C is given.
        Client::ClaudeCode => Entry {
            file: ".mcp.json",
            container: &["mcpServers"],
            value: vec![
                ("type", json!("stdio")),
                ("command", json!("switchboard")),
                ("args", json!(["mcp"])),
            ],
            preamble: None,
        },
        Client::Codex => Entry {
            file: ".codex/config.toml",
            container: &["mcp_servers"],
            value: vec![("command", json!("switchboard")), ("args", json!(["mcp"]))],
            preamble: None,
        },
        Client::Opencode => Entry {
            file: "opencode.json",
            container: &["mcp"],
            value: vec![
                ("type", json!("local")),
                ("command", json!(["switchboard", "mcp"])),
                ("enabled", json!(true)),
            ],
            preamble: Some(("$schema", json!("https://opencode.ai/config.json"))),
        },
        Client::Cursor => Entry {
            file: ".cursor/mcp.json",
            container: &["mcpServers"],
            value: vec![
                ("command", json!("switchboard")),
                ("args", json!(["mcp", "-C", "${workspaceFolder}"])),
            ],
            preamble: None,
        },
        Client::Vscode => Entry {
            file: ".vscode/mcp.json",
            container: &["servers"],
            value: vec![
                ("type", json!("stdio")),
                ("command", json!("switchboard")),
                ("args", json!(["mcp", "-C", "${workspaceFolder}"])),
            ],
            preamble: None,
        },
        // Gemini CLI starts servers in the folder it runs in, the project's.
        Client::Gemini => Entry {
            file: ".gemini/settings.json",
            container: &["mcpServers"],
            value: vec![("command", json!("switchboard")), ("args", json!(["mcp"]))],
            preamble: None,
        },
        Client::Zed => Entry {
            file: ".zed/settings.json",
            container: &["context_servers"],
            value: vec![
                ("command", json!("switchboard")),
                ("args", json!(["mcp", "-C", absolute])),
                ("env", json!({})),
            ],
            preamble: None,
        },
    }
}

/// The environment variable an HTTP entry takes its token from.
pub const TOKEN_VARIABLE: &str = "SWITCHBOARD_TOKEN";

/// The entry for `switchboard mcp --http` at `url`: the token read from
/// [`TOKEN_VARIABLE`] in the agent's environment, in each client's own
/// spelling, so no token is ever written into a project file.
fn http_entry(client: Client, url: &str) -> Result<Entry> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        crate::failure::refuse!(
            "--http takes the server's URL, e.g. http://127.0.0.1:8765/mcp (not {url:?})"
        );
    }
    Ok(match client {
        Client::ClaudeCode => Entry {
            file: ".mcp.json",
            container: &["mcpServers"],
            value: vec![
                ("type", json!("http")),
                ("url", json!(url)),
                (
                    "headers",
                    json!({"Authorization": format!("Bearer ${{{TOKEN_VARIABLE}}}")}),
                ),
            ],
            preamble: None,
        },
        Client::Codex => Entry {
            file: ".codex/config.toml",
            container: &["mcp_servers"],
            value: vec![
                ("url", json!(url)),
                ("bearer_token_env_var", json!(TOKEN_VARIABLE)),
            ],
            preamble: None,
        },
        Client::Opencode => Entry {
            file: "opencode.json",
            container: &["mcp"],
            value: vec![
                ("type", json!("remote")),
                ("url", json!(url)),
                (
                    "headers",
                    json!({"Authorization": format!("Bearer {{env:{TOKEN_VARIABLE}}}")}),
                ),
                ("enabled", json!(true)),
            ],
            preamble: Some(("$schema", json!("https://opencode.ai/config.json"))),
        },
        other => crate::failure::refuse!(
            "an HTTP entry is written for claude-code, codex and opencode; {} starts `switchboard mcp` on stdio (drop --http)",
            other
                .to_possible_value()
                .map_or_else(String::new, |value| value.get_name().to_owned())
        ),
    })
}

/// The entry as a JSON object, its keys in order.
fn cst_entry(entry: &Entry) -> CstInputValue {
    CstInputValue::Object(
        entry
            .value
            .iter()
            .map(|(key, value)| ((*key).to_owned(), cst_value(value)))
            .collect(),
    )
}

/// `value` as jsonc-parser's CST takes it (also for `hooks install`).
pub(crate) fn cst_value(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(flag) => CstInputValue::Bool(*flag),
        Value::Number(number) => CstInputValue::Number(number.to_string()),
        Value::String(text) => CstInputValue::String(text.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(cst_value).collect()),
        Value::Object(map) => CstInputValue::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), cst_value(value)))
                .collect(),
        ),
    }
}

/// A configuration file we cannot edit safely (`CORRUPT_FILE`).
pub(crate) fn unparsable(why: impl Into<String>) -> anyhow::Error {
    switchboard_model::ErrorPayload::new(switchboard_model::ErrorCode::CorruptFile, why).into()
}

/// `text` (a JSON-with-comments file, or empty) with our entry set.
fn edit_json(text: &str, entry: &Entry) -> Result<String> {
    let source = if text.trim().is_empty() { "{}\n" } else { text };
    let root = CstRootNode::parse(source, &ParseOptions::default())
        .map_err(|error| unparsable(format!("it is not JSON: {error}")))?;
    let top = root
        .object_value()
        .ok_or_else(|| unparsable("its top level is not an object"))?;
    if text.trim().is_empty()
        && let Some((key, value)) = &entry.preamble
    {
        top.append(key, cst_value(value));
    }
    let mut servers = top;
    for key in entry.container {
        servers = servers
            .object_value_or_create(key)
            .ok_or_else(|| unparsable(format!("\"{key}\" is there but is not an object")))?;
    }
    match servers.get(SERVER_NAME) {
        Some(existing) => existing.set_value(cst_entry(entry)),
        None => {
            servers.append(SERVER_NAME, cst_entry(entry));
        }
    }
    Ok(root.to_string())
}

/// `text` (a TOML file, or empty) with our entry set.
fn edit_toml(text: &str, entry: &Entry) -> Result<String> {
    let mut document: toml_edit::DocumentMut = text
        .parse()
        .map_err(|error| unparsable(format!("it is not TOML: {error}")))?;
    let mut table = toml_edit::Table::new();
    for (key, value) in &entry.value {
        let item = match value {
            Value::String(text) => toml_edit::value(text.as_str()),
            Value::Array(items) => {
                let mut array = toml_edit::Array::new();
                for item in items.iter().filter_map(Value::as_str) {
                    array.push(item);
                }
                toml_edit::value(array)
            }
            _ => continue,
        };
        table.insert(key, item);
    }
    let container = entry.container.first().copied().unwrap_or("mcp_servers");
    let servers = document
        .entry(container)
        .or_insert_with(|| {
            let mut servers = toml_edit::Table::new();
            servers.set_implicit(true);
            toml_edit::Item::Table(servers)
        })
        .as_table_mut()
        .ok_or_else(|| unparsable(format!("[{container}] is there but is not a table")))?;
    servers.insert(SERVER_NAME, toml_edit::Item::Table(table));
    Ok(document.to_string())
}

/// The snippet a person pastes: the entry inside its container, as a new
/// file would hold it.
fn snippet(client: Client, entry: &Entry) -> Result<String> {
    if client == Client::Codex {
        edit_toml("", entry)
    } else {
        edit_json("", entry)
    }
}

/// Prints the entry for `client`, or with `write` adds it to the
/// project's config file and says where.
pub fn run(workspace: &Workspace, client: Client, write: bool, http: Option<&str>) -> Result<()> {
    let entry = match http {
        Some("") => {
            let Some(url) = super::http::running_url(workspace.root()) else {
                crate::failure::refuse!(
                    "no HTTP server runs for this workspace: start one (`switchboard mcp --http`, or the window's setting) or give its URL"
                );
            };
            http_entry(client, &url)?
        }
        Some(url) => http_entry(client, url)?,
        None => entry(client, workspace.root()),
    };
    let path: PathBuf = workspace.root().join(entry.file);
    if !write {
        eprintln!(
            "Add this to {} (or run again with --write):",
            path.display()
        );
        println!("{}", snippet(client, &entry)?);
        return Ok(());
    }
    let existing = switchboard_store::regular::read_text_in(workspace.root(), &path, 1 << 20)?
        .unwrap_or_default();
    let edited = if client == Client::Codex {
        edit_toml(&existing, &entry)
    } else {
        edit_json(&existing, &entry)
    }
    .with_context(|| {
        format!(
            "{} was left as it is because {}",
            path.display(),
            "it could not be edited safely; add the entry by hand"
        )
    })?;
    if edited == existing {
        println!("{} already starts switchboard mcp", path.display());
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("could not create {}", parent.display()))?;
    }
    switchboard_store::write_atomic(&path, edited.as_bytes())?;
    let verb = if existing.is_empty() {
        "created"
    } else {
        "updated"
    };
    println!("{verb} {}: {SERVER_NAME} → switchboard mcp", path.display());
    if existing.contains(SERVER_NAME) && !existing.is_empty() {
        eprintln!("(an earlier {SERVER_NAME} entry there was replaced)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly by design.
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn json_edits_keep_comments_and_other_servers() {
        let before = r#"{
  // team servers
  "servers": {
    "github": { "type": "http", "url": "https://example.com/mcp" }
  },
  "inputs": []
}
"#;
        let entry = entry(Client::Vscode, Path::new("/w"));
        let after = edit_json(before, &entry).unwrap();
        assert!(after.contains("// team servers"), "{after}");
        assert!(
            after.contains(r#""github": { "type": "http", "url": "https://example.com/mcp" }"#),
            "{after}"
        );
        assert!(after.contains(r#""inputs": []"#), "{after}");
        let again = edit_json(&after, &entry).unwrap();
        assert_eq!(again, after, "a second install changes nothing");
        let parsed: Value =
            jsonc_parser::parse_to_serde_value(&after, &ParseOptions::default()).unwrap();
        assert_eq!(
            parsed["servers"]["switchboard"]["args"][2],
            "${workspaceFolder}"
        );
    }

    #[test]
    fn toml_edits_keep_the_rest_of_the_file() {
        let before = "model = \"o4\" # mine\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        let entry = entry(Client::Codex, Path::new("/w"));
        let after = edit_toml(before, &entry).unwrap();
        assert!(after.starts_with("model = \"o4\" # mine\n"), "{after}");
        assert!(
            after.contains("[mcp_servers.docs]\ncommand = \"docs-mcp\""),
            "{after}"
        );
        assert!(
            after
                .contains("[mcp_servers.switchboard]\ncommand = \"switchboard\"\nargs = [\"mcp\"]"),
            "{after}"
        );
        assert_eq!(edit_toml(&after, &entry).unwrap(), after);
    }

    #[test]
    fn http_entries_take_the_token_from_the_environment_in_each_clients_spelling() {
        let url = "http://127.0.0.1:8765/mcp";
        let codex = edit_toml("", &http_entry(Client::Codex, url).unwrap()).unwrap();
        assert!(
            codex.contains("[mcp_servers.switchboard]\nurl = \"http://127.0.0.1:8765/mcp\"\nbearer_token_env_var = \"SWITCHBOARD_TOKEN\""),
            "{codex}"
        );
        let opencode = edit_json("", &http_entry(Client::Opencode, url).unwrap()).unwrap();
        let parsed: Value =
            jsonc_parser::parse_to_serde_value(&opencode, &ParseOptions::default()).unwrap();
        assert_eq!(parsed["mcp"]["switchboard"]["type"], "remote");
        assert_eq!(
            parsed["mcp"]["switchboard"]["headers"]["Authorization"],
            "Bearer {env:SWITCHBOARD_TOKEN}"
        );
        let claude = edit_json("", &http_entry(Client::ClaudeCode, url).unwrap()).unwrap();
        let parsed: Value =
            jsonc_parser::parse_to_serde_value(&claude, &ParseOptions::default()).unwrap();
        assert_eq!(
            parsed["mcpServers"]["switchboard"]["headers"]["Authorization"],
            "Bearer ${SWITCHBOARD_TOKEN}"
        );
        assert!(http_entry(Client::Cursor, url).is_err());
        assert!(http_entry(Client::ClaudeCode, "127.0.0.1:8765").is_err());
    }
}
