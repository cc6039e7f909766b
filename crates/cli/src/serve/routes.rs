//! Answering one request: the pairing link, the page and its files, a
//! command, the event stream — each but the pairing link for a paired
//! browser only (a command and the stream also for its page only: the
//! page key it was given at pairing), every one with the page's policy.

use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::{
    Method, Request, Response, StatusCode,
    body::{Bytes, Incoming},
    header::{self, HeaderValue},
};
use serde_json::Value;
use switchboard_model::{ErrorCode, ErrorPayload, browser::BrowserError};
use switchboard_store::{browsers, clock};

use super::{Served, page};

type Body = BoxBody<Bytes, std::convert::Infallible>;

/// The cookie a paired browser holds.
const COOKIE: &str = "switchboard_session";

/// The header a paired page sends its page key in (never the address: a
/// key in a URL would reach proxies' logs).
const PAGE_KEY: &str = "x-switchboard-key";

/// How long a browser keeps its cookie: a year (the session itself lasts
/// until it is revoked; a phone that drops session cookies would pair
/// again at every visit).
const KEPT_SECS: u64 = 365 * 24 * 60 * 60;

/// How many connections a browser's cookie alone keeps for loading its
/// page (a browser opens six at most to one origin).
const PAGE_PLACES: usize = 8;

/// The largest command body taken.
const MAX_BODY: usize = 1024 * 1024;

