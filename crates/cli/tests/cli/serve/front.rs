//! `switchboard serve`'s front under a flood: more unpaired connections
//! than the server holds, asking again and again as fast as it answers,
//! keep no paired browser out (issue 48); a huge request head is not read.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{SocketAddr, TcpStream},
    time::Duration,
};

use super::{folders, pair, serve};
use crate::flood::Flood;

/// The most connections `switchboard serve` holds.
const PLACES: usize = 512;

/// The status line a `GET /` with `headers` gets on a new connection,
/// within `within`.
fn get(address: SocketAddr, headers: &str, within: Duration) -> std::io::Result<String> {
    let stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(within))?;
    write!(
        &stream,
        "GET / HTTP/1.1\r\nHost: {address}\r\n{headers}\r\n"
    )?;
    let mut reader = BufReader::new(&stream);
    let mut status = String::new();
    reader.read_line(&mut status)?;
    Ok(status)
}

#[test]
fn unpaired_connections_asking_again_and_again_keep_no_paired_browser_out() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let cookie = pair(&served).cookie;
    let address: SocketAddr = served.origin.trim_start_matches("http://").parse().unwrap();
    // An unpaired browser's refusal closes its connection: asking again
    // takes a new one.
    let mut unpaired = TcpStream::connect(address).unwrap();
    write!(unpaired, "GET / HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
    unpaired
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut said = String::new();
    unpaired.read_to_string(&mut said).unwrap();
    assert!(
        said.starts_with("HTTP/1.1 401") && said.to_ascii_lowercase().contains("connection: close"),
        "{said}"
    );
    // From loopback, where a proxy's browsers come from (not counted per
    // address): more connections than the server holds.
    let flood = Flood::start(
        address,
        PLACES + 48,
        format!("GET / HTTP/1.1\r\nHost: {address}\r\n\r\n"),
    );
    assert_eq!(
        flood.answered(PLACES, Duration::from_secs(120)),
        PLACES,
        "the flood holds (or held) every place"
    );
    // Meanwhile the paired browser is answered, again and again, each time
    // on a new connection.
    for attempt in 0..3 {
        let status = get(
            address,
            &format!("Cookie: {cookie}\r\nConnection: close\r\n"),
            Duration::from_secs(10),
        )
        .unwrap_or_else(|error| {
            panic!("attempt {attempt}: the paired browser was not answered in 10 s ({error})")
        });
        assert!(
            status.starts_with("HTTP/1.1 200"),
            "attempt {attempt}: {status:?}"
        );
    }
    drop(flood);
}

#[test]
fn a_cookie_replayed_alone_on_many_connections_keeps_its_paired_page_out_of_nothing() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let browser = pair(&served);
    let address: SocketAddr = served.origin.trim_start_matches("http://").parse().unwrap();
    // Another server on this host was sent the paired browser's cookie and
    // replays it: more connections than the browser's share, each kept
    // open once answered (a page's file, which the cookie alone loads).
    let replayed: Vec<TcpStream> = (0..PLACES / 2 + 44)
        .map(|_| {
            let stream = TcpStream::connect(address).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            write!(
                &stream,
                "GET /shim.js HTTP/1.1\r\nHost: {address}\r\nCookie: {}\r\n\r\n",
                browser.cookie
            )
            .unwrap();
            // Answered (the server has heard it) before the next.
            let mut status = String::new();
            BufReader::new(&stream).read_line(&mut status).unwrap();
            stream
        })
        .collect();
    // The page itself, with its key, is still served its commands.
    let (status, answered) = super::invoke(
        &served,
        &browser,
        "list_deliveries",
        &serde_json::Value::Null,
    );
    assert_eq!(status, 200, "{answered}");
    drop(replayed);
}

