//! The server's connections within bounds, as an attacker on the far side
//! of `connect`'s tunnel would test them: hundreds of sockets that send
//! nothing, hundreds asking again and again without a token, one token's
//! many kept-alive connections, a process out of file descriptors — none
//! keeps a real client out or ends the server.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use super::{Served, initialize, post, serve, switchboard_in, token};
use crate::flood::Flood;

/// Reads `stream` to its end, which must come (the server closes it)
/// within `within`; what was read.
fn closed_within(stream: &mut TcpStream, within: Duration) -> String {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut read = Vec::new();
    match stream.read_to_end(&mut read) {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(error) => panic!(
            "the server did not close the connection within {within:?} ({error}); it sent {:?}",
            String::from_utf8_lossy(&read)
        ),
    }
    String::from_utf8_lossy(&read).into_owned()
}

/// A keep-alive `initialize` with `bearer` on a new connection, answered
/// (its status line read); the connection stays open.
fn kept_alive(served: &Served, bearer: &str) -> (TcpStream, String) {
    let stream = TcpStream::connect(&served.address).unwrap();
    let body = initialize();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {bearer}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n\r\n",
        served.address,
        body.len()
    );
    (&stream).write_all(head.as_bytes()).unwrap();
    (&stream).write_all(&body).unwrap();
    let mut status = String::new();
    BufReader::new(&stream).read_line(&mut status).unwrap();
    (stream, status)
}

#[test]
fn connections_that_send_nothing_keep_no_client_out_and_are_closed() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(workspace.path(), config.path());
    let authorised = format!("Bearer {}", token(config.path(), "devbox"));
    // More silent sockets than the server holds (256).
    let mut silent: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(&served.address).unwrap())
        .collect();
    let opened = Instant::now();
    let (status, body) = post(&served, &[("Authorization", &authorised)], &initialize());
    assert_eq!(
        status, 200,
        "a client that sends its request gets through: {body}"
    );
    // The oldest made way for the newer ones, at once.
    let said = closed_within(&mut silent[0], Duration::from_secs(5));
    assert!(said.is_empty(), "closed without a word: {said:?}");
    // The newest is closed once it has sent nothing for 10 s.
    let newest = silent.last_mut().unwrap();
    closed_within(newest, Duration::from_secs(30));
    let waited = opened.elapsed();
    assert!(
        waited >= Duration::from_secs(9) && waited < Duration::from_secs(20),
        "closed after {waited:?}"
    );
}

#[test]
fn connections_asking_again_and_again_without_a_token_keep_no_token_holder_out() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(workspace.path(), config.path());
    let holder = token(config.path(), "devbox");
    let address: std::net::SocketAddr = served.address.parse().unwrap();
    // More than the server holds (256), each asking as fast as it is
    // answered (401).
    let flood = Flood::start(
        address,
        256 + 48,
        format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Length: 0\r\n\r\n"),
    );
    assert_eq!(
        flood.answered(256, Duration::from_secs(120)),
        256,
        "the flood holds (or held) every place"
    );
    // Meanwhile the token's holder is answered, each time on a new
    // connection.
    for attempt in 0..3 {
        let stream = TcpStream::connect(&served.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let body = initialize();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {holder}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            served.address,
            body.len()
        );
        (&stream).write_all(head.as_bytes()).unwrap();
        (&stream).write_all(&body).unwrap();
        let mut status = String::new();
        BufReader::new(&stream)
            .read_line(&mut status)
            .unwrap_or_else(|error| {
                panic!("attempt {attempt}: the token's holder was not answered in 10 s ({error})")
            });
        assert!(
            status.starts_with("HTTP/1.1 200"),
            "attempt {attempt}: {status:?}"
        );
    }
    drop(flood);
}

#[test]
fn one_token_holds_half_the_connections_and_a_refusal_closes_its_connection() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let served = serve(workspace.path(), config.path());
    let greedy = token(config.path(), "greedy");
    // Half of the 256 held connections, each with a request answered and
    // kept alive.
    let held: Vec<TcpStream> = (0..128)
        .map(|n| {
            let (stream, status) = kept_alive(&served, &greedy);
            assert!(status.starts_with("HTTP/1.1 200"), "{n}: {status:?}");
            stream
        })
        .collect();
    // The next connection of the same token is refused, and closed.
    let (mut refused, status) = kept_alive(&served, &greedy);
    assert!(status.starts_with("HTTP/1.1 503"), "{status:?}");
    closed_within(&mut refused, Duration::from_secs(5));
    // Another token is served meanwhile.
    let other = format!("Bearer {}", token(config.path(), "other"));
    let (status, body) = post(&served, &[("Authorization", &other)], &initialize());
    assert_eq!(status, 200, "{body}");
    // A refused request closes its connection too: a client without a
    // token holds no place.
    let stream = TcpStream::connect(&served.address).unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\n\r\n",
        served.address
    );
    (&stream).write_all(head.as_bytes()).unwrap();
    let mut unauthorised = stream;
    let said = closed_within(&mut unauthorised, Duration::from_secs(5));
    assert!(said.starts_with("HTTP/1.1 401"), "{said:?}");
    drop(held);
}

#[test]
fn the_server_outlives_running_out_of_file_descriptors() {
    let workspace = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let authorised = format!("Bearer {}", token(config.path(), "devbox"));
    let (child, address) = switchboard_remote_test::start_http(
        switchboard_in(config.path())
            .arg("-C")
            .arg(workspace.path())
            .args(["mcp", "--http"])
            .stderr(Stdio::piped()),
    );
    let mut served = Served { child, address };
    let said = switchboard_remote_test::follow(served.child.stderr.take().unwrap());
    // A few descriptors more than it holds now: the connections below
    // use them up (a 1,024 limit and ~1,020 sockets, in small).
    let pid = served.child.id();
    let open = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    let limit = open + 8;
    let lowered = Command::new("prlimit")
        .arg(format!("--pid={pid}"))
        .arg(format!("--nofile={limit}:{limit}"))
        .status()
        .unwrap();
    assert!(lowered.success());
    let silent: Vec<TcpStream> = (0..40)
        .map(|_| TcpStream::connect(&served.address).unwrap())
        .collect();
    switchboard_remote_test::wait_for(
        &said,
        "waits for one to end",
        "the server's word that it ran out",
    );
    assert!(
        served.child.try_wait().unwrap().is_none(),
        "the server runs on"
    );
    // The sockets go; the server serves again.
    drop(silent);
    let (status, body) = post(&served, &[("Authorization", &authorised)], &initialize());
    assert_eq!(status, 200, "{body}");
    assert!(served.child.try_wait().unwrap().is_none());
}