/// Answers `request`.
pub async fn answer(served: &Served, request: Request<Incoming>) -> Response<Body> {
    let mut response = route(served, request).await;
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(&served.page.policy) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

async fn route(served: &Served, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path().to_owned();
    // A page of another name that resolves here (DNS rebinding) is not
    // answered, not even the pairing link.
    let reached = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .and_then(|host| served.reached(host))
        .map(str::to_owned);
    let Some(reached) = reached else {
        return html(
            StatusCode::MISDIRECTED_REQUEST,
            "<p>Switchboard is not served under this name. A proxy's address is served with \
             <code>switchboard serve --origin URL</code>.</p>",
        );
    };
    if request.method() == Method::GET && path == "/pair" {
        return pair(&reached, served, &request).await;
    }
    let cookies = presented(&request);
    let Some(cookie) = holds(&served.browsers, &cookies) else {
        return unpaired(&path);
    };
    // A command or the event stream: the cookie alone, which every server
    // on this host receives, is not enough; the page key the page keeps
    // (per origin) must be its session's.
    let page_key = request
        .headers()
        .get(PAGE_KEY)
        .and_then(|key| key.to_str().ok())
        .map(str::to_owned);
    let holder = switchboard_model::token::digest(&cookie);
    let cookie = if path.starts_with("/api/") {
        let cookie = match keyed(&served.browsers, &cookies, page_key.as_deref()) {
            Ok(admitted) => {
                // Written before the answer, once a minute at most.
                if let Some(id) = admitted.seen_due {
                    let _ = record_visit(served.config_dir.clone(), id).await;
                }
                admitted.cookie
            }
            Err(refusal) => return not_paired(&refusal),
        };
        // Paired, with its page key: its connection keeps its place
        // (`crate::front`), within its share.
        if !crate::front::claim(&request, &switchboard_model::token::digest(&cookie)) {
            return refused(
                ErrorCode::LimitReached,
                StatusCode::SERVICE_UNAVAILABLE,
                "this browser holds as many connections as it may; close a page and try again",
            );
        }
        cookie
    } else {
        // The cookie alone — which a browser sends to every server on its
        // host, any of which may replay it — vouches only for loading the
        // page: a few places of its own, apart from the keyed session's
        // share, which a replayed cookie never fills.
        crate::front::claim_within(&request, &format!("page:{holder}"), PAGE_PLACES);
        cookie
    };
    match (request.method().clone(), path.as_str()) {
        (Method::GET, "/" | "/index.html") => bytes(
            StatusCode::OK,
            "text/html; charset=utf-8",
            Bytes::from(served.page.html.clone()),
        ),
        (Method::GET, "/shim.js") => bytes(
            StatusCode::OK,
            "text/javascript; charset=utf-8",
            Bytes::from_static(page::SHIM.as_bytes()),
        ),
        (Method::GET, "/api/events") => events(served, cookie, page_key),
        (Method::POST, command) if command.starts_with("/api/invoke/") => {
            let name = command.trim_start_matches("/api/invoke/").to_owned();
            invoke(served, &reached, request, name).await
        }
        (Method::GET, file) => match page::file(file.trim_start_matches('/')) {
            Some(contents) if file != "/index.html" => {
                let mut response = bytes(
                    StatusCode::OK,
                    page::content_type(file),
                    Bytes::from_static(contents),
                );
                // Named by their contents' digest: a phone keeps the 2.5 MB
                // module instead of fetching it at every visit.
                response.headers_mut().insert(
                    header::CACHE_CONTROL,
                    HeaderValue::from_static("private, max-age=31536000, immutable"),
                );
                response
            }
            _ => html(StatusCode::NOT_FOUND, "<p>Nothing is here.</p>"),
        },
        _ => html(StatusCode::METHOD_NOT_ALLOWED, "<p>Not here.</p>"),
    }
}

/// What a browser that is not paired is told: how to pair, as a page or
/// as a command's `NOT_PAIRED`.
fn unpaired(path: &str) -> Response<Body> {
    if path.starts_with("/api/") {
        not_paired(&BrowserError::NotPaired)
    } else {
        html(
            StatusCode::UNAUTHORIZED,
            "<p>This browser is not paired with Switchboard (or it was revoked).</p>\
             <p>On the machine, run <code>switchboard pair</code> (or, in the window's \
             Settings, <b>Pair a browser</b>) and open the link it prints here.</p>",
        )
    }
}

/// The event stream of the page holding `cookie` and `page_key` (both
/// checked already); revoked, it ends at its next event or heartbeat.
fn events(served: &Served, cookie: String, page_key: Option<String>) -> Response<Body> {
    let browsers = std::sync::Arc::clone(&served.browsers);
    let config_dir = served.config_dir.clone();
    let holder = switchboard_model::token::digest(&cookie);
    let still_paired = move || {
        match keyed(
            &browsers,
            std::slice::from_ref(&cookie),
            page_key.as_deref(),
        ) {
            Ok(admitted) => {
                // A page that only listens is seen too.
                if let Some(id) = admitted.seen_due {
                    drop(record_visit(config_dir.clone(), id));
                }
                true
            }
            Err(_) => false,
        }
    };
    let Some(stream) = served.events.stream(holder, still_paired) else {
        return refused(
            ErrorCode::LimitReached,
            StatusCode::TOO_MANY_REQUESTS,
            &format!(
                "this browser holds {} event streams open already; close a page",
                super::events::STREAMS_PER_BROWSER
            ),
        );
    };
    let mut response = Response::new(stream.boxed());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    response
}

/// Exchanges a one-time code for a session cookie. The page then links to
/// the inbox: a cookie set while arriving from another site is not sent
/// back on that arrival's redirects (SameSite=Strict), but is on a click.
async fn pair(reached: &str, served: &Served, request: &Request<Incoming>) -> Response<Body> {
    let code = request
        .uri()
        .query()
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("code="))
        .unwrap_or_default();
    // Only a code of the shape one is made in touches the file (its lock,
    // a write): anyone on the network may ask.
    if code.len() != 32 || !code.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return html(
            StatusCode::FORBIDDEN,
            "<p>This is not a pairing link: run <code>switchboard pair</code> for one.</p>",
        );
    }
    let label = request
        .headers()
        .get(header::USER_AGENT)
        .and_then(|agent| agent.to_str().ok())
        .unwrap_or("a browser")
        .to_owned();
    let (config_dir, code) = (served.config_dir.clone(), code.to_owned());
    let paired = tokio::task::spawn_blocking(move || {
        browsers::pair(&config_dir, &code, &label, clock::now())
    })
    .await
    .unwrap_or_else(|failed| {
        Err(switchboard_store::StoreError::Io {
            action: "could not pair",
            path: std::path::PathBuf::new(),
            source: std::io::Error::other(failed.to_string()),
        })
    });
    match paired {
        Ok((session, secrets)) => {
            // The page key goes in the link's fragment, which no browser
            // sends to a server: the page's shim keeps it in this origin's
            // storage and takes it out of the address.
            let mut response = html(
                StatusCode::OK,
                &format!(
                    "<p>This browser ({}) is paired with Switchboard, as paired browser \
                     <code>{}</code>.</p>\
                     <p><a id=\"open-inbox\" href=\"/#key={}\">Open the inbox</a></p>\
                     <p id=\"pairing-reach\">{}</p>",
                    escape(&session.described()),
                    session.id,
                    secrets.page_key,
                    escape(switchboard_model::browser::REACHES_EVERY_WORKSPACE)
                ),
            );
            let cookie = secrets.cookie;
            let secure = if reached.starts_with("https:") {
                "; Secure"
            } else {
                ""
            };
            if let Ok(value) = HeaderValue::from_str(&format!(
                "{COOKIE}={cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age={KEPT_SECS}{secure}"
            )) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            response
        }
        Err(error) => html(
            StatusCode::FORBIDDEN,
            &format!("<p>{}</p>", escape(&error.to_string())),
        ),
    }
}

