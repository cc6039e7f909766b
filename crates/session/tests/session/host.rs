//! The session host as clients meet it: a real host process started on
//! demand, real programs on real pseudo-terminals.

use std::path::Path;

use switchboard_model::{ErrorCode, program::SessionState};
use switchboard_session::{
    ClientError,
    protocol::{ExpectOutcome, Input, Pattern, StartRequest, WaitFor, WaitOutcome},
};

use crate::support::{self, SECS, client};

/// `program ARGS` named `name`, with `SB_TEST` set, in workspace `cwd`.
fn start(program: &str, args: &[&str], name: Option<&str>, cwd: &Path) -> StartRequest {
    StartRequest {
        name: name.map(str::to_owned),
        env: vec![("SB_TEST".into(), "from-env".into())],
        workspace: Some(cwd.display().to_string()),
        record: false,
        ..support::start(program, args, cwd)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_outlives_its_client_and_answers_another() {
    let temp = tempfile::tempdir().unwrap();
    let first = client(temp.path(), &[]);
    let info = first
        .start(start("sh", &[], Some("shell"), temp.path()))
        .await
        .unwrap();
    assert_eq!(info.state, SessionState::Running);
    assert!(info.pid.is_some());
    drop(first);
    // Another client (as another process would be) finds it by name.
    let second = client(temp.path(), &[]);
    second
        .send(
            "shell",
            Input::Line("echo \"[$SB_TEST]\"; cd /; pwd".into()),
            false,
        )
        .await
        .unwrap();
    let outcome = second
        .expect(
            "shell",
            vec![Pattern::Exact("[from-env]".into())],
            SECS,
            |_| {},
        )
        .await
        .unwrap();
    let ExpectOutcome::Matched { index, before, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(index, 0);
    // The echo of the command (which holds the same text) was not matched.
    assert!(!before.contains("echo"), "{before:?}");
    let outcome = second
        .expect(
            "shell",
            vec![
                Pattern::Regex(r"^/tmp$".into()),
                Pattern::Regex(r"^/$".into()),
            ],
            SECS,
            |_| {},
        )
        .await
        .unwrap();
    assert!(
        matches!(outcome, ExpectOutcome::Matched { index: 1, .. }),
        "{outcome:?}"
    );
    let listed = second
        .list(Some(temp.path().display().to_string()))
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name.as_deref(), Some("shell"));
    let killed = second.kill("shell", None).await.unwrap();
    assert_eq!(killed.state, SessionState::Killed);
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_lose_nothing_and_waits_end_on_signals() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let info = client
        .start(start("python3", &["-i", "-q"], None, temp.path()))
        .await
        .unwrap();
    let id = info.id;
    // The first prompt, before any input: guessed from its shape.
    let waited = client
        .wait(&id, WaitFor::Prompt, SECS, |_| {})
        .await
        .unwrap();
    assert!(
        matches!(&waited, WaitOutcome::Prompt { prompt, .. } if prompt == ">>>"),
        "{waited:?}"
    );
    client
        .send(&id, Input::Line("print(6*7)".into()), false)
        .await
        .unwrap();
    let waited = client
        .wait(&id, WaitFor::Prompt, SECS, |_| {})
        .await
        .unwrap();
    let WaitOutcome::Prompt { output, cursor, .. } = waited else {
        panic!("{waited:?}");
    };
    assert!(output.contains("42"), "{output:?}");
    assert!(
        !output.contains("print"),
        "the echo is left out: {output:?}"
    );
    let all = client.read(&id, Some(0), true).await.unwrap();
    assert_eq!(all.missed, 0);
    assert_eq!(all.cursor, cursor);
    assert!(all.text.contains("print(6*7)") && all.text.contains("42"));
    let screen = all.screen.unwrap();
    assert!(screen.iter().any(|row| row == "42"), "{screen:?}");
    let none = client.read(&id, Some(all.cursor), false).await.unwrap();
    assert_eq!(none.text, "");
    // Quiet, then the end with its status.
    let quiet = client
        .wait(&id, WaitFor::Quiet(50), SECS, |_| {})
        .await
        .unwrap();
    assert!(matches!(quiet, WaitOutcome::Quiet { .. }));
    client
        .send(&id, Input::Line("import sys; sys.exit(3)".into()), false)
        .await
        .unwrap();
    let exit = client.wait(&id, WaitFor::Exit, SECS, |_| {}).await.unwrap();
    assert!(
        matches!(exit, WaitOutcome::Exit { exit, .. } if exit.code == Some(3)),
        "{exit:?}"
    );
    let after = client
        .expect(&id, vec![Pattern::Exact("never".into())], SECS, |_| {})
        .await
        .unwrap();
    assert!(matches!(after, ExpectOutcome::Eof { .. }), "{after:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timeout_is_an_outcome_and_secrets_stay_hidden() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let id = client
        .start(start("cat", &[], None, temp.path()))
        .await
        .unwrap()
        .id;
    let mut progress = 0;
    let outcome = client
        .expect(&id, vec![Pattern::Exact("nothing".into())], 1_500, |_| {
            progress += 1
        })
        .await
        .unwrap();
    assert!(
        matches!(outcome, ExpectOutcome::Timeout { .. }),
        "{outcome:?}"
    );
    assert_eq!(progress, 1, "one progress line a second");
    client
        .send(&id, Input::Line("hunter2".into()), true)
        .await
        .unwrap();
    // cat prints it back (that is not echo): masked too, as its echo is.
    let outcome = client
        .expect(
            &id,
            vec![Pattern::Exact("*******\r\n".into())],
            SECS,
            |_| {},
        )
        .await
        .unwrap();
    assert!(matches!(outcome, ExpectOutcome::Matched { .. }));
    let read = client.read(&id, None, true).await.unwrap();
    assert_eq!(read.text, "*******\r\n*******\r\n", "echo and cat's copy");
    client.kill(&id, Some("KILL".into())).await.unwrap();
}

/// Issue 30: a secret the program prints back — `you typed …`, split over
/// writes, coloured — never shows in a read, the screen or the log, and
/// the commands typed are logged as typed.
#[tokio::test(flavor = "multi_thread")]
async fn a_secret_printed_back_shows_nowhere_and_typed_commands_are_logged_as_typed() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let id = client
        .start(StartRequest {
            env: vec![("PS1".into(), "$ ".into())],
            ..start("bash", &["--norc", "--noprofile", "-i"], None, temp.path())
        })
        .await
        .unwrap()
        .id;
    let prompt = || vec![Pattern::Exact("$ ".into())];
    client.expect(&id, prompt(), SECS, |_| {}).await.unwrap();
    let typed = r#"read -p 'token: ' t; echo "you typed $t"; printf '%s\e[1m' "${t:0:5}"; printf '%s\e[0m|\n' "${t:5}""#;
    client
        .send(&id, Input::Line(typed.into()), false)
        .await
        .unwrap();
    client
        .expect(&id, vec![Pattern::Exact("token: ".into())], SECS, |_| {})
        .await
        .unwrap();
    client
        .send(&id, Input::Line("Zq7-hunter2-Xy".into()), true)
        .await
        .unwrap();
    let outcome = client
        .expect(&id, vec![Pattern::Exact("|".into())], SECS, |_| {})
        .await
        .unwrap();
    assert!(
        matches!(outcome, ExpectOutcome::Matched { .. }),
        "{outcome:?}"
    );
    client.expect(&id, prompt(), SECS, |_| {}).await.unwrap();
    let read = client.read(&id, Some(0), true).await.unwrap();
    assert!(
        read.text.contains("you typed **************"),
        "the program's line, masked: {:?}",
        read.text
    );
    assert!(
        read.text.contains("*****\u{1b}[1m*********\u{1b}[0m|"),
        "split and coloured, masked: {:?}",
        read.text
    );
    let screen = read.screen.unwrap().join("\n");
    assert!(screen.contains("you typed **************"), "{screen}");
    client
        .send(&id, Input::Line("exit".into()), false)
        .await
        .unwrap();
    let exit = client.wait(&id, WaitFor::Exit, SECS, |_| {}).await.unwrap();
    assert!(matches!(exit, WaitOutcome::Exit { .. }), "{exit:?}");
    let log_path = temp.path().join(format!(".switchboard/sessions/{id}.cast"));
    let log = support::eventually(|| {
        std::fs::read_to_string(&log_path).ok().filter(|log| {
            log.lines()
                .last()
                .is_some_and(|line| line.contains(r#""x""#))
        })
    })
    .await;
    for text in [&read.text, &screen, &log] {
        assert!(!text.contains("hunter2"), "the secret shows: {text}");
    }
    assert!(
        log.contains(r#"read -p 'token: ' t;"#),
        "typed as typed, not redacted as a credential: {log}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_and_bad_requests_say_what_is_wrong() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[("SWITCHBOARD_MAX_SESSIONS", "1")]);
    let code = |error: ClientError| error.payload().code;
    let id = client
        .start(start("cat", &[], Some("one"), temp.path()))
        .await
        .unwrap()
        .id;
    let error = client
        .start(start("cat", &[], Some("one"), temp.path()))
        .await
        .unwrap_err();
    assert_eq!(
        code(error),
        ErrorCode::InvalidRequest,
        "names are unique among live sessions"
    );
    let error = client
        .start(start("cat", &[], None, temp.path()))
        .await
        .unwrap_err();
    assert_eq!(code(error), ErrorCode::LimitReached);
    let error = client
        .start(start("cat", &[], Some("../x"), temp.path()))
        .await
        .unwrap_err();
    assert_eq!(code(error), ErrorCode::InvalidRequest);
    let error = client
        .send("nobody", Input::Text("x".into()), false)
        .await
        .unwrap_err();
    assert_eq!(code(error), ErrorCode::NotFound);
    let error = client
        .expect(&id, vec![Pattern::Regex("(".into())], 10, |_| {})
        .await
        .unwrap_err();
    assert_eq!(code(error), ErrorCode::InvalidRequest);
    client.kill(&id, None).await.unwrap();
    let error = client
        .start(start("no-such-program-here", &[], None, temp.path()))
        .await
        .unwrap_err();
    assert_eq!(code(error), ErrorCode::NotFound);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_that_ignores_term_is_killed_and_reaped() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let id = client
        .start(start(
            "sh",
            &["-c", "trap '' TERM; echo armed; while :; do sleep 1; done"],
            None,
            temp.path(),
        ))
        .await
        .unwrap()
        .id;
    client
        .expect(&id, vec![Pattern::Exact("armed".into())], SECS, |_| {})
        .await
        .unwrap();
    let pid = client
        .read(&id, None, false)
        .await
        .unwrap()
        .session
        .pid
        .unwrap();
    let killed = client.kill(&id, None).await.unwrap();
    assert_eq!(killed.state, SessionState::Killed);
    assert_eq!(killed.exit.and_then(|exit| exit.signal), Some(9));
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "reaped: no zombie left"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn watchers_hear_of_changes_and_the_developer_takes_over() {
    use switchboard_model::program::Controller;
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let workspace = temp.path().display().to_string();
    let (heard, mut hearing) = tokio::sync::mpsc::unbounded_channel();
    let watcher = client.clone();
    let watching = tokio::spawn(async move {
        watcher
            .watch(Some(workspace), move |sessions| {
                let _ = heard.send(sessions);
            })
            .await
    });
    // The list as it is when the watch begins: empty.
    assert!(hearing.recv().await.unwrap().is_empty());
    let id = client
        .start(start("cat", &[], Some("watched"), temp.path()))
        .await
        .unwrap()
        .id;
    let seen = tokio::time::timeout(std::time::Duration::from_millis(SECS), async {
        loop {
            let sessions = hearing.recv().await.unwrap();
            if let Some(info) = sessions.into_iter().find(|info| info.id == id) {
                break info;
            }
        }
    })
    .await
    .expect("the watch hears of the new session");
    assert_eq!(seen.controller, Controller::Agent);
    client.control(&id, Controller::User).await.unwrap();
    let error = client
        .send(&id, Input::Line("from the agent".into()), false)
        .await
        .unwrap_err();
    assert_eq!(error.payload().code, ErrorCode::Unavailable);
    client
        .send_as(&id, Input::Line("from the developer".into()), false, true)
        .await
        .unwrap();
    let outcome = client
        .expect(
            &id,
            vec![Pattern::Exact("from the developer".into())],
            SECS,
            |_| {},
        )
        .await
        .unwrap();
    assert!(matches!(outcome, ExpectOutcome::Matched { .. }));
    tokio::time::timeout(std::time::Duration::from_millis(SECS), async {
        loop {
            let sessions = hearing.recv().await.unwrap();
            if sessions
                .iter()
                .any(|info| info.controller == Controller::User)
            {
                break;
            }
        }
    })
    .await
    .expect("the watch hears who holds it");
    client.control(&id, Controller::Agent).await.unwrap();
    client
        .send(&id, Input::Line("agent again".into()), false)
        .await
        .unwrap();
    client.kill(&id, None).await.unwrap();
    watching.abort();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_log_is_asciicast_holds_no_secret_and_becomes_a_tape() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    // A password prompt: echo off while it reads.
    let script = "stty -echo; printf 'Password: '; read pw; stty echo; echo; echo \"len ${#pw}\"";
    let id = client
        .start(StartRequest {
            record: true,
            ..start("sh", &["-c", script], None, temp.path())
        })
        .await
        .unwrap()
        .id;
    client
        .expect(&id, vec![Pattern::Exact("Password: ".into())], SECS, |_| {})
        .await
        .unwrap();
    // Not sent as a secret: the echo being off makes it one.
    client
        .send(&id, Input::Line("hunter2".into()), false)
        .await
        .unwrap();
    let outcome = client
        .expect(&id, vec![Pattern::Exact("len 7".into())], SECS, |_| {})
        .await
        .unwrap();
    assert!(
        matches!(outcome, ExpectOutcome::Matched { .. }),
        "{outcome:?}"
    );
    let exit = client.wait(&id, WaitFor::Exit, SECS, |_| {}).await.unwrap();
    assert!(matches!(exit, WaitOutcome::Exit { .. }));
    let log = std::fs::read_to_string(temp.path().join(format!(".switchboard/sessions/{id}.cast")))
        .unwrap();
    assert!(!log.contains("hunter2"), "{log}");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["version"], 3);
    assert_eq!(lines[0]["term"]["cols"], 80);
    let codes: Vec<&str> = lines[1..]
        .iter()
        .map(|event| event[1].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"o") && codes.contains(&"i"), "{codes:?}");
    assert_eq!(codes.last(), Some(&"x"), "the exit comes last: {codes:?}");
    let input = lines.iter().find(|event| event[1] == "i").unwrap();
    assert!(input[2].as_str().unwrap().starts_with("***"), "{input}");
    assert_eq!(lines.last().unwrap()[2], "0");

    // Recorded (`record`): once ended, the log becomes a tape, and the
    // session says where.
    let (found, mut tapes) = tokio::sync::mpsc::unbounded_channel();
    let wanted = id.clone();
    let watching = client.watch(None, move |sessions| {
        for session in sessions {
            if session.id == wanted
                && let Some(tape) = session.tape
            {
                let _ = found.send(tape);
            }
        }
    });
    let tape = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        tokio::select! {
            ended = watching => panic!("the watch ended: {ended:?}"),
            tape = tapes.recv() => tape.unwrap(),
        }
    })
    .await
    .expect("the tape is written");
    assert_eq!(tape, format!("tapes/sh/{id}.json5"));
    let text = std::fs::read_to_string(temp.path().join(&tape)).unwrap();
    assert!(!text.contains("hunter2"), "{text}");
    let tape = switchboard_model::tape::codec::decode(&text).unwrap();
    assert_eq!(tape.meta.program, "sh");
    assert_eq!(tape.meta.args, ["-c", script]);
    assert_eq!(
        tape.exchanges.len(),
        1,
        "one line sent: {:?}",
        tape.exchanges
    );
    let exchange = &tape.exchanges[0];
    assert_eq!(exchange.pre.prompt.as_deref(), Some("Password: "));
    assert!(
        exchange
            .input
            .data_text
            .as_deref()
            .unwrap()
            .starts_with("***")
    );
    let output: Vec<u8> = exchange
        .output
        .chunks
        .iter()
        .flat_map(|chunk| chunk.bytes())
        .collect();
    assert!(String::from_utf8_lossy(&output).contains("len 7"));
    assert_eq!(exchange.exit.as_ref().unwrap().code, Some(0));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_host_leaves_lost_sessions_and_a_new_one_starts() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let info = client
        .start(start("cat", &[], Some("orphan"), temp.path()))
        .await
        .unwrap();
    let program = info.pid.unwrap();
    let host = client.hello().await.unwrap();
    // Waiting on the session while its host is killed: the client hears.
    let waiting = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .expect("orphan", vec![Pattern::Exact("never".into())], SECS, |_| {})
                .await
        })
    };
    // The registry is written within a sweep (a second) of the start.
    let registry = temp.path().join("rt/sessions.json");
    support::eventually(|| {
        std::fs::read_to_string(&registry)
            .ok()
            .filter(|text| text.contains("orphan"))
    })
    .await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(host).unwrap()),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let error = waiting.await.unwrap().unwrap_err();
    assert_eq!(error.payload().code, ErrorCode::Unavailable, "{error}");
    // The program ended with its terminal.
    support::eventually(|| {
        let running = std::fs::read_to_string(format!("/proc/{program}/stat"))
            .is_ok_and(|stat| !stat.contains(") Z"));
        (!running).then_some(())
    })
    .await;
    // The next request starts a new host, which lists the session as lost.
    let listed = client.list(None).await.unwrap();
    assert_ne!(client.hello().await.unwrap(), host);
    let lost = listed.iter().find(|each| each.id == info.id).unwrap();
    assert_eq!(lost.state, SessionState::Lost);
    let error = client
        .send("orphan", Input::Text("x".into()), false)
        .await
        .unwrap_err();
    assert_eq!(error.payload().code, ErrorCode::Unavailable);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_is_bounded_and_its_last_line_is_found() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let script = "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo END-MARK";
    let id = client
        .start(start("sh", &["-c", script], None, temp.path()))
        .await
        .unwrap()
        .id;
    let outcome = client
        .expect(
            &id,
            vec![Pattern::Regex("^END-MARK$".into())],
            120_000,
            |_| {},
        )
        .await
        .unwrap();
    let ExpectOutcome::Matched { before, cursor, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert!(
        before.len() <= 2 * 1024 * 1024,
        "only what is kept: {}",
        before.len()
    );
    assert!(cursor > 20_000_000);
    // A reader from the start is told how much fell out of the buffer.
    let read = client.read(&id, Some(0), false).await.unwrap();
    assert!(read.missed > 17_000_000, "{}", read.missed);
    assert!(
        read.text.trim_end().ends_with("END-MARK"),
        "the last line was read"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_starts_its_own_line_once_the_echo_is_left_out() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let id = client
        .start(start("python3", &["-i", "-q"], None, temp.path()))
        .await
        .unwrap()
        .id;
    // At its prompt (typed ahead, the line would be echoed twice: by the
    // terminal, then by python's line editor), with no expect before: the
    // cursor is still before the prompt.
    let waited = client
        .wait(&id, WaitFor::Prompt, SECS, |_| {})
        .await
        .unwrap();
    assert!(matches!(waited, WaitOutcome::Prompt { .. }), "{waited:?}");
    client
        .send(&id, Input::Line("print(6*7)".into()), false)
        .await
        .unwrap();
    let outcome = client
        .expect(&id, vec![Pattern::Regex("^42$".into())], SECS, |_| {})
        .await
        .unwrap();
    let ExpectOutcome::Matched { before, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(before, ">>> \r\n", "the prompt, then the input's line end");
    client.kill(&id, None).await.unwrap();
}

/// The first session list a watch hears that `wanted` accepts.
async fn heard(
    client: &switchboard_session::Client,
    wanted: impl Fn(&[switchboard_model::program::ProgramSession]) -> bool + Send + 'static,
) -> Vec<switchboard_model::program::ProgramSession> {
    let (found, mut lists) = tokio::sync::mpsc::unbounded_channel();
    let watching = client.watch(None, move |sessions| {
        if wanted(&sessions) {
            let _ = found.send(sessions);
        }
    });
    tokio::time::timeout(std::time::Duration::from_secs(10), async {
        tokio::select! {
            ended = watching => panic!("the watch ended: {ended:?}"),
            sessions = lists.recv() => sessions.expect("a list"),
        }
    })
    .await
    .expect("heard in time")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_prompt_wants_the_developer_and_watchers_keep_no_host_up() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    // Two programs: one turns echo off before its prompt, one after.
    for (name, script) in [
        (
            "before",
            "stty -echo; printf 'Password: '; read pw; stty echo; echo; echo \"got ${#pw}\"; sleep 30",
        ),
        (
            "after",
            "printf 'Passphrase: '; stty -echo; read pw; stty echo; echo; echo \"got ${#pw}\"; sleep 30",
        ),
    ] {
        client
            .start(start("sh", &["-c", script], Some(name), temp.path()))
            .await
            .unwrap();
        let named = name.to_owned();
        heard(&client, move |sessions| {
            sessions
                .iter()
                .any(|session| session.name.as_deref() == Some(&named) && session.wants_secret)
        })
        .await;
        client
            .send_as(name, Input::Line("hunter2".into()), true, true)
            .await
            .unwrap();
        client
            .expect(name, vec![Pattern::Exact("got 7".into())], SECS, |_| {})
            .await
            .unwrap();
        let named = name.to_owned();
        heard(&client, move |sessions| {
            sessions
                .iter()
                .any(|session| session.name.as_deref() == Some(&named) && !session.wants_secret)
        })
        .await;
        client.kill(name, None).await.unwrap();
    }

    // Only a watcher is left: the host still goes after its linger (1 s),
    // and the watch ends with it.
    let watching = client.watch(None, |_| {});
    tokio::time::timeout(std::time::Duration::from_secs(10), watching)
        .await
        .expect("the host went, ending the watch")
        .unwrap();
    let running = client.clone().without_starting().list(None).await;
    assert!(
        matches!(running, Err(switchboard_session::ClientError::NotRunning)),
        "{running:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_follower_hears_each_host_come_and_go_and_never_starts_one() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let (heard, mut lists) = tokio::sync::mpsc::unbounded_channel();
    let follower = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .follow(None, move |sessions| {
                    let _ = heard.send(sessions.map(|sessions| {
                        sessions
                            .into_iter()
                            .map(|session| (session.label().to_owned(), session.state))
                            .collect::<Vec<_>>()
                    }));
                })
                .await
        })
    };
    let next = async |lists: &mut tokio::sync::mpsc::UnboundedReceiver<_>| {
        tokio::time::timeout(std::time::Duration::from_secs(10), lists.recv())
            .await
            .expect("heard in time")
            .unwrap()
    };
    for round in ["first", "second"] {
        client
            .start(start("sleep", &["30"], Some(round), temp.path()))
            .await
            .unwrap();
        // The host started by the start above is found and followed.
        loop {
            let sessions: Option<Vec<(String, SessionState)>> = next(&mut lists).await;
            if sessions.is_some_and(|sessions| {
                sessions.contains(&(round.to_owned(), SessionState::Running))
            }) {
                break;
            }
        }
        client.kill(round, None).await.unwrap();
        // Then the host goes (its linger is 1 s): the follower kept none up.
        while next(&mut lists).await.is_some() {}
    }
    assert!(!follower.is_finished(), "it follows until dropped");
    follower.abort();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_following_read_waits_for_output_and_a_tail_catches_up() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    let id = client
        .start(start("cat", &[], None, temp.path()))
        .await
        .unwrap()
        .id;
    let cursor = client.read(&id, None, false).await.unwrap().cursor;
    // Nothing new yet: the read waits on the host until the line comes.
    let began = std::time::Instant::now();
    let following = {
        let (client, id) = (client.clone(), id.clone());
        tokio::spawn(async move {
            client
                .read_following(&id, Some(cursor), false, Some(30_000), None)
                .await
        })
    };
    client
        .send(&id, Input::Line("hello".into()), false)
        .await
        .unwrap();
    let output = following.await.unwrap().unwrap();
    assert!(output.text.contains("hello"), "{output:?}");
    assert!(
        began.elapsed() < std::time::Duration::from_secs(20),
        "woken by the output, not the timeout"
    );

    // Far behind: only the newest bytes, the rest counted as missed.
    let behind = output.cursor;
    client
        .send(&id, Input::Line("é".repeat(1_000)), false)
        .await
        .unwrap();
    client
        .expect(&id, vec![Pattern::Regex("(é){1000}".into())], SECS, |_| {})
        .await
        .unwrap();
    let tail = client
        .read_following(&id, Some(behind), false, None, Some(101))
        .await
        .unwrap();
    assert!(tail.text.len() <= 101, "{}", tail.text.len());
    assert!(tail.text.ends_with("é\r\n"), "{:?}", tail.text);
    assert!(!tail.text.starts_with('\u{fffd}'), "never half a character");
    assert_eq!(tail.missed + tail.text.len() as u64, tail.cursor - behind);
    client.kill(&id, None).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn input_typed_with_echo_off_awaits_no_echo() {
    let temp = tempfile::tempdir().unwrap();
    let client = client(temp.path(), &[]);
    // The program hides what is typed, then prints it back itself: that
    // output is the program's, not an echo to pass over (and what was
    // typed hidden is a secret: masked there too).
    let script =
        "stty -echo; printf 'Word: '; read word; stty echo; echo; echo \"you typed $word\"";
    let id = client
        .start(start("sh", &["-c", script], None, temp.path()))
        .await
        .unwrap()
        .id;
    client
        .expect(&id, vec![Pattern::Exact("Word: ".into())], SECS, |_| {})
        .await
        .unwrap();
    // Echo off by now (the prompt follows the stty).
    client
        .send(&id, Input::Line("swordfish".into()), false)
        .await
        .unwrap();
    let outcome = client
        .expect(
            &id,
            vec![Pattern::Exact("you typed *********".into())],
            SECS,
            |_| {},
        )
        .await
        .unwrap();
    assert!(
        matches!(outcome, ExpectOutcome::Matched { .. }),
        "{outcome:?}"
    );
}

/// Issue 30: the agent's first expect, wait or read after the developer
/// hands a session back says what they typed and what it answered; the
/// developer's own view leaves that note for the agent.
#[tokio::test(flavor = "multi_thread")]
async fn handing_a_session_back_tells_the_agent_what_the_developer_did() {
    use switchboard_model::program::Controller;
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("marker-file"), "").unwrap();
    let client = client(temp.path(), &[]);
    let id = client
        .start(StartRequest {
            env: vec![("PS1".into(), "$ ".into())],
            ..start("bash", &["--norc", "--noprofile", "-i"], None, temp.path())
        })
        .await
        .unwrap()
        .id;
    let prompt = || vec![Pattern::Exact("$ ".into())];
    client.expect(&id, prompt(), SECS, |_| {}).await.unwrap();

    client.control(&id, Controller::User).await.unwrap();
    let listed = client.list(None).await.unwrap();
    let held = listed.iter().find(|info| info.id == id).unwrap();
    assert_eq!(
        held.controller,
        Controller::User,
        "the list says who holds it"
    );
    // Typed key by key in the window, one taken back, then a secret line.
    let dir = temp.path().display().to_string();
    for key in format!("cd {dir} && lsx\x7f\r").as_bytes().chunks(1) {
        let text = String::from_utf8(key.to_vec()).unwrap();
        client
            .send_as(&id, Input::Text(text), false, true)
            .await
            .unwrap();
    }
    let read_line = r#"read -r v; echo "got $v""#;
    client
        .send_as(&id, Input::Line(read_line.into()), false, true)
        .await
        .unwrap();
    client
        .send_as(&id, Input::Line("pw-Zq7x9".into()), true, true)
        .await
        .unwrap();
    client
        .expect(
            &id,
            vec![Pattern::Exact("got ********".into())],
            SECS,
            |_| {},
        )
        .await
        .unwrap();
    // The developer's view follows the output and leaves the note alone.
    let watched = client
        .read_following(&id, Some(0), false, None, None)
        .await
        .unwrap();
    assert_eq!(watched.session.controller, Controller::User);
    client.control(&id, Controller::Agent).await.unwrap();
    let _ = client
        .read_following(&id, Some(0), false, None, None)
        .await
        .unwrap();

    let (outcome, note) = client
        .expect_noted(&id, prompt(), SECS, |_| {})
        .await
        .unwrap();
    assert!(
        matches!(outcome, ExpectOutcome::Matched { .. }),
        "{outcome:?}"
    );
    let note = note.expect("the first expect after the hand-back carries the note");
    assert_eq!(
        note.typed,
        [
            format!("cd {dir} && ls"),
            read_line.to_owned(),
            "***".to_owned()
        ]
    );
    assert!(
        note.output.contains("marker-file"),
        "what ls answered: {:?}",
        note.output
    );
    assert!(!note.output.contains("pw-Zq7x9"), "the secret stays masked");
    assert!(note.handed_back_at >= note.taken_at);
    assert_eq!(note.more_bytes, 0, "a short turn fits whole");
    let (_, again) = client
        .read_noted(&id, Some(note.cursor), false)
        .await
        .unwrap();
    assert!(again.is_none(), "told once");
    client.kill(&id, Some("KILL".into())).await.unwrap();
}
