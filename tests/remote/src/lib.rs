//! Test support for agents on other machines: a real `sshd` (Debian's
//! openssh-server) on loopback with throwaway keys, the lines a process
//! prints as they come, and MCP requests posted over raw HTTP/1.1 (so what
//! is sent is exactly what the test says).

#![allow(clippy::unwrap_used)] // A test fixture: failing loudly is right.
#![allow(clippy::disallowed_methods)] // Tests read the files they made.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, ChildStderr, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use serde_json::Value;

/// An `sshd` of the test's own on loopback, killed on drop.
pub struct Sshd {
    child: Child,
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    /// The private key it accepts.
    pub key: PathBuf,
    /// A known-hosts file naming its host key.
    pub known_hosts: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Sshd {
    /// Starts one with its keys and configuration in `dir`, accepting the
    /// current user with a fresh key; `extra` is appended to its config.
    pub fn start(dir: &Path, extra: &str) -> Self {
        let binary = Path::new("/usr/sbin/sshd");
        assert!(
            binary.exists(),
            "openssh-server is not installed: run scripts/setup.sh test"
        );
        let port = free_port();
        let (host_key, key) = (dir.join("host_key"), dir.join("id"));
        keygen(&host_key);
        keygen(&key);
        std::fs::copy(key.with_extension("pub"), dir.join("authorized_keys")).unwrap();
        let host_public = std::fs::read_to_string(host_key.with_extension("pub")).unwrap();
        let known_hosts = dir.join("known_hosts");
        std::fs::write(&known_hosts, format!("[127.0.0.1]:{port} {host_public}")).unwrap();
        let config = dir.join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\nPidFile {}\n\
                 StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
                 PermitRootLogin prohibit-password\nAllowTcpForwarding yes\nGatewayPorts no\n{extra}",
                host_key.display(),
                dir.join("authorized_keys").display(),
                dir.join("sshd.pid").display(),
            ),
        )
        .unwrap();
        // Its privilege separation folder.
        let _ = std::fs::create_dir_all("/run/sshd");
        let mut child = Command::new(binary)
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = follow(child.stderr.take().unwrap());
        wait_for(&lines, "Server listening", "sshd to listen");
        Self {
            child,
            port,
            key,
            known_hosts,
        }
    }

    /// The `ssh -o` options that reach it as the current user, with its key
    /// and host key only.
    pub fn ssh_options(&self) -> Vec<String> {
        vec![
            format!("Port={}", self.port),
            format!("IdentityFile={}", self.key.display()),
            format!("UserKnownHostsFile={}", self.known_hosts.display()),
            "StrictHostKeyChecking=yes".to_owned(),
        ]
    }
}

/// `user@127.0.0.1` for the current user.
pub fn destination() -> String {
    let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout).unwrap();
    format!("{}@127.0.0.1", user.trim())
}

/// A loopback port free right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keygen(path: &Path) {
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// The lines `stream` prints, as they come.
pub fn follow(stream: ChildStderr) -> mpsc::Receiver<String> {
    let (sender, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                return;
            }
        }
    });
    lines
}

/// The first line holding `wanted`, waiting 30 s at most.
pub fn wait_for(lines: &mpsc::Receiver<String>, wanted: &str, what: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.contains(wanted) => return line,
            Ok(_) => continue,
            Err(error) => panic!("no {what} ({error})"),
        }
    }
}

/// POSTs `body` to `http://address/mcp` with `headers` (a `Host` of the
/// address unless one is given); the status and the body of the answer.
pub fn post_to(address: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    let mut request = String::from("POST /mcp HTTP/1.1\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str(&format!("Host: {address}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(request.as_bytes()).unwrap();
    // A refused request may be answered before the body is all sent.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The JSON-RPC message in an answer (plain JSON or one SSE `data:` line).
pub fn message(body: &str) -> Value {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: ").or(Some(line)))
        .find_map(|line| {
            serde_json::from_str::<Value>(line.trim())
                .ok()
                .filter(|value| value.get("jsonrpc").is_some())
        })
        .unwrap_or_else(|| panic!("no JSON-RPC message in {body:?}"))
}

/// A stateless (2026-07-28) request `id` for `method` with `params`, from a
/// client named `client`, declaring the tasks extension when `tasks`.
pub fn stateless(client: &str, id: u64, method: &str, params: Value, tasks: bool) -> Value {
    let capabilities = if tasks {
        serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        serde_json::json!({})
    };
    let mut params = params;
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
    });
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A stateless `tools/call` of `tool` with `arguments` (see [`stateless`]).
pub fn stateless_call(client: &str, tool: &str, arguments: Value, tasks: bool) -> Value {
    stateless(
        client,
        1,
        "tools/call",
        serde_json::json!({"name": tool, "arguments": arguments}),
        tasks,
    )
}

/// POSTs the stateless `request` to `http://address/mcp` with `token` and
/// the headers that revision wants (`Mcp-Method`, and `Mcp-Name`: the
/// tool, task or resource it names); the JSON-RPC message of the answer,
/// which must come with 200.
pub fn post_stateless(address: &str, token: &str, request: &Value) -> Value {
    let method = request["method"].as_str().unwrap_or_default();
    let params = &request["params"];
    let name = ["name", "taskId", "uri"]
        .iter()
        .find_map(|key| params[key].as_str())
        .unwrap_or_default();
    let bearer = format!("Bearer {token}");
    let headers = [
        ("Authorization", bearer.as_str()),
        ("Mcp-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
        ("Mcp-Name", name),
    ];
    let (status, body) = post_to(address, &headers, request.to_string().as_bytes());
    assert_eq!(status, 200, "{body}");
    message(&body)
}

/// `127.0.0.1:PORT` of a `http://127.0.0.1:PORT/mcp` URL.
pub fn address_of(url: &str) -> String {
    url.trim()
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("not an MCP URL: {url:?}"))
        .to_owned()
}

/// Starts `command` (a `switchboard mcp --http`, its stdout piped here) and
/// reads the address it serves at from the URL it prints first.
pub fn start_http(command: &mut Command) -> (Child, String) {
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (child, address_of(&line))
}
