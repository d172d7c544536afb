//! One of several client processes that split a run between them.
//!
//! A shard takes a contiguous part of the workload's scale (TPC-C's
//! warehouses, TATP's subscribers, Retwis's keys): of `1..=n` split `count`
//! ways, shard `index` takes `n*index/count + 1 ..= n*(index+1)/count`. The
//! parts are disjoint, cover `1..=n`, and differ in size by at most one, so
//! 1,000 warehouses in 4 shards give shard 2 warehouses 501..750.

use std::fmt;
use std::ops::RangeInclusive;

use thiserror::Error;

/// Why there is no such shard, or no part of the scale for it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShardError {
    /// `--shards 0`.
    #[error("--shards 0: a run has at least one shard")]
    NoShards,
    /// An index at or above the count.
    #[error("shard index {index} is not below --shards {count} (indexes run 0..{last})", last = count - 1)]
    NoSuchIndex {
        /// The index asked for.
        index: u32,
        /// The shards of the run.
        count: u32,
    },
    /// Fewer units of the scale than shards.
    #[error("{units} {unit} cannot be split into {count} shards: each shard needs at least one")]
    TooFewUnits {
        /// The units of the scale.
        units: i64,
        /// What they are ("warehouses").
        unit: String,
        /// The shards of the run.
        count: u32,
    },
    /// A workload that runs only whole.
    #[error("{workload} runs cannot be split into shards")]
    Unsplittable {
        /// The workload's name.
        workload: String,
    },
    /// The shard's part of a key space cannot be drawn from.
    #[error(transparent)]
    Keys(#[from] crate::keys::KeysError),
}

/// Shard `index` (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: u32,
    count: u32,
}

impl Shard {
    /// The whole run in one process.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count`, or why there is no such shard.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::NoShards);
        }
        if index >= count {
            return Err(ShardError::NoSuchIndex { index, count });
        }
        Ok(Shard { index, count })
    }

    /// The shard's index, 0-based.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// How many shards the run has.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Whether this process runs the whole workload.
    pub fn is_whole(&self) -> bool {
        self.count == 1
    }

    /// The part of `1..=n` this shard takes, or why it takes none (fewer units
    /// than shards).
    pub fn range(&self, n: i64, unit: &str) -> Result<RangeInclusive<i64>, ShardError> {
        if n < i64::from(self.count) {
            return Err(ShardError::TooFewUnits {
                units: n,
                unit: unit.to_string(),
                count: self.count,
            });
        }
        let (i, c) = (i64::from(self.index), i64::from(self.count));
        // i128: n * (i + 1) overflows i64 for key counts near its limit.
        let at = |k: i64| (i128::from(n) * i128::from(k) / i128::from(c)) as i64;
        Ok(at(i) + 1..=at(i + 1))
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shard {} of {}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_contiguous_disjoint_and_cover_the_scale() {
        assert_eq!(
            Shard::new(2, 4).unwrap().range(1000, "warehouses").unwrap(),
            501..=750
        );
        for (n, count) in [(1000, 4), (7, 3), (10, 10), (100_003, 7)] {
            let mut next = 1;
            for i in 0..count {
                let r = Shard::new(i, count).unwrap().range(n, "units").unwrap();
                assert_eq!(*r.start(), next);
                let len = r.end() - r.start() + 1;
                assert!(len == n / i64::from(count) || len == n / i64::from(count) + 1);
                next = r.end() + 1;
            }
            assert_eq!(next, n + 1);
        }
        assert_eq!(Shard::WHOLE.range(5, "units").unwrap(), 1..=5);
    }

    #[test]
    fn bad_shards_are_refused_by_value() {
        assert!(
            Shard::new(4, 4)
                .unwrap_err()
                .to_string()
                .contains("shard index 4")
        );
        assert!(
            Shard::new(0, 0)
                .unwrap_err()
                .to_string()
                .contains("--shards 0")
        );
        let e = Shard::new(0, 4)
            .unwrap()
            .range(3, "warehouses")
            .unwrap_err();
        assert!(e.to_string().contains("3 warehouses"), "{e}");
    }
}
