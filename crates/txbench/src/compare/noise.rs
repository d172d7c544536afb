//! Run-to-run noise: whether a figure of one set of runs differs from
//! another's by more than the runs of each set differ among themselves.
//!
//! Each run gives one value of the figure; the difference of the two sets'
//! means gets Welch's interval (unequal variances, Welch-Satterthwaite's
//! degrees of freedom). A side of a single run has no spread of its own: it
//! borrows the other side's, which makes the interval the prediction interval
//! of one more run of that set. Two single runs have no run-to-run noise at
//! all, and no interval. The confidence is shared among the figures compared
//! (Bonferroni), so that a comparison of twenty figures of the same plan says
//! "no significant change" in 19 of 20 comparisons, not one figure in 20.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The confidence of a whole comparison: 95%, shared among its figures.
pub const CONFIDENCE: f64 = 0.95;

/// One side's values of a figure: how many runs, their mean and variance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Runs.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Their sample variance (0 for a single run).
    pub variance: f64,
}

impl Spread {
    /// The spread of `values`; `None` for no value.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / n as f64;
        let variance = if n > 1 {
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some(Spread { n, mean, variance })
    }

    /// This spread with its variance at least `floor`: runs whose values
    /// agree more closely than each run measures them (percentiles read
    /// from one histogram bucket in every run) have not shown that the
    /// figure holds so still.
    pub fn at_least(self, floor: f64) -> Spread {
        Spread {
            variance: self.variance.max(floor),
            ..self
        }
    }

    /// The standard deviation between runs.
    pub fn sd(&self) -> f64 {
        self.variance.sqrt()
    }

    /// Student's interval of the mean at confidence `1 - alpha` (its
    /// `delta` is the mean); `None` for fewer than two values.
    pub fn mean_interval(&self, alpha: f64) -> Option<Difference> {
        let se = self.sd() / (self.n as f64).sqrt();
        (self.n > 1).then(|| Difference::around(self.mean, se, (self.n - 1) as f64, alpha))
    }

    /// The standard deviation as a share of the mean (%), where both mean something.
    pub fn cv_pct(&self) -> Option<f64> {
        (self.n > 1 && self.mean != 0.0).then(|| self.sd() / self.mean.abs() * 100.0)
    }
}

/// `b`'s mean minus `a`'s, with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// The difference of the means.
    pub delta: f64,
    /// The interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

impl Difference {
    /// `delta` with the t interval its standard error `se` and `df` degrees
    /// of freedom give at confidence `1 - alpha`; runs that agree exactly
    /// (no error) leave the difference as it is.
    fn around(delta: f64, se: f64, df: f64, alpha: f64) -> Difference {
        let half = if se > 0.0 && df.is_finite() {
            t_quantile(1.0 - alpha / 2.0, df) * se
        } else {
            0.0
        };
        Difference {
            delta,
            low: delta - half,
            high: delta + half,
        }
    }

