//! The sidecar's life in the app: started through the sidecar crate's one
//! client (which checks its protocol version), every response forwarded to
//! the UI as an event, restarted (a few times, a second apart) if it dies,
//! its health shown.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, atomic::AtomicU64},
    time::Duration,
};

use switchboard_model::{
    ErrorCode,
    chat::{ChatSession, transcript::LastTurn},
    ipc::{ActiveChat, ChatEvent, EVENT_SIDECAR, EVENT_SIDECAR_HEALTH, SidecarHealth},
    sidecar::{RequestBody, ResponseBody, SidecarResponse},
};
use switchboard_sidecar::client::{self, Launch, LinkError, Requests};
use switchboard_store::clock;
use tauri::{AppHandle, Emitter};

use crate::state::Config;
use tokio::{
    sync::{oneshot, watch},
    time::Instant,
};

/// Restarts after which a crashing sidecar is left down.
const MAX_RESTARTS: u32 = 5;

/// The longest the sidecar waits for the window's first paint before it
/// starts anyway.
const START_AFTER_PAINT_AT_MOST: Duration = Duration::from_secs(3);

/// How long a request made while the sidecar starts (or restarts) waits
/// for it before it fails.
const START_LIMIT: Duration = Duration::from_secs(15);

/// Whether the sidecar takes requests.
#[derive(Clone)]
enum Link {
    /// Not started yet, or restarting after it stopped: requests wait.
    Starting,
    /// Running: requests go to it.
    Up(Requests),
    /// Left down (no binary, another protocol, too many restarts):
    /// requests fail at once.
    Down,
}

/// The running sidecar, as the commands see it.
pub struct Sidecar {
    link: watch::Sender<Link>,
    /// Request ids, shared across restarts so they never repeat.
    ids: Arc<AtomicU64>,
    health: Mutex<SidecarHealth>,
    /// Requests whose single answer a command is waiting for.
    waiting: Mutex<HashMap<u64, oneshot::Sender<ResponseBody>>>,
    /// Dropped to let the sidecar start ([`Sidecar::release`]).
    hold: Mutex<Option<std::sync::mpsc::Sender<()>>>,
    /// The events forwarded so far and the window's last chat turn.
    chat: Mutex<ChatLog>,
}

/// What the Chat view opens on besides the chat file: held under one lock
/// with each event's forwarding, so a view reads a state and then folds in
/// exactly the events after it.
#[derive(Default)]
struct ChatLog {
    /// The number of the last event forwarded.
    seq: u64,
    /// The last turn the window started, folded from its events.
    last: Option<LastTurn>,
}

impl Sidecar {
    /// Starts the sidecar's supervisor, passing on the command line's model
    /// URL and settings folder. The process itself starts at
    /// [`Sidecar::release`] (the window's first paint), or after
    /// [`START_AFTER_PAINT_AT_MOST`]: a process starting beside the webview
    /// slowed its first load on a small machine.
    pub fn start(app: AppHandle, config: Config) -> Arc<Self> {
        let (hold, held) = std::sync::mpsc::channel::<()>();
        let sidecar = Arc::new(Self {
            link: watch::Sender::new(Link::Starting),
            ids: Arc::new(AtomicU64::new(1)),
            health: Mutex::new(SidecarHealth {
                running: false,
                restarts: 0,
                message: None,
            }),
            waiting: Mutex::new(HashMap::new()),
            hold: Mutex::new(Some(hold)),
            chat: Mutex::new(ChatLog::default()),
        });
        let supervised = Arc::clone(&sidecar);
        std::thread::Builder::new()
            .name("switchboard-sidecar".into())
            .spawn(move || {
                let _ = held.recv_timeout(START_AFTER_PAINT_AT_MOST);
                supervise(&supervised, &app, &config);
            })
            .ok();
        sidecar
    }

    /// Lets the sidecar process start now.
    pub fn release(&self) {
        if let Ok(mut hold) = self.hold.lock() {
            hold.take();
        }
    }

    /// Sends a request to the running sidecar at once (a stop: a sidecar
    /// that is not running has no turn to stop); returns its id.
    pub fn send(&self, body: RequestBody) -> Result<u64, String> {
        self.running()?
            .send(body)
            .map_err(|error| error.to_string())
    }

