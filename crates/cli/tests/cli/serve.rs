//! `switchboard serve`: the inbox in a browser, through the real binary and
//! raw HTTP as a browser sends it — paired with a one-time link, answering
//! a blocking agent, and refusing what a browser's session may not do, a
//! foreign page, a form from another site, a revoked session; `front`: a
//! flood of unpaired connections keeps no paired browser out.

mod front;
mod hostile_files;
mod pairing;

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    path::Path,
    process::{Child, Command, Stdio},
};

use serde_json::{Value, json};

/// A running `switchboard serve --pair`, killed when dropped.
struct Served {
    child: Child,
    origin: String,
    link: String,
    /// The TLS certificate's fingerprint it printed, if it serves TLS.
    fingerprint: Option<String>,
    /// What else it prints, read so it never writes into a closed pipe.
    _rest: std::thread::JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(workspace: &Path, config: &Path) -> Served {
    serve_with(workspace, config, &[])
}

fn serve_with(workspace: &Path, config: &Path, more: &[&str]) -> Served {
    serve_args(
        workspace,
        config,
        &[&["--listen", "127.0.0.1:0", "--pair"], more].concat(),
    )
}

/// `switchboard serve ARGS…` (`--pair` among them), once it printed its
/// link.
fn serve_args(workspace: &Path, config: &Path, args: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace)
        .arg("serve")
        .args(args)
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .env("SWITCHBOARD_RUNTIME_DIR", workspace.join(".test-runtime"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let origin = lines
        .next()
        .unwrap()
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    let mut fingerprint = None;
    let link = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|line| {
            if let Some(printed) = line.strip_prefix("TLS certificate's SHA-256 fingerprint: ") {
                fingerprint = Some(printed.to_owned());
            }
            line.contains("/pair?code=")
        })
        .unwrap();
    let rest = std::thread::spawn(move || lines.map_while(Result::ok).for_each(drop));
    Served {
        child,
        origin,
        link,
        fingerprint,
        _rest: rest,
    }
}

/// A temporary folder holding a workspace (`ws`, its canonical path) and a
/// config folder (`config`, not made yet); the folder goes when dropped.
fn folders() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = workspace.canonicalize().unwrap();
    let config = dir.path().join("config");
    (dir, workspace, config)
}

/// One request as a browser sends it: the status, the headers (lowercase
/// names) and the body.
fn request(
    origin: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let address = origin.trim_start_matches("http://");
    let stream = TcpStream::connect(address).unwrap();
    // A server that hangs fails the test instead of holding it forever.
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(120)))
        .unwrap();
    exchange(stream, address, method, path, headers, body)
}

