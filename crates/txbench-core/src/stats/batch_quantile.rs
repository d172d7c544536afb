//! Confidence intervals of a percentile from batches of the run (the batch
//! quantile method; Seila, "A batching approach to quantile estimation in
//! regenerative simulations", Management Science 28(5), 1982).
//!
//! The window is cut into `b` consecutive batches of whole seconds, the
//! percentile is estimated in each, and the spread of those estimates gives
//! the interval around the estimate from all the data:
//! `x ± t(0.975, b - 1) · s / √b`. Consecutive latencies are correlated (they
//! queue behind each other), but batches seconds long are nearly independent
//! of each other, so nothing has to be thinned away and a run of a million
//! transactions uses them all.

use hdrhistogram::Histogram;

use super::Z95;

/// Fewest batches an interval is computed from.
pub const MIN_BATCHES: usize = 10;
/// Most batches: more narrow the interval little and shorten the batches.
pub const MAX_BATCHES: usize = 30;
/// Latencies each batch must expect beyond the percentile (`n (1 - p) / b`):
/// a batch's estimate of p99 from a handful of values would say little.
pub const MIN_TAIL: f64 = 10.0;

/// How many batches quantile `p` of `n` latencies, kept in `segments`
/// consecutive segments, supports; `None` when fewer than [`MIN_BATCHES`]
/// (for p99 that takes 10,000 latencies and ten segments).
pub fn batches(n: u64, p: f64, segments: usize) -> Option<usize> {
    let by_tail = (n as f64 * (1.0 - p) / MIN_TAIL).floor() as usize;
    let b = by_tail.min(MAX_BATCHES).min(segments);
    (b >= MIN_BATCHES).then_some(b)
}

/// Consecutive `segments` added into `b` batches of as equal a number of
/// segments as they divide into (`b` at most the segments).
pub fn group(segments: &[&Histogram<u64>], b: usize) -> Vec<Histogram<u64>> {
    let s = segments.len();
    (0..b)
        .filter_map(|i| {
            let part = &segments[i * s / b..(i + 1) * s / b];
            let (first, rest) = part.split_first()?;
            let mut batch = (*first).clone();
            for h in rest {
                // Segments share their bounds: adding cannot fail.
                let _ = batch.add(*h);
            }
            Some(batch)
        })
        .collect()
}

/// The 95% interval around `point`, the percentile estimated from all the
/// data, given the same percentile estimated in each batch; `None` with fewer
/// than [`MIN_BATCHES`] estimates. Never narrower than `resolution` either
/// side (the histograms' own precision at `point`). Batches that are still
/// correlated with their neighbours (a run that drifts slowly) carry less
/// information than their number says: the interval is widened by
/// [`widening`] for it.
pub fn interval(estimates: &[f64], point: f64, resolution: f64) -> Option<(f64, f64)> {
    let (_, high) = interval_independent(estimates, point, 0.0)?;
    let half = ((high - point) * widening(estimates)).max(resolution);
    Some(((point - half).max(0.0), point + half))
}

/// [`interval`] for batches taken as independent, without widening.
pub fn interval_independent(estimates: &[f64], point: f64, resolution: f64) -> Option<(f64, f64)> {
    if estimates.len() < MIN_BATCHES {
        return None;
    }
    let half = student_mean(estimates).1.max(resolution);
    Some(((point - half).max(0.0), point + half))
}

/// The mean of `values` (two or more) and the half-width of its Student
/// 95% interval, the values taken as independent.
pub fn student_mean(values: &[f64]) -> (f64, f64) {
    let b = values.len();
    let n = b as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, student_t975(b - 1) * (variance / n).sqrt())
}

/// Most lag-1 correlation credited: beyond it the batches say little, and
/// the widening stops at about 6.2.
pub const MAX_CORRELATION: f64 = 0.95;

/// How much wider the interval of a mean of `estimates` must be when
/// neighbouring batches are positively correlated: `sqrt((1 + r) / (1 - r))`
/// with `r` their lag-1 correlation, the variance of a mean of a first-order
/// autoregressive series against an independent one; 1 when `r <= 0`.
pub fn widening(estimates: &[f64]) -> f64 {
    widening_for(lag1_correlation(estimates))
}

