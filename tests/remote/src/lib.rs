//! Test support for agents on other machines: a real `sshd` (Debian's
//! openssh-server) on loopback with throwaway keys, the lines a process
//! prints as they come, and MCP requests posted over raw HTTP/1.1 (so what
//! is sent is exactly what the test says).

#![allow(clippy::unwrap_used)] // A test fixture: failing loudly is right.

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

/// A stateless (2026-07-28) `tools/call` of `tool` with `arguments` from a
/// client named `client`, declaring the tasks extension when `tasks`; the
/// headers that revision wants with it, besides the token.
pub fn stateless_call(client: &str, tool: &str, arguments: Value, tasks: bool) -> Value {
    let capabilities = if tasks {
        serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        serde_json::json!({})
    };
    serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
        },
        "name": tool,
        "arguments": arguments,
    }})
}
