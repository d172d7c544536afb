//! Spearman's rank correlation, used on a latency series and itself shifted by a
//! lag: consecutive latencies that are correlated are not independent samples,
//! and intervals must then be based on samples that far apart.

use super::Z95;

/// Ranks of `values` (1-based, ties get their average rank).
pub fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rho of two equally long series (Pearson's correlation of their ranks).
pub fn rho(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        sab += (x - mean) * (y - mean);
        saa += (x - mean).powi(2);
        sbb += (y - mean).powi(2);
    }
    if saa == 0.0 || sbb == 0.0 {
        return Some(0.0);
    }
    Some(sab / (saa * sbb).sqrt())
}

/// Rho of a series with itself `lag` steps later.
pub fn autocorrelation(series: &[f64], lag: usize) -> Option<f64> {
    if lag == 0 || series.len() <= lag + 2 {
        return None;
    }
    rho(&series[..series.len() - lag], &series[lag..])
}

/// Whether rho over `n` pairs differs from 0 at the 5% level (normal approximation:
/// rho sqrt(n - 1) is about standard normal under independence).
pub fn significant(rho: f64, n: usize) -> bool {
    n > 2 && rho.abs() * ((n - 1) as f64).sqrt() > Z95
}

/// Pearson correlation of `r[..n-lag]` and `r[lag..]`.
fn lagged_pearson(r: &[f64], lag: usize) -> f64 {
    let n = r.len() - lag;
    let (a, b) = (&r[..n], &r[lag..]);
    let ma = a.iter().sum::<f64>() / n as f64;
    let mb = b.iter().sum::<f64>() / n as f64;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma).powi(2);
        sbb += (y - mb).powi(2);
    }
    if saa == 0.0 || sbb == 0.0 {
        0.0
    } else {
        sab / (saa * sbb).sqrt()
    }
}

/// The smallest lag (up to `max_lag`) at which the series shows no significant
/// rank autocorrelation. The series is ranked once and each lag correlates those
/// ranks (for long series the same as re-ranking each lagged pair of series, at a
/// fraction of the cost).
pub fn independence_lag(series: &[f64], max_lag: usize) -> Option<usize> {
    let r = ranks(series);
    (1..=max_lag)
        .take_while(|&lag| series.len() > lag + 2)
        .find(|&lag| !significant(lagged_pearson(&r, lag), series.len() - lag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rand;

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[10.0, 30.0, 20.0, 20.0]), vec![1.0, 4.0, 2.5, 2.5]);
    }

    #[test]
    fn rho_of_known_series() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert!((rho(&a, &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((rho(&a, &[5.0, 4.0, 3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
        // d = (0, -1, 1, -1, 1): rho = 1 - 6 * 4 / (5 * 24) = 0.8.
        assert!((rho(&a, &[1.0, 3.0, 2.0, 5.0, 4.0]).unwrap() - 0.8).abs() < 1e-12);
    }

    #[test]
    fn independent_series_are_independent_and_correlated_ones_are_not() {
        let mut rng = Rand::new(41);
        let noise: Vec<f64> = (0..5000).map(|_| rng.unit()).collect();
        let r = autocorrelation(&noise, 1).unwrap();
        assert!(!significant(r, noise.len() - 1), "rho {r}");
        assert_eq!(independence_lag(&noise, 10), Some(1));

        // A moving average of 20 draws is correlated up to lag 19 and not beyond.
        let smooth: Vec<f64> = noise.windows(20).map(|w| w.iter().sum::<f64>()).collect();
        let r = autocorrelation(&smooth, 1).unwrap();
        assert!(significant(r, smooth.len() - 1) && r > 0.9, "rho {r}");
        let lag = independence_lag(&smooth, 40).unwrap();
        assert!((17..=24).contains(&lag), "lag {lag}");
    }
}
