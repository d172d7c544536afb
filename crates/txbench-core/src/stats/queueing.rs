//! What queueing theory says a single-server queue's latency (sojourn time:
//! waiting plus service) is, for Poisson arrivals: the truth `txbench
//! selftest` measures the simulated engine against. Times in milliseconds,
//! rates per millisecond's worth through `rate_per_s`.

/// A queue whose latency distribution theory gives exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Queue {
    /// Poisson arrivals at `rate_per_s`, one server, fixed service of
    /// `service_ms`.
    Md1 {
        /// Arrivals per second.
        rate_per_s: f64,
        /// The service time (ms).
        service_ms: f64,
    },
    /// Poisson arrivals at `rate_per_s`, one server, exponential service of
    /// mean `service_ms`.
    Mm1 {
        /// Arrivals per second.
        rate_per_s: f64,
        /// The mean service time (ms).
        service_ms: f64,
    },
    /// No waiting (a server per client): the latency is an exponential
    /// service time of mean `service_ms`.
    Exponential {
        /// The mean service time (ms).
        service_ms: f64,
    },
}

impl Queue {
    /// The utilisation: arrivals times the mean service time (0 without a
    /// queue).
    pub fn utilisation(&self) -> f64 {
        match *self {
            Queue::Md1 {
                rate_per_s,
                service_ms,
            }
            | Queue::Mm1 {
                rate_per_s,
                service_ms,
            } => rate_per_s * service_ms / 1000.0,
            Queue::Exponential { .. } => 0.0,
        }
    }

    /// The mean latency (ms); `None` for a queue at or beyond saturation.
    pub fn mean(&self) -> Option<f64> {
        let rho = self.stable()?;
        Some(match *self {
            // Pollaczek-Khinchine: D + rho D / (2 (1 - rho)).
            Queue::Md1 { service_ms: d, .. } => d + rho * d / (2.0 * (1.0 - rho)),
            Queue::Mm1 { service_ms: d, .. } => d / (1.0 - rho),
            Queue::Exponential { service_ms } => service_ms,
        })
    }

    /// The latency at quantile `q` (0..1, ms); `None` at or beyond saturation.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let rho = self.stable()?;
        Some(match *self {
            Queue::Md1 {
                rate_per_s,
                service_ms,
            } => md1_quantile(rate_per_s / 1000.0, service_ms, q),
            // The M/M/1 sojourn time is exponential with rate mu - lambda.
            Queue::Mm1 { service_ms, .. } => -(1.0 - q).ln() * service_ms / (1.0 - rho),
            Queue::Exponential { service_ms } => -(1.0 - q).ln() * service_ms,
        })
    }

    fn stable(&self) -> Option<f64> {
        let rho = self.utilisation();
        (rho < 1.0).then_some(rho)
    }
}

/// P(wait <= t) in an M/D/1 queue of arrival rate `lambda` (per ms) and
/// service `d` (ms), by Erlang's formula:
/// `(1 - rho) * sum_{k=0}^{floor(t/d)} (lambda (k d - t))^k / k! * e^{-lambda (k d - t)}`.
/// Its terms alternate in sign and reach about `e^(2 lambda t / (1 + rho))`,
/// so in doubles the rounding error stays under 1e-6 while `lambda t` is
/// under 20 (beyond the p99.9 of a utilisation of 0.8).
pub fn md1_wait_cdf(lambda: f64, d: f64, t: f64) -> f64 {
    if t < 0.0 {
        return 0.0;
    }
    let rho = lambda * d;
    let mut sum = 0.0;
    let mut log_factorial = 0.0;
    let mut k = 0u32;
    while f64::from(k) * d <= t {
        let x = lambda * (f64::from(k) * d - t);
        // x^k / k! in logarithms, its sign apart (x <= 0).
        if k > 0 {
            log_factorial += f64::from(k).ln();
        }
        let magnitude = if k == 0 {
            1.0
        } else {
            (f64::from(k) * x.abs().ln() - log_factorial).exp()
        };
        let sign = if x < 0.0 && k % 2 == 1 { -1.0 } else { 1.0 };
        sum += sign * magnitude * (-x).exp();
        k += 1;
    }
    ((1.0 - rho) * sum).clamp(0.0, 1.0)
}

/// The M/D/1 latency (wait plus service, ms) at quantile `q`, by bisection on
/// [`md1_wait_cdf`].
fn md1_quantile(lambda: f64, d: f64, q: f64) -> f64 {
    if md1_wait_cdf(lambda, d, 0.0) >= q {
        return d;
    }
    let (mut low, mut high) = (0.0, d);
    while md1_wait_cdf(lambda, d, high) < q {
        high *= 2.0;
    }
    for _ in 0..60 {
        let mid = (low + high) / 2.0;
        if md1_wait_cdf(lambda, d, mid) < q {
            low = mid;
        } else {
            high = mid;
        }
    }
    d + high
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md1_mean_is_pollaczek_khinchine() {
        let q = Queue::Md1 {
            rate_per_s: 125.0,
            service_ms: 4.0,
        };
        assert!((q.mean().unwrap() - 6.0).abs() < 1e-12);
    }

    #[test]
    fn md1_wait_distribution_integrates_to_its_mean() {
        // The mean wait from the CDF, E[W] = integral of P(W > t), against
        // Pollaczek-Khinchine's rho D / (2 (1 - rho)), at two utilisations.
        for (rate, expected) in [(125.0, 2.0), (200.0, 8.0)] {
            let lambda = rate / 1000.0;
            // P(W > 100 ms) is under 1e-5 at both.
            let step = 0.005;
            let tail: f64 = (0..20_000)
                .map(|i| (1.0 - md1_wait_cdf(lambda, 4.0, (f64::from(i) + 0.5) * step)) * step)
                .sum();
            assert!((tail - expected).abs() < 0.01, "{tail} vs {expected}");
        }
    }

    #[test]
    fn md1_has_no_wait_with_probability_one_minus_rho() {
        assert!((md1_wait_cdf(0.2, 4.0, 0.0) - 0.2).abs() < 1e-12);
        // At rho 0.2 most customers do not wait: the median is the service
        // time.
        let q = Queue::Md1 {
            rate_per_s: 50.0,
            service_ms: 4.0,
        };
        assert_eq!(q.quantile(0.5), Some(4.0));
    }

    #[test]
    fn mm1_latency_is_exponential() {
        let q = Queue::Mm1 {
            rate_per_s: 250.0,
            service_ms: 2.0,
        };
        assert!((q.mean().unwrap() - 4.0).abs() < 1e-12);
        assert!((q.quantile(0.5).unwrap() - 4.0 * 2f64.ln()).abs() < 1e-12);
        assert!((q.quantile(0.99).unwrap() - 4.0 * 100f64.ln()).abs() < 1e-9);
    }

    #[test]
    fn a_saturated_queue_has_no_steady_state() {
        let q = Queue::Md1 {
            rate_per_s: 300.0,
            service_ms: 4.0,
        };
        assert_eq!(q.mean(), None);
        assert_eq!(q.quantile(0.99), None);
    }
}
