//! One delivery: its rendered body, its annotations, and its feedback form
//! or the answer it got. Escape goes back to the list.

use std::collections::BTreeMap;

use leptos::prelude::*;
use switchboard_model::{
    ContentType, Delivery, DeliveryMode, Timestamp, age_label, annotation::Annotation,
    blocking::FeedbackResponse, export, ipc::DeliveryDetail,
};

use super::{
    annotate::{GeneralComment, Selected, SelectionBar, current_selection, fit_frame},
    form::FeedbackForm,
};
use crate::{
    ipc, tasks,
    views::save::{SaveStatus, Saved, save_document},
};

/// The policy inside the frame of an HTML body (the exports' too): nothing
/// runs, nothing loads but inline images and styles. The frame is also
/// `sandbox`ed with one permission, `allow-same-origin`, so the page can
/// read the reviewer's selection in it; without `allow-scripts` nothing in
/// it runs, and the body was sanitized like markdown before it got there.
/// Its links open nothing: they target a new window, which the sandbox does
/// not allow.
const FRAME_POLICY: &str = switchboard_model::html::CONTENT_POLICY;

/// The frame's own style: annotated passages marked as in markdown bodies.
const FRAME_STYLE: &str = "body{margin:12px 16px;font:14px/1.5 system-ui,sans-serif;overflow-wrap:anywhere}mark{background:rgba(245,196,81,.45);color:inherit;border-radius:2px}";

/// Set when an answer was refused because the question had been answered
/// elsewhere (another window, the terminal): the view says so above the
/// answer it then shows.
#[derive(Debug, Clone, Copy)]
pub struct AnsweredElsewhere(pub RwSignal<bool>);

/// The question as the developer's answer left it (the reply's own
/// reading): shown when it can no longer be read — another workspace's,
/// whose asker went on once answered and whose workspace then left "All
/// workspaces" — so the page says what was decided, not that it is gone.
#[derive(Debug, Clone, Copy)]
pub struct AnsweredNow(pub RwSignal<Option<DeliveryDetail>>);

impl AnsweredNow {
    /// Keeps `detail`, the reply's reading, if there is one.
    pub fn keep(context: Option<Self>, detail: Option<DeliveryDetail>) {
        if let (Some(Self(kept)), Some(detail)) = (context, detail) {
            kept.set(Some(detail));
        }
    }
}

/// The workspace a delivery view shows a delivery of, when it is not the
/// window's own but one of "All workspaces": the view's parts read it from
/// the context, so an answer goes where the question is.
#[derive(Debug, Clone, Default)]
pub struct InWorkspace(pub Option<String>);

/// The workspace the delivery shown is in (`None`: the window's own).
pub fn in_workspace() -> Option<String> {
    use_context::<InWorkspace>().and_then(|InWorkspace(workspace)| workspace)
}

