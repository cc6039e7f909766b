//! The feedback form for the four schema types. The answer is checked in
//! the page by the same model code the store runs, so field messages show
//! before anything is sent; Ctrl/Cmd+Enter submits; blocking questions can
//! also be declined (the developer says no) or dismissed (no answer).

use leptos::prelude::*;
use switchboard_model::{
    ErrorCode,
    blocking::Reply,
    feedback::{Draft, FeedbackSchema, FieldDraft, FieldError, FieldKind, FormField, TextFormat},
};

use crate::{ipc, kept::Kept, tasks};

/// The form for delivery `id`, shown as `seen` says
/// ([`switchboard_model::receipt::shown`]). `on_done` runs once a reply is
/// stored.
#[component]
pub fn FeedbackForm(
    id: String,
    seen: String,
    schema: FeedbackSchema,
    blocking: bool,
    on_done: Callback<()>,
) -> impl IntoView {
    // The window keeps what is written until it is sent.
    let drafts = use_context::<Kept<Draft>>().unwrap_or_default();
    let draft = drafts.bind(id.clone(), Draft::new(&schema));
    let errors = RwSignal::new(Vec::<FieldError>::new());
    let busy = RwSignal::new(false);
    let schema = StoredValue::new(schema);
    let id = StoredValue::new(id);
    let seen = StoredValue::new(seen);

    let send = sender(id, seen, schema, drafts, errors, busy, on_done);
    let submit = move || {
        let answer = schema.with_value(|schema| draft.with(|draft| draft.answer(schema)));
        send(Reply::Answer { answer });
    };
    let is_confirm = schema.with_value(|schema| matches!(schema, FeedbackSchema::Confirm { .. }));

    view! {
        <form
            class="feedback-form"
            id="feedback-form"
            // The answer is checked by the schema's own rules, with each
            // message beside its field; the browser's bubbles would hide
            // those (the limits stay on the inputs as hints).
            novalidate=true
            on:submit=move |event| {
                event.prevent_default();
                submit();
            }
            on:keydown=move |event| {
                if crate::keys::is_submit(&event) {
                    event.prevent_default();
                    submit();
                }
            }
        >
            {schema.with_value(|schema| inputs(schema, draft, errors, send))}
            <GeneralError errors />
            <Actions answers=!is_confirm blocking busy send=Callback::new(send) />
        </form>
    }
}

/// Sends a reply to delivery `id`, once the answer passes `schema`'s
/// rules: the draft is forgotten once it is stored (or answered elsewhere
/// meanwhile, which the detail is told), problems land in `errors`.
fn sender(
    id: StoredValue<String>,
    seen: StoredValue<String>,
    schema: StoredValue<FeedbackSchema>,
    drafts: Kept<Draft>,
    errors: RwSignal<Vec<FieldError>>,
    busy: RwSignal<bool>,
    on_done: Callback<()>,
) -> impl Fn(Reply) + Copy + Send + Sync + 'static {
    let elsewhere = use_context::<super::detail::AnsweredElsewhere>();
    let answered = use_context::<super::detail::AnsweredNow>();
    let workspace = StoredValue::new(super::detail::in_workspace());
    move |reply: Reply| {
        if let Reply::Answer { answer } = &reply
            && let Err(problems) = schema.with_value(|schema| schema.check_answer(answer))
        {
            errors.set(problems.0);
            return;
        }
        busy.set(true);
        let (id, seen, workspace) = (id.get_value(), seen.get_value(), workspace.get_value());
        tasks::act(async move {
            match ipc::reply(&id, reply, workspace, seen).await {
                Ok(detail) => {
                    super::detail::AnsweredNow::keep(answered, detail);
                    drafts.forget(&id);
                    errors.set(Vec::new());
                    // The view may have been left meanwhile.
                    on_done.try_run(());
                }
                // Answered in another window or at the terminal meanwhile:
                // say so and show the answer that was given.
                Err(error) if error.code == ErrorCode::AlreadyResponded => {
                    drafts.forget(&id);
                    if let Some(super::detail::AnsweredElsewhere(flag)) = elsewhere {
                        flag.set(true);
                    }
                    on_done.try_run(());
                }
                Err(error) if !error.fields.is_empty() => errors.set(error.fields),
                Err(error) => errors.set(vec![FieldError {
                    field: None,
                    message: error.message,
                }]),
            }
            busy.set(false);
        });
    }
}

/// The messages that belong to no field.
#[component]
fn GeneralError(errors: RwSignal<Vec<FieldError>>) -> impl IntoView {
    move || {
        let general: Vec<String> = errors
            .get()
            .into_iter()
            .filter(|error| error.field.is_none())
            .map(|error| error.message)
            .collect();
        (!general.is_empty()).then(
            || view! { <p class="error" role="alert" id="feedback-error">{general.join("; ")}</p> },
        )
    }
}

