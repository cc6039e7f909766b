//! A flood for the servers' front (`serve` and `http` tests): many
//! connections asking again and again without a credential, as fast as the
//! server answers — each a keep-alive connection while the server keeps
//! it, a new one as soon as the server closes it — until dropped.

use std::{
    net::SocketAddr,
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A running flood; it ends, every connection closed, when dropped.
pub struct Flood {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Each flooder's number, once, when its first request is answered.
    answered: mpsc::Receiver<usize>,
}

impl Flood {
    /// `connections` flooders of `address`, each sending `ask` (a whole
    /// request) again and again.
    pub fn start(address: SocketAddr, connections: usize, ask: String) -> Self {
        raise_file_limit(connections * 2 + 256);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (told, answered) = mpsc::channel();
        let ask: Arc<[u8]> = Arc::from(ask.into_bytes());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                for each in 0..connections {
                    tokio::spawn(flooder(address, Arc::clone(&ask), told.clone(), each));
                }
                let _ = stopped.await;
            });
        });
        Self {
            stop: Some(stop),
            thread: Some(thread),
            answered,
        }
    }

    /// Waits until `count` flooders have had an answer (each holds or has
    /// held a place then), for `within` at most; how many had one.
    pub fn answered(&self, count: usize, within: Duration) -> usize {
        let deadline = Instant::now() + within;
        let mut seen = 0;
        while seen < count {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.answered.recv_timeout(left) {
                Ok(_) => seen += 1,
                Err(_) => break,
            }
        }
        seen
    }
}

impl Drop for Flood {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One flooder: connects, asks, reads the answer, asks again on the same
/// connection while the server keeps it, else on a new one.
async fn flooder(address: SocketAddr, ask: Arc<[u8]>, told: mpsc::Sender<usize>, me: usize) {
    let mut first = true;
    loop {
        let Ok(mut stream) = tokio::net::TcpStream::connect(address).await else {
            // Out of ports or descriptors for a moment: try again soon.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        loop {
            if stream.write_all(&ask).await.is_err() {
                break;
            }
            let Some(kept) = answer(&mut stream).await else {
                break;
            };
            if first {
                first = false;
                let _ = told.send(me);
            }
            if !kept {
                break;
            }
        }
    }
}

/// Reads one answer from `stream`: whether the server keeps the
/// connection after it; `None` when it closed the connection instead.
async fn answer(stream: &mut tokio::net::TcpStream) -> Option<bool> {
    let mut read = Vec::new();
    let mut buffer = [0_u8; 4096];
    let end = loop {
        if let Some(end) = read.windows(4).position(|four| four == b"\r\n\r\n") {
            break end + 4;
        }
        let got = stream.read(&mut buffer).await.ok().filter(|got| *got > 0)?;
        read.extend_from_slice(&buffer[..got]);
    };
    let head = String::from_utf8_lossy(&read[..end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|length| length.trim().parse().ok())
        .unwrap_or(0);
    let mut body = read.len() - end;
    while body < length {
        let got = stream.read(&mut buffer).await.ok().filter(|got| *got > 0)?;
        body += got;
    }
    Some(!head.contains("\r\nconnection: close"))
}

/// Raises this process's soft file limit to `wanted` (within its hard
/// limit) if it is lower: the flood's sockets are this process's too. The
/// servers it starts inherit it.
fn raise_file_limit(wanted: usize) {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let wanted = u64::try_from(wanted).unwrap();
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    if soft < wanted {
        setrlimit(Resource::RLIMIT_NOFILE, wanted.min(hard), hard).unwrap();
    }
}
