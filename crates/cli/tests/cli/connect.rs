//! `switchboard connect` against a real `sshd` (Debian's openssh-server,
//! installed by the setup script) that the test starts on loopback with
//! throwaway keys: the far side's settings arrive, an agent there delivers
//! through the tunnel marked with the machine's name, the tunnel killed is
//! made again, and Ctrl-C ends it all and revokes the token.

use std::{
    path::Path,
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use serde_json::json;

use switchboard_remote_test::{
    Sshd, address_of, destination, follow, free_port, post_stateless, stateless_call, wait_for,
};

/// `deliver` through the tunnel, as an agent on the far side would, with
/// the settings `connect` wrote there.
fn deliver_from_far_side(remote_dir: &Path, title: &str) -> serde_json::Value {
    let settings = std::fs::read_to_string(remote_dir.join("connect.env")).unwrap();
    let value = |key: &str| {
        settings
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{key}=")))
            .unwrap()
            .to_owned()
    };
    let request = stateless_call(
        "far-side-agent",
        "deliver",
        json!({"title": title, "content": "Built on the far side."}),
        false,
    );
    post_stateless(
        &address_of(&value("SWITCHBOARD_URL")),
        &value("SWITCHBOARD_TOKEN"),
        &request,
    )
}

/// `switchboard connect` to `sshd` as the current user, with `extra`
/// arguments; its stderr's lines as they come.
fn start_connect(
    sshd: &Sshd,
    workspace: &Path,
    config: &Path,
    extra: &[&str],
) -> (Running, mpsc::Receiver<String>) {
    let mut connect = Command::new(env!("CARGO_BIN_EXE_switchboard"));
    connect
        .arg("-C")
        .arg(workspace)
        .args(["connect", &destination()])
        .args(extra);
    for option in sshd.ssh_options() {
        connect.args(["-o", &option]);
    }
    let mut connect = connect
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = follow(connect.stderr.take().unwrap());
    (Running(Some(connect)), lines)
}

/// A process the test started, killed if the test ends before it does.
struct Running(Option<Child>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Sends `SIG<name>` to `pid`.
fn signal(name: &str, pid: i32) {
    let sent = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(sent.success());
}

fn ssh_pid(line: &str) -> i32 {
    line.split("ssh pid ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {line:?}"))
}

#[test]
fn a_machine_connected_over_ssh_delivers_through_the_tunnel_which_comes_back_after_a_drop() {
    let dir = tempfile::tempdir().unwrap();
    let sshd = Sshd::start(dir.path(), "");
    let workspace = dir.path().join("workspace");
    let remote_dir = dir.path().join("far-side");
    let config = dir.path().join("config");
    std::fs::create_dir_all(&workspace).unwrap();
    // Settings from before, readable by anyone: the token never lands there.
    std::fs::create_dir_all(&remote_dir).unwrap();
    std::fs::write(remote_dir.join("connect.env"), "SWITCHBOARD_NAME=old\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        remote_dir.join("connect.env"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let remote_port = free_port();
    let (mut connect, lines) = start_connect(
        &sshd,
        &workspace,
        &config,
        &[
            "--remote-port",
            &remote_port.to_string(),
            "--remote-dir",
            &remote_dir.display().to_string(),
        ],
    );
    let scopes = wait_for(&lines, "its agents may use", "what the token may do");
    assert!(
        scopes.contains("inbox, knowledge, tasks; not programs"),
        "{scopes}"
    );
    let first = wait_for(&lines, "connected (ssh pid", "connection");

    let settings = std::fs::read_to_string(remote_dir.join("connect.env")).unwrap();
    assert!(settings.contains(&format!(
        "SWITCHBOARD_URL=http://127.0.0.1:{remote_port}/mcp"
    )));
    let mode = std::fs::metadata(remote_dir.join("connect.env"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o077, 0, "the far side's settings are private");
    let answer = deliver_from_far_side(&remote_dir, "Through the tunnel");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let stored = crate::stored(&workspace);
    assert_eq!(stored[0]["sent_by"], "ssh:127.0.0.1");

    // The tunnel drops; it is made again and works as before.
    signal("KILL", ssh_pid(&first));
    wait_for(&lines, "again in", "a reconnection");
    let second = wait_for(&lines, "connected (ssh pid", "a second connection");
    assert_ne!(ssh_pid(&first), ssh_pid(&second));
    let again = deliver_from_far_side(&remote_dir, "After the drop");
    assert_eq!(again["result"]["isError"], false, "{again}");

    // Ctrl-C ends it cleanly and the token stops working.
    let mut connect = connect.0.take().unwrap();
    signal("INT", connect.id() as i32);
    let status = connect.wait().unwrap();
    assert!(status.success(), "{status}");
    let tokens = std::fs::read_to_string(config.join("mcp-tokens.json")).unwrap();
    assert!(!tokens.contains("ssh:127.0.0.1"), "{tokens}");
    assert_eq!(crate::stored(&workspace).len(), 2);
}

#[test]
fn the_local_server_ends_with_connect_however_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let sshd = Sshd::start(dir.path(), "");
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let (mut connect, lines) = start_connect(
        &sshd,
        &workspace,
        &dir.path().join("config"),
        &["--remote-port", &free_port().to_string(), "--print"],
    );
    let connected = wait_for(&lines, "connected (ssh pid", "connection");
    let local = connected.rsplit("→ ").next().unwrap().trim().to_owned();
    assert!(
        std::net::TcpStream::connect(&local).is_ok(),
        "the local server listens at {local}"
    );
    // Killed outright, it can clean nothing up; its server still ends.
    if let Some(child) = connect.0.as_mut() {
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(&local).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "the local server outlived connect"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A stand-in for `docker` on the far side (no container engine runs
/// here): one container, `agents`, whose home is `home` and whose network
/// is `network`; `exec` runs the command as the container would, with its
/// home. It answers exactly the calls `connect --container` makes.
fn engine(dir: &Path, network: &str, home: &Path) -> std::path::PathBuf {
    let path = dir.join(format!("engine-{network}"));
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n\
             case \"$1\" in\n\
             inspect) [ \"$2\" = -f ] && [ \"$4\" = agents ] || {{ echo \"Error: No such object: $4\" >&2; exit 1; }}\n\
             \x20 echo {network} ;;\n\
             exec) [ \"$2\" = -i ] && [ \"$3\" = agents ] || exit 1\n\
             \x20 shift 3; HOME={home} exec \"$@\" ;;\n\
             *) exit 1 ;;\n\
             esac\n",
            home = home.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `switchboard connect --container agents` to a far side whose stand-in
/// engine says the container's network is `network`, as it runs.
struct ToContainer {
    dir: tempfile::TempDir,
    sshd: Sshd,
    workspace: std::path::PathBuf,
    config: std::path::PathBuf,
    /// The container user's home.
    home: std::path::PathBuf,
    connect: Running,
    lines: mpsc::Receiver<String>,
}

impl ToContainer {
    fn start(network: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let sshd = Sshd::start(dir.path(), "");
        let workspace = dir.path().join("workspace");
        let config = dir.path().join("config");
        let home = dir.path().join("container-home");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let engine = engine(dir.path(), network, &home);
        let (connect, lines) = start_connect(
            &sshd,
            &workspace,
            &config,
            &[
                "--remote-port",
                &free_port().to_string(),
                "--container",
                "agents",
                "--engine",
                &engine.display().to_string(),
            ],
        );
        Self {
            dir,
            sshd,
            workspace,
            config,
            home,
            connect,
            lines,
        }
    }
}

#[test]
fn agents_in_a_container_sharing_the_far_sides_network_get_the_settings_inside_it() {
    // Every part bound: the folder and sshd live as long as the test.
    let ToContainer {
        dir: _dir,
        sshd: _sshd,
        workspace,
        config: _config,
        home,
        mut connect,
        lines,
    } = ToContainer::start("host");
    wait_for(&lines, "connected (ssh pid", "connection");
    // Written inside the container, in its user's home.
    let inside = home.join(".config/switchboard");
    let settings = std::fs::read_to_string(inside.join("connect.env")).unwrap();
    assert!(
        settings.contains("SWITCHBOARD_NAME=ssh:127.0.0.1:agents"),
        "{settings}"
    );
    let answer = deliver_from_far_side(&inside, "From the container");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        crate::stored(&workspace)[0]["sent_by"],
        "ssh:127.0.0.1:agents"
    );
    let mut connect = connect.0.take().unwrap();
    signal("INT", connect.id() as i32);
    assert!(connect.wait().unwrap().success());
}

#[test]
fn a_container_with_a_network_of_its_own_is_refused_with_the_reason_and_nothing_kept() {
    let ToContainer {
        dir: _dir,
        sshd,
        workspace,
        config,
        home,
        mut connect,
        lines,
    } = ToContainer::start("bridge");
    let refused = wait_for(&lines, "error[UNAVAILABLE]", "the refusal");
    assert!(
        refused.contains("network of its own (bridge)") && refused.contains("--network host"),
        "{refused}"
    );
    let mut connect = connect.0.take().unwrap();
    let status = connect.wait().unwrap();
    assert_eq!(status.code(), Some(9), "UNAVAILABLE, and no retry");
    assert!(!home.join(".config/switchboard/connect.env").exists());
    let tokens = std::fs::read_to_string(config.join("mcp-tokens.json")).unwrap_or_default();
    assert!(!tokens.contains("agents"), "the token is revoked: {tokens}");

    // Names a shell would read are refused before anything runs.
    let (mut hostile, lines) = start_connect(
        &sshd,
        &workspace,
        &config,
        &["--container", "x;touch /tmp/owned"],
    );
    wait_for(&lines, "error[INVALID_REQUEST]", "the refusal");
    assert_eq!(hostile.0.take().unwrap().wait().unwrap().code(), Some(2));
}
