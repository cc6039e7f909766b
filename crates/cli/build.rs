//! Embeds the window's built page (`ui/dist`, which `make ui` builds) for
//! `switchboard serve`; without it, the server says how to build it.

use std::{env, fs, path::PathBuf};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dist = manifest.join("../../ui/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut files = Vec::new();
    if let Ok(entries) = fs::read_dir(&dist) {
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_file() && !name.starts_with('.') {
                println!("cargo:rerun-if-changed={}", path.display());
                files.push(format!(
                    "({name:?}, include_bytes!({:?}) as &[u8]),",
                    path.display().to_string()
                ));
            }
        }
    }
    files.sort();
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default()).join("page.rs");
    let text = format!(
        "/// The built page's files, by name.\npub const FILES: &[(&str, &[u8])] = &[\n{}\n];\n",
        files.join("\n")
    );
    if let Err(error) = fs::write(&out, text) {
        panic!("could not write {}: {error}", out.display());
    }
}