    /// Sends the chat turn `body` for the developer's `message`; returns its
    /// id. The window keeps the turn ([`Sidecar::active_chat`]) until the
    /// next one, or a change of chat.
    /// A turn sent while the sidecar starts waits for it.
    pub async fn send_turn(&self, message: &str, body: RequestBody) -> Result<u64, String> {
        let requests = self.ready(Instant::now() + START_LIMIT).await?;
        let chat = requests.next_id();
        // Kept before it is sent: no answer is forwarded before the turn is.
        self.log()?.last = Some(LastTurn::new(chat, message, clock::now()));
        requests.write(chat, body).map_err(|error| {
            if let Ok(mut log) = self.log() {
                log.last = None;
            }
            error.to_string()
        })?;
        Ok(chat)
    }

    /// The Chat view's state beside `session` (read just before): the last
    /// turn, and the number of the last event it includes.
    pub fn active_chat(&self, session: Option<ChatSession>) -> Result<ActiveChat, String> {
        let log = self.log()?;
        Ok(ActiveChat {
            session,
            last_turn: log.last.clone(),
            seq: log.seq,
        })
    }

    /// Forgets the last turn if it has ended: the active chat changed.
    pub fn forget_ended_turn(&self) {
        if let Ok(mut log) = self.log()
            && log.last.as_ref().is_some_and(LastTurn::ended)
        {
            log.last = None;
        }
    }

    fn log(&self) -> Result<std::sync::MutexGuard<'_, ChatLog>, String> {
        self.chat
            .lock()
            .map_err(|_| "the chat log lock is poisoned".to_owned())
    }

    /// Numbers `response`, folds it into the last turn and sends it to the
    /// UI, in that order under the log's lock.
    fn forward(&self, app: &AppHandle, response: SidecarResponse) {
        let Ok(mut log) = self.log() else {
            return;
        };
        log.seq += 1;
        if let Some(last) = &mut log.last {
            last.apply(response.id, response.body.clone());
        }
        let _ = app.emit(
            EVENT_SIDECAR,
            ChatEvent {
                seq: log.seq,
                response,
            },
        );
    }

    /// Ends the turn under way, if any, as failed: the sidecar stopped.
    fn fail_turn_under_way(&self, app: &AppHandle) {
        let chat = self.log().ok().and_then(|log| {
            log.last
                .as_ref()
                .and_then(|last| last.transcript.streaming.as_ref().map(|(chat, _)| *chat))
        });
        if let Some(chat) = chat {
            self.forward(
                app,
                SidecarResponse {
                    id: chat,
                    body: ResponseBody::Error {
                        code: ErrorCode::Unavailable,
                        message: "the sidecar stopped during this turn; send the message again once the model link is ready".to_owned(),
                    },
                },
            );
        }
    }

    /// The sending half of the running sidecar.
    fn running(&self) -> Result<Requests, String> {
        match &*self.link.borrow() {
            Link::Up(requests) => Ok(requests.clone()),
            Link::Starting | Link::Down => Err(self.down_message()),
        }
    }

    /// The sending half of the sidecar once it runs: a request made while
    /// it starts or restarts waits for it (and lets it start without
    /// waiting for the first paint), up to `deadline`.
    async fn ready(&self, deadline: Instant) -> Result<Requests, String> {
        self.release();
        let mut link = self.link.subscribe();
        let started = tokio::time::timeout_at(
            deadline,
            link.wait_for(|link| !matches!(link, Link::Starting)),
        )
        .await;
        match started {
            Ok(Ok(link)) => match &*link {
                Link::Up(requests) => Ok(requests.clone()),
                Link::Starting | Link::Down => Err(self.down_message()),
            },
            Ok(Err(_)) => Err(self.down_message()),
            Err(_) => Err(format!(
                "the model link is not ready yet ({}); try again in a moment",
                self.down_message()
            )),
        }
    }

    /// Sends a request that has one answer and waits up to `limit` for it
    /// (and for the sidecar to start, if it is starting). The answer is
    /// also forwarded to the UI as an event.
    pub async fn ask(&self, body: RequestBody, limit: Duration) -> Result<ResponseBody, String> {
        let deadline = Instant::now() + limit;
        let requests = self.ready(deadline).await?;
        let id = requests.next_id();
        let (answer, answered) = oneshot::channel();
        self.waiting
            .lock()
            .map_err(|_| "the sidecar lock is poisoned".to_owned())?
            .insert(id, answer);
        if let Err(error) = requests.write(id, body) {
            self.forget(id);
            return Err(error.to_string());
        }
        match tokio::time::timeout_at(deadline, answered).await {
            Ok(Ok(body)) => Ok(body),
            Ok(Err(_)) => Err("the sidecar stopped before answering".to_owned()),
            Err(_) => {
                self.forget(id);
                Err(format!(
                    "the sidecar did not answer within {} s",
                    limit.as_secs()
                ))
            }
        }
    }

    fn forget(&self, id: u64) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.remove(&id);
        }
    }

    /// The current health.
    pub fn health(&self) -> SidecarHealth {
        self.health
            .lock()
            .map(|health| health.clone())
            .unwrap_or(SidecarHealth {
                running: false,
                restarts: 0,
                message: Some("unknown".into()),
            })
    }

    fn down_message(&self) -> String {
        self.health()
            .message
            .unwrap_or_else(|| "the sidecar is not running".to_owned())
    }

    fn set_health(&self, app: &AppHandle, update: impl FnOnce(&mut SidecarHealth)) {
        if let Ok(mut health) = self.health.lock() {
            update(&mut health);
            let _ = app.emit(EVENT_SIDECAR_HEALTH, health.clone());
        }
    }
}

