//! Applies the workspace's `theme.json` overrides as CSS variables on the
//! root element, now and whenever the file changes.

use std::{cell::RefCell, rc::Rc};

use leptos::task::spawn_local;
use switchboard_model::ipc::StoreChange;

use crate::{events, ipc};

/// Loads the theme and re-applies it on every change of `theme.json`.
pub fn follow_workspace_theme() {
    let applied: Rc<RefCell<Vec<String>>> = Rc::default();
    apply_current(Rc::clone(&applied));
    events::on_store_change(move |change| {
        if change == StoreChange::Theme {
            apply_current(Rc::clone(&applied));
        }
    });
}

fn apply_current(applied: Rc<RefCell<Vec<String>>>) {
    spawn_local(async move {
        let theme = match ipc::get_theme().await {
            Ok(theme) => theme,
            Err(error) => {
                leptos::logging::warn!("theme not applied: {}", error.message);
                return;
            }
        };
        for warning in &theme.warnings {
            leptos::logging::warn!("theme.json: {warning}");
        }
        let Some(root) = leptos::prelude::document().document_element() else {
            return;
        };
        let Ok(root) = wasm_bindgen::JsCast::dyn_into::<leptos::web_sys::HtmlElement>(root) else {
            return;
        };
        let style = root.style();
        for name in applied.borrow_mut().drain(..) {
            let _ = style.remove_property(&name);
        }
        for (name, value) in theme.variables {
            if style.set_property(&name, &value).is_ok() {
                applied.borrow_mut().push(name);
            }
        }
    });
}
