//! The one HTTP/1.1 front of both servers, `switchboard mcp --http` and
//! `switchboard serve`: it accepts connections and holds them within
//! bounds, so that no client — sockets that send nothing, a flood of
//! connections asking again and again without a credential, one
//! credential's many connections, a huge head or body, a process out of
//! file descriptors — keeps a client with a credential out or ends the
//! server. The rules over who holds a place are `table`'s:
//!
//! - at most [`Rules::places`] connections are held (or half the process's
//!   file limit when that is lower); when all are, a newcomer takes the
//!   place of the oldest that has not shown a credential of the peer that
//!   holds the most such (loopback one peer) — one that sent nothing first,
//!   then one whose requests showed none — which is closed;
//!   when every held one has shown one, the newcomer is answered 503 and
//!   closed;
//! - the server behind the front says when a request showed a valid
//!   credential ([`claim`]: a bearer token's agent, a paired browser's
//!   session); its connection keeps its place from then on, and one
//!   credential holds half the places at most;
//! - one peer address that is not loopback holds [`PER_PEER`] at most (an
//!   IPv6 peer is its /64); `127.0.0.1` and `::1`, where every client of a
//!   proxy or a tunnel comes from, are not counted;
//! - a connection that sends no request head within [`HEAD_WITHIN`] (or
//!   stays idle that long between requests, or does not finish its TLS
//!   handshake) is closed; a head over [`MAX_HEAD`] is answered 431, a
//!   declared body over the server's [`Rules::max_body`] 413 (a body sent
//!   in chunks is bounded by the server as it reads it);
//! - a refusal (4xx, 5xx) to a connection that has shown no credential,
//!   and every 401, closes its connection: asking again takes a new
//!   connection, which takes a place as any newcomer does;
//! - when `accept` fails (no file descriptor left), the front logs it once
//!   and pauses — until a held connection ends, or 10 ms doubling to 1 s —
//!   and goes on: the server never ends for it.

mod places;
mod table;

use std::{convert::Infallible, future::Future, sync::Arc, time::Duration};

use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{
    Request, Response, StatusCode,
    body::{Bytes, Incoming},
    header::{self, HeaderValue},
    service::service_fn,
};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{net::TcpStream, sync::Semaphore};

use places::{Caller, Place, Places};
use table::Refused;

/// How long a connection may take to send a request head (and stay idle
/// between requests, and finish its TLS handshake).
pub const HEAD_WITHIN: Duration = Duration::from_secs(10);

/// The largest request head (its line and headers) taken; past it, 431.
pub const MAX_HEAD: usize = 64 * 1024;

/// The most connections one peer address that is not loopback holds.
pub const PER_PEER: usize = 64;

/// How long a connection turned away may take to send its request before
/// it is closed without an answer.
const REFUSE_WITHIN: Duration = Duration::from_secs(2);

/// How many connections are being turned away (503) at once, at most;
/// past that, a connection is closed as soon as it is accepted.
const MAX_REFUSING: usize = 32;

/// A response's body, as both servers make them.
pub type Body = BoxBody<Bytes, Infallible>;

/// What a server asks of its front.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The most connections held at once (fewer when the process's file
    /// limit is low).
    pub places: usize,
    /// The largest request body a request may declare.
    pub max_body: usize,
    /// The server's name, for its log lines.
    pub server: &'static str,
}

/// A server's front: its connections, held within [`Rules`].
#[derive(Debug)]
pub struct Front {
    places: Arc<Places>,
    rules: Rules,
    refusing: Arc<Semaphore>,
}

impl Front {
    /// A front holding `rules.places` connections at most, or half this
    /// process's file limit when that is lower (the rest is for the files
    /// and processes the server opens).
    pub fn new(rules: Rules) -> Self {
        let files = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
            .map_or(u64::MAX, |(soft, _)| soft);
        let half = usize::try_from(files / 2).unwrap_or(usize::MAX);
        let places = rules.places.min(half);
        tracing::debug!(places, "{} holds connections at most", rules.server);
        Self {
            places: Places::new(places, PER_PEER),
            rules,
            refusing: Arc::new(Semaphore::new(MAX_REFUSING)),
        }
    }

    /// Serves every connection `listener` accepts (each wrapped in `tls`
    /// first, if given) with `answer`, for ever.
    pub async fn serve<Answer, Answering>(
        &self,
        listener: &tokio::net::TcpListener,
        tls: Option<tokio_native_tls::TlsAcceptor>,
        answer: Answer,
    ) -> Infallible
    where
        Answer: Fn(Request<Incoming>) -> Answering + Clone + Send + Sync + 'static,
        Answering: Future<Output = Response<Body>> + Send + 'static,
    {
        loop {
            let (stream, peer) = self.places.accept(listener, self.rules.server).await;
            match self.places.admit(peer) {
                Ok(place) => {
                    let (tls, answer) = (tls.clone(), answer.clone());
                    tokio::spawn(hold(stream, tls, place, self.rules.max_body, answer));
                }
                // One address past its share is closed at once: it cannot
                // hold up everyone else.
                Err(Refused::PeerFull) => {
                    tracing::debug!(%peer, "a peer past its share of connections was closed");
                }
                Err(Refused::Full) if tls.is_none() => self.turn_away(stream),
                Err(Refused::Full) => {}
            }
        }
    }

