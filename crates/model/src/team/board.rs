//! A team as the board shows it: config, tasks, inboxes, and the files
//! that could not be read.

use serde::{Deserialize, Serialize};

use super::{Message, Task, TeamConfig, TeamSource};

/// A file that does not parse or breaks the plugin's schema. It is listed,
/// never rewritten, and the rest of the board still shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileProblem {
    /// The file.
    pub path: String,
    /// Why it was not read.
    pub reason: String,
}

/// One member's inbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inbox {
    /// The agent it belongs to.
    pub agent: String,
    /// Its messages, oldest first.
    pub messages: Vec<Message>,
}

impl Inbox {
    /// How many messages are unread.
    pub fn unread(&self) -> usize {
        self.messages.iter().filter(|message| !message.read).count()
    }
}

/// A team with everything on its board.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamBoard {
    /// Whose files these are; only opencode-teams' are changed from here.
    #[serde(default)]
    pub source: TeamSource,
    /// The team's config.
    pub config: TeamConfig,
    /// Its tasks, by file name (the plugin's order).
    pub tasks: Vec<Task>,
    /// Its members' inboxes that exist.
    pub inboxes: Vec<Inbox>,
    /// Files that could not be read.
    pub problems: Vec<FileProblem>,
}