/// One request over `stream` (a `Host` of `host` unless `headers` give
/// one); the server's answer.
fn exchange(
    mut stream: impl Read + Write,
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(name, _)| *name == "Host") {
        head.push_str(&format!("Host: {host}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(head.as_bytes()).unwrap();
    let mut answer = Vec::new();
    // Over TLS, an end without close_notify is an error after the answer.
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// What a page that shows `question` (as `list_deliveries` gave it)
/// answers it with: the digest of what it showed.
fn seen(question: &Value) -> String {
    let delivery: switchboard_model::Delivery = serde_json::from_value(question.clone()).unwrap();
    switchboard_model::receipt::shown(&delivery)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(each, _)| each == name)
        .map(|(_, value)| value.as_str())
}

/// A paired browser's secrets: the cookie it holds
/// (`switchboard_session=…`) and the page key its page keeps.
#[derive(Clone)]
pub(crate) struct Paired {
    /// `switchboard_session=…`, as the browser sends it.
    pub(crate) cookie: String,
    /// The page key the pairing page's link handed over.
    pub(crate) key: String,
}

/// Opens the pairing link; what the browser then holds.
fn pair(served: &Served) -> Paired {
    let (cookie, paired) = pair_as(served, &[]);
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    paired
}

/// Opens the pairing link with `headers` (a proxy's `Host`): the cookie
/// line the server set, and what the browser then holds.
fn pair_as(served: &Served, headers: &[(&str, &str)]) -> (String, Paired) {
    let path = link_path(served);
    let (status, headers, body) = request(&served.origin, "GET", &path, headers, "");
    assert_eq!(status, 200, "{body}");
    let cookie = header(&headers, "set-cookie").unwrap();
    assert!(
        cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Strict")
            && cookie.contains("Max-Age="),
        "{cookie}"
    );
    (cookie.to_owned(), paired(cookie, &body))
}

/// What a browser holds once paired by an answer that set `cookie_line`
/// and linked to the inbox in `page`: the cookie, and the page key from
/// the link's fragment (as the page's shim takes it).
fn paired(cookie_line: &str, page: &str) -> Paired {
    let start = page
        .find("href=\"/#key=")
        .unwrap_or_else(|| panic!("the pairing page links to the inbox with its key: {page}"))
        + "href=\"/#key=".len();
    let key = &page[start..start + page[start..].find('"').unwrap()];
    assert!(
        key.len() == 64 && key.bytes().all(|byte| byte.is_ascii_hexdigit()),
        "{key}"
    );
    Paired {
        cookie: cookie_line.split(';').next().unwrap().to_owned(),
        key: key.to_owned(),
    }
}

/// The pairing link's path, whatever origin it was printed with.
fn link_path(served: &Served) -> String {
    served.link[served.link.find("/pair?").unwrap()..].to_owned()
}

/// Lists the paired browsers as the developer does (`serve --sessions`)
/// and revokes the first (`serve --revoke`).
fn revoke_the_only_browser(workspace: &Path, config: &Path) {
    let listed = crate::switchboard_with(
        workspace,
        &["serve", "--sessions"],
        &[("SWITCHBOARD_CONFIG_DIR", config)],
    );
    let session = String::from_utf8_lossy(&listed.stdout)
        .split('\t')
        .next()
        .unwrap()
        .to_owned();
    assert!(session.starts_with('b'), "{session}");
    let revoked = crate::switchboard_with(
        workspace,
        &["serve", "--revoke", &session],
        &[("SWITCHBOARD_CONFIG_DIR", config)],
    );
    assert!(revoked.status.success());
}

/// A command as the page's shim sends it.
fn invoke(served: &Served, browser: &Paired, command: &str, arguments: &Value) -> (u16, Value) {
    invoke_at(&served.origin, browser, command, arguments)
}

/// A command as the page's shim sends it to the server at `origin`.
pub(crate) fn invoke_at(
    origin: &str,
    browser: &Paired,
    command: &str,
    arguments: &Value,
) -> (u16, Value) {
    invoke_with(
        origin,
        &[
            ("Cookie", &browser.cookie),
            ("X-Switchboard-Key", &browser.key),
        ],
        command,
        arguments,
    )
}

/// A command sent to the server at `origin` from its own origin (as a page
/// does, or as curl forges it) with `headers` besides.
fn invoke_with(
    origin: &str,
    headers: &[(&str, &str)],
    command: &str,
    arguments: &Value,
) -> (u16, Value) {
    let mut sent = vec![("Origin", origin), ("Content-Type", "application/json")];
    sent.extend_from_slice(headers);
    let (status, _, body) = request(
        origin,
        "POST",
        &format!("/api/invoke/{command}"),
        &sent,
        &arguments.to_string(),
    );
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// Pairs a browser with the server at `origin` whose sessions live in
/// `config`, with a code made there; what it holds.
pub(crate) fn pair_at(origin: &str, config: &Path) -> Paired {
    let code =
        switchboard_store::browsers::new_pairing(config, switchboard_store::clock::now()).unwrap();
    let (status, headers, body) = request(origin, "GET", &format!("/pair?code={code}"), &[], "");
    assert_eq!(status, 200, "{body}");
    paired(header(&headers, "set-cookie").unwrap(), &body)
}

#[test]
fn a_paired_browser_answers_a_blocking_agent_until_it_is_revoked() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let agent = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(&workspace)
        .args(["deliver", "--mode", "blocking", "--title", "Deploy now?"])
        .args([
            "--content",
            "All green.",
            "--schema",
            r#"{"type": "confirm"}"#,
        ])
        .args(["--timeout", "120"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let browser = pair(&served);

    // The page, with its policy, and the question the agent asked.
    let (status, headers, page) = request(
        &served.origin,
        "GET",
        "/",
        &[("Cookie", &browser.cookie)],
        "",
    );
    assert_eq!(status, 200);
    assert!(page.contains("/shim.js"), "the page talks to this server");
    assert_eq!(
        header(&headers, "cache-control"),
        Some("no-store"),
        "the page is read anew"
    );
    // Its module, named by its digest, is kept by the browser.
    if let Some(at) = page.find("switchboard-ui-") {
        let name = &page[at..];
        let name = &name[..name.find(".wasm").map_or(0, |end| end + 5)];
        let (status, headers, _) = request(
            &served.origin,
            "GET",
            &format!("/{name}"),
            &[("Cookie", &browser.cookie)],
            "",
        );
        assert_eq!(status, 200, "{name}");
        assert!(
            header(&headers, "cache-control").is_some_and(|kept| kept.contains("immutable")),
            "{headers:?}"
        );
    }
    let policy = header(&headers, "content-security-policy").unwrap();
    assert!(
        policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'"),
        "{policy}"
    );
    let question = crate::when_stored(&workspace, || {
        let (_, listed) = invoke(&served, &browser, "list_deliveries", &Value::Null);
        listed["deliveries"]
            .as_array()?
            .iter()
            .find(|delivery| delivery["title"] == "Deploy now?")
            .cloned()
    });
    let id = question["id"].as_str().unwrap();

    // Answered from the browser: the agent gets it at once.
    let reply =
        json!({"request": {"id": id, "reply": {"kind": "answer", "answer": {"value": true}}}});
    let (status, answered) = invoke(&served, &browser, "reply", &reply);
    assert_eq!(status, 200, "{answered}");
    let printed = agent.wait_with_output().unwrap();
    let line: Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(line["status"], "responded", "{line}");
    assert_eq!(line["response"]["value"], true);
    // Answered again (as from the window meanwhile): told, nothing changed.
    let (status, again) = invoke(&served, &browser, "reply", &reply);
    assert_eq!(
        (status, again["code"].as_str()),
        (409, Some("ALREADY_RESPONDED"))
    );

    // What a browser may not do, it is told.
    let (status, refused) = invoke(&served, &browser, "chat_send", &json!({"request": {}}));
    assert_eq!(status, 403);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("not available in a browser")
    );

    // Listed, revoked: its next request is refused.
    revoke_the_only_browser(&workspace, &config);
    let (status, _) = invoke(&served, &browser, "list_deliveries", &Value::Null);
    assert_eq!(status, 401);
    let (status, _, _) = request(
        &served.origin,
        "GET",
        "/",
        &[("Cookie", &browser.cookie)],
        "",
    );
    assert_eq!(status, 401);
}

#[test]
fn a_pairing_link_works_once_and_other_sites_pages_and_forms_are_refused() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    // The same link again (stolen after use): nothing.
    let path = link_path(&served);
    let (status, headers, _) = request(&served.origin, "GET", &path, &[], "");
    assert_eq!(status, 403);
    assert!(header(&headers, "set-cookie").is_none());
    // Codes not of a code's shape are turned away before the sessions'
    // file (its lock, a write) is touched.
    let before = std::fs::metadata(config.join("browser-sessions.json"))
        .unwrap()
        .modified()
        .unwrap();
    for code in ["../../etc", "x", &"z".repeat(32), &"a".repeat(4096)] {
        let (status, _, _) = request(
            &served.origin,
            "GET",
            &format!("/pair?code={code}"),
            &[],
            "",
        );
        assert_eq!(status, 403, "{code}");
    }
    let after = std::fs::metadata(config.join("browser-sessions.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "the file was not written");
    // No cookie: 401, page and command alike.
    let (status, _, _) = request(&served.origin, "GET", "/", &[], "");
    assert_eq!(status, 401);
    // Another site's page, with the browser's cookie (and, were it to
    // learn it, the page key): refused by origin.
    let (status, _, body) = request(
        &served.origin,
        "POST",
        "/api/invoke/list_deliveries",
        &[
            ("Cookie", &browser.cookie),
            ("X-Switchboard-Key", &browser.key),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(status, 403, "{body}");
    // A cross-site form (it cannot send JSON): refused.
    let (status, _, body) = request(
        &served.origin,
        "POST",
        "/api/invoke/reply",
        &[
            ("Cookie", &browser.cookie),
            ("X-Switchboard-Key", &browser.key),
            ("Origin", &served.origin),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        "request=1",
    );
    assert_eq!(status, 415, "{body}");
}

#[test]
fn a_revoked_browsers_open_event_stream_ends_at_its_next_event() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let address = served.origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "GET /api/events HTTP/1.1\r\nHost: {address}\r\nCookie: {}\r\nX-Switchboard-Key: {}\r\n\r\n",
        browser.cookie, browser.key
    )
    .unwrap();
    let mut heard = Vec::new();
    let mut buffer = [0_u8; 4096];
    while !String::from_utf8_lossy(&heard).contains(": open") {
        let read = stream.read(&mut buffer).unwrap();
        assert!(read > 0, "the stream opens");
        heard.extend_from_slice(&buffer[..read]);
    }

    revoke_the_only_browser(&workspace, &config);
    // The workspace changes after the revocation: the stream ends instead
    // of telling the revoked browser.
    let delivered = crate::switchboard_with(
        &workspace,
        &["deliver", "--title", "After revocation", "--content", "x"],
        &[("SWITCHBOARD_CONFIG_DIR", &config)],
    );
    assert!(delivered.status.success());
    let mut after = Vec::new();
    loop {
        let read = stream.read(&mut buffer).unwrap();
        after.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&after);
        assert!(
            !text.contains("data:"),
            "a revoked browser heard an event: {text}"
        );
        if read == 0 || text.ends_with("0\r\n\r\n") {
            break;
        }
    }
}

#[test]
fn another_servers_cookie_of_the_same_name_does_not_hide_the_paired_one() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    // Cookies keep to a host, not a port: a page on 127.0.0.1:3000 can set
    // one of this name (with a longer path, so it is sent first).
    let both = format!(
        "switchboard_session=set-by-another-port; {}",
        browser.cookie
    );
    let (status, _, _) = request(&served.origin, "GET", "/", &[("Cookie", &both)], "");
    assert_eq!(status, 200);
    let (status, answer) = invoke_with(
        &served.origin,
        &[("Cookie", &both), ("X-Switchboard-Key", &browser.key)],
        "list_deliveries",
        &Value::Null,
    );
    assert_eq!(status, 200, "{answer}");
    // Even one set to another paired browser's cookie, sent first, leaves
    // this page's own cookie and key working.
    let other = pair_at(&served.origin, &config);
    let both = format!("{}; {}", other.cookie, browser.cookie);
    let (status, answer) = invoke_with(
        &served.origin,
        &[("Cookie", &both), ("X-Switchboard-Key", &browser.key)],
        "list_deliveries",
        &Value::Null,
    );
    assert_eq!(status, 200, "{answer}");
    let (status, _, _) = request(
        &served.origin,
        "GET",
        "/",
        &[("Cookie", "switchboard_session=set-by-another-port")],
        "",
    );
    assert_eq!(status, 401);
}

/// Issue 48: Chromium sends the pairing cookie to every server on
/// `127.0.0.1`, whatever its port; replayed from curl, it allowed an
/// agent's pending `rm -rf`.
#[test]
fn a_cookie_replayed_without_its_pages_key_answers_nothing_and_hears_nothing() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    // Another browser paired with this server: its key is not the first's.
    let other = pair_at(&served.origin, &config);
    let event = json!({
        "session_id": "s-48", "transcript_path": "", "cwd": workspace,
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
    });
    // The agent keeps to the server's config folder (the user's), where
    // the developer's answer leaves its receipt.
    let mut hook = crate::hooks::hook_with(
        &workspace,
        "120",
        &event,
        &[("SWITCHBOARD_CONFIG_DIR", config.to_str().unwrap())],
    );
    let waiting = |listed: &Value| {
        listed["deliveries"]
            .as_array()?
            .iter()
            .find(|delivery| delivery["status"] == "awaiting_feedback")
            .cloned()
    };
    let question = crate::when_stored(&workspace, || {
        waiting(&invoke(&served, &browser, "list_deliveries", &Value::Null).1)
    });
    let allow = json!({"request": {"id": question["id"], "reply": {"kind": "answer", "answer": {"value": true}}, "seen": seen(&question)}});

    // Another server on this host got the cookie and replays it as curl
    // does, its Origin forged to this server's own: refused, every way.
    let guessed = "0".repeat(64);
    let replays: [(&str, Vec<(&str, &str)>); 5] = [
        ("the cookie alone", vec![("Cookie", &browser.cookie)]),
        (
            "an empty key",
            vec![("Cookie", &browser.cookie), ("X-Switchboard-Key", "")],
        ),
        (
            "a guessed key",
            vec![("Cookie", &browser.cookie), ("X-Switchboard-Key", &guessed)],
        ),
        (
            "another browser's key",
            vec![
                ("Cookie", &browser.cookie),
                ("X-Switchboard-Key", &other.key),
            ],
        ),
        (
            "this key with another browser's cookie",
            vec![
                ("Cookie", &other.cookie),
                ("X-Switchboard-Key", &browser.key),
            ],
        ),
    ];
    for (how, headers) in &replays {
        for (command, arguments) in [("reply", &allow), ("list_deliveries", &Value::Null)] {
            let (status, refused) = invoke_with(&served.origin, headers, command, arguments);
            assert_eq!(
                (status, refused["code"].as_str()),
                (401, Some("NOT_PAIRED")),
                "{how}, {command}: {refused}"
            );
            assert!(
                refused["message"]
                    .as_str()
                    .is_some_and(|message| message.contains("switchboard pair")),
                "says how to pair again: {refused}"
            );
        }
        assert_eq!(
            open_events_with(&served, headers).err(),
            Some(401),
            "{how}: the event stream"
        );
    }
    // Nothing was answered: the question still waits, and so does the agent.
    let (status, listed) = invoke(&served, &browser, "list_deliveries", &Value::Null);
    assert_eq!(status, 200, "{listed}");
    assert_eq!(
        waiting(&listed).map(|found| found["id"].clone()),
        Some(question["id"].clone()),
        "still pending: {listed}"
    );
    assert!(hook.try_wait().unwrap().is_none(), "the agent still waits");

    // The page that paired — its cookie and its key — hears events and
    // answers: the developer denies.
    drop(open_events(&served, &browser).expect("its own page's stream opens"));
    let deny = json!({"request": {"id": question["id"], "reply": {"kind": "answer", "answer": {"value": false}}, "seen": seen(&question)}});
    let (status, answered) = invoke(&served, &browser, "reply", &deny);
    assert_eq!(status, 200, "{answered}");
    let output = hook.wait_with_output().unwrap();
    let decision = String::from_utf8_lossy(&output.stdout);
    assert!(
        decision.contains("\"deny\""),
        "the agent is denied: {decision}"
    );
}

/// A session paired before page keys holds a cookie but no key: refused,
/// told to pair again, until it does.
#[test]
fn a_browser_paired_before_page_keys_is_told_to_pair_again() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    // The session as an older version wrote it: no page key's digest.
    let file = config.join("browser-sessions.json");
    let mut sessions: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    sessions["sessions"][0]
        .as_object_mut()
        .unwrap()
        .remove("page_key_sha256")
        .expect("a session keeps its page key's digest");
    std::fs::write(&file, sessions.to_string()).unwrap();
    let (status, refused) = invoke(&served, &browser, "list_deliveries", &Value::Null);
    assert_eq!(
        (status, refused["code"].as_str()),
        (401, Some("NOT_PAIRED")),
        "{refused}"
    );
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("older version") && message.contains("switchboard pair"),
        "{message}"
    );
    assert_eq!(open_events(&served, &browser).err(), Some(401));
    // Listed as such, for the developer to pair it again and revoke it.
    let listed = crate::switchboard_with(
        &workspace,
        &["serve", "--sessions"],
        &[("SWITCHBOARD_CONFIG_DIR", &config)],
    );
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("pair this browser again"),
        "{listed:?}"
    );
    // Paired again: its new cookie and key work.
    let again = pair_at(&served.origin, &config);
    let (status, listed) = invoke(&served, &again, "list_deliveries", &Value::Null);
    assert_eq!(status, 200, "{listed}");
}

