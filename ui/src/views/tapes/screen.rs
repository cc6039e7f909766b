//! The player's terminal: avt (the emulator inside asciinema's player)
//! fed the tape's frames up to a position, drawn by
//! [`crate::views::terminal`].

use switchboard_model::tape::view::TapeView;

/// A terminal at some position of a tape: fed forward as the player moves
/// on, rebuilt from the start when it steps back.
pub struct Screen {
    id: String,
    at: usize,
    terminal: avt::Terminal,
}

impl Screen {
    fn fresh(tape: &TapeView) -> Self {
        let terminal = avt::Terminal::new(usize::from(tape.cols), usize::from(tape.rows))
            .or_else(|_| avt::Terminal::new(80, 24))
            .unwrap_or_else(|_| unreachable!("80×24 is a valid size"));
        Self {
            id: tape.summary.id.clone(),
            at: 0,
            terminal,
        }
    }

    /// `cached` moved to frame `at` of `tape` (the frames before it shown).
    pub fn at(cached: Option<Self>, tape: &TapeView, at: usize) -> Self {
        let mut screen = match cached {
            Some(screen) if screen.id == tape.summary.id && screen.at <= at => screen,
            _ => Self::fresh(tape),
        };
        let end = at.min(tape.frames.len());
        for frame in &tape.frames[screen.at.min(end)..end] {
            screen.terminal.feed(frame.text.as_str());
        }
        screen.at = end;
        screen
    }

    /// The rows, each a list of (text, CSS style) runs (see
    /// [`crate::views::terminal::styled_rows`]).
    pub fn rows(&self) -> Vec<Vec<(String, String)>> {
        crate::views::terminal::styled_rows(&self.terminal)
    }

    /// The screen's text, row by row (for tests and search).
    pub fn text(&self) -> String {
        self.terminal
            .screen()
            .visible_lines()
            .map(|line| line.text().trim_end().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    }
}
