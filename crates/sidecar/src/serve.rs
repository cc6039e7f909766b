//! The sidecar's request loop: newline-delimited JSON requests in, JSON
//! responses out, chat turns running concurrently so a `stop` request can
//! end one at once.

use std::{
    collections::HashMap,
    io::Write,
    sync::{Arc, Mutex},
};

use switchboard_model::{
    settings::{ModelBackend, Settings},
    sidecar::{PROTOCOL_VERSION, RequestBody, ResponseBody, SidecarRequest, SidecarResponse},
};
use switchboard_store::clock;
use thiserror::Error;
use tokio::{
    io::{AsyncBufRead, AsyncBufReadExt},
    sync::watch,
    task::JoinHandle,
};

use crate::{
    SidecarError,
    chat::{self, Shared},
    model_client::{ModelConfig, list_models},
    proposals,
};

/// Where each turn gets its settings from (read afresh, so a change in the
/// settings view applies to the next message without a restart).
pub type SettingsSource = Arc<dyn Fn() -> Settings + Send + Sync>;

/// Why the loop stopped abnormally.
#[derive(Debug, Error)]
pub enum ServeError {
    /// Reading a request failed.
    #[error("sidecar stdin failed: {0}")]
    Io(#[from] std::io::Error),
}

/// Writes responses, one JSON line each, from any task.
struct Responder<W> {
    output: Arc<Mutex<W>>,
}

impl<W> Clone for Responder<W> {
    fn clone(&self) -> Self {
        Self {
            output: Arc::clone(&self.output),
        }
    }
}

impl<W: Write> Responder<W> {
    fn send(&self, id: u64, body: ResponseBody) {
        let Ok(mut line) = serde_json::to_vec(&SidecarResponse { id, body }) else {
            return;
        };
        line.push(b'\n');
        if let Ok(mut output) = self.output.lock() {
            // A closed stdout means the app is gone; nothing to tell it.
            let _ = output.write_all(&line).and_then(|()| output.flush());
        }
    }
}

/// Answers requests from `input` on `output` until the input ends or a
/// shutdown request arrives, then waits for running chat turns. A line that
/// is not a request is answered with an error and the loop goes on.
pub async fn serve<R, W>(input: R, output: W, settings: SettingsSource) -> Result<(), ServeError>
where
    R: AsyncBufRead + Unpin,
    W: Write + Send + 'static,
{
    let responder = Responder {
        output: Arc::new(Mutex::new(output)),
    };
    let shared = Arc::new(Shared::default());
    let mut running: HashMap<u64, (watch::Sender<bool>, JoinHandle<()>)> = HashMap::new();
    let mut lines = input.lines();
    while let Some(line) = lines.next_line().await? {
        running.retain(|_, (_, task)| !task.is_finished());
        if line.trim().is_empty() {
            continue;
        }
        let request = match serde_json::from_str::<SidecarRequest>(&line) {
            Ok(request) => request,
            Err(error) => {
                responder.send(
                    0,
                    SidecarError::BadRequest(error.to_string()).into_response(),
                );
                continue;
            }
        };
        match request.body {
            RequestBody::Health => responder.send(
                request.id,
                ResponseBody::Health {
                    protocol: PROTOCOL_VERSION,
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                },
            ),
            RequestBody::Shutdown => {
                responder.send(request.id, ResponseBody::ShuttingDown);
                break;
            }
            RequestBody::Stop { chat } => match running.get(&chat) {
                Some((stop, _)) => {
                    let _ = stop.send(true);
                }
                None => responder.send(request.id, SidecarError::NoChat(chat).into_response()),
            },
            RequestBody::ListModels => {
                let responder = responder.clone();
                let settings = settings();
                let shared = Arc::clone(&shared);
                let id = request.id;
                tokio::spawn(async move {
                    let resolved = shared.backends.get(&settings).await;
                    let listed = match resolved.backend {
                        ModelBackend::ClaudeCode => Ok(crate::agent::detect::CLAUDE_MODELS
                            .iter()
                            .map(|model| (*model).to_owned())
                            .collect()),
                        ModelBackend::Codex => Ok(shared
                            .codex_models
                            .get(&crate::agent::detect::codex_program(&settings))
                            .await),
                        ModelBackend::OpenaiCompatible => {
                            list_models(&ModelConfig::from_settings(&settings)).await
                        }
                    };
                    let body = match listed {
                        Ok(models) => ResponseBody::Models {
                            models,
                            backend: Some(resolved),
                        },
                        Err(error) => {
                            crate::agent::detect::explained(SidecarError::from(error), &settings)
                                .into_response()
                        }
                    };
                    responder.send(id, body);
                });
            }
            RequestBody::ApplyWrite { ref proposal }
            | RequestBody::DiscardWrite { ref proposal } => {
                let apply = matches!(request.body, RequestBody::ApplyWrite { .. });
                let taken = shared
                    .proposals
                    .lock()
                    .map_err(|_| SidecarError::Internal("the proposal list is unavailable".into()))
                    .and_then(|mut held| held.take(proposal));
                match taken {
                    // Applying may wait for a folder's lock (a learning is
                    // appended under it): on the blocking pool, so this loop
                    // goes on reading `stop` meanwhile.
                    Ok(taken) => {
                        let responder = responder.clone();
                        let (id, proposal) = (request.id, proposal.clone());
                        let shared = Arc::clone(&shared);
                        tokio::task::spawn_blocking(move || {
                            let body = proposals::settle(
                                &proposal,
                                taken,
                                apply,
                                clock::now(),
                                |outcome| {
                                    if let Ok(mut held) = shared.proposals.lock() {
                                        held.remember(&proposal, outcome.clone());
                                    }
                                },
                            );
                            responder.send(id, body);
                        });
                    }
                    Err(error) => responder.send(request.id, error.into_response()),
                }
            }
            RequestBody::Chat(chat_request) => {
                let (stop, stopped) = watch::channel(false);
                let responder = responder.clone();
                let settings = settings();
                let shared = Arc::clone(&shared);
                let id = request.id;
                let task = tokio::spawn(async move {
                    let emitter = responder.clone();
                    let outcome = chat::run_turn(
                        &chat_request,
                        &settings,
                        &shared,
                        |body| emitter.send(id, body),
                        stopped,
                    )
                    .await;
                    if let Err(error) = outcome {
                        responder.send(id, error.into_response());
                    }
                });
                running.insert(request.id, (stop, task));
            }
        }
    }
    for (_, (_, task)) in running {
        let _ = task.await;
    }
    Ok(())
}