/// Every `switchboard_session` cookie `request` carries. Every one counts:
/// another server on this host (cookies do not keep to a port) may have
/// set one of the same name that the browser sends first.
fn presented(request: &Request<Incoming>) -> Vec<String> {
    request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| {
            pair.trim()
                .strip_prefix(&format!("{COOKIE}="))
                .map(str::to_owned)
        })
        .collect()
}

/// The first of `cookies` that a paired browser holds now: enough for the
/// page and its files, which a browser's navigation fetches with no key.
fn holds(browsers: &browsers::Current, cookies: &[String]) -> Option<String> {
    if cookies.is_empty() {
        return None;
    }
    match browsers.file() {
        Ok(file) => cookies
            .iter()
            .find(|cookie| file.holder(cookie).is_some())
            .cloned(),
        Err(error) => {
            tracing::warn!(%error, "the browser sessions could not be read");
            None
        }
    }
}

/// A command's or stream's browser, admitted.
struct Admitted {
    /// Its cookie.
    cookie: String,
    /// Its session's id, when this visit is to be written down
    /// ([`switchboard_model::browser::BrowserSession::seen_due`]).
    seen_due: Option<String>,
}

/// Writes down that paired browser `id` was seen now (`serve --sessions`
/// shows it), on the blocking pool; a failure is only logged.
fn record_visit(config_dir: std::path::PathBuf, id: String) -> tokio::task::JoinHandle<()> {
    tokio::task::spawn_blocking(move || {
        if let Err(error) = browsers::seen(&config_dir, &id, clock::now()) {
            tracing::debug!(%error, "a paired browser's visit was not recorded");
        }
    })
}

/// The first of `cookies` whose session `page_key` is now: what a command
/// or the event stream needs. If none, why not (for the first held).
fn keyed(
    browsers: &browsers::Current,
    cookies: &[String],
    page_key: Option<&str>,
) -> Result<Admitted, BrowserError> {
    let file = browsers.file().map_err(|error| {
        tracing::warn!(%error, "the browser sessions could not be read");
        BrowserError::NotPaired
    })?;
    let mut why = BrowserError::NotPaired;
    for cookie in cookies {
        match file.admit(cookie, page_key) {
            Ok(session) => {
                return Ok(Admitted {
                    cookie: cookie.clone(),
                    seen_due: session.seen_due(clock::now()).then(|| session.id.clone()),
                });
            }
            Err(BrowserError::NotPaired) => {}
            Err(refusal) if why == BrowserError::NotPaired => why = refusal,
            Err(_) => {}
        }
    }
    Err(why)
}

