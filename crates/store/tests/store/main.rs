//! Integration tests of `switchboard-store` on real temp folders.

mod watch;