/// The form's buttons: Send (unless the form's own buttons answer), and
/// for a blocking question Decline and Dismiss.
#[component]
fn Actions(
    /// Whether the form has a Send button.
    answers: bool,
    /// Whether the question is blocking.
    blocking: bool,
    /// Whether a reply is on its way.
    busy: RwSignal<bool>,
    /// Sends a reply.
    send: Callback<Reply>,
) -> impl IntoView {
    view! {
        <div class="actions">
            {answers
                .then(|| {
                    view! {
                        <button type="submit" class="primary" id="feedback-submit" disabled=move || busy.get() title="Send (Ctrl+Enter)">
                            "Send answer"
                        </button>
                    }
                })}
            {blocking
                .then(|| {
                    view! {
                        <button type="button" id="feedback-decline" disabled=move || busy.get() title="The agent is told you will not answer this" on:click=move |_| send.run(Reply::Decline)>
                            "Decline to answer"
                        </button>
                        <button type="button" id="feedback-dismiss" class="quiet" disabled=move || busy.get() title="Closes it unanswered: the agent is told it was dismissed" on:click=move |_| send.run(Reply::Dismiss)>
                            "Dismiss"
                        </button>
                        <p class="muted" id="feedback-choices">
                            "An answer (a no too) goes to the agent as given; "
                            <b>"Decline to answer"</b>" tells it you will not answer; "
                            <b>"Dismiss"</b>" closes the question unanswered."
                        </p>
                    }
                })}
        </div>
    }
}

/// The message for `field` among `errors`, if any.
fn field_error(
    errors: RwSignal<Vec<FieldError>>,
    field: &str,
) -> impl Fn() -> Option<String> + use<> {
    let field = field.to_owned();
    move || {
        errors.with(|errors| {
            errors
                .iter()
                .find(|error| error.field.as_deref() == Some(field.as_str()))
                .map(|error| error.message.clone())
        })
    }
}

fn prompt_view(prompt: &Option<String>) -> impl IntoView + use<> {
    prompt
        .clone()
        .map(|prompt| view! { <p class="prompt">{prompt}</p> })
}

