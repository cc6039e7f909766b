//! Pairing a browser with a server of the inbox: a one-time link, its QR
//! code — drawn dark on light with its quiet zone, in the window and in a
//! terminal alike, so a phone's camera reads it whatever the terminal's
//! colours — and what pairing says: how a phone reaches a loopback
//! address, and that a paired browser reaches every workspace served here.
//! For `switchboard serve --pair`, `switchboard pair` and the window's
//! Settings alike.

use std::path::Path;

use switchboard_model::{
    browser::{REACHES_EVERY_WORKSPACE, reach_hint},
    ipc::PairingLink,
};
use switchboard_store::{StoreError, browsers, clock};

/// A new one-time link to the server at `origin` (no trailing slash), its
/// code kept in `config_dir` as a digest.
pub fn new_link(config_dir: &Path, origin: &str) -> Result<String, StoreError> {
    let code = browsers::new_pairing(config_dir, clock::now())?;
    Ok(format!("{origin}/pair?code={code}"))
}

/// [`new_link`] with its QR code and what pairing says, as the window's
/// Settings shows it.
pub fn new_link_with_qr(config_dir: &Path, origin: &str) -> Result<PairingLink, StoreError> {
    let link = new_link(config_dir, origin)?;
    Ok(PairingLink {
        qr: qr_rows(&link),
        reach: reach(origin),
        scope: REACHES_EVERY_WORKSPACE.to_owned(),
        link,
    })
}

/// How a phone reaches `origin`, when it is this machine's loopback.
pub fn reach(origin: &str) -> Option<String> {
    reach_hint(origin, &switchboard_store::process::login())
}

/// The QR code of `text`, row by row: `#` dark, ` ` light, with the quiet
/// zone the standard asks for; none if it does not fit a QR code.
pub fn qr_rows(text: &str) -> Vec<String> {
    let Ok(code) = qrcode::QrCode::new(text.as_bytes()) else {
        return Vec::new();
    };
    code.render::<char>()
        .dark_color('#')
        .light_color(' ')
        .quiet_zone(true)
        .module_dimensions(1, 1)
        .build()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Black and white of the 256-colour palette's cube, which no terminal
/// theme recolours (unlike the 16 named colours).
const DARK_ON_LIGHT: &str = "\u{1b}[38;5;16;48;5;231m";

/// Back to the terminal's own colours.
const RESET: &str = "\u{1b}[0m";

/// The QR code of `text` for a terminal: two rows of modules per line in
/// half blocks, black on white whatever the terminal's colours, with the
/// quiet zone; none if it does not fit a QR code.
pub fn terminal_qr(text: &str) -> Option<String> {
    let rows: Vec<Vec<bool>> = qr_rows(text)
        .iter()
        .map(|row| row.chars().map(|module| module == '#').collect())
        .collect();
    if rows.is_empty() {
        return None;
    }
    let width = rows[0].len();
    let light = vec![false; width];
    let lines: Vec<String> = rows
        .chunks(2)
        .map(|pair| {
            let (top, bottom) = (&pair[0], pair.get(1).unwrap_or(&light));
            let cells: String = top
                .iter()
                .zip(bottom)
                .map(|(top, bottom)| match (top, bottom) {
                    (false, false) => ' ',
                    (true, false) => '▀',
                    (false, true) => '▄',
                    (true, true) => '█',
                })
                .collect();
            format!("{DARK_ON_LIGHT}{cells}{RESET}")
        })
        .collect();
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.

    use super::*;

    #[test]
    fn a_link_pairs_once_and_its_qr_code_is_square() {
        let dir = tempfile::tempdir().unwrap();
        let made = new_link_with_qr(dir.path(), "http://127.0.0.1:8766").unwrap();
        let code = made.link.rsplit("code=").next().unwrap();
        assert_eq!(code.len(), 32);
        assert!(!made.qr.is_empty());
        assert!(
            made.qr
                .iter()
                .all(|row| row.chars().count() == made.qr.len())
        );
        assert!(
            made.reach.as_deref().unwrap().contains("ssh -N -L 8766"),
            "a loopback link says how a phone reaches it: {:?}",
            made.reach
        );
        assert!(made.scope.contains("every workspace"), "{}", made.scope);
        assert!(browsers::pair(dir.path(), code, "test", clock::now()).is_ok());
        assert!(browsers::pair(dir.path(), code, "test", clock::now()).is_err());
    }

    #[test]
    fn the_windows_qr_code_reads_back_as_its_link() {
        let link = "http://127.0.0.1:8766/pair?code=0123456789abcdef0123456789abcdef";
        let rows = qr_rows(link);
        let size = rows.len();
        let scale = 4;
        let image =
            rqrr::PreparedImage::prepare_from_greyscale(size * scale, size * scale, |x, y| {
                let dark = rows[y / scale].as_bytes()[x / scale] == b'#';
                if dark { 0 } else { 255 }
            });
        let mut image = image;
        let grids = image.detect_grids();
        assert_eq!(grids.len(), 1, "one code found");
        assert_eq!(grids[0].decode().unwrap().1, link);
    }
}