    /// Whether the interval leaves out zero: the sets differ beyond their noise.
    pub fn significant(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// The interval of `b.mean - a.mean` at confidence `1 - alpha`; `None` when
/// neither side has a spread (two single runs).
pub fn difference(a: &Spread, b: &Spread, alpha: f64) -> Option<Difference> {
    let delta = b.mean - a.mean;
    let (se2, df) = match (a.n, b.n) {
        (1, 1) => return None,
        // One run against a set: the set's variance for both.
        (1, n) => (b.variance * (1.0 + 1.0 / n as f64), (n - 1) as f64),
        (n, 1) => (a.variance * (1.0 + 1.0 / n as f64), (n - 1) as f64),
        (na, nb) => {
            let (va, vb) = (a.variance / na as f64, b.variance / nb as f64);
            let df = (va + vb).powi(2) / (va * va / (na - 1) as f64 + vb * vb / (nb - 1) as f64);
            (va + vb, df)
        }
    };
    Some(Difference::around(delta, se2.sqrt(), df, alpha))
}

/// The interval of `b - a`, two single runs, at confidence `1 - alpha`,
/// from the spread `noise` a set of the same plan measured between its
/// runs: each single run varies as one run of that set does. `None` when
/// the set has fewer than two runs.
pub fn singles(a: f64, b: f64, noise: &Spread, alpha: f64) -> Option<Difference> {
    if noise.n < 2 {
        return None;
    }
    let se = (2.0 * noise.variance).sqrt();
    Some(Difference::around(b - a, se, (noise.n - 1) as f64, alpha))
}

/// The `p` point of Student's t distribution with `df` degrees of freedom.
fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .map(|t| t.inverse_cdf(p))
        // Only a degree of freedom of zero or NaN gets here: no interval.
        .unwrap_or(f64::INFINITY)
}

/// Runs a side of each set would need for a change of `change` (in the
/// figure's unit) to stand out of the spreads `a` and `b` measured, at
/// confidence `1 - alpha`: the `n` whose Welch interval half-width,
/// `t · sqrt((a² + b²) / n)`, is `change` (the normal's quantile for `t`,
/// as `n` is then large). `None` where the sets have no spread.
pub fn runs_to_resolve(a: &Spread, b: &Spread, change: f64, alpha: f64) -> Option<usize> {
    let variance = a.variance + b.variance;
    if variance <= 0.0 || change <= 0.0 {
        return None;
    }
    // The normal's quantile: Student's at a huge degree of freedom does
    // not converge in statrs.
    let z = Normal::standard().inverse_cdf(1.0 - alpha / 2.0);
    Some(((z * variance.sqrt() / change).powi(2)).ceil().max(2.0) as usize)
}

/// The `alpha` of each of `figures` figures compared, so that the comparison
/// as a whole holds [`CONFIDENCE`].
pub fn alpha_each(figures: usize) -> f64 {
    (1.0 - CONFIDENCE) / figures.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::rng::Rand;

    /// A normal draw (Box-Muller).
    fn normal(rng: &mut Rand, mean: f64, sd: f64) -> f64 {
        let (u, v) = (rng.unit().max(1e-300), rng.unit());
        mean + sd * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    fn set(rng: &mut Rand, n: usize, mean: f64, sd: f64) -> Spread {
        let values: Vec<f64> = (0..n).map(|_| normal(rng, mean, sd)).collect();
        Spread::of(&values).unwrap()
    }

    #[test]
    fn welch_matches_a_worked_example() {
        // Means 20 and 22, variances 4 and 9, 10 runs each: se = sqrt(1.3),
        // df = 1.69 / (0.16/9 + 0.81/9) = 15.68, t(0.975; 15.68) = 2.1248:
        // 2 +- 2.42 holds zero; 3 +- 2.42 does not.
        let a = Spread {
            n: 10,
            mean: 20.0,
            variance: 4.0,
        };
        let b = Spread {
            n: 10,
            mean: 22.0,
            variance: 9.0,
        };
        let d = difference(&a, &b, 0.05).unwrap();
        let half = 2.1248 * 1.3f64.sqrt();
        assert!((d.high - 2.0 - half).abs() < 5e-3, "{d:?}");
        assert!(!d.significant());
        let b = Spread { mean: 23.0, ..b };
        assert!(difference(&a, &b, 0.05).unwrap().significant());
    }

    #[test]
    fn two_single_runs_have_no_interval_and_one_run_borrows_the_sets_spread() {
        let one = |mean| Spread {
            n: 1,
            mean,
            variance: 0.0,
        };
        assert_eq!(difference(&one(1.0), &one(2.0), 0.05), None);
        // Prediction interval: mean 100, sd 2, 5 runs: t(0.975; 4) = 2.7764.
        let five = Spread {
            n: 5,
            mean: 100.0,
            variance: 4.0,
        };
        let half = 2.7764 * 2.0 * (1.2f64).sqrt();
        let d = difference(&five, &one(105.0), 0.05).unwrap();
        assert!((d.high - d.low - 2.0 * half).abs() < 1e-3, "{d:?}");
        assert!(!d.significant(), "105 is within 100 +- {half}");
        assert!(difference(&five, &one(107.0), 0.05).unwrap().significant());
    }

    #[test]
    fn two_single_runs_take_the_noise_of_a_set() {
        // Noise sd 2 over 5 runs: b - a = 10 +- t(0.975; 4) * 2 * sqrt(2).
        let noise = Spread {
            n: 5,
            mean: 100.0,
            variance: 4.0,
        };
        let d = singles(100.0, 110.0, &noise, 0.05).unwrap();
        let half = 2.7764 * 2.0 * 2f64.sqrt();
        assert!((d.high - 10.0 - half).abs() < 1e-3, "{d:?}");
        assert!(d.significant());
        assert!(!singles(100.0, 105.0, &noise, 0.05).unwrap().significant());
        assert_eq!(singles(1.0, 2.0, &Spread { n: 1, ..noise }, 0.05), None);
    }

    #[test]
    fn runs_that_agree_exactly_differ_only_when_their_values_do() {
        let same = Spread {
            n: 3,
            mean: 0.0,
            variance: 0.0,
        };
        assert!(!difference(&same, &same, 0.05).unwrap().significant());
        let other = Spread { mean: 1.0, ..same };
        assert!(difference(&same, &other, 0.05).unwrap().significant());
    }

    /// The calibration the issue asks of compare, on figures whose truth is
    /// known: sets of five runs of the same plan, twelve figures each (a
    /// TATP comparison's throughput and p50/p99 of its types), with a
    /// run-to-run noise of 2% (the simulated server's throughput varies by
    /// 0.1% between runs). At most 5% of whole comparisons may call
    /// any figure changed; a 10% change in one figure must be found in
    /// nearly every comparison.
    #[test]
    fn same_plan_sets_are_no_change_in_19_of_20_and_a_10_percent_change_is_found() {
        let mut rng = Rand::new(53);
        let (trials, figures, runs) = (2000, 12, 5);
        let alpha = alpha_each(figures);
        let mut false_alarms = 0;
        let mut found = 0;
        for _ in 0..trials {
            let alarm = (0..figures).any(|_| {
                let (a, b) = (
                    set(&mut rng, runs, 100.0, 2.0),
                    set(&mut rng, runs, 100.0, 2.0),
                );
                difference(&a, &b, alpha).unwrap().significant()
            });
            false_alarms += usize::from(alarm);
            let (a, b) = (
                set(&mut rng, runs, 100.0, 2.0),
                set(&mut rng, runs, 110.0, 2.2),
            );
            found += usize::from(difference(&a, &b, alpha).unwrap().significant());
        }
        let rate = false_alarms as f64 / trials as f64;
        assert!(
            rate <= 0.06,
            "false alarms in {:.1}% of comparisons",
            rate * 100.0
        );
        assert!(rate >= 0.02, "the test is too timid: {:.1}%", rate * 100.0);
        let power = found as f64 / trials as f64;
        eprintln!(
            "false alarms {:.2}% of comparisons, 10% change found {:.2}%",
            rate * 100.0,
            power * 100.0
        );
        assert!(
            power >= 0.95,
            "a 10% change found in only {:.1}%",
            power * 100.0
        );
    }
}
