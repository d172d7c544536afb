//! The Anderson-Darling test of a sample against the exponential distribution
//! with its mean estimated from the sample (Stephens 1974, case 3 for the
//! exponential: A² is modified by (1 + 0.6 / n)).

/// The test's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AndersonDarling {
    /// The modified statistic A²(1 + 0.6/n).
    pub statistic: f64,
    /// Whether the exponential is rejected at the 1% level (statistic > 1.957):
    /// a check run on every run warns falsely on one in a hundred at most.
    pub rejected: bool,
}

/// The 1% critical value of the modified statistic (Stephens 1974, table 1A).
pub const CRITICAL_1_PERCENT: f64 = 1.957;

/// Test `sample` (positive values) against an exponential law; `None` for fewer
/// than 8 values or a non-positive mean.
pub fn exponential(sample: &[f64]) -> Option<AndersonDarling> {
    let n = sample.len();
    if n < 8 {
        return None;
    }
    let mean = sample.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 || !mean.is_finite() {
        return None;
    }
    let mut x: Vec<f64> = sample.to_vec();
    x.sort_by(f64::total_cmp);
    let nf = n as f64;
    let cdf = |v: f64| (1.0 - (-v / mean).exp()).clamp(1e-300, 1.0 - 1e-16);
    let mut sum = 0.0;
    for i in 0..n {
        let fi = cdf(x[i]);
        let fj = cdf(x[n - 1 - i]);
        sum += (2.0 * (i as f64) + 1.0) * (fi.ln() + (1.0 - fj).ln());
    }
    let a2 = -nf - sum / nf;
    let statistic = a2 * (1.0 + 0.6 / nf);
    Some(AndersonDarling {
        statistic,
        rejected: statistic > CRITICAL_1_PERCENT,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rand;

    #[test]
    fn exponential_samples_pass_about_99_percent_of_the_time() {
        let mut rng = Rand::new(31);
        let trials = 400;
        let rejected = (0..trials)
            .filter(|_| {
                let s: Vec<f64> = (0..500).map(|_| rng.exponential(3.0)).collect();
                exponential(&s).unwrap().rejected
            })
            .count();
        let rate = rejected as f64 / trials as f64;
        assert!(rate < 0.03, "false rejection rate {rate}");
    }

    #[test]
    fn uniform_and_constant_gaps_are_rejected() {
        let mut rng = Rand::new(32);
        let uniform: Vec<f64> = (0..1000).map(|_| rng.unit() * 2.0).collect();
        assert!(exponential(&uniform).unwrap().rejected);
        let fixed: Vec<f64> = (0..1000).map(|i| 1.0 + (i % 3) as f64 * 1e-6).collect();
        assert!(exponential(&fixed).unwrap().statistic > 50.0);
    }

    #[test]
    fn a_known_sample_gives_the_known_statistic() {
        // Exact quantiles of Exp(1) at (i - 0.5)/n fit the law almost perfectly.
        let n = 200;
        let s: Vec<f64> = (1..=n)
            .map(|i| -(1.0 - (i as f64 - 0.5) / n as f64).ln())
            .collect();
        let r = exponential(&s).unwrap();
        assert!(r.statistic < 0.2, "{}", r.statistic);
        assert!(exponential(&s[..5]).is_none());
    }
}
