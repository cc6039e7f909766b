//! Embeds `tauri.conf.json` and `icons/` (at the repository's root, as the
//! design card lays it out), the capabilities (here) and the built UI
//! (`ui/dist`).

fn main() {
    tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json"))
        .unwrap_or_else(|error| panic!("tauri-build: {error:#}"));
}