#[test]
fn another_name_resolving_here_is_refused_and_a_proxys_origin_is_served() {
    let (_dir, workspace, config) = folders();
    let proxy = "https://machine.tailnet.example";
    let served = serve_with(&workspace, &config, &["--origin", proxy]);
    assert!(
        served.link.starts_with(&format!("{proxy}/pair?code=")),
        "the link is printed where the browser opens it: {}",
        served.link
    );
    let port = served.origin.rsplit(':').next().unwrap().to_owned();
    let rebound = format!("rebound.evil.example:{port}");

    // DNS rebinding: a page of another name that resolves here is not
    // answered, and the code it tried is still good.
    let (status, headers, _) = request(
        &served.origin,
        "GET",
        &link_path(&served),
        &[("Host", &rebound)],
        "",
    );
    assert_eq!(status, 421);
    assert!(header(&headers, "set-cookie").is_none());
    let (cookie, browser) = pair_as(&served, &[("Host", "machine.tailnet.example")]);
    assert!(cookie.contains("; Secure"), "reached over HTTPS: {cookie}");
    let (status, _, _) = request(
        &served.origin,
        "GET",
        "/",
        &[("Host", &rebound), ("Cookie", &browser.cookie)],
        "",
    );
    assert_eq!(status, 421);

    // Through the proxy (tailscale serve keeps the Host): the page's
    // commands are taken from the proxy's origin, not from another one.
    let command = |host: &str, origins: &[&str]| {
        let mut headers = vec![
            ("Host", host),
            ("Cookie", browser.cookie.as_str()),
            ("X-Switchboard-Key", browser.key.as_str()),
            ("Content-Type", "application/json"),
        ];
        headers.extend(origins.iter().map(|origin| ("Origin", *origin)));
        request(
            &served.origin,
            "POST",
            "/api/invoke/list_deliveries",
            &headers,
            "{}",
        )
        .0
    };
    assert_eq!(command("machine.tailnet.example", &[proxy]), 200);
    assert_eq!(command("machine.tailnet.example", &[&served.origin]), 403);
    assert_eq!(
        command("machine.tailnet.example", &[proxy, "http://evil.example"]),
        403
    );
    assert_eq!(command(&rebound, &[&format!("http://{rebound}")]), 421);
}

