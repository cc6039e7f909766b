//! Keys an agent sends by name (`--key ctrl-c`), as the bytes a terminal
//! sends for them.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A named key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Key {
    /// Control and a letter (`ctrl-a` … `ctrl-z`), or one of `@ [ \ ] ^ _`.
    Ctrl(u8),
    /// Escape.
    Esc,
    /// Return (a carriage return, as a terminal sends it).
    Enter,
    /// Tab.
    Tab,
    /// Backspace (DEL, as terminals send it).
    Backspace,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow right.
    Right,
    /// Arrow left.
    Left,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Delete (forward).
    Delete,
}

/// A key name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "{0:?} is not a key: use ctrl-a … ctrl-z, ctrl-], esc, enter, tab, backspace, up, down, left, right, home, end, pageup, pagedown or delete"
)]
pub struct KeyError(pub String);

impl Key {
    /// The names `--key` accepts, for help texts and schemas.
    pub const NAMES: [&'static str; 14] = [
        "ctrl-<letter>",
        "esc",
        "enter",
        "tab",
        "backspace",
        "up",
        "down",
        "left",
        "right",
        "home",
        "end",
        "pageup",
        "pagedown",
        "delete",
    ];

    /// The bytes a terminal sends for the key; arrows, Home and End as in
    /// the cursor-key mode the program chose (`app_cursor`: `ESC O A`,
    /// else `ESC [ A`).
    pub fn bytes(self, app_cursor: bool) -> Vec<u8> {
        let cursor = |last: u8| {
            if app_cursor {
                vec![0x1b, b'O', last]
            } else {
                vec![0x1b, b'[', last]
            }
        };
        match self {
            Self::Ctrl(byte) => vec![byte],
            Self::Esc => vec![0x1b],
            Self::Enter => vec![b'\r'],
            Self::Tab => vec![b'\t'],
            Self::Backspace => vec![0x7f],
            Self::Up => cursor(b'A'),
            Self::Down => cursor(b'B'),
            Self::Right => cursor(b'C'),
            Self::Left => cursor(b'D'),
            Self::Home => cursor(b'H'),
            Self::End => cursor(b'F'),
            Self::PageUp => b"\x1b[5~".to_vec(),
            Self::PageDown => b"\x1b[6~".to_vec(),
            Self::Delete => b"\x1b[3~".to_vec(),
        }
    }

    /// The key's name, as parsed.
    pub fn name(self) -> String {
        match self {
            Self::Ctrl(byte) => {
                let letter = match byte {
                    0 => '@',
                    1..=26 => char::from(b'a' + byte - 1),
                    0x1b => '[',
                    0x1c => '\\',
                    0x1d => ']',
                    0x1e => '^',
                    _ => '_',
                };
                format!("ctrl-{letter}")
            }
            Self::Esc => "esc".into(),
            Self::Enter => "enter".into(),
            Self::Tab => "tab".into(),
            Self::Backspace => "backspace".into(),
            Self::Up => "up".into(),
            Self::Down => "down".into(),
            Self::Right => "right".into(),
            Self::Left => "left".into(),
            Self::Home => "home".into(),
            Self::End => "end".into(),
            Self::PageUp => "pageup".into(),
            Self::PageDown => "pagedown".into(),
            Self::Delete => "delete".into(),
        }
    }
}

/// A key pressed on a screen in the page, as the browser names it
/// (`KeyboardEvent.key` and its modifiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pressed<'a> {
    /// The DOM's name of the key (`"ArrowUp"`, `"a"`, `"Enter"`).
    pub key: &'a str,
    /// Control was held.
    pub ctrl: bool,
    /// Alt or Meta was held (a shortcut of the page's, never the
    /// program's).
    pub alt_or_meta: bool,
}

/// What a key pressed on the screen types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// A named key.
    Key(Key),
    /// Text (one character).
    Text(String),
}

impl Pressed<'_> {
    /// What the key types into the program; `None` for keys left to the
    /// page (Alt or Meta shortcuts, modifiers alone, function keys).
    pub fn typed(self) -> Option<Typed> {
        if self.alt_or_meta {
            return None;
        }
        let single = self.key.chars().count() == 1;
        if self.ctrl {
            return single
                .then(|| {
                    format!("ctrl-{}", self.key.to_ascii_lowercase())
                        .parse()
                        .ok()
                })
                .flatten()
                .map(Typed::Key);
        }
        let named = match self.key {
            "Enter" => Key::Enter,
            "Escape" => Key::Esc,
            "Tab" => Key::Tab,
            "Backspace" => Key::Backspace,
            "ArrowUp" => Key::Up,
            "ArrowDown" => Key::Down,
            "ArrowLeft" => Key::Left,
            "ArrowRight" => Key::Right,
            "Home" => Key::Home,
            "End" => Key::End,
            "PageUp" => Key::PageUp,
            "PageDown" => Key::PageDown,
            "Delete" => Key::Delete,
            _ if single => return Some(Typed::Text(self.key.to_owned())),
            _ => return None,
        };
        Some(Typed::Key(named))
    }
}

