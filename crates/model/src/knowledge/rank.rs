//! Ranking knowledge for prompts as Delia does: text relevance ×
//! utility^0.5 × recency^0.3, recency halving every 30 days.

/// Days after which recency is one half.
pub const HALF_LIFE_DAYS: f64 = 30.0;

/// Utility used for ranking: the seed's `helpful / (helpful + harmful + 1)`
/// once there are votes, and a neutral 0.5 before (so new knowledge and
/// learnings, which have no votes, still rank).
pub fn ranking_utility(helpful: u32, harmful: u32) -> f64 {
    if helpful == 0 && harmful == 0 {
        0.5
    } else {
        f64::from(helpful) / (f64::from(helpful) + f64::from(harmful) + 1.0)
    }
}

/// `0.5^(age / 30 days)`; knowledge from the future counts as new.
pub fn recency(age_days: f64) -> f64 {
    0.5_f64.powf(age_days.max(0.0) / HALF_LIFE_DAYS)
}

/// The combined score.
pub fn score(relevance: f64, utility: f64, age_days: f64) -> f64 {
    relevance * utility.max(0.0).sqrt() * recency(age_days).powf(0.3)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)] // Tests read the files they made.
    use super::*;

    #[test]
    fn the_formula_weighs_relevance_utility_and_age() {
        assert_eq!(recency(0.0), 1.0);
        assert!((recency(30.0) - 0.5).abs() < 1e-12);
        assert_eq!(recency(-5.0), 1.0);
        assert_eq!(ranking_utility(0, 0), 0.5);
        assert_eq!(ranking_utility(3, 0), 0.75);
        let fresh = score(2.0, 0.75, 0.0);
        assert!((fresh - 2.0 * 0.75_f64.sqrt()).abs() < 1e-12);
        assert!(score(2.0, 0.75, 60.0) < fresh, "older ranks lower");
        assert!(score(2.0, 0.25, 0.0) < fresh, "less useful ranks lower");
        assert!(score(1.0, 0.75, 0.0) < fresh, "less relevant ranks lower");
        assert_eq!(score(3.0, 0.0, 0.0), 0.0, "proven harmful never ranks");
    }
}
