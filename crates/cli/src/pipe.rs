//! Output to a reader that left (`switchboard agents | head`): the command
//! ends at once and quietly, as a Unix filter does — by SIGPIPE — instead
//! of panicking in `println!` or reporting the broken pipe as an error.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe fails with `EPIPE`:
//! `print!` panics on it, a `writeln!` returns it. Both are caught here —
//! the panic by a panic hook, the error at the end of `main` — and only
//! when stdout itself is the closed pipe, asked of the kernel (`poll`), so
//! a broken socket or a child's pipe is still reported as the failure it
//! is. SIGPIPE stays ignored everywhere else.

use std::{io, os::fd::AsFd};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use signal_hook::{consts::SIGPIPE, low_level::emulate_default_handler};

/// Ends the process quietly when a panic is `print!`'s on a stdout whose
/// reader left; other panics go to the hook there was.
pub fn end_quietly_on_closed_stdout() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && stdout_closed() {
            end_as_closed_pipe();
        }
        previous(info);
    }));
}

/// Whether `error` is a write to a stdout whose reader left.
pub fn is_closed_stdout(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    }) && stdout_closed()
}

/// Whether nobody reads stdout any more: a pipe or socket whose other end
/// is closed reports an error or hang-up when polled.
pub fn stdout_closed() -> bool {
    let stdout = io::stdout();
    let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::POLLOUT)];
    match poll(&mut fds, PollTimeout::ZERO) {
        Ok(_) => fds[0]
            .revents()
            .is_some_and(|events| events.intersects(PollFlags::POLLERR | PollFlags::POLLHUP)),
        Err(_) => false,
    }
}

/// Ends the process as a closed pipe ends a Unix filter: by SIGPIPE
/// (status 141 in a shell), with nothing said.
pub fn end_as_closed_pipe() -> ! {
    let _ = emulate_default_handler(SIGPIPE);
    std::process::exit(128 + SIGPIPE)
}