/// The delivery view.
#[component]
pub fn DeliveryView(
    id: String,
    selected: RwSignal<Option<String>>,
    revision: RwSignal<u64>,
    now: RwSignal<Timestamp>,
    /// The workspace the delivery is in, when not the window's own (it is
    /// answered there; annotating and saving stay with its own window).
    #[prop(optional)]
    workspace: Option<String>,
) -> impl IntoView {
    let detail = RwSignal::new(None::<Result<DeliveryDetail, switchboard_model::ErrorPayload>>);
    let elsewhere = RwSignal::new(false);
    provide_context(AnsweredElsewhere(elsewhere));
    let answered = RwSignal::new(None::<DeliveryDetail>);
    provide_context(AnsweredNow(answered));
    // Shown as the answer left it: its workspace is out of reach now.
    let kept = RwSignal::new(false);
    provide_context(InWorkspace(workspace.clone()));
    let back = if workspace.is_some() {
        "← All workspaces"
    } else {
        "← Inbox"
    };
    let load_id = id.clone();
    Effect::new(move |_| {
        revision.track();
        let (id, workspace) = (load_id.clone(), workspace.clone());
        tasks::fetch(async move {
            let loaded = match ipc::get_delivery(&id, workspace).await {
                // Answered here, then out of reach: as the answer left it.
                Err(failure) if failure.code == switchboard_model::ErrorCode::NotFound => {
                    let answer = answered
                        .get_untracked()
                        .filter(|answer| answer.delivery.id == id);
                    kept.set(answer.is_some());
                    answer.ok_or(failure)
                }
                loaded => {
                    kept.set(false);
                    loaded
                }
            };
            detail.set(Some(loaded));
        });
    });
    let escape = window_event_listener(leptos::ev::keydown, move |event| {
        if event.key() == "Escape" {
            selected.set(None);
        }
    });
    on_cleanup(move || escape.remove());

    view! {
        <div class="delivery-view" id="delivery-view" data-id=id.clone()>
            <button class="back" id="delivery-back" title="Back (Esc)" on:click=move |_| selected.set(None)>
                {back}
            </button>
            {move || elsewhere.get().then(|| view! {
                <p class="warning" role="status" id="answered-elsewhere">
                    "This question was answered elsewhere while you were answering; the answer given is shown below."
                </p>
            })}
            {move || kept.get().then(|| view! {
                <p class="notice" role="status" id="delivery-answered-kept">
                    "Answered: its agent went on, and nothing else waits in its workspace. This is the question as your answer left it."
                </p>
            })}
            {move || match detail.get() {
                None => view! { <p class="muted">"Loading…"</p> }.into_any(),
                // Gone while open: a request left to its agent's terminal
                // leaves the inbox, as does one its agent withdrew.
                Some(Err(failure)) if failure.code == switchboard_model::ErrorCode::NotFound => view! {
                    <p class="notice" role="status" id="delivery-gone">
                        "This question is no longer in the inbox: it was left to its agent's terminal, or its agent withdrew it."
                    </p>
                }
                .into_any(),
                Some(Err(failure)) => view! { <p class="error" role="alert">{failure.message}</p> }.into_any(),
                Some(Ok(detail)) => view! { <DetailBody detail now revision /> }.into_any(),
            }}
        </div>
    }
}

/// One delivery: its header, its body (markdown, or HTML in a sandboxed
/// frame) with the selection bar, its form or its answer, and its
/// annotations.
#[component]
fn DetailBody(
    detail: DeliveryDetail,
    now: RwSignal<Timestamp>,
    revision: RwSignal<u64>,
) -> impl IntoView {
    let delivery = detail.delivery;
    // The asker hears that the developer has the question in front of them.
    if delivery.status == switchboard_model::DeliveryStatus::AwaitingFeedback
        && delivery.opened_at().is_none()
    {
        let (id, workspace) = (delivery.id.clone(), in_workspace());
        tasks::act(async move {
            let _ = ipc::mark_opened(&id, workspace).await;
        });
    }
    let bump = Callback::new(move |()| revision.update(|r| *r += 1));
    let body_text = delivery.content.body.clone();
    let id = delivery.id.clone();
    view! {
        {detail.warnings.into_iter().map(|warning| view! { <p class="warning" role="status">{warning}</p> }).collect_view()}
        <DeliveryHeader delivery=delivery.clone() now />
        {delivery.withdrawn_at.map(|at| view! {
            <p class="notice" id="delivery-withdrawn" role="status">
                {format!("The agent stopped waiting for this answer at {at} (it withdrew the question). An answer given now is still kept for it to read.")}
            </p>
        })}
        <div class="delivery-columns">
            <div class="delivery-main">
                <Body delivery=delivery.clone() body_html=detail.body_html on_saved=bump />
                <Feedback delivery feedback=detail.feedback on_done=bump />
            </div>
            {in_workspace().is_none().then(|| view! {
                <AnnotationList annotations=detail.annotations quotes=detail.quotes body=body_text delivery_id=id on_saved=bump />
            })}
        </div>
    }
}