/// [`widening`] for a lag-1 correlation `r` already known.
pub fn widening_for(r: f64) -> f64 {
    let r = r.clamp(0.0, MAX_CORRELATION);
    ((1.0 + r) / (1.0 - r)).sqrt()
}

/// The lag-1 (Pearson) autocorrelation of a series about its mean; 0 for a
/// constant or too short one.
pub fn lag1_correlation(x: &[f64]) -> f64 {
    let n = x.len();
    if n < 3 {
        return 0.0;
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let var: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    if var <= 0.0 {
        return 0.0;
    }
    let cov: f64 = x.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum();
    cov / var
}

/// Student's t distribution's 97.5% point with `df` degrees of freedom, by the
/// Cornish-Fisher expansion around the normal's (within 0.02% of the tables
/// from 9 degrees of freedom on).
pub fn student_t975(df: usize) -> f64 {
    let z = Z95;
    let v = df.max(1) as f64;
    let g1 = (z.powi(3) + z) / 4.0;
    let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
    let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
    z + g1 / v + g2 / v.powi(2) + g3 / v.powi(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_matches_the_tables() {
        // Tables: t(0.975; 9) = 2.2622, 19: 2.0930, 29: 2.0452.
        for (df, table) in [(9, 2.2622), (19, 2.0930), (29, 2.0452)] {
            let t = student_t975(df);
            assert!((t - table).abs() / table < 2e-4, "df {df}: {t} vs {table}");
        }
    }

    #[test]
    fn batches_need_ten_values_beyond_the_percentile_in_each() {
        assert_eq!(batches(10_000, 0.99, 60), Some(10));
        assert_eq!(batches(9_999, 0.99, 60), None);
        assert_eq!(batches(1_000_000, 0.99, 60), Some(30));
        // A short run has too few segments to batch.
        assert_eq!(batches(1_000_000, 0.5, 9), None);
    }

    #[test]
    fn the_interval_is_t_times_the_standard_error_of_the_batches() {
        // Ten estimates 1..=10: mean 5.5, s = 3.0277, s/sqrt(10) = 0.9574.
        let estimates: Vec<f64> = (1..=10).map(f64::from).collect();
        let (low, high) = interval_independent(&estimates, 5.0, 0.0).unwrap();
        let half = 2.2622 * 0.957_427;
        assert!((high - 5.0 - half).abs() < 1e-3, "{low} {high}");
        assert!((5.0 - low - half).abs() < 1e-3, "{low} {high}");
        // A steady climb is correlated batch to batch: wider.
        let climbing: Vec<f64> = (1..=10).map(f64::from).collect();
        let alternating: Vec<f64> = (1..=10).map(|i| [1.0, 10.0][i % 2]).collect();
        assert!(widening(&climbing) > 2.0);
        assert_eq!(widening(&alternating), 1.0);
        let (_, wide) = interval(&climbing, 5.0, 0.0).unwrap();
        let (_, narrow) = interval_independent(&climbing, 5.0, 0.0).unwrap();
        assert!((wide - 5.0) > 2.0 * (narrow - 5.0), "{wide} {narrow}");
        // Identical batches: the histograms' resolution, not zero.
        let same = [4.0; 10];
        let (low, high) = interval(&same, 4.0, 0.004).unwrap();
        assert!((low - 3.996).abs() < 1e-12 && (high - 4.004).abs() < 1e-12);
        assert_eq!(interval(&same[..9], 4.0, 0.004), None);
    }

    #[test]
    fn grouping_keeps_every_latency_in_time_order() {
        let segments: Vec<Histogram<u64>> = (1..=25u64)
            .map(|v| {
                let mut h = Histogram::new(3).unwrap();
                h.record(v).unwrap();
                h
            })
            .collect();
        let refs: Vec<&Histogram<u64>> = segments.iter().collect();
        let batches = group(&refs, 10);
        assert_eq!(batches.len(), 10);
        assert_eq!(batches.iter().map(Histogram::len).sum::<u64>(), 25);
        assert!(batches.windows(2).all(|w| w[0].max() < w[1].min()));
    }
}
