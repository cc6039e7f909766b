//! What a paired browser may do beyond reading, answering and watching:
//! the developer's grants (Settings), and the sentences a browser's page
//! shows up front for what it may not do — never after a form was filled.

use serde::{Deserialize, Serialize};

use crate::settings::Settings;

/// What the developer lets paired browsers do beyond reading, answering
/// and watching (Settings: `browserTakeOver`, `browserStart`,
/// `browserUnattended`), each a capability.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grants {
    /// Type into program sessions — any key, so a shell command or a
    /// slash command into an agent's too —, take them over and hand them
    /// back, end them.
    pub take_over: bool,
    /// Start agents and type follow-up prompts into them (words only),
    /// stop them.
    pub start: bool,
    /// Start agents in a mode that acts without asking.
    pub unattended: bool,
}

/// The Settings line that allows taking program sessions over.
pub const TAKE_OVER_SETTING: &str = "Paired browsers may take program sessions over";

/// The Settings line that allows starting agents.
pub const START_SETTING: &str = "Paired browsers may start agents";

/// The Settings line that allows modes that act without asking.
pub const UNATTENDED_SETTING: &str = "Paired browsers may start agents that act without asking";

/// What a browser never does, whatever the grants: said on its page up
/// front.
pub const WINDOW_ONLY: &str = "The chat, knowledge and settings are the window's alone: use the \
     Switchboard window on the machine for them.";

impl Grants {
    /// The grants `settings` give.
    pub fn of(settings: &Settings) -> Self {
        Self {
            take_over: settings.browser_take_over,
            start: settings.browser_start,
            unattended: settings.browser_unattended,
        }
    }

    /// What a browser with these grants may do, one sentence each.
    pub fn allowed(&self) -> Vec<String> {
        let mut allowed = vec![
            "Read and answer the inbox (questions, permission requests, forms, comments), \
             this workspace's and those waiting in the other workspaces."
                .to_owned(),
            "Watch the agents, the team, tapes and program sessions.".to_owned(),
        ];
        if self.start {
            allowed.push(if self.unattended {
                "Start agents, in any permission mode, type follow-up prompts into them and \
                 stop them."
                    .to_owned()
            } else {
                "Start agents that ask before they act, type follow-up prompts into them and \
                 stop them."
                    .to_owned()
            });
        }
        if self.take_over {
            allowed.push(
                "Take program sessions over: type anything into them, hand them back, end them."
                    .to_owned(),
            );
        }
        allowed
    }

    /// What a browser with these grants may not do, each with where the
    /// developer allows it.
    pub fn withheld(&self) -> Vec<String> {
        let mut withheld = Vec::new();
        if !self.start {
            withheld.push(format!(
                "Starting agents: allowed in the window's Settings (\"{START_SETTING}\")."
            ));
        } else if !self.unattended {
            withheld.push(format!(
                "Starting agents that act without asking: allowed in the window's Settings \
                 (\"{UNATTENDED_SETTING}\")."
            ));
        }
        if !self.take_over {
            withheld.push(format!(
                "Taking program sessions over (typing into them, ending them): allowed in the \
                 window's Settings (\"{TAKE_OVER_SETTING}\")."
            ));
        }
        withheld.push(WINDOW_ONLY.to_owned());
        withheld
    }

    /// Why a browser may not start agents, if it may not: shown where New
    /// agent would be.
    pub fn why_not_start(&self) -> Option<String> {
        (!self.start).then(|| {
            format!(
                "Starting agents from a browser is off: the window's Settings allow it \
                 (\"{START_SETTING}\")."
            )
        })
    }

    /// Why a browser may not take program sessions over, if it may not:
    /// shown where Take over would be.
    pub fn why_not_take_over(&self) -> Option<String> {
        (!self.take_over).then(|| {
            format!(
                "This browser watches program sessions only: taking one over is allowed in the \
                 window's Settings (\"{TAKE_OVER_SETTING}\")."
            )
        })
    }
}

/// The command a page served to a browser asks what it may do with
/// (`switchboard serve` only: the window's page never calls it, so it is
/// not among [`crate::ipc::COMMANDS`]). Response: [`BrowserInfo`].
pub const BROWSER_INFO: &str = "browser_info";

/// What the page of a paired browser asks once it starts (and again when
/// its connection comes back): what it may do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrowserInfo {
    /// The developer's grants, as the settings hold them now.
    pub grants: Grants,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_is_told_up_front_what_it_may_not_do_and_where_that_is_allowed() {
        let none = Grants::default();
        let withheld = none.withheld().join(" ");
        for said in [START_SETTING, TAKE_OVER_SETTING, "chat"] {
            assert!(withheld.contains(said), "{said} in {withheld}");
        }
        assert!(none.why_not_start().unwrap().contains(START_SETTING));
        assert!(
            none.why_not_take_over()
                .unwrap()
                .contains(TAKE_OVER_SETTING)
        );
        let all = Grants {
            take_over: true,
            start: true,
            unattended: true,
        };
        assert_eq!(all.withheld(), vec![WINDOW_ONLY.to_owned()]);
        assert_eq!(all.why_not_start(), None);
        assert_eq!(all.why_not_take_over(), None);
        assert_eq!(all.allowed().len(), 4);
        let start = Grants {
            start: true,
            ..Grants::default()
        };
        assert!(start.withheld().join(" ").contains(UNATTENDED_SETTING));
        for sentence in none.withheld().iter().chain(&all.allowed()) {
            assert!(
                !sentence.contains('_'),
                "no internal name in what a person reads: {sentence}"
            );
        }
        let settings = Settings {
            browser_start: true,
            ..Settings::default()
        };
        assert_eq!(Grants::of(&settings), start);
    }
}
