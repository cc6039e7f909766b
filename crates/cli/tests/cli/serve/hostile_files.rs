//! Workspace files a cloned repository or an agent put there to hold up
//! or exhaust `switchboard serve`: a theme that is a FIFO (an open would
//! wait for a writer forever), Codex's hooks file that is `/dev/zero` (read
//! without end), a theme that leads out of the workspace. Each is refused
//! at once, nothing of what it leads to is shown, and the server goes on
//! answering.

use std::os::unix::fs::symlink;

use serde_json::Value;

use super::{folders, invoke, pair, serve};

#[test]
fn a_fifo_a_device_and_a_link_out_are_refused_at_once_and_the_server_goes_on() {
    let (dir, workspace, config) = folders();
    let custom = workspace.join(".visual-delivery/custom");
    std::fs::create_dir_all(&custom).unwrap();
    std::fs::create_dir_all(workspace.join(".codex")).unwrap();
    let fifo = workspace.join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    symlink(&fifo, custom.join("theme.json")).unwrap();
    symlink("/dev/zero", workspace.join(".codex/hooks.json")).unwrap();
    let served = serve(&workspace, &config);
    let browser = pair(&served);

    for command in ["get_theme", "codex_hooks_trust", "get_theme"] {
        let (status, said) = invoke(&served, &browser, command, &Value::Null);
        assert_ne!(status, 200, "{command}: {said}");
        let message = said["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("not a regular file") || message.contains("leads outside"),
            "{command}: {said}"
        );
    }

    // A theme that leads out of the workspace: refused, its text unseen.
    std::fs::remove_file(custom.join("theme.json")).unwrap();
    let secret = dir.path().join("id_ed25519");
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
    symlink(&secret, custom.join("theme.json")).unwrap();
    let (status, said) = invoke(&served, &browser, "get_theme", &Value::Null);
    assert_ne!(status, 200, "{said}");
    assert!(!said.to_string().contains("PRIVATE KEY"), "{said}");

    // The server still answers.
    let (status, info) = invoke(&served, &browser, "workspace_info", &Value::Null);
    assert_eq!(status, 200, "{info}");
}
