//! An expect-style client: a command on a real pseudo-terminal, its screen
//! read on a thread, keys typed into it.

use std::{
    io::{Read, Write},
    path::Path,
    sync::mpsc,
    time::{Duration, Instant},
};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// A pseudo-terminal with a `switchboard` command on it, driven as an
/// expect-style client drives a program.
pub struct Terminal {
    writer: Box<dyn Write + Send>,
    output: mpsc::Receiver<Vec<u8>>,
    pub seen: String,
    /// Every byte shown so far.
    pub transcript: Vec<u8>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Terminal {
    /// Runs `switchboard -C workspace ARGS…` in `workspace` on a 24×80
    /// pseudo-terminal, with `env` added to this process's environment.
    pub fn start(workspace: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_switchboard"));
        command.arg("-C");
        command.arg(workspace);
        command.args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        command.cwd(workspace);
        Self::spawn(command)
    }

    /// Runs `command` on a 24×80 pseudo-terminal.
    pub fn spawn(command: CommandBuilder) -> Self {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let child = pty.slave.spawn_command(command).unwrap();
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        let (sender, output) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buffer = [0_u8; 4096];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 || sender.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self {
            writer,
            output,
            seen: String::new(),
            transcript: Vec::new(),
            master: pty.master,
            child,
        }
    }

    /// Waits until the screen has shown `text` since the last expectation;
    /// returns all it showed up to and with it.
    pub fn expect(&mut self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.seen.contains(text) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(bytes) => {
                    self.seen.push_str(&String::from_utf8_lossy(&bytes));
                    self.transcript.extend_from_slice(&bytes);
                }
                Err(_) => panic!("never saw {text:?}; saw {:?}", self.seen),
            }
        }
        let at = self.seen.find(text).unwrap() + text.len();
        self.seen.drain(..at).collect()
    }

    /// Waits until the screen has shown `bytes` since the start, and
    /// nothing else.
    pub fn expect_bytes(&mut self, bytes: &[u8]) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.transcript.len() < bytes.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(read) => {
                    self.seen.push_str(&String::from_utf8_lossy(&read));
                    self.transcript.extend_from_slice(&read);
                }
                Err(_) => panic!(
                    "never saw {:?}; saw {:?}",
                    String::from_utf8_lossy(bytes),
                    String::from_utf8_lossy(&self.transcript)
                ),
            }
        }
        assert_eq!(
            String::from_utf8_lossy(&self.transcript[..bytes.len()]),
            String::from_utf8_lossy(bytes)
        );
    }

    /// Resizes the terminal (the program gets `SIGWINCH`).
    pub fn resize(&self, rows: u16, cols: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }

    /// Waits until the command has put the terminal in raw mode (echo
    /// off), as a program does before it reads keys.
    pub fn wait_raw(&self) {
        let echo = nix::sys::termios::LocalFlags::ECHO.bits();
        let deadline = Instant::now() + Duration::from_secs(20);
        while self
            .master
            .get_termios()
            .is_some_and(|termios| termios.local_flags.bits() & echo != 0)
        {
            assert!(
                Instant::now() < deadline,
                "the terminal never left echo mode"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Types `bytes` (which need not be UTF-8).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// Types `keys`.
    pub fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    /// Reads the screen until the command ends and closes the terminal;
    /// returns its exit status.
    pub fn finish(&mut self) -> u32 {
        while let Ok(bytes) = self.output.recv_timeout(Duration::from_secs(20)) {
            self.seen.push_str(&String::from_utf8_lossy(&bytes));
            self.transcript.extend_from_slice(&bytes);
        }
        self.child.wait().unwrap().exit_code()
    }
}
