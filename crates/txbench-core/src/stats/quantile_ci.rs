//! Confidence intervals of percentiles from order statistics.
//!
//! For n independent samples and quantile p, the number of samples below the true
//! quantile is Binomial(n, p); with the normal approximation the 95% interval is
//! [x_(j), x_(k)] with j = floor(n p - 1.96 sqrt(n p (1 - p))) and
//! k = ceil(n p + 1.96 sqrt(n p (1 - p))) + 1 (Le Boudec, Performance Evaluation of
//! Computer and Communication Systems, theorem 2.1). When k exceeds n (or j falls below 1) there are not enough samples
//! to bound that percentile.

use super::Z95;

/// The 1-based ranks of the order statistics that bound quantile `p` of `n`
/// samples with 95% confidence, or `None` when `n` is too small for it.
pub fn ranks(n: usize, p: f64) -> Option<(usize, usize)> {
    if n == 0 || !(0.0..1.0).contains(&p) || p <= 0.0 {
        return None;
    }
    let nf = n as f64;
    let half = Z95 * (nf * p * (1.0 - p)).sqrt();
    let j = (nf * p - half).floor();
    let k = (nf * p + half).ceil() + 1.0;
    if j < 1.0 || k > nf {
        return None;
    }
    Some((j as usize, k as usize))
}

/// The 95% interval of quantile `p` of `sorted` (ascending), or `None` when there
/// are not enough samples.
pub fn interval<T: Copy>(sorted: &[T], p: f64) -> Option<(T, T)> {
    let (j, k) = ranks(sorted.len(), p)?;
    Some((sorted[j - 1], sorted[k - 1]))
}

/// The 95% interval of quantile `p` of `sorted` when the samples are dependent
/// and only every `lag`-th can be taken as independent: the ranks are those of
/// `n / lag` samples, mapped back onto all `n` (no thinning, so no aliasing with
/// periodic structure in the series).
pub fn interval_dependent<T: Copy>(sorted: &[T], p: f64, lag: usize) -> Option<(T, T)> {
    let n = sorted.len();
    let lag = lag.max(1);
    if lag == 1 {
        return interval(sorted, p);
    }
    let n_eff = n / lag;
    let (j, k) = ranks(n_eff, p)?;
    let scale = n as f64 / n_eff as f64;
    let jj = ((j as f64 * scale).floor() as usize).clamp(1, n);
    let kk = ((k as f64 * scale).ceil() as usize).clamp(1, n);
    Some((sorted[jj - 1], sorted[kk - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_the_binomial_normal_approximation() {
        // n = 1000, p = 0.5: 500 -/+ 1.96 * 15.81 = 469.0 .. 531.0, outward and +1 on top.
        assert_eq!(ranks(1000, 0.5), Some((469, 532)));
        // n = 10000, p = 0.99: 9900 -/+ 1.96 * 9.95 = 9880.5 .. 9919.5.
        assert_eq!(ranks(10_000, 0.99), Some((9880, 9921)));
    }

    #[test]
    fn too_few_samples_for_a_high_percentile_say_so() {
        assert_eq!(ranks(100, 0.999), None);
        assert_eq!(ranks(1000, 0.9999), None);
        assert!(ranks(100_000, 0.9999).is_some());
        assert_eq!(ranks(0, 0.5), None);
    }

    #[test]
    fn dependent_samples_widen_the_interval() {
        let v: Vec<u32> = (1..=10_000).collect();
        let (lo1, hi1) = interval(&v, 0.5).unwrap();
        let (lo10, hi10) = interval_dependent(&v, 0.5, 10).unwrap();
        assert!(lo10 < lo1 && hi10 > hi1);
        // n_eff = 1000: ranks 469..532 of 1000, scaled by 10.
        assert_eq!((lo10, hi10), (4690, 5320));
        assert_eq!(interval_dependent(&v, 0.999, 100), None);
    }

    #[test]
    fn the_interval_covers_the_true_quantile_about_95_percent_of_the_time() {
        // Uniform(0, 1) samples: the true median is 0.5.
        let mut rng = crate::rng::Rand::new(8);
        let trials = 2000;
        let mut covered = 0;
        for _ in 0..trials {
            let mut v: Vec<f64> = (0..401).map(|_| rng.unit()).collect();
            v.sort_by(f64::total_cmp);
            let (lo, hi) = interval(&v, 0.5).unwrap();
            if lo <= 0.5 && 0.5 <= hi {
                covered += 1;
            }
        }
        let rate = covered as f64 / trials as f64;
        // Binomial(2000, 0.95) has sd 0.0049; the outward rounding makes it a bit conservative.
        assert!((0.93..=0.98).contains(&rate), "coverage {rate}");
    }
}