/// A command or stream refused because its browser is not paired, or not
/// this way: `NOT_PAIRED`, and why.
fn not_paired(refusal: &BrowserError) -> Response<Body> {
    refused(
        ErrorCode::NotPaired,
        StatusCode::UNAUTHORIZED,
        &refusal.to_string(),
    )
}

/// Runs command `name` for a paired page: only from the origin the
/// request reached (one `Origin`, that one), only with a JSON body.
async fn invoke(
    served: &Served,
    reached: &str,
    request: Request<Incoming>,
    name: String,
) -> Response<Body> {
    let mut origins = request.headers().get_all(header::ORIGIN).iter();
    let origin = origins.next().and_then(|origin| origin.to_str().ok());
    if origin != Some(reached) || origins.next().is_some() {
        return refused(
            ErrorCode::Forbidden,
            StatusCode::FORBIDDEN,
            "a command is taken only from this server's own page (its Origin)",
        );
    }
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|kind| kind.to_str().ok())
        .is_some_and(|kind| kind.starts_with("application/json"));
    if !json {
        return refused(
            ErrorCode::InvalidRequest,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a command's body is JSON (Content-Type: application/json)",
        );
    }
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => {
            return refused(
                ErrorCode::LimitReached,
                StatusCode::PAYLOAD_TOO_LARGE,
                "a command's body is 1 MiB at most",
            );
        }
    };
    let arguments: Value = if body.is_empty() {
        Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(arguments) => arguments,
            Err(error) => {
                return refused(
                    ErrorCode::InvalidRequest,
                    StatusCode::BAD_REQUEST,
                    &format!("the body is not JSON: {error}"),
                );
            }
        }
    };
    // The settings are read only for a command a grant decides, and for
    // the page asking what it may do.
    let granted = switchboard_commands::TAKE_OVER_COMMANDS
        .iter()
        .chain(&switchboard_commands::START_COMMANDS)
        .any(|command| *command == name)
        || name == switchboard_model::browser::BROWSER_INFO;
    let grants = if granted {
        grants(served.config_dir.clone()).await
    } else {
        switchboard_commands::Grants::default()
    };
    match switchboard_commands::dispatch(&served.reach, grants, &name, &arguments).await {
        Ok(value) => bytes(
            StatusCode::OK,
            "application/json",
            Bytes::from(value.to_string()),
        ),
        Err(payload) => error(payload),
    }
}

/// What the developer's settings let paired browsers do now (read at each
/// command a grant decides, so a change in Settings holds at once); none
/// if they cannot be read.
async fn grants(config_dir: std::path::PathBuf) -> switchboard_commands::Grants {
    let read =
        tokio::task::spawn_blocking(move || switchboard_store::settings::load(&config_dir)).await;
    match read {
        Ok(Ok(settings)) => switchboard_commands::Grants::of(&settings),
        Err(error) => {
            tracing::warn!(%error, "the settings could not be read: browsers get no grants");
            switchboard_commands::Grants::default()
        }
        Ok(Err(error)) => {
            tracing::warn!(%error, "the settings could not be read: browsers get no grants");
            switchboard_commands::Grants::default()
        }
    }
}

fn error(payload: ErrorPayload) -> Response<Body> {
    let status = match payload.code {
        ErrorCode::InvalidRequest => StatusCode::BAD_REQUEST,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::NotPaired => StatusCode::UNAUTHORIZED,
        ErrorCode::AlreadyResponded | ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::Busy | ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let text = serde_json::to_string(&payload).unwrap_or_default();
    bytes(status, "application/json", Bytes::from(text))
}

fn refused(code: ErrorCode, status: StatusCode, message: &str) -> Response<Body> {
    let mut response = error(ErrorPayload::new(code, message.to_owned()));
    *response.status_mut() = status;
    response
}

fn html(status: StatusCode, body: &str) -> Response<Body> {
    bytes(
        status,
        "text/html; charset=utf-8",
        Bytes::from(format!(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" \
             content=\"width=device-width\"><title>Switchboard</title></head><body>{body}</body></html>"
        )),
    )
}

fn bytes(status: StatusCode, kind: &'static str, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    response
}

/// `text` with HTML's special characters escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
