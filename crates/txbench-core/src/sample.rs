//! A bounded, uniform sample of a run's latencies with their send times
//! (reservoir sampling), for the statistics that need individual values in send
//! order: percentile intervals, independence and stationarity. The histograms stay
//! the source of the percentiles themselves.

use crate::rng::Rand;

/// One measured transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Intended start, microseconds after the start of the measurement window.
    pub intended_us: u64,
    /// Latency from the intended start, microseconds.
    pub latency_us: u64,
    /// Transaction type.
    pub txn_type: u16,
}

/// A uniform sample of at most `capacity` items from a stream (algorithm R).
#[derive(Debug, Clone)]
pub struct Reservoir {
    capacity: usize,
    seen: u64,
    items: Vec<Sample>,
    rng: Rand,
}

impl Reservoir {
    /// An empty reservoir.
    pub fn new(capacity: usize, seed: u64) -> Self {
        Reservoir {
            capacity,
            seen: 0,
            items: Vec::with_capacity(capacity.min(1 << 16)),
            rng: Rand::new(seed),
        }
    }

    /// Offer one item.
    pub fn offer(&mut self, s: Sample) {
        self.seen += 1;
        if self.items.len() < self.capacity {
            self.items.push(s);
        } else {
            let j = self.rng.uniform(0, self.seen as i64 - 1) as u64;
            if (j as usize) < self.capacity {
                self.items[j as usize] = s;
            }
        }
    }

    /// Items offered so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// The sample, in no particular order.
    pub fn into_items(self) -> Vec<Sample> {
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_uniform_sample() {
        let mut r = Reservoir::new(1000, 1);
        for i in 0..100_000u64 {
            r.offer(Sample {
                intended_us: i,
                latency_us: i,
                txn_type: 0,
            });
        }
        assert_eq!(r.seen(), 100_000);
        let items = r.into_items();
        assert_eq!(items.len(), 1000);
        let mean = items.iter().map(|s| s.intended_us as f64).sum::<f64>() / 1000.0;
        // Uniform over 0..100000: mean 50000, sd of the mean about 913.
        assert!((45_000.0..55_000.0).contains(&mean), "mean {mean}");
    }
}
