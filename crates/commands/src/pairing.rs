//! Pairing a browser with a server of the inbox: a one-time link and its
//! QR code, for `switchboard serve --pair` and the window's Settings alike.

use std::path::Path;

use switchboard_model::ipc::PairingLink;
use switchboard_store::{StoreError, browsers, clock};

/// A new one-time link to the server at `origin` (no trailing slash), its
/// code kept in `config_dir` as a digest.
pub fn new_link(config_dir: &Path, origin: &str) -> Result<String, StoreError> {
    let code = browsers::new_pairing(config_dir, clock::now())?;
    Ok(format!("{origin}/pair?code={code}"))
}

/// [`new_link`] with its QR code, as the window's Settings shows it.
pub fn new_link_with_qr(config_dir: &Path, origin: &str) -> Result<PairingLink, StoreError> {
    let link = new_link(config_dir, origin)?;
    Ok(PairingLink {
        qr: qr_rows(&link),
        link,
    })
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
        assert!(browsers::pair(dir.path(), code, "test", clock::now()).is_ok());
        assert!(browsers::pair(dir.path(), code, "test", clock::now()).is_err());
    }
}