/// Connections from `127.0.0.1` to `address` as fast as the server takes
/// them (a thousand on their way at once), each held silent for under a
/// second (never long silent) and then dropped, until dropped itself.
struct SilentFlood {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    made: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SilentFlood {
    fn start(address: SocketAddr) -> Self {
        use std::sync::{Arc, atomic::Ordering};
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let made = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (stopping, counting) = (Arc::clone(&stop), Arc::clone(&made));
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let on_the_way = Arc::new(tokio::sync::Semaphore::new(1000));
                while !stopping.load(Ordering::Relaxed) {
                    let permit = Arc::clone(&on_the_way).acquire_owned().await.unwrap();
                    let made = Arc::clone(&counting);
                    tokio::spawn(async move {
                        let connected = tokio::time::timeout(
                            Duration::from_millis(500),
                            tokio::net::TcpStream::connect(address),
                        )
                        .await;
                        if let Ok(Ok(stream)) = connected {
                            made.fetch_add(1, Ordering::Relaxed);
                            tokio::time::sleep(Duration::from_millis(800)).await;
                            drop(stream);
                        }
                        drop(permit);
                    });
                }
            });
        });
        Self {
            stop,
            made,
            thread: Some(thread),
        }
    }

    fn made(&self) -> usize {
        self.made.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for SilentFlood {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An address of this host's own that is not loopback (its LAN's, its
/// container network's): a connection to it comes from it, so the server
/// sees a peer of its own — every loopback address is one peer with the
/// flood. The source address the kernel picks towards a documentation
/// address (a UDP socket's `connect` sends nothing).
fn this_hosts_own_address() -> std::net::IpAddr {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    let ip = socket
        .connect("192.0.2.1:9")
        .and_then(|()| socket.local_addr())
        .map(|address| address.ip())
        .unwrap_or_else(|error| {
            panic!("this test needs a network interface besides loopback (a route out): {error}")
        });
    assert!(
        !ip.is_loopback() && !ip.is_unspecified(),
        "this test needs an address of this host besides loopback, the route out gave {ip}"
    );
    ip
}

#[test]
fn a_flood_from_this_host_keeps_a_phone_arriving_from_its_own_address_out_of_nothing() {
    let (_dir, workspace, config) = folders();
    let served = super::serve_args(
        &workspace,
        &config,
        &["--listen", "0.0.0.0:0", "--pair", "--tls-self-signed"],
    );
    let cert = super::made_cert(&config);
    let loopback = super::loopback(&served.origin);
    let (_, browser) = super::tls_pair(&served, &cert, &loopback, "localhost");
    let port: u16 = loopback.rsplit(':').next().unwrap().parse().unwrap();
    // A process of this host (an agent's dev server, a package's script)
    // keeps the front full of connections that have just arrived.
    let flood = SilentFlood::start(SocketAddr::from(([127, 0, 0, 1], port)));
    while flood.made() < 2 * PLACES {
        std::thread::yield_now();
    }
    let root = native_tls::Certificate::from_pem(&std::fs::read(&cert).unwrap()).unwrap();
    let connector = native_tls::TlsConnector::builder()
        .add_root_certificate(root)
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let phone = this_hosts_own_address();
    for attempt in 0..3 {
        // The phone, from an address of its own (a LAN's, a tailnet's),
        // over a slow network (a phone's, through a tailnet's relay): its
        // handshake begins 1.2 s after its connection is taken.
        let stream = runtime
            .block_on(async { tokio::net::TcpStream::connect(SocketAddr::new(phone, port)).await })
            .unwrap()
            .into_std()
            .unwrap();
        stream.set_nonblocking(false).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        std::thread::sleep(Duration::from_millis(1200));
        let tls = connector
            .connect("localhost", stream)
            .unwrap_or_else(|error| panic!("attempt {attempt}: the phone was let go: {error}"));
        let (status, _, body) = super::exchange(
            tls,
            &format!("localhost:{port}"),
            "GET",
            "/",
            &[("Cookie", &browser.cookie)],
            "",
        );
        assert_eq!(status, 200, "attempt {attempt}: {body:.200}");
    }
    drop(flood);
}

#[test]
fn a_request_head_over_64_kib_is_refused_and_its_connection_closed() {
    let (_dir, workspace, config) = folders();
    let served = serve(&workspace, &config);
    let cookie = pair(&served).cookie;
    let address = served.origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    // A paired browser's request, but with 80 KiB of headers: not read
    // whole, not answered 200.
    let padding = "a".repeat(80 * 1024);
    let _ = write!(
        stream,
        "GET / HTTP/1.1\r\nHost: {address}\r\nCookie: {cookie}\r\nX-Padding: {padding}\r\n\r\n"
    );
    let mut said = Vec::new();
    let read = stream.read_to_end(&mut said);
    let said = String::from_utf8_lossy(&said);
    // The refusal may be cut off by the reset of the head left unread.
    assert!(
        said.is_empty() || said.starts_with("HTTP/1.1 431"),
        "refused: {said:.200}"
    );
    assert!(
        read.is_ok()
            || read
                .as_ref()
                .is_err_and(|error| error.kind() == std::io::ErrorKind::ConnectionReset),
        "the server closes it: {read:?}"
    );
}
