//! The context inspector: what went into the last prompt, part by part,
//! with token counts; dropped parts are struck through, and files that
//! were not read (a symlink out of the workspace) say so.

use leptos::prelude::*;
use switchboard_model::chat::transcript::Transcript;

/// The inspector panel.
#[component]
pub fn Inspector(transcript: RwSignal<Transcript>) -> impl IntoView {
    let parts = Memo::new(move |_| transcript.with(|t| t.last_prompt.clone()));
    view! {
        <section class="inspector" id="chat-inspector">
            <h2>"Context"</h2>
            {move || {
                let parts = parts.get();
                if parts.is_empty() {
                    return view! { <p class="muted">"Send a message to see what the model receives."</p> }.into_any();
                }
                let total: usize = parts.iter().filter(|p| p.included).map(|p| p.tokens).sum();
                view! {
                    <p class="muted">{format!("{total} tokens sent")}</p>
                    <table>
                        {parts
                            .into_iter()
                            .map(|part| {
                                let preview: String = part.text.chars().take(400).collect();
                                let dropped = !part.included && !part.refused;
                                let label = if part.refused {
                                    format!("not read: {}", part.text)
                                } else {
                                    part.label
                                };
                                view! {
                                    <tr class:dropped=dropped class:refused=part.refused title=preview>
                                        <td>{format!("{:?}", part.kind).to_lowercase()}</td>
                                        <td>{label}</td>
                                        <td class="tokens">{part.tokens}</td>
                                    </tr>
                                }
                            })
                            .collect_view()}
                    </table>
                }
                .into_any()
            }}
        </section>
    }
}
