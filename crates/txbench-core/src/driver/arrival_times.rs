//! When an open-loop dispatcher's arrivals are due: a process of unit rate
//! (Poisson, uniform or fixed gaps) warped through the rate schedule
//! ([`crate::driver::rate`]). Pure arithmetic on a seeded random stream, so
//! the schedule itself is tested without a clock; the dispatcher
//! (`open_loop.rs`) only waits for the times this draws.

use super::rate::RateSchedule;
use crate::rng::Rand;
use crate::settings::Arrival;

/// One dispatcher's arrival times, in seconds from the start of measurement
/// (the warm-up's are negative).
#[derive(Debug, Clone)]
pub(crate) struct ArrivalTimes {
    arrival: Arrival,
    rate: RateSchedule,
    /// The dispatchers that share the load, each offering `rate / share`.
    share: f64,
    /// Where this dispatcher's process of unit rate is: the arrivals it had
    /// due by the last one drawn, counted from the start of measurement.
    unit: f64,
}

impl ArrivalTimes {
    /// The arrivals of one of `share` dispatchers, starting `warmup_secs`
    /// before measurement (the warm-up offers the schedule's first rate).
    pub(crate) fn new(
        arrival: Arrival,
        rate: RateSchedule,
        share: usize,
        warmup_secs: f64,
    ) -> Self {
        let share = share.max(1) as f64;
        // The warm-up's arrivals come before the window's start: a negative count.
        let unit = rate.arrivals(-warmup_secs) / share;
        ArrivalTimes {
            arrival,
            rate,
            share,
            unit,
        }
    }

    /// The next arrival's time; `None` when the schedule offers no more.
    /// Draws one gap from `rng` (the dispatcher's stream, which it also uses
    /// to pick terminals, so that a seed gives the same run as before).
    pub(crate) fn next(&mut self, rng: &mut Rand) -> Option<f64> {
        self.unit += gap(self.arrival, 1.0, rng);
        let t = self.rate.time_of(self.unit * self.share);
        t.is_finite().then_some(t)
    }
}

/// The next gap of a process of mean gap `mean`.
fn gap(arrival: Arrival, mean: f64, rng: &mut Rand) -> f64 {
    match arrival {
        Arrival::Poisson => rng.exponential(mean),
        Arrival::Uniform => rng.unit() * 2.0 * mean,
        Arrival::Fixed => mean,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::rate::Segment;
    use crate::stats::anderson_darling;

    /// At the 1% level, Stephens' critical value of the Anderson-Darling
    /// statistic against the exponential with its mean estimated.
    const CRITICAL_1_PERCENT: f64 = 1.957;

    fn times(
        arrival: Arrival,
        rate: RateSchedule,
        share: usize,
        warmup: f64,
        seed: u64,
    ) -> Vec<f64> {
        let mut arrivals = ArrivalTimes::new(arrival, rate, share, warmup);
        let mut rng = Rand::new(seed);
        std::iter::from_fn(|| arrivals.next(&mut rng))
            .take_while(|t| *t < 60.0)
            .collect()
    }

    #[test]
    fn gaps_have_the_mean_of_the_rate() {
        let mut rng = Rand::new(3);
        for arrival in [Arrival::Poisson, Arrival::Uniform, Arrival::Fixed] {
            let n = 100_000;
            let mean = (0..n).map(|_| gap(arrival, 0.002, &mut rng)).sum::<f64>() / n as f64;
            assert!((mean - 0.002).abs() < 0.00005, "{arrival:?}: {mean}");
        }
    }

    #[test]
    fn each_second_offers_what_the_schedule_says() {
        // 1,000/s for 20 s, a ramp to 3,000/s over 20 s, then 500/s.
        let rate = RateSchedule::new(vec![
            Segment::hold(1_000.0, 20.0),
            Segment {
                from: 1_000.0,
                to: 3_000.0,
                secs: 20.0,
            },
            Segment::hold(500.0, 20.0),
        ])
        .unwrap();
        let all: Vec<f64> = (0..2)
            .flat_map(|d| times(Arrival::Poisson, rate.clone(), 2, 0.0, 11 + d))
            .collect();
        for second in 0..60 {
            let due = rate.arrivals_between(second as f64, second as f64 + 1.0);
            let seen = all.iter().filter(|t| t.floor() as i64 == second).count() as f64;
            // Poisson counts: five standard deviations.
            assert!(
                (seen - due).abs() < 5.0 * due.sqrt(),
                "second {second}: {seen} of {due:.0}"
            );
        }
    }

    #[test]
    fn warped_gaps_are_those_of_a_poisson_process() {
        let rate = RateSchedule::new(vec![
            Segment {
                from: 200.0,
                to: 2_000.0,
                secs: 30.0,
            },
            Segment::hold(2_000.0, 30.0),
        ])
        .unwrap();
        let t = times(Arrival::Poisson, rate.clone(), 1, 0.0, 7);
        // In arrivals due over the peak rate, as the dispatcher measures them.
        let clock: Vec<f64> = t.iter().map(|t| rate.arrivals(*t) / rate.peak()).collect();
        let gaps: Vec<f64> = clock.windows(2).map(|w| w[1] - w[0]).collect();
        let ad = anderson_darling::exponential(&gaps).unwrap();
        assert!(ad.statistic < CRITICAL_1_PERCENT, "A2* = {}", ad.statistic);
    }

    #[test]
    fn fixed_gaps_are_even_and_the_warm_up_comes_first() {
        let t = times(Arrival::Fixed, RateSchedule::constant(100.0), 1, 2.0, 1);
        // Two seconds of warm-up at 100/s: 200 gaps, the last of which ends
        // on the window's start.
        assert_eq!(t.iter().filter(|t| **t < 0.0).count(), 199);
        assert_eq!(t[199], 0.0);
        assert_eq!(t.iter().filter(|t| (0.0..1.0).contains(*t)).count(), 100);
        for w in t.windows(2) {
            assert!((w[1] - w[0] - 0.01).abs() < 1e-9, "{w:?}");
        }
    }
}
