//! Embeds `tauri.conf.json`, the capabilities and the built UI (`../ui/dist`).

fn main() {
    tauri_build::build();
}
