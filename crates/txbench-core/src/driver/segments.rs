//! The window's latencies in time order, per transaction type: consecutive
//! segments of whole ticks (seconds), for the batch intervals of the
//! percentiles ([`crate::stats::batch_quantile`]). A long run's segments are
//! merged pairwise as it goes, so their number stays between
//! `MAX_SEGMENTS / 2` and [`MAX_SEGMENTS`] and every latency stays in.

use hdrhistogram::Histogram;

use crate::recorder::{Recorder, new_histogram};

/// Most segments kept: enough for 30 batches of at least two segments.
pub const MAX_SEGMENTS: usize = 64;

/// Segments of the window being filled, one tick at a time.
#[derive(Debug, Default)]
pub struct Segments {
    /// Per segment, per type, the latencies (µs) completed in it.
    done: Vec<Vec<Histogram<u64>>>,
    /// Ticks per segment.
    ticks: usize,
    /// Ticks in the last segment so far.
    filled: usize,
}

impl Segments {
    /// Add a tick's completed latencies, in time order.
    pub fn add(&mut self, interval: &Recorder) {
        self.ticks = self.ticks.max(1);
        if self.done.is_empty() || self.filled == self.ticks {
            if self.done.len() == MAX_SEGMENTS {
                self.halve();
            }
            let types = interval.measured.len();
            self.done
                .push((0..types).map(|_| new_histogram()).collect());
            self.filled = 0;
        }
        let last = self.done.last_mut().expect("a segment was just ensured");
        for (segment, t) in last.iter_mut().zip(&interval.measured) {
            if !t.latency.is_empty() {
                // Same bounds: adding cannot fail.
                let _ = segment.add(&t.latency);
            }
        }
        self.filled += 1;
    }

    /// Merge neighbouring segments pairwise: half as many, twice as long. Only
    /// called when every segment is full and their number is even.
    fn halve(&mut self) {
        let done = std::mem::take(&mut self.done);
        let mut pairs = done.into_iter();
        while let (Some(mut a), Some(b)) = (pairs.next(), pairs.next()) {
            for (x, y) in a.iter_mut().zip(&b) {
                let _ = x.add(y);
            }
            self.done.push(a);
        }
        self.ticks *= 2;
    }

    /// The segments, each per type, in time order.
    pub fn into_vec(self) -> Vec<Vec<Histogram<u64>>> {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(value_us: u64) -> Recorder {
        let mut r = Recorder::new(2);
        r.measured[0].latency.record(value_us).unwrap();
        r
    }

    #[test]
    fn a_long_run_is_merged_pairwise_and_loses_nothing() {
        let mut s = Segments::default();
        for v in 1..=200 {
            s.add(&tick(v));
        }
        let done = s.into_vec();
        // 200 ticks: 64 of one, then 32 of two, then 32 of four: 50 of four.
        assert_eq!(done.len(), 50);
        assert_eq!(done.iter().map(|d| d[0].len()).sum::<u64>(), 200);
        assert!(done.windows(2).all(|w| w[0][0].max() < w[1][0].min()));
        assert_eq!((done[0][0].min(), done[0][0].max()), (1, 4));
    }
}