fn supervise(sidecar: &Sidecar, app: &AppHandle, config: &Config) {
    let mut launch = Launch {
        program: config.sidecar.clone(),
        ..Launch::default()
    };
    if let Some(url) = &config.model_url {
        launch
            .env
            .push(("SWITCHBOARD_MODEL_URL".into(), url.clone().into()));
    }
    if let Some(dir) = &config.config_dir {
        launch
            .env
            .push(("SWITCHBOARD_CONFIG_DIR".into(), dir.clone().into()));
    }
    loop {
        let link = match client::start(&launch, Arc::clone(&sidecar.ids)) {
            Ok(link) => link,
            Err(error) => {
                // A missing binary or another protocol version does not
                // mend itself: say so and stay down.
                let fatal = matches!(error, LinkError::Spawn { .. } | LinkError::Version { .. });
                sidecar.set_health(app, |h| {
                    h.running = false;
                    h.message = Some(error.to_string());
                });
                if fatal || sidecar.health().restarts >= MAX_RESTARTS {
                    sidecar.link.send_replace(Link::Down);
                    return;
                }
                std::thread::sleep(Duration::from_secs(1));
                sidecar.set_health(app, |h| h.restarts += 1);
                continue;
            }
        };
        let mut child = link.child;
        sidecar.link.send_replace(Link::Up(link.requests));
        sidecar.set_health(app, |h| {
            h.running = true;
            h.message = None;
        });
        for response in link.responses {
            match response {
                Ok(response) => {
                    let waiter = sidecar
                        .waiting
                        .lock()
                        .ok()
                        .and_then(|mut waiting| waiting.remove(&response.id));
                    if let Some(waiter) = waiter {
                        let _ = waiter.send(response.body.clone());
                    }
                    sidecar.forward(app, response);
                }
                Err(LinkError::Unreadable(error)) => {
                    tracing::warn!(%error, "unreadable sidecar line")
                }
                Err(_) => break,
            }
        }
        let status = child.wait();
        sidecar.link.send_replace(Link::Starting);
        if let Ok(mut waiting) = sidecar.waiting.lock() {
            // Dropping the senders tells each waiting command.
            waiting.clear();
        }
        sidecar.fail_turn_under_way(app);
        let restarts = sidecar.health().restarts;
        let give_up = restarts >= MAX_RESTARTS;
        sidecar.set_health(app, |h| {
            h.running = false;
            h.message = Some(format!(
                "the sidecar stopped ({}){}",
                status
                    .map(|s| s.to_string())
                    .unwrap_or_else(|e| e.to_string()),
                if give_up {
                    "; not restarting"
                } else {
                    "; restarting"
                }
            ));
        });
        if give_up {
            sidecar.link.send_replace(Link::Down);
            return;
        }
        std::thread::sleep(Duration::from_secs(1));
        sidecar.set_health(app, |h| h.restarts += 1);
    }
}
