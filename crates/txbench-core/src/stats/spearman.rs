//! Spearman's rank correlation, used on a latency series in send order:
//! consecutive latencies that are correlated are not independent samples, and
//! intervals must then be based on samples further apart.

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

/// Fewest points a thinned series must keep for its independence to be tested.
pub const MIN_THINNED: usize = 100;

/// The smallest thinning lag at which the series is independent: taking every
/// `lag`-th value, consecutive values of that thinned series show no significant
/// rank correlation. Lags are searched in steps of about a quarter, up to the lag
/// that leaves [`MIN_THINNED`] values; `None` when the series stays dependent.
///
/// Testing the thinned series, rather than the full series at a distance, is what
/// the intervals need: they treat exactly those values as independent, and the
/// test's power matches their number (with 200,000 values a correlation of 0.005
/// is "significant" and yet harmless once the series is thinned).
pub fn independence_lag(series: &[f64]) -> Option<usize> {
    let mut lag = 1usize;
    while series.len() / lag >= MIN_THINNED {
        let thinned: Vec<f64> = series.iter().step_by(lag).copied().collect();
        let r = autocorrelation(&thinned, 1)?;
        if !significant(r, thinned.len() - 1) {
            return Some(lag);
        }
        lag = (lag + lag / 4).max(lag + 1);
    }
    None
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
        assert_eq!(independence_lag(&noise), Some(1));

        // A moving average of 20 draws is correlated up to lag 19 and not beyond.
        let smooth: Vec<f64> = noise.windows(20).map(|w| w.iter().sum::<f64>()).collect();
        let r = autocorrelation(&smooth, 1).unwrap();
        assert!(significant(r, smooth.len() - 1) && r > 0.9, "rho {r}");
        let lag = independence_lag(&smooth).unwrap();
        assert!((17..=25).contains(&lag), "lag {lag}");

        // A random walk never becomes independent.
        let walk: Vec<f64> = noise
            .iter()
            .scan(0.0, |sum, x| {
                *sum += x - 0.5;
                Some(*sum)
            })
            .collect();
        assert_eq!(independence_lag(&walk), None);
    }
}
