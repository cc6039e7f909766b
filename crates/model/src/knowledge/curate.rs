//! The curator's view of a playbook: bullets worth pruning (low utility
//! after enough votes) and likely duplicates (similar wording).

use serde::{Deserialize, Serialize};

use super::playbook::{Bullet, PRUNE_AFTER_VOTES, PRUNE_BELOW};

/// Wording similarity from which two bullets count as likely duplicates
/// (Delia's curator threshold).
pub const DUPLICATE_SIMILARITY: f64 = 0.85;

/// Whether `bullet` is a prune candidate.
pub fn is_prune_candidate(bullet: &Bullet) -> bool {
    bullet.votes() >= PRUNE_AFTER_VOTES && bullet.utility() < PRUNE_BELOW
}

/// Two bullets that say nearly the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Duplicate {
    /// The first bullet's index.
    pub first: usize,
    /// The second bullet's index.
    pub second: usize,
    /// Their similarity, 0–1.
    pub similarity: f64,
}

fn normalized(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Pairs of `bullets` whose wording is at least [`DUPLICATE_SIMILARITY`]
/// alike (Sørensen–Dice over letter pairs, ignoring case and punctuation),
/// most similar first.
pub fn duplicates(bullets: &[Bullet]) -> Vec<Duplicate> {
    let texts: Vec<String> = bullets.iter().map(|b| normalized(b.text())).collect();
    let mut pairs = Vec::new();
    for first in 0..texts.len() {
        for second in first + 1..texts.len() {
            if texts[first].is_empty() || texts[second].is_empty() {
                continue;
            }
            let similarity = strsim::sorensen_dice(&texts[first], &texts[second]);
            if similarity >= DUPLICATE_SIMILARITY {
                pairs.push(Duplicate {
                    first,
                    second,
                    similarity,
                });
            }
        }
    }
    pairs.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
    pairs
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    fn bullet(content: &str, helpful: u32, harmful: u32) -> Bullet {
        let mut bullet: Bullet =
            serde_json::from_value(serde_json::json!({"id": "x", "content": content})).unwrap();
        bullet.helpful_count = helpful;
        bullet.harmful_count = harmful;
        bullet
    }

    #[test]
    fn prune_needs_low_utility_and_enough_votes() {
        assert!(is_prune_candidate(&bullet("a", 1, 4)));
        assert!(!is_prune_candidate(&bullet("a", 0, 4)), "too few votes yet");
        assert!(!is_prune_candidate(&bullet("a", 4, 1)));
    }

    #[test]
    fn near_identical_wording_is_flagged() {
        let bullets = [
            bullet("Use pathlib.Path over os.path", 0, 0),
            bullet("Use pathlib.Path over os.path.", 0, 0),
            bullet("use Pathlib Path over os path!", 0, 0),
            bullet("Mock the clock in time-based tests", 0, 0),
        ];
        let pairs = duplicates(&bullets);
        let found: Vec<_> = pairs.iter().map(|d| (d.first, d.second)).collect();
        assert_eq!(found.len(), 3, "{pairs:?}");
        assert!(found.contains(&(0, 1)) && found.contains(&(0, 2)) && found.contains(&(1, 2)));
        assert!(!found.iter().any(|(a, b)| *a == 3 || *b == 3));
    }
}