    /// Answers a connection past the bounds 503 and closes it; past
    /// [`MAX_REFUSING`] at once, closes it unanswered (answering every one
    /// would hold a descriptor for each).
    fn turn_away(&self, stream: TcpStream) {
        let Ok(permit) = Arc::clone(&self.refusing).try_acquire_owned() else {
            return;
        };
        tokio::spawn(async move {
            let service = service_fn(|_request| async {
                Ok::<_, Infallible>(refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "too many connections; try again",
                ))
            });
            let answered = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(REFUSE_WITHIN)
                .keep_alive(false)
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(error) = answered {
                tracing::debug!(%error, "a connection turned away ended");
            }
            drop(permit);
        });
    }
}

/// Marks `request`'s connection as holding credential `holder` (a token's
/// agent, a paired browser's session digest): it keeps its place from now
/// on. `false` when `holder` holds its share of the places already; the
/// server then refuses the request (503), which closes the connection.
pub fn claim<RequestBody>(request: &Request<RequestBody>, holder: &str) -> bool {
    request
        .extensions()
        .get::<Caller>()
        .and_then(|caller| caller.0.upgrade())
        .is_none_or(|place| place.claim(holder))
}

/// [`claim`] with `holder` holding `share` places at most: for what only
/// vouches for a page's loading (a browser's cookie alone, which every
/// server on its host is sent), whose connections need few places, so a
/// replayed one keeps few. `false` when `holder` holds them already; the
/// server then serves the request anyway, its connection held as any
/// other without a credential.
pub fn claim_within<RequestBody>(
    request: &Request<RequestBody>,
    holder: &str,
    share: usize,
) -> bool {
    request
        .extensions()
        .get::<Caller>()
        .and_then(|caller| caller.0.upgrade())
        .is_none_or(|place| place.claim_within(holder, share))
}

/// Serves one held connection until it ends, times out or is told to
/// make way for a newer one.
async fn hold<Answer, Answering>(
    stream: TcpStream,
    tls: Option<tokio_native_tls::TlsAcceptor>,
    place: Place,
    max_body: usize,
    answer: Answer,
) where
    Answer: Fn(Request<Incoming>) -> Answering + Clone + Send + Sync + 'static,
    Answering: Future<Output = Response<Body>> + Send + 'static,
{
    let place = Arc::new(place);
    let serving = async {
        match tls {
            None => http(stream, &place, max_body, answer).await,
            // A handshake that never ends (or is no handshake: plain
            // HTTP) ends this connection only.
            Some(acceptor) => {
                match tokio::time::timeout(HEAD_WITHIN, acceptor.accept(stream)).await {
                    Ok(Ok(stream)) => http(stream, &place, max_body, answer).await,
                    Ok(Err(error)) => tracing::debug!(%error, "a TLS handshake failed"),
                    Err(_) => tracing::debug!("a TLS handshake took too long"),
                }
            }
        }
    };
    tokio::select! {
        () = serving => {}
        () = place.made_way() => {
            tracing::debug!("a connection without a credential made way for a newer one");
        }
    }
}

/// Serves HTTP/1.1 over `stream`, whose connection holds `place`.
async fn http<Stream, Answer, Answering>(
    stream: Stream,
    place: &Arc<Place>,
    max_body: usize,
    answer: Answer,
) where
    Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    Answer: Fn(Request<Incoming>) -> Answering + Clone + Send + Sync + 'static,
    Answering: Future<Output = Response<Body>> + Send + 'static,
{
    let caller = Caller(Arc::downgrade(place));
    let service = service_fn(move |mut request: Request<Incoming>| {
        let (answer, caller) = (answer.clone(), caller.clone());
        async move {
            let Some(place) = caller.0.upgrade() else {
                return Ok(refusal(StatusCode::SERVICE_UNAVAILABLE, "closing"));
            };
            place.asked();
            let declared = request
                .headers()
                .get(header::CONTENT_LENGTH)
                .and_then(|length| length.to_str().ok())
                .and_then(|length| length.parse::<usize>().ok());
            let response = if declared.is_some_and(|length| length > max_body) {
                refusal(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the body is over {}, the most taken here", size(max_body)),
                )
            } else {
                request.extensions_mut().insert(caller);
                answer(request).await
            };
            Ok::<_, Infallible>(closing(response, place.claimed()))
        }
    });
    let served = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_WITHIN)
        .max_buf_size(MAX_HEAD)
        .serve_connection(TokioIo::new(stream), service)
        .await;
    if let Err(error) = served {
        tracing::debug!(%error, "a connection ended");
    }
}

/// `response`, marked to close its connection when it refuses a
/// connection that has shown no credential, or refuses one (401).
fn closing(mut response: Response<Body>, claimed: bool) -> Response<Body> {
    let status = response.status();
    let refused = status.is_client_error() || status.is_server_error();
    if status == StatusCode::UNAUTHORIZED || (refused && !claimed) {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// `bytes` as a person reads it: `4 MiB`, `64 KiB`.
fn size(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

/// A refusal: `status` with plain text saying why; its connection closes.
pub fn refusal(status: StatusCode, why: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Full::new(why.into()).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}
