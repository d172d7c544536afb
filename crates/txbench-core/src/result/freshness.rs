//! The result of a run whose readers probed how fresh their data was
//! ([`crate::freshness`]): each look in the window, and what they add up to.

use serde::{Deserialize, Serialize};

/// A run's looks at the freshness of what its readers saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FreshnessResult {
    /// What a reader compared against: the acknowledged transactions of one
    /// kind ("New-Order").
    pub of: String,
    /// Looks in the window.
    pub rounds: u64,
    /// Looks that could not see everything acknowledged before them.
    pub stale_rounds: u64,
    /// The mean age (ms) over the looks, a fresh one counting 0.
    pub age_mean_ms: f64,
    /// The largest age (ms).
    pub age_max_ms: f64,
    /// The mean count of unseen acknowledged transactions over the looks.
    pub unseen_mean: f64,
    /// The largest count of unseen acknowledged transactions.
    pub unseen_max: u64,
    /// Each look, in the order they were taken.
    pub looks: Vec<Look>,
}

/// One reader's look at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Look {
    /// When it was taken, seconds from the window's start.
    pub at_s: f64,
    /// The reader (an analytical stream's number).
    pub stream: u32,
    /// The reader's round (0 is its first).
    pub round: u32,
    /// Acknowledged transactions it could not see.
    pub unseen: u64,
    /// How long before the look the oldest of them was acknowledged (ms);
    /// 0 when it saw them all.
    pub age_ms: f64,
}

impl FreshnessResult {
    /// The figures of `looks` (those in the window, in order), of
    /// transactions `of`; `None` without a look.
    pub fn of(of: &str, looks: Vec<Look>) -> Option<FreshnessResult> {
        if looks.is_empty() {
            return None;
        }
        let n = looks.len() as f64;
        let ages = looks.iter().map(|l| l.age_ms);
        Some(FreshnessResult {
            of: of.to_string(),
            rounds: looks.len() as u64,
            stale_rounds: looks.iter().filter(|l| l.unseen > 0).count() as u64,
            age_mean_ms: ages.clone().sum::<f64>() / n,
            age_max_ms: ages.fold(0.0, f64::max),
            unseen_mean: looks.iter().map(|l| l.unseen as f64).sum::<f64>() / n,
            unseen_max: looks.iter().map(|l| l.unseen).max().unwrap_or(0),
            looks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(unseen: u64, age_ms: f64) -> Look {
        Look {
            at_s: 1.0,
            stream: 0,
            round: 0,
            unseen,
            age_ms,
        }
    }

    #[test]
    fn the_figures_are_over_every_look_fresh_ones_counting_as_age_zero() {
        let r = FreshnessResult::of(
            "New-Order",
            vec![look(0, 0.0), look(4, 30.0), look(2, 60.0)],
        )
        .unwrap();
        assert_eq!((r.rounds, r.stale_rounds, r.unseen_max), (3, 2, 4));
        assert_eq!(
            (r.age_mean_ms, r.age_max_ms, r.unseen_mean),
            (30.0, 60.0, 2.0)
        );
        assert_eq!(FreshnessResult::of("New-Order", Vec::new()), None);
    }
}