impl FromStr for Key {
    type Err = KeyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.trim().to_ascii_lowercase();
        if let Some(rest) = lower
            .strip_prefix("ctrl-")
            .or_else(|| lower.strip_prefix("ctrl+"))
            .or_else(|| lower.strip_prefix("c-"))
            .or_else(|| lower.strip_prefix('^'))
        {
            let mut chars = rest.chars();
            return match (chars.next(), chars.next()) {
                (Some(c @ 'a'..='z'), None) => Ok(Self::Ctrl(c as u8 - b'a' + 1)),
                (Some(c @ ('@' | '[' | '\\' | ']' | '^' | '_')), None) => {
                    Ok(Self::Ctrl((c as u8) & 0x1f))
                }
                _ => Err(KeyError(text.to_owned())),
            };
        }
        Ok(match lower.as_str() {
            "esc" | "escape" => Self::Esc,
            "enter" | "return" => Self::Enter,
            "tab" => Self::Tab,
            "backspace" | "bs" => Self::Backspace,
            "up" => Self::Up,
            "down" => Self::Down,
            "right" => Self::Right,
            "left" => Self::Left,
            "home" => Self::Home,
            "end" => Self::End,
            "pageup" | "pgup" => Self::PageUp,
            "pagedown" | "pgdn" => Self::PageDown,
            "delete" | "del" => Self::Delete,
            _ => return Err(KeyError(text.to_owned())),
        })
    }
}

impl TryFrom<String> for Key {
    type Error = KeyError;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Key> for String {
    fn from(key: Key) -> Self {
        key.name()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn control_keys_are_control_bytes() {
        let bytes = |name: &str| name.parse::<Key>().unwrap().bytes(false);
        assert_eq!(bytes("ctrl-c"), [0x03]);
        assert_eq!(bytes("Ctrl-D"), [0x04]);
        assert_eq!(bytes("ctrl-]"), [0x1d]);
        assert_eq!(bytes("^z"), [0x1a]);
        assert_eq!(bytes("esc"), [0x1b]);
        assert_eq!(bytes("enter"), [b'\r']);
        assert_eq!(bytes("up"), b"\x1b[A");
        assert_eq!("up".parse::<Key>().unwrap().bytes(true), b"\x1bOA");
        assert!("ctrl-".parse::<Key>().is_err());
        assert!("ctrl-cc".parse::<Key>().is_err());
        assert!("f13".parse::<Key>().is_err());
    }

    #[test]
    fn names_round_trip() {
        for name in [
            "ctrl-a", "ctrl-z", "ctrl-]", "ctrl-\\", "esc", "pagedown", "delete",
        ] {
            let key: Key = name.parse().unwrap();
            assert_eq!(key.name(), name);
            assert_eq!(key.name().parse::<Key>().unwrap(), key);
        }
    }

    #[test]
    fn keys_pressed_on_the_screen_type_what_a_terminal_would() {
        let press = |key, ctrl, alt_or_meta| {
            Pressed {
                key,
                ctrl,
                alt_or_meta,
            }
            .typed()
        };
        assert_eq!(press("ArrowUp", false, false), Some(Typed::Key(Key::Up)));
        assert_eq!(press("Escape", false, false), Some(Typed::Key(Key::Esc)));
        assert_eq!(
            press("C", true, false),
            Some(Typed::Key(Key::Ctrl(3))),
            "Ctrl-C, shifted or not"
        );
        assert_eq!(press("]", true, false), Some(Typed::Key(Key::Ctrl(0x1d))));
        assert_eq!(press("é", false, false), Some(Typed::Text("é".into())));
        assert_eq!(press("r", false, true), None, "the page's shortcut");
        assert_eq!(press("Shift", false, false), None);
        assert_eq!(press("F5", true, false), None);
        // Every name the page can send is one the shell accepts.
        for key in [
            "Enter",
            "Tab",
            "Backspace",
            "Home",
            "End",
            "PageUp",
            "PageDown",
            "Delete",
            "ArrowDown",
            "ArrowLeft",
            "ArrowRight",
        ] {
            let Some(Typed::Key(named)) = press(key, false, false) else {
                panic!("{key} types a key");
            };
            assert_eq!(named.name().parse::<Key>(), Ok(named));
        }
    }
}
