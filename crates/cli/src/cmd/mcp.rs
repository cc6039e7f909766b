//! `switchboard mcp`: the MCP server over stdio or HTTP, and registering
//! it with clients, its tokens, and the worker a long tool call runs in.

use anyhow::Result;
use clap::{Args, Subcommand};
use switchboard_store::Workspace;

/// Runs `switchboard mcp` as `args` say, for `workspace` (`named`: the
/// workspace was given with `-C`, so the server does not follow its
/// client's roots).
pub fn run(workspace: Workspace, named: bool, args: McpArgs) -> Result<()> {
    match args {
        McpArgs {
            action:
                Some(McpAction::Install {
                    client,
                    write,
                    http,
                }),
            ..
        } => crate::mcp::install::run(&workspace, client, write, http.as_deref()),
        McpArgs {
            action:
                Some(McpAction::Token {
                    name,
                    list,
                    revoke,
                    allow,
                }),
            ..
        } => crate::mcp::http::token(&name, list, revoke.as_deref(), &allow),
        McpArgs {
            action: Some(McpAction::RunTask { id }),
            ..
        } => crate::mcp::tasks::run_worker(workspace, &id),
        McpArgs {
            http: Some(address),
            heartbeat_ms,
            allow_host,
            exit_with_stdin,
            ..
        } => crate::mcp::http::serve(
            workspace,
            &address,
            &allow_host,
            exit_with_stdin,
            std::time::Duration::from_millis(heartbeat_ms),
        ),
        args => crate::mcp::run(
            workspace,
            !named,
            std::time::Duration::from_millis(args.heartbeat_ms),
        ),
    }
}

/// `switchboard mcp`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct McpArgs {
    /// Instead of serving: register the server with an agent client.
    #[command(subcommand)]
    pub action: Option<McpAction>,
    /// Milliseconds between the progress notifications a waiting `ask`
    /// sends, so clients do not time the call out.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(10..=600_000))]
    pub heartbeat_ms: u64,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (default
    /// 127.0.0.1 on a free port; loopback only); every request needs a
    /// token from `switchboard mcp token`.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub http: Option<String>,
    /// Another loopback `Host` the HTTP server answers to (repeatable): the
    /// far end of an SSH tunnel, `127.0.0.1:PORT` there.
    #[arg(long, value_name = "HOST:PORT", requires = "http")]
    pub allow_host: Vec<String>,
    /// End the HTTP server when its stdin closes (what `connect` starts
    /// ends with it, however it ends).
    #[arg(long, requires = "http", hide = true)]
    pub exit_with_stdin: bool,
}

/// What `switchboard mcp` does besides serving.
#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Print the config entry that makes a client start `switchboard mcp`
    /// for this project; with --write, add it to the project's config file
    /// for that client, other entries kept.
    Install {
        /// The client.
        #[arg(value_enum)]
        client: crate::mcp::install::Client,
        /// Add the entry to the config file instead of printing it.
        #[arg(long)]
        write: bool,
        /// An entry for `switchboard mcp --http` at this URL instead (Claude
        /// Code, Codex, opencode; without a URL: the server running for
        /// this workspace); the token comes from the agent's environment
        /// variable SWITCHBOARD_TOKEN, never from the file.
        #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
        http: Option<String>,
    },
    /// Bearer tokens for `switchboard mcp --http`: make one (printed once;
    /// only its digest is kept, in the config folder), list or revoke them.
    Token {
        /// The agent the new token names (a machine, a container).
        #[arg(long, default_value = "agent", conflicts_with_all = ["list", "revoke"])]
        name: String,
        /// List the tokens' names and dates.
        #[arg(long)]
        list: bool,
        /// Revoke the token with this name; it stops working at once.
        #[arg(long, value_name = "NAME", conflicts_with = "list")]
        revoke: Option<String>,
        /// Grant the new token a scope beyond inbox, knowledge and tasks:
        /// `programs` (start and drive any program on this machine:
        /// program sessions and investigation).
        #[arg(
            long,
            value_name = "SCOPE",
            value_delimiter = ',',
            conflicts_with_all = ["list", "revoke"]
        )]
        allow: Vec<switchboard_model::token::Scope>,
    },
    /// Run a tool call recorded as a task to its end (what `switchboard
    /// mcp` starts for a long call; SIGTERM cancels it).
    #[command(hide = true)]
    RunTask {
        /// The stored task (`t_…`).
        id: String,
    },
}