#[test]
fn a_permission_request_is_allowed_from_a_paired_phone_with_no_window_open() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    // No window anywhere: only the server of the inbox to browsers runs.
    let event = json!({
        "session_id": "s-1", "transcript_path": "", "cwd": workspace,
        "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": {"command": "cargo publish"},
    });
    // The agent's hook keeps to the same config folder as the server (the
    // user's): the answer's receipt is kept there.
    let hook = crate::hooks::hook_with(
        &workspace,
        "60",
        &event,
        &[("SWITCHBOARD_CONFIG_DIR", config.to_str().unwrap())],
    );
    let question = crate::when_stored(&workspace, || {
        let (_, listed) = invoke(&served, &browser, "list_deliveries", &Value::Null);
        listed["deliveries"]
            .as_array()?
            .iter()
            .find(|delivery| delivery["status"] == "awaiting_feedback")
            .cloned()
    });
    assert_eq!(
        question["title"],
        "Claude Code wants to run `cargo publish`"
    );
    let reply = json!({"request": {"id": question["id"], "reply": {"kind": "answer", "answer": {"value": true}}, "seen": seen(&question)}});
    let (status, answered) = invoke(&served, &browser, "reply", &reply);
    assert_eq!(status, 200, "{answered}");
    let output = hook.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let decision = String::from_utf8_lossy(&output.stdout);
    assert!(
        decision.contains("\"allow\""),
        "the agent is allowed: {decision}"
    );
}

/// Opens `/api/events` as a page does; the connection, once the stream
/// said it is open, or the refusal's status.
fn open_events(served: &Served, browser: &Paired) -> Result<TcpStream, u16> {
    open_events_with(
        served,
        &[
            ("Cookie", &browser.cookie),
            ("X-Switchboard-Key", &browser.key),
        ],
    )
}

