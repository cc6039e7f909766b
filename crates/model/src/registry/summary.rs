//! What waits in "All workspaces", summed up for the places that only
//! point there: the inbox's bar of questions waiting in other workspaces,
//! and the count in a window's or a browser tab's title.

use super::WorkspaceAttention;

/// The questions waiting in the other workspaces of `lines`, in words for
/// the inbox's bar ("1 question waits in another workspace: api"); none
/// when nothing waits elsewhere.
pub fn waiting_elsewhere(lines: &[WorkspaceAttention]) -> Option<String> {
    let others: Vec<(&str, usize)> = lines
        .iter()
        .filter(|line| !line.current && !line.questions.is_empty())
        .map(|line| (line.name.as_str(), line.questions.len()))
        .collect();
    let questions: usize = others.iter().map(|(_, count)| count).sum();
    let named = |(name, count): &(&str, usize)| {
        if *count == 1 || others.len() == 1 {
            (*name).to_owned()
        } else {
            format!("{name} ({count})")
        }
    };
    let names: Vec<String> = others.iter().map(named).collect();
    match (questions, others.len()) {
        (0, _) => None,
        (1, _) => Some(format!(
            "1 question waits in another workspace: {}",
            names.join(", ")
        )),
        (count, 1) => Some(format!(
            "{count} questions wait in another workspace: {}",
            names.join(", ")
        )),
        (count, workspaces) => Some(format!(
            "{count} questions wait in {workspaces} other workspaces: {}",
            names.join(", ")
        )),
    }
}

/// How many things wait on the developer in every workspace of `lines`,
/// this one's included: the count a title shows.
pub fn waiting_everywhere(lines: &[WorkspaceAttention]) -> usize {
    lines.iter().map(WorkspaceAttention::waiting).sum()
}

#[cfg(test)]
mod tests {
    use super::super::tests::line;
    use super::*;

    #[test]
    fn questions_waiting_elsewhere_are_named_with_their_workspaces() {
        assert_eq!(waiting_elsewhere(&[line("here", true, 2)]), None);
        assert_eq!(
            waiting_elsewhere(&[line("here", true, 0), line("api", false, 1)]).as_deref(),
            Some("1 question waits in another workspace: api")
        );
        assert_eq!(
            waiting_elsewhere(&[line("api", false, 2), line("web", false, 1)]).as_deref(),
            Some("3 questions wait in 2 other workspaces: api (2), web")
        );
        assert_eq!(
            waiting_everywhere(&[line("here", true, 1), line("api", false, 2)]),
            3
        );
    }
}