/// The title, mode, status and age, and a button per export format.
#[component]
fn DeliveryHeader(delivery: Delivery, now: RwSignal<Timestamp>) -> impl IntoView {
    let created = delivery.created_at;
    let shown = switchboard_model::agent::permission::shown_status(&delivery);
    let saved = RwSignal::new(None::<Saved>);
    let formats = export::delivery_formats(&delivery);
    view! {
        <header class="delivery-header">
            <h1 id="delivery-title">{delivery.title.clone()}</h1>
            <div class="meta">
                {delivery.sent_by().map(|agent| view! { <span class="badge sent-by" id="delivery-sent-by" title="Sent over HTTP with this agent's token">{format!("from {agent}")}</span> })}
                <span class=format!("badge mode-{}", delivery.mode.as_str())>{delivery.mode.as_str()}</span>
                <span class=format!("badge status-{shown}") id="delivery-status">
                    {shown.replace('_', " ")}
                </span>
                <time class="age" datetime=created.to_string()>{move || age_label(created, now.get())}</time>
                <span class="export-buttons">
                    {(if in_workspace().is_none() && !ipc::in_browser() { formats } else { &[] })
                        .iter()
                        .map(|&format| {
                            let id = delivery.id.clone();
                            view! {
                                <button
                                    class="export"
                                    id=format!("export-{}", format.extension())
                                    title=format!("Save this delivery as {}", format.label())
                                    on:click=move |_| {
                                        let id = id.clone();
                                        save_document(saved, format, async move { ipc::export_delivery(&id, format).await });
                                    }
                                >
                                    {format!("Save .{}", format.extension())}
                                </button>
                            }
                        })
                        .collect_view()}
                </span>
            </div>
            <SaveStatus status=saved id="export-status" />
        </header>
    }
}

/// The body, with the bar that annotates what is selected in it: markdown
/// rendered in the page (its links never navigate the app), HTML in a frame
/// sandboxed with `allow-same-origin` only.
#[component]
fn Body(delivery: Delivery, body_html: String, on_saved: Callback<()>) -> impl IntoView {
    let selected = RwSignal::new(None::<Selected>);
    match delivery.content.kind {
        ContentType::Markdown => {
            let body_ref = NodeRef::<leptos::html::Article>::new();
            let track_selection = move || {
                if let Some(body) = body_ref.get() {
                    selected.set(current_selection(&body));
                }
            };
            let keep_page = |event: leptos::ev::MouseEvent| {
                let on_link = event
                    .target()
                    .and_then(|target| {
                        wasm_bindgen::JsCast::dyn_into::<leptos::web_sys::Element>(target).ok()
                    })
                    .and_then(|element| element.closest("a").ok().flatten())
                    .is_some();
                if on_link {
                    event.prevent_default();
                }
            };
            view! {
                {in_workspace().is_none().then(|| view! { <SelectionBar delivery_id=delivery.id.clone() selected on_saved /> })}
                <article
                    class="markdown-body"
                    id="delivery-body"
                    node_ref=body_ref
                    inner_html=body_html
                    on:click=keep_page
                    on:mouseup=move |_| track_selection()
                    on:keyup=move |_| track_selection()
                ></article>
            }
            .into_any()
        }
        ContentType::Html => {
            let document = format!(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"{FRAME_POLICY}\"><base target=\"_blank\"><style>{FRAME_STYLE}</style></head><body>{body_html}</body></html>"
            );
            let frame_ref = NodeRef::<leptos::html::Iframe>::new();
            let loaded = move |_| {
                if let Some(frame) = frame_ref.get_untracked() {
                    fit_frame(&frame);
                }
            };
            view! {
                {in_workspace().is_none().then(|| view! { <SelectionBar delivery_id=delivery.id.clone() selected on_saved frame=frame_ref /> })}
                <iframe
                    class="html-body"
                    id="delivery-frame"
                    sandbox="allow-same-origin"
                    srcdoc=document
                    title="Delivery content"
                    node_ref=frame_ref
                    on:load=loaded
                ></iframe>
            }
            .into_any()
        }
    }
}