/// Opens `/api/events` with `headers`; as [`open_events`].
fn open_events_with(served: &Served, headers: &[(&str, &str)]) -> Result<TcpStream, u16> {
    let address = served.origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    let mut head = format!("GET /api/events HTTP/1.1\r\nHost: {address}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let code: u16 = status.split_whitespace().nth(1).unwrap().parse().unwrap();
    if code != 200 {
        return Err(code);
    }
    for line in reader.lines() {
        if line.unwrap().starts_with(": open") {
            break;
        }
    }
    Ok(stream)
}

#[test]
fn one_browser_holds_a_bounded_number_of_event_streams_and_gets_them_back() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let mut open: Vec<TcpStream> = (0..8)
        .map(|_| open_events(&served, &browser).unwrap())
        .collect();
    assert_eq!(
        open_events(&served, &browser).err(),
        Some(429),
        "a ninth is refused"
    );
    // Another browser is not held back by the first.
    let other = pair_at(&served.origin, &config);
    drop(open_events(&served, &other).expect("another browser opens its stream"));
    // Pages closed: their places come back (at the latest at the stream's
    // next heartbeat, when the server finds the connection gone).
    for stream in open.drain(..) {
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(40);
    loop {
        match open_events(&served, &browser) {
            Ok(_) => break,
            Err(code) => {
                assert_eq!(code, 429);
                assert!(
                    std::time::Instant::now() < deadline,
                    "the closed streams' places never came back"
                );
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        }
    }
}

/// `switchboard -C WORKSPACE session ARGS…` with the server's host
/// folder, so the server watches what it starts.
fn session(workspace: &Path, args: &[&str]) -> String {
    session_at(&workspace.join(".test-runtime"), workspace, args)
}

/// [`session`] on the host in `runtime`.
fn session_at(runtime: &Path, workspace: &Path, args: &[&str]) -> String {
    let cli = std::path::PathBuf::from(env!("CARGO_BIN_EXE_switchboard"));
    let output = Command::new(&cli)
        .arg("-C")
        .arg(workspace)
        .arg("session")
        .args(args)
        .env("SWITCHBOARD_RUNTIME_DIR", runtime)
        .env(
            "SWITCHBOARD_SESSION_HOST",
            cli.with_file_name("switchboard-session-host"),
        )
        .env("SWITCHBOARD_SESSION_HOST_LINGER_SECS", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "session {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

#[test]
fn a_paired_browser_watches_program_sessions_and_takes_one_over_only_when_settings_allow() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let events = open_events(&served, &browser).unwrap();
    let id = session(&workspace, &["start", "--name", "cat", "--", "cat"]);
    // The session's arrival reaches the page as an event…
    let mut heard = BufReader::new(events);
    let mut line = String::new();
    while !(line.contains("\"sessions\"") && line.contains(&id)) {
        line.clear();
        assert_ne!(heard.read_line(&mut line).unwrap(), 0, "the stream ended");
    }
    // …and the list the Terminals view first reads has it.
    let (status, listed) = invoke(&served, &browser, "sessions", &Value::Null);
    assert_eq!(status, 200, "{listed}");
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|each| each["id"] == id.as_str()),
        "{listed}"
    );
    // Watching it: its output, read as the Terminals view reads it.
    session(&workspace, &["send", &id, "--line", "from an agent"]);
    let read = |since: u64| {
        invoke(
            &served,
            &browser,
            "session_output",
            &json!({"request": {"session": id, "since": since, "wait_ms": 5000}}),
        )
    };
    let mut text = String::new();
    let mut cursor = 0;
    while !text.contains("from an agent") {
        let (status, output) = read(cursor);
        assert_eq!(status, 200, "{output}");
        text.push_str(output["text"].as_str().unwrap());
        cursor = output["cursor"].as_u64().unwrap();
    }
    // Typing is taking over: refused until Settings allow it.
    let typed =
        json!({"request": {"session": id, "typed": [{"text": "from a phone", "line": true}]}});
    for (command, arguments) in [
        ("session_type", typed.clone()),
        (
            "session_control",
            json!({"request": {"session": id, "take": true}}),
        ),
        ("session_end", json!({"request": {"session": id}})),
    ] {
        let (status, refused) = invoke(&served, &browser, command, &arguments);
        assert_eq!(status, 403, "{command}: {refused}");
        assert!(
            refused["message"].as_str().unwrap().contains("Settings"),
            "{refused}"
        );
    }
    let (status, refused) = invoke(
        &served,
        &browser,
        "launch_start",
        &json!({"request": {"agent": "claude-code", "prompt": "hi"}}),
    );
    assert_eq!(status, 403, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("may start agents"),
        "{refused}"
    );
    std::fs::write(config.join("settings.json"), r#"{"browserTakeOver": true}"#).unwrap();
    let (status, taken) = invoke(
        &served,
        &browser,
        "session_control",
        &json!({"request": {"session": id, "take": true}}),
    );
    assert_eq!(status, 200, "{taken}");
    let (status, typed) = invoke(&served, &browser, "session_type", &typed);
    assert_eq!(status, 200, "{typed}");
    while !text.contains("from a phone") {
        let (status, output) = read(cursor);
        assert_eq!(status, 200, "{output}");
        text.push_str(output["text"].as_str().unwrap());
        cursor = output["cursor"].as_u64().unwrap();
    }
    // The team and the tapes are watched too.
    for command in ["teams", "tapes"] {
        let (status, answer) = invoke(&served, &browser, command, &Value::Null);
        assert_eq!(status, 200, "{command}: {answer}");
    }
    // Another workspace's session on the same host: not this page's, to
    // watch or to take over, whatever the settings allow.
    let elsewhere = workspace.with_file_name("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let theirs = session_at(
        &workspace.join(".test-runtime"),
        &elsewhere,
        &["start", "--name", "theirs", "--", "cat"],
    );
    for (command, arguments) in [
        (
            "session_output",
            json!({"request": {"session": theirs, "since": 0}}),
        ),
        (
            "session_type",
            json!({"request": {"session": theirs, "typed": [{"text": "x"}]}}),
        ),
        ("session_end", json!({"request": {"session": theirs}})),
    ] {
        let (status, refused) = invoke(&served, &browser, command, &arguments);
        assert_eq!(status, 404, "{command}: {refused}");
    }
    session_at(
        &workspace.join(".test-runtime"),
        &elsewhere,
        &["kill", &theirs],
    );
    // A wait past what any page asks is cut short, not a panic.
    let (status, _) = invoke(
        &served,
        &browser,
        "session_type",
        &json!({"request": {"session": id, "typed": [{"text": "last", "line": true}]}}),
    );
    assert_eq!(status, 200);
    let (status, output) = invoke(
        &served,
        &browser,
        "session_output",
        &json!({"request": {"session": id, "since": cursor, "wait_ms": u64::MAX}}),
    );
    assert_eq!(status, 200, "{output}");
    let (status, ended) = invoke(
        &served,
        &browser,
        "session_end",
        &json!({"request": {"session": id}}),
    );
    assert_eq!(status, 200, "{ended}");
}

/// `switchboard -C workspace ARGS…` run to its end, which a refusal
/// reaches at once: one that serves instead is killed after a minute and
/// fails the test.
fn refusal(workspace: &Path, args: &[&str], config: &Path) -> std::process::Output {
    let child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .arg("-C")
        .arg(workspace)
        .args(args)
        .env("SWITCHBOARD_CONFIG_DIR", config)
        .env("SWITCHBOARD_RUNTIME_DIR", workspace.join(".test-runtime"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    let (ended, end) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = ended.send(child.wait_with_output());
    });
    match end.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(output) => output.unwrap(),
        Err(_) => {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            panic!("{args:?} served instead of being refused");
        }
    }
}

/// A client of a TLS server that trusts only `root` (a PEM certificate
/// file): one request to `address` (`127.0.0.1:PORT`) as to `name` (its
/// SNI, the name checked in the certificate, and the `Host` unless
/// `headers` give one).
fn tls_request(
    root: &Path,
    address: &str,
    name: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let root = native_tls::Certificate::from_pem(&std::fs::read(root).unwrap()).unwrap();
    let connector = native_tls::TlsConnector::builder()
        .add_root_certificate(root)
        .build()
        .unwrap();
    let stream = connector
        .connect(name, TcpStream::connect(address).unwrap())
        .unwrap();
    let port = address.rsplit(':').next().unwrap();
    exchange(
        stream,
        &format!("{name}:{port}"),
        method,
        path,
        headers,
        body,
    )
}

/// `127.0.0.1:PORT` of a server whose origin is `origin`.
fn loopback(origin: &str) -> String {
    format!("127.0.0.1:{}", origin.rsplit(':').next().unwrap())
}

/// The certificate `switchboard serve --tls-self-signed` made.
fn made_cert(config: &Path) -> std::path::PathBuf {
    config.join("browser-tls/cert.pem")
}

/// The SHA-256 fingerprint of the PEM certificate at `path`, as printed.
fn fingerprint_of(path: &Path) -> String {
    let cert = openssl::x509::X509::from_pem(&std::fs::read(path).unwrap()).unwrap();
    cert.digest(openssl::hash::MessageDigest::sha256())
        .unwrap()
        .iter()
        .map(|byte| format!("{byte:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Pairs over TLS at `address` as `name` with `served`'s link: the
/// cookie line the server set, and what the browser holds.
fn tls_pair(served: &Served, root: &Path, address: &str, name: &str) -> (String, Paired) {
    let (status, headers, body) =
        tls_request(root, address, name, "GET", &link_path(served), &[], "");
    assert_eq!(status, 200, "{body}");
    let cookie = header(&headers, "set-cookie").unwrap();
    (cookie.to_owned(), paired(cookie, &body))
}

#[test]
fn a_self_signed_server_pairs_over_https_with_a_secure_cookie_and_keeps_its_certificate() {
    let (_dir, workspace, config) = folders();
    let served = serve_with(&workspace, &config, &["--tls-self-signed"]);
    let address = loopback(&served.origin);
    assert_eq!(
        served.origin,
        format!("https://{address}"),
        "the printed URL"
    );
    assert!(
        served
            .link
            .starts_with(&format!("https://{address}/pair?code=")),
        "{}",
        served.link
    );
    let cert = made_cert(&config);
    let fingerprint = fingerprint_of(&cert);
    assert_eq!(served.fingerprint.as_deref(), Some(fingerprint.as_str()));
    let mode = |name: &str| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(config.join("browser-tls").join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("key.pem"), 0o600, "the key is its owner's only");

    // Paired over HTTPS (the certificate trusted, checked for 127.0.0.1):
    // the cookie is sent back over HTTPS only.
    let (cookie, browser) = tls_pair(&served, &cert, &address, "127.0.0.1");
    assert!(cookie.contains("; Secure"), "{cookie}");
    let (status, _, body) = tls_request(
        &cert,
        &address,
        "127.0.0.1",
        "POST",
        "/api/invoke/list_deliveries",
        &[
            ("Cookie", &browser.cookie),
            ("X-Switchboard-Key", &browser.key),
            ("Origin", &served.origin),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("deliveries"), "{body}");
    // Under localhost too, which it covers.
    let (status, _, _) = tls_request(
        &cert,
        &address,
        "localhost",
        "GET",
        "/",
        &[("Cookie", &browser.cookie)],
        "",
    );
    assert_eq!(status, 200);
    drop(served);

    // Served again: the same certificate, not one a phone must check anew.
    let again = serve_with(&workspace, &config, &["--tls-self-signed"]);
    assert_eq!(again.fingerprint.as_deref(), Some(fingerprint.as_str()));
    assert_eq!(fingerprint_of(&cert), fingerprint);
}

/// A certificate for `localhost` and 127.0.0.1 with an RSA key, as a
/// developer's own (the key in the older PKCS#1 form): the PEM texts.
fn developers_certificate() -> (Vec<u8>, Vec<u8>) {
    use openssl::{
        asn1::Asn1Time, hash::MessageDigest, pkey::PKey, rsa::Rsa, x509::X509,
        x509::X509NameBuilder, x509::extension::SubjectAlternativeName,
    };
    let rsa = Rsa::generate(2048).unwrap();
    let key = PKey::from_rsa(rsa.clone()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "localhost").unwrap();
    let name = name.build();
    let mut builder = X509::builder().unwrap();
    builder.set_version(2).unwrap();
    builder.set_subject_name(&name).unwrap();
    builder.set_issuer_name(&name).unwrap();
    builder.set_pubkey(&key).unwrap();
    builder
        .set_not_before(&Asn1Time::days_from_now(0).unwrap())
        .unwrap();
    builder
        .set_not_after(&Asn1Time::days_from_now(30).unwrap())
        .unwrap();
    let names = SubjectAlternativeName::new()
        .dns("localhost")
        .ip("127.0.0.1")
        .build(&builder.x509v3_context(None, None))
        .unwrap();
    builder.append_extension(names).unwrap();
    builder.sign(&key, MessageDigest::sha256()).unwrap();
    (
        builder.build().to_pem().unwrap(),
        rsa.private_key_to_pem().unwrap(),
    )
}

#[test]
fn a_developers_certificate_serves_and_bad_tls_flags_are_refused_with_their_code() {
    let (dir, workspace, config) = folders();
    let (cert, key) = developers_certificate();
    let cert_file = dir.path().join("cert.pem");
    let key_file = dir.path().join("key.pem");
    std::fs::write(&cert_file, &cert).unwrap();
    std::fs::write(&key_file, &key).unwrap();
    let (cert_arg, key_arg) = (cert_file.to_str().unwrap(), key_file.to_str().unwrap());
    let served = serve_with(
        &workspace,
        &config,
        &["--tls-cert", cert_arg, "--tls-key", key_arg],
    );
    assert_eq!(served.fingerprint, Some(fingerprint_of(&cert_file)));
    let address = loopback(&served.origin);
    let (cookie, _) = tls_pair(&served, &cert_file, &address, "localhost");
    assert!(cookie.contains("; Secure"), "{cookie}");
    drop(served);
    assert!(
        !made_cert(&config).exists(),
        "nothing is made beside the developer's own"
    );

    // What does not make TLS is refused before anything is served.
    let (other_cert, other_key) = developers_certificate();
    let other_key_file = dir.path().join("other-key.pem");
    std::fs::write(&other_key_file, &other_key).unwrap();
    drop(other_cert);
    let other_key_arg = other_key_file.to_str().unwrap();
    let missing = dir.path().join("missing.pem");
    let missing_arg = missing.to_str().unwrap();
    let refused = |args: &[&str], says: &str| {
        let output = refusal(
            &workspace,
            &[&["serve", "--listen", "127.0.0.1:0"], args].concat(),
            &config,
        );
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            said.contains("error[INVALID_REQUEST]") && said.contains(says),
            "{args:?}: {said}"
        );
    };
    refused(
        &["--tls-cert", missing_arg, "--tls-key", key_arg],
        "could not be read",
    );
    refused(
        &["--tls-cert", key_arg, "--tls-key", key_arg],
        "not a PEM certificate",
    );
    refused(
        &["--tls-cert", cert_arg, "--tls-key", cert_arg],
        "not a PEM private key",
    );
    refused(
        &["--tls-cert", cert_arg, "--tls-key", other_key_arg],
        "is not the key of",
    );
    // A FIFO (opened, it would wait for a writer) or a device (read
    // without end) in a file's place: refused at once.
    let fifo = dir.path().join("fifo.pem");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    refused(
        &["--tls-cert", fifo.to_str().unwrap(), "--tls-key", key_arg],
        "is not a regular file",
    );
    refused(
        &["--tls-cert", cert_arg, "--tls-key", "/dev/zero"],
        "is not a regular file",
    );
    refused(&["--tls-cert", cert_arg], "--tls-key FILE");
    refused(&["--tls-key", key_arg], "--tls-cert FILE");
    refused(
        &[
            "--tls-self-signed",
            "--tls-cert",
            cert_arg,
            "--tls-key",
            key_arg,
        ],
        "--tls-self-signed makes its own",
    );
}

#[test]
fn beyond_loopback_is_refused_without_tls_and_served_with_it_under_its_names_only() {
    let (_dir, workspace, config) = folders();
    let output = refusal(&workspace, &["serve", "--listen", "0.0.0.0:0"], &config);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("error[INVALID_REQUEST]")
            && said.contains("--tls-self-signed")
            && said.contains("--tls-cert")
            && said.contains("SSH tunnel")
            && said.contains("tailnet"),
        "the three ways: {said}"
    );

    let served = serve_args(
        &workspace,
        &config,
        &[
            "--listen",
            "0.0.0.0:0",
            "--pair",
            "--tls-self-signed",
            "--tls-name",
            "phone-facing.example",
        ],
    );
    let cert = made_cert(&config);
    let port = served.origin.rsplit(':').next().unwrap().to_owned();
    assert_eq!(
        served.origin,
        format!("https://phone-facing.example:{port}"),
        "the name given is the one shown"
    );
    let address = format!("127.0.0.1:{port}");
    // A name the certificate covers (connected here, as a phone whose
    // DNS says so): paired.
    let (cookie, browser) = tls_pair(&served, &cert, &address, "localhost");
    assert!(cookie.contains("; Secure"), "{cookie}");
    let (status, _, _) = tls_request(
        &cert,
        &address,
        "phone-facing.example",
        "GET",
        "/",
        &[("Cookie", &browser.cookie)],
        "",
    );
    assert_eq!(status, 200);
    // Another name that resolves here (DNS rebinding), or the address
    // itself, which the certificate does not cover: refused.
    for host in [format!("rebound.evil.example:{port}"), address.clone()] {
        let (status, _, _) = tls_request(
            &cert,
            &address,
            "localhost",
            "GET",
            "/",
            &[("Host", &host), ("Cookie", &browser.cookie)],
            "",
        );
        assert_eq!(status, 421, "{host}");
    }
}

#[test]
fn plain_http_or_silence_on_the_tls_port_ends_that_connection_only() {
    let (_dir, workspace, config) = folders();
    let served = serve_with(&workspace, &config, &["--tls-self-signed"]);
    let cert = made_cert(&config);
    let address = loopback(&served.origin);
    // A connection that says nothing.
    let mut silent = TcpStream::connect(&address).unwrap();
    // Plain HTTP sent to the TLS port: no answer but the end.
    let mut plain = TcpStream::connect(&address).unwrap();
    write!(plain, "GET / HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
    let mut heard = Vec::new();
    let _ = plain.read_to_end(&mut heard);
    assert!(
        !String::from_utf8_lossy(&heard).contains("HTTP/1.1"),
        "no page over plain HTTP"
    );
    // Meanwhile TLS still serves.
    let (status, _, _) = tls_request(&cert, &address, "127.0.0.1", "GET", "/", &[], "");
    assert_eq!(status, 401, "served (and not paired)");
    // The silent one is let go once its handshake is overdue (10 s).
    silent
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut buffer = [0_u8; 64];
    let read = silent.read(&mut buffer);
    assert!(
        matches!(read, Ok(0))
            || read
                .as_ref()
                .is_err_and(|error| error.kind() == std::io::ErrorKind::ConnectionReset),
        "the server closes it: {read:?}"
    );
}

#[test]
fn switchboard_pair_makes_a_link_the_running_server_takes() {
    let (_dir, workspace, config) = folders();
    let runtime = workspace.join(".test-runtime");
    let envs = [
        ("SWITCHBOARD_CONFIG_DIR", config.as_path()),
        ("SWITCHBOARD_RUNTIME_DIR", runtime.as_path()),
    ];
    // None runs: said, with how to start one.
    let output = crate::switchboard_with(&workspace, &["pair"], &envs);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(9), "{said}");
    assert!(
        said.contains("error[UNAVAILABLE]") && said.contains("switchboard serve"),
        "{said}"
    );

    let served = serve(&workspace, &config);
    let output = crate::switchboard_with(&workspace, &["pair"], &envs);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    let link = printed
        .lines()
        .find(|line| line.contains("/pair?code="))
        .unwrap();
    assert!(
        link.starts_with(&format!("{}/pair?code=", served.origin)),
        "made on the running server's origin: {link}"
    );
    assert_ne!(link, served.link, "a new code");
    let path = &link[link.find("/pair?").unwrap()..];
    let (status, headers, body) = request(&served.origin, "GET", path, &[], "");
    assert_eq!(status, 200, "{body}");
    let browser = paired(header(&headers, "set-cookie").unwrap(), &body);
    let (status, _, _) = request(
        &served.origin,
        "GET",
        "/",
        &[("Cookie", &browser.cookie)],
        "",
    );
    assert_eq!(status, 200, "paired");
    let (status, listed) = invoke(&served, &browser, "list_deliveries", &Value::Null);
    assert_eq!(status, 200, "its page's commands are taken: {listed}");
}

/// `command` (with `arguments`) from `count` browsers' pages at once, each
/// answer's status, or none past `within`.
fn invoke_all(
    served: &Served,
    browser: &Paired,
    command: &str,
    arguments: &Value,
    count: usize,
    within: std::time::Duration,
) -> Option<Vec<u16>> {
    let (answered, answers) = std::sync::mpsc::channel();
    for _ in 0..count {
        let (origin, browser, command, arguments, answered) = (
            served.origin.clone(),
            browser.clone(),
            command.to_owned(),
            arguments.clone(),
            answered.clone(),
        );
        std::thread::spawn(move || {
            let _ = answered.send(invoke_at(&origin, &browser, &command, &arguments).0);
        });
    }
    let deadline = std::time::Instant::now() + within;
    (0..count)
        .map(|_| {
            answers.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
        })
        .collect::<Result<_, _>>()
        .ok()
}

#[test]
fn a_settings_file_that_is_a_fifo_a_device_or_wrong_grants_nothing_and_holds_nothing_up() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let settings = config.join("settings.json");
    let end = json!({"request": {"session": "ps-000000000000"}});
    let within = std::time::Duration::from_secs(20);
    // A FIFO first (opened, it would wait for a writer forever, holding
    // the server's threads: more commands than it has), then a device (a
    // symlink to /dev/zero, read without end), then wrong types.
    nix::unistd::mkfifo(&settings, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let answered = invoke_all(&served, &browser, "session_end", &end, 8, within);
    assert_eq!(
        answered,
        Some(vec![403; 8]),
        "refused at once, taking over not granted"
    );
    let (status, listed) = invoke(&served, &browser, "list_deliveries", &Value::Null);
    assert_eq!(status, 200, "the rest is served: {listed}");
    std::fs::remove_file(&settings).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &settings).unwrap();
    let answered = invoke_all(&served, &browser, "session_end", &end, 2, within);
    assert_eq!(answered, Some(vec![403; 2]), "a device");
    std::fs::remove_file(&settings).unwrap();
    for wrong in [
        r#"{"browserTakeOver": "true"}"#,
        r#"{"browserTakeOver": 1}"#,
        r#"{"browserTakeOver": false, "browserTakeOver": true}"#,
        r#"[{"browserTakeOver": true}]"#,
    ] {
        std::fs::write(&settings, wrong).unwrap();
        let (status, refused) = invoke(&served, &browser, "session_end", &end);
        assert_eq!(status, 403, "{wrong}: {refused}");
    }
    // Granted, the same call gets as far as the session host.
    std::fs::write(&settings, r#"{"browserTakeOver": true}"#).unwrap();
    let (status, answer) = invoke(&served, &browser, "session_end", &end);
    assert_ne!(status, 403, "{answer}");
}

#[test]
fn a_browser_revoked_by_a_tool_writing_in_place_and_keeping_the_time_is_refused_at_once() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let (status, listed) = invoke(&served, &browser, "list_deliveries", &Value::Null);
    assert_eq!(status, 200, "paired: {listed}");
    // Another tool (an editor, `cp -p` of a copy) writes the file in
    // place: the same inode, the same size, the modification time put
    // back; its one session's digest is no longer this cookie's.
    let file = config.join("browser-sessions.json");
    let before = std::fs::metadata(&file).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let sessions: Value = serde_json::from_str(&text).unwrap();
    let digest = sessions["sessions"][0]["sha256"].as_str().unwrap();
    let other: String = digest
        .chars()
        .map(|c| if c == '0' { '1' } else { '0' })
        .collect();
    let revoked = text.replace(digest, &other);
    assert_eq!(revoked.len(), text.len());
    let mut writing = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&file)
        .unwrap();
    writing.write_all(revoked.as_bytes()).unwrap();
    writing.set_modified(before.modified().unwrap()).unwrap();
    drop(writing);
    let after = std::fs::metadata(&file).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
    use std::os::unix::fs::MetadataExt as _;
    assert_eq!(after.ino(), before.ino(), "written in place");
    let (status, refused) = invoke(&served, &browser, "list_deliveries", &Value::Null);
    assert_eq!(status, 401, "revoked: {refused}");
}

#[test]
fn a_session_log_that_is_a_fifo_or_a_device_is_refused_at_once_to_a_browser() {
    let (_dir, workspace, config) = folders();
    let logs = workspace.join(".switchboard/sessions");
    std::fs::create_dir_all(&logs).unwrap();
    // Put there by an agent, or a cloned repository's symlink.
    nix::unistd::mkfifo(
        &logs.join("ps-aaaaaaaaaaaa.cast"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    std::os::unix::fs::symlink("/dev/zero", logs.join("ps-bbbbbbbbbbbb.cast")).unwrap();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let within = std::time::Duration::from_secs(20);
    // More replays at once than the server has threads, the FIFO first.
    for session in ["ps-aaaaaaaaaaaa", "ps-bbbbbbbbbbbb"] {
        let replay = json!({"request": {"session": session}});
        let answered = invoke_all(&served, &browser, "session_replay", &replay, 4, within)
            .unwrap_or_else(|| panic!("{session}: the replays were not answered"));
        assert!(
            answered.iter().all(|status| *status >= 400),
            "{session}: {answered:?}"
        );
    }
    let (status, listed) = invoke(&served, &browser, "sessions", &Value::Null);
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed, json!([]), "neither is a log");
}

#[test]
fn one_address_flooding_silent_connections_does_not_hold_up_a_paired_browser() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let address: std::net::SocketAddr =
        served.origin.trim_start_matches("http://").parse().unwrap();
    // 600 connections that never send a byte, from another address of
    // this machine (as a LAN host would): more than the server's places.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let flood: Vec<tokio::net::TcpStream> = runtime.block_on(async {
        let mut held = Vec::new();
        for _ in 0..600 {
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
            held.push(socket.connect(address).await.unwrap());
        }
        held
    });
    // The paired browser is answered at once, not when the flood's
    // connections time out (10 s).
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: {address}\r\nCookie: {}\r\nConnection: close\r\n\r\n",
        browser.cookie
    )
    .unwrap();
    let mut status = String::new();
    BufReader::new(&stream)
        .read_line(&mut status)
        .expect("answered while another address floods");
    assert!(status.contains(" 200 "), "{status}");
    drop(flood);
}
