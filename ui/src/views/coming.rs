//! The placeholder for views that are not built yet.

use leptos::prelude::*;

/// Says plainly that a view is coming, instead of showing an empty pane.
#[component]
pub fn Coming(
    /// The view's name.
    name: &'static str,
) -> impl IntoView {
    view! {
        <section class="coming" id="view-coming">
            <h1>{name}</h1>
            <p>"Coming soon."</p>
        </section>
    }
}