/// The feedback form while the question is open, else what was answered.
#[component]
fn Feedback(
    delivery: Delivery,
    feedback: Vec<FeedbackResponse>,
    on_done: Callback<()>,
) -> impl IntoView {
    let schema = delivery.schema().ok().flatten();
    let open = delivery.check_open_for_reply().is_ok();
    // What the page shows of the question: an answer is to these words.
    let seen = switchboard_model::receipt::shown(&delivery);
    // An agent's own permission request: allow, always, deny with a
    // reason, or leave it to the agent's terminal.
    if let Some(mark) = switchboard_model::agent::permission::mark_of(&delivery.extra) {
        if open {
            return view! { <super::permission::PermissionForm id=delivery.id.clone() seen mark on_done /> }
                .into_any();
        }
        let decided = switchboard_model::agent::permission::Decision::of_closed(
            &mark,
            &delivery.id,
            &feedback,
        );
        return view! {
            <section class="feedback-done decided" id="feedback-done">
                {match decided {
                    Some(decision) => view! {
                        <p class=format!("decision decision-{}", decision.badge()) id="permission-decision">{decision.label()}</p>
                    }.into_any(),
                    None => view! { <p id="permission-decision">"Nobody decided here; the agent asked in its terminal."</p> }.into_any(),
                }}
            </section>
        }
        .into_any();
    }
    match (schema, open) {
        (Some(schema), true) => view! {
            <FeedbackForm
                id=delivery.id.clone()
                seen
                schema
                blocking=delivery.mode == DeliveryMode::Blocking
                on_done
            />
        }
        .into_any(),
        (Some(schema), false) => {
            let confirm = matches!(
                schema,
                switchboard_model::feedback::FeedbackSchema::Confirm { .. }
            );
            let answers: Vec<String> = feedback
                .iter()
                .map(|record| {
                    match switchboard_model::feedback::ConfirmAnswer::from_value(&record.values)
                        .filter(|_| confirm)
                    {
                        Some(answer) => answer.label(),
                        None => serde_json::to_string_pretty(&record.values).unwrap_or_default(),
                    }
                })
                .collect();
            view! {
                <section class="feedback-done" id="feedback-done">
                    {if answers.is_empty() {
                        view! { <p>"Closed without an answer."</p> }.into_any()
                    } else {
                        view! {
                            <p>"Answered:"</p>
                            {answers.into_iter().map(|answer| view! { <pre><code>{answer}</code></pre> }).collect_view()}
                        }
                            .into_any()
                    }}
                </section>
            }
            .into_any()
        }
        (None, _) => ().into_any(),
    }
}

/// The annotations sidebar: each remark with the passage it refers to (as
/// shown, or as written when the range covers no shown text), and a box
/// for a general comment.
#[component]
fn AnnotationList(
    annotations: Vec<Annotation>,
    quotes: BTreeMap<String, String>,
    body: String,
    delivery_id: String,
    on_saved: Callback<()>,
) -> impl IntoView {
    let utf16: Vec<u16> = body.encode_utf16().collect();
    view! {
        <aside class="annotations" id="annotations" aria-label="Annotations">
            <h2>"Annotations"</h2>
            <ul>
                {annotations
                    .into_iter()
                    .map(|annotation| {
                        let quote = annotation.target.as_ref().and_then(|target| {
                            if let Some(shown) = quotes.get(&annotation.id) {
                                return Some(shown.clone());
                            }
                            let start = usize::try_from(target.start?).ok()?;
                            let end = usize::try_from(target.end?).ok()?;
                            utf16.get(start..end).map(String::from_utf16_lossy)
                        });
                        view! {
                            <li class=format!("annotation kind-{:?}", annotation.kind).to_lowercase() data-id=annotation.id.clone()>
                                {quote.map(|quote| view! { <blockquote>{quote}</blockquote> })}
                                <p>{annotation.content}</p>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <GeneralComment delivery_id on_saved />
        </aside>
    }
}
