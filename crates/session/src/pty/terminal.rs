//! The user's side: their terminal in raw mode, its size, and what they
//! type read on a thread of its own.

use std::{io::Read, sync::mpsc::Sender, time::Instant};

use portable_pty::PtySize;

use super::Event;

/// The terminal in raw mode while the guard lives (when stdin is one), so
/// each key goes on as typed and the program's echo is the only echo.
pub struct RawMode {
    saved: Option<nix::sys::termios::Termios>,
}

impl RawMode {
    /// Enters raw mode; does nothing when stdin is not a terminal.
    pub fn enter() -> Self {
        use nix::sys::termios::{SetArg, cfmakeraw, tcgetattr, tcsetattr};
        let stdin = std::io::stdin();
        let Ok(saved) = tcgetattr(&stdin) else {
            return Self { saved: None };
        };
        let mut raw = saved.clone();
        cfmakeraw(&mut raw);
        if tcsetattr(&stdin, SetArg::TCSANOW, &raw).is_err() {
            return Self { saved: None };
        }
        Self { saved: Some(saved) }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        use nix::sys::termios::{SetArg, tcsetattr};
        if let Some(saved) = &self.saved {
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, saved);
        }
    }
}

/// The size of the user's terminal (stdout's, else stdin's), or 24×80.
pub fn size() -> PtySize {
    let (cols, rows) = terminal_size::terminal_size()
        .or_else(|| terminal_size::terminal_size_of(std::io::stdin()))
        .map_or((80, 24), |(width, height)| (width.0, height.0));
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

/// Reads stdin on a thread of its own, each read sent as
/// [`Event::Typed`]; an empty one when stdin closes.
pub fn forward_stdin(events: Sender<Event>) {
    on_stdin(move |bytes| {
        events
            .send(Event::Typed(bytes.to_vec(), Instant::now()))
            .is_ok()
    });
}

/// Calls `each` with every read of stdin, on a thread of its own (an empty
/// read when stdin closes, then no more), until it returns `false`.
pub fn on_stdin(mut each: impl FnMut(&[u8]) -> bool + Send + 'static) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buffer = [0_u8; 4096];
        loop {
            let read = match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => 0,
                Ok(read) => read,
            };
            if !each(&buffer[..read]) || read == 0 {
                return;
            }
        }
    });
}

/// Sends [`Event::Resized`] each time the user's terminal changes size
/// (`SIGWINCH`), so the program's follows at once, not at the next key.
pub fn forward_resizes(events: Sender<Event>) {
    on_resize(move || events.send(Event::Resized).is_ok());
}

/// Calls `each` on a thread of its own each time the user's terminal
/// changes size (`SIGWINCH`), until it returns `false`.
pub fn on_resize(mut each: impl FnMut() -> bool + Send + 'static) {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGWINCH])
    else {
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if !each() {
                return;
            }
        }
    });
}