fn inputs(
    schema: &FeedbackSchema,
    draft: RwSignal<Draft>,
    errors: RwSignal<Vec<FieldError>>,
    send: impl Fn(Reply) + Copy + 'static,
) -> AnyView {
    match schema {
        FeedbackSchema::Confirm {
            prompt,
            confirm_label,
            cancel_label,
        } => {
            let yes = confirm_label.clone().unwrap_or_else(|| "Confirm".into());
            let no = cancel_label.clone().unwrap_or_else(|| "Cancel".into());
            let answer = move |value: bool| {
                let answer = switchboard_model::feedback::ConfirmAnswer {
                    value,
                    ..Default::default()
                };
                send(Reply::Answer {
                    answer: answer.to_value(),
                })
            };
            view! {
                {prompt_view(prompt)}
                <div class="confirm">
                    <button type="button" class="primary" id="feedback-confirm" title="Answers yes" on:click=move |_| answer(true)>{yes}</button>
                    <button type="button" id="feedback-cancel" title="Answers no" on:click=move |_| answer(false)>{no}</button>
                </div>
            }
            .into_any()
        }
        FeedbackSchema::Select {
            prompt,
            options,
            multiple,
        } => {
            let multiple = *multiple;
            view! {
                {prompt_view(prompt)}
                <fieldset class="options" role=if multiple { "group" } else { "radiogroup" }>
                    {options
                        .iter()
                        .cloned()
                        .map(|option| {
                            let value = option.clone();
                            let checked_value = option.clone();
                            view! {
                                <label class="option">
                                    <input
                                        type=if multiple { "checkbox" } else { "radio" }
                                        name="feedback-option"
                                        value=option.clone()
                                        prop:checked=move || {
                                            draft.with(|d| {
                                                if multiple {
                                                    d.choices.contains(&checked_value)
                                                } else {
                                                    d.choice.as_deref() == Some(checked_value.as_str())
                                                }
                                            })
                                        }
                                        on:change=move |_| {
                                            draft.update(|d| {
                                                if multiple {
                                                    d.toggle(&value);
                                                } else {
                                                    d.choice = Some(value.clone());
                                                }
                                            })
                                        }
                                    />
                                    <span>{option}</span>
                                </label>
                            }
                        })
                        .collect_view()}
                </fieldset>
            }
            .into_any()
        }
        FeedbackSchema::Rating { prompt, .. } => {
            let max = schema.rating_max().unwrap_or(5);
            view! {
                {prompt_view(prompt)}
                <div class="rating" role="radiogroup" aria-label="Rating">
                    {(1..=max)
                        .map(|stars| {
                            view! {
                                <button
                                    type="button"
                                    class="star"
                                    data-stars=stars
                                    aria-label=format!("{stars} of {max}")
                                    aria-checked=move || (draft.with(|d| d.stars) == Some(stars)).to_string()
                                    class:lit=move || draft.with(|d| d.stars.is_some_and(|chosen| stars <= chosen))
                                    on:click=move |_| draft.update(|d| d.stars = Some(stars))
                                >
                                    "★"
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
            }
            .into_any()
        }
        FeedbackSchema::Form { fields } => fields
            .iter()
            .cloned()
            .map(|field| form_field(field, draft, errors))
            .collect_view()
            .into_any(),
    }
}

fn form_field(
    field: FormField,
    draft: RwSignal<Draft>,
    errors: RwSignal<Vec<FieldError>>,
) -> impl IntoView {
    let name = field.name.clone();
    let input_id = format!("field-{}", field.name);
    let label = field.label.clone().unwrap_or_else(|| field.name.clone());
    let error = field_error(errors, &field.name);
    let has_error = {
        let error = field_error(errors, &field.name);
        move || error().is_some()
    };
    let text = {
        let name = name.clone();
        move || {
            draft.with(|d| match d.fields.get(&name) {
                Some(FieldDraft::Text(text)) => text.clone(),
                _ => String::new(),
            })
        }
    };
    let set_text = {
        let name = name.clone();
        move |value: String| {
            draft.update(|d| {
                d.fields.insert(name.clone(), FieldDraft::Text(value));
            })
        }
    };
    let placeholder = field.placeholder.clone().unwrap_or_default();
    // The browser shows the same limits the answer is checked against.
    let input_type = match field.format {
        Some(TextFormat::Email) => "email",
        Some(TextFormat::Uri) => "url",
        Some(TextFormat::Date) => "date",
        Some(TextFormat::DateTime) | None => "text",
    };
    let min_length = field.min_length.map(|n| n.to_string());
    let max_length = field.max_length.map(|n| n.to_string());
    let options = field.options.clone().unwrap_or_default();
    let labels = field
        .option_labels
        .clone()
        .unwrap_or_else(|| options.clone());
    let control = match field.kind {
        FieldKind::Text => view! {
            <input type=input_type id=input_id.clone() name=name.clone() placeholder=placeholder prop:value=text
                minlength=min_length maxlength=max_length pattern=field.pattern.clone()
                on:input=move |event| set_text(event_target_value(&event)) />
        }
        .into_any(),
        FieldKind::Number => view! {
            <input type="number" step=if field.integer { "1" } else { "any" } id=input_id.clone() name=name.clone()
                placeholder=placeholder prop:value=text
                min=field.minimum.map(|n| n.to_string()) max=field.maximum.map(|n| n.to_string())
                on:input=move |event| set_text(event_target_value(&event)) />
        }
        .into_any(),
        FieldKind::Textarea => view! {
            <textarea id=input_id.clone() name=name.clone() rows="4" placeholder=placeholder prop:value=text
                minlength=min_length maxlength=max_length
                on:input=move |event| set_text(event_target_value(&event))></textarea>
        }
        .into_any(),
        FieldKind::Select if field.multiple => view! {
            <fieldset class="choices" id=input_id.clone()>
                {options
                    .into_iter()
                    .zip(labels)
                    .map(|(option, label)| {
                        let checked_name = name.clone();
                        let toggle_name = name.clone();
                        let checked_option = option.clone();
                        let toggle_option = option.clone();
                        view! {
                            <label class="choice">
                                <input type="checkbox" name=name.clone() value=option
                                    prop:checked=move || draft.with(|d| matches!(d.fields.get(&checked_name), Some(FieldDraft::Choices(chosen)) if chosen.contains(&checked_option)))
                                    on:change=move |_| draft.update(|d| d.toggle_field(&toggle_name, &toggle_option)) />
                                <span>{label}</span>
                            </label>
                        }
                    })
                    .collect_view()}
            </fieldset>
        }
        .into_any(),
        FieldKind::Select => view! {
            <select id=input_id.clone() name=name.clone() prop:value=text on:change=move |event| set_text(event_target_value(&event))>
                <option value="">"Choose…"</option>
                {options
                    .into_iter()
                    .zip(labels)
                    .map(|(option, label)| view! { <option value=option>{label}</option> })
                    .collect_view()}
            </select>
        }
        .into_any(),
        FieldKind::Checkbox => {
            let checked_name = name.clone();
            let toggle_name = name.clone();
            view! {
                <input type="checkbox" id=input_id.clone() name=name.clone()
                    prop:checked=move || draft.with(|d| matches!(d.fields.get(&checked_name), Some(FieldDraft::Checked(true))))
                    on:change=move |event| {
                        let checked = event_target_checked(&event);
                        draft.update(|d| {
                            d.fields.insert(toggle_name.clone(), FieldDraft::Checked(checked));
                        })
                    } />
            }
            .into_any()
        }
    };
    view! {
        <div class="field" class:invalid=has_error>
            <label for=input_id>
                {label}
                {field.required.then(|| view! { <span class="required" title="Required">" *"</span> })}
            </label>
            {field.description.clone().map(|text| view! { <p class="field-description">{text}</p> })}
            {control}
            {move || error().map(|message| view! { <p class="field-error" role="alert">{message}</p> })}
        </div>
    }
}
