//! The app's command line: `switchboard-app [OPTIONS] [WORKSPACE]`.

use std::{ffi::OsString, path::PathBuf};

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// Open the window.
    Open(Options),
    /// Print the usage and exit.
    Help,
    /// Print the version and exit.
    Version,
}

/// How to open the window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The workspace folder (default: the current directory).
    pub workspace: Option<PathBuf>,
    /// A model server URL laid over the settings.
    pub model_url: Option<String>,
    /// Where the settings live instead of the OS config directory.
    pub config_dir: Option<PathBuf>,
    /// Claude Code's config folder, for its agent teams.
    pub claude_dir: Option<PathBuf>,
    /// ClaudeControl's home, for its investigation and test reports.
    pub claude_control_dir: Option<PathBuf>,
    /// The sidecar binary to run instead of the one beside the app.
    pub sidecar: Option<PathBuf>,
}

/// The usage text `--help` prints.
pub const USAGE: &str = "\
Switchboard: a desktop switchboard for the AI coding agents in a repository.

Usage: switchboard-app [OPTIONS] [WORKSPACE]

Arguments:
  [WORKSPACE]          The project folder to open (default: the current directory)

Options:
      --model-url URL  Use the model server at URL (over the settings)
      --config-dir DIR Keep the settings in DIR instead of the OS config directory
      --claude-dir DIR Read Claude Code's agent teams from DIR (default:
                       CLAUDE_CONFIG_DIR, else ~/.claude)
      --claude-control-dir DIR
                       Read ClaudeControl's investigation and test reports from
                       DIR (default: CLAUDE_CONTROL_HOME, else ~/.claude-control)
      --sidecar PATH   Run the model link's sidecar at PATH (default:
                       SWITCHBOARD_SIDECAR, else switchboard-sidecar beside the app)
  -h, --help           Print this help
  -V, --version        Print the version

Environment: SWITCHBOARD_LOG (log filter, e.g. debug), SWITCHBOARD_MODEL_URL,
SWITCHBOARD_MODEL, SWITCHBOARD_API_KEY (override the settings);
OPENCODE_TEAMS_DIR (opencode-teams' folder, as the plugin reads it).
";

/// Reads the arguments after the program name; the error is a sentence.
pub fn parse(arguments: impl IntoIterator<Item = OsString>) -> Result<Launch, String> {
    let mut options = Options::default();
    let mut arguments = arguments.into_iter();
    while let Some(argument) = arguments.next() {
        let text = argument.to_string_lossy();
        let mut value = |name: &str| {
            arguments
                .next()
                .ok_or_else(|| format!("{name} needs a value; see --help"))
        };
        match text.as_ref() {
            "-h" | "--help" => return Ok(Launch::Help),
            "-V" | "--version" => return Ok(Launch::Version),
            "--model-url" => {
                options.model_url = Some(value("--model-url")?.to_string_lossy().into_owned())
            }
            "--config-dir" => options.config_dir = Some(PathBuf::from(value("--config-dir")?)),
            "--claude-dir" => options.claude_dir = Some(PathBuf::from(value("--claude-dir")?)),
            "--claude-control-dir" => {
                options.claude_control_dir = Some(PathBuf::from(value("--claude-control-dir")?))
            }
            "--sidecar" => options.sidecar = Some(PathBuf::from(value("--sidecar")?)),
            flag if flag.starts_with('-') && flag != "-" => {
                return Err(format!("unknown option {flag}; see --help"));
            }
            _ if options.workspace.is_some() => {
                return Err(format!(
                    "one workspace at a time: {} was given after {}",
                    text,
                    options
                        .workspace
                        .as_deref()
                        .unwrap_or_else(|| "".as_ref())
                        .display()
                ));
            }
            _ => options.workspace = Some(PathBuf::from(argument)),
        }
    }
    Ok(Launch::Open(options))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn parsed(arguments: &[&str]) -> Result<Launch, String> {
        parse(arguments.iter().map(OsString::from))
    }

    #[test]
    fn help_version_options_and_mistakes() {
        assert_eq!(parsed(&["--help"]), Ok(Launch::Help));
        assert_eq!(parsed(&["ws", "-h"]), Ok(Launch::Help));
        assert_eq!(parsed(&["--version"]), Ok(Launch::Version));
        assert_eq!(parsed(&["-V"]), Ok(Launch::Version));
        assert_eq!(
            parsed(&[
                "--model-url",
                "http://127.0.0.1:1",
                "ws",
                "--claude-dir",
                "c",
                "--sidecar",
                "s"
            ]),
            Ok(Launch::Open(Options {
                workspace: Some("ws".into()),
                model_url: Some("http://127.0.0.1:1".into()),
                config_dir: None,
                claude_dir: Some("c".into()),
                claude_control_dir: None,
                sidecar: Some("s".into()),
            }))
        );
        assert_eq!(parsed(&[]), Ok(Launch::Open(Options::default())));
        assert!(
            parsed(&["--nope"])
                .unwrap_err()
                .contains("unknown option --nope")
        );
        assert!(
            parsed(&["--config-dir"])
                .unwrap_err()
                .contains("needs a value")
        );
        assert!(parsed(&["a", "b"]).unwrap_err().contains("one workspace"));
    }
}
