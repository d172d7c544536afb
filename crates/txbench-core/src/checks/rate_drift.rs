//! Whether the run's rate held over its window: the two halves' throughput
//! (completed transactions a second) and error share compared, as the
//! latency medians are ([`super::samples`]). A TPC-C run whose throughput
//! fell from 8.1k to 4.3k txn/s inside its window passed a check that
//! looked at latency alone.

use crate::driver::Second;
use crate::stats::batch_quantile::student_mean;

use super::samples::MATERIAL_DRIFT;

/// Whole seconds each half needs before their rates are compared.
const MIN_HALF_SECONDS: usize = 3;

/// Transactions each half needs before their error shares are compared.
const MIN_HALF_TRANSACTIONS: u64 = 100;

/// An error share that moved by less than this (absolute) is the same for
/// any comparison a user makes.
const MATERIAL_ERROR_SHIFT: f64 = 0.01;

/// What the halves of the window say of its rates.
#[derive(Debug, Clone, PartialEq)]
pub struct RateHalves {
    /// The statistic: each half's throughput (with its interval) and error share.
    pub statistic: String,
    /// What moved materially between the halves, if anything ("throughput
    /// -47.0%", "errors 0.1% -> 5.0%").
    pub moved: Vec<String>,
}

/// Compare the halves of `seconds` (the window's ticks); `None` where the
/// window has too few whole seconds to compare.
pub fn halves(seconds: &[Second]) -> Option<RateHalves> {
    let whole: Vec<&Second> = seconds.iter().filter(|s| s.is_whole()).collect();
    let (first, second) = whole.split_at(whole.len() / 2);
    if first.len().min(second.len()) < MIN_HALF_SECONDS {
        return None;
    }
    let (a, b) = (rate_interval(first), rate_interval(second));
    let drift = if a.mean > 0.0 {
        (b.mean - a.mean) / a.mean
    } else {
        0.0
    };
    let overlap = a.low <= b.high && b.low <= a.high;
    let mut moved = Vec::new();
    if !overlap && drift.abs() >= MATERIAL_DRIFT {
        moved.push(format!("throughput {:+.1}%", drift * 100.0));
    }
    let (ea, eb) = (error_share(first), error_share(second));
    let errors_counted = ea.1.min(eb.1) >= MIN_HALF_TRANSACTIONS;
    if errors_counted && (eb.0 - ea.0).abs() >= MATERIAL_ERROR_SHIFT {
        moved.push(format!(
            "errors {:.1}% -> {:.1}%",
            ea.0 * 100.0,
            eb.0 * 100.0
        ));
    }
    let statistic = format!(
        "throughput first half [{:.0}, {:.0}]/s, second half [{:.0}, {:.0}]/s: {:+.1}% \
         (material from {:.0}%); errors {:.2}% and {:.2}% of the halves' transactions",
        a.low,
        a.high,
        b.low,
        b.high,
        drift * 100.0,
        MATERIAL_DRIFT * 100.0,
        ea.0 * 100.0,
        eb.0 * 100.0
    );
    Some(RateHalves { statistic, moved })
}

/// A half's mean rate and its 95% interval.
struct Rate {
    mean: f64,
    low: f64,
    high: f64,
}

/// The mean of the seconds' completion rates, with the Student interval of
/// a mean (at least 1% either side: alternating identical runs differ by
/// as much). Consecutive seconds of a steady run are nearly independent.
fn rate_interval(seconds: &[&Second]) -> Rate {
    let rates: Vec<f64> = seconds
        .iter()
        .map(|s| s.completed as f64 / s.length)
        .collect();
    let (mean, half) = student_mean(&rates);
    let half = half.max(0.01 * mean);
    Rate {
        mean,
        low: (mean - half).max(0.0),
        high: mean + half,
    }
}

/// The share of a half's transactions that failed, and how many ended.
fn error_share(seconds: &[&Second]) -> (f64, u64) {
    let failed: u64 = seconds.iter().map(|s| s.failed).sum();
    let ended = failed + seconds.iter().map(|s| s.completed).sum::<u64>();
    let share = if ended > 0 {
        failed as f64 / ended as f64
    } else {
        0.0
    };
    (share, ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(end: f64, completed: u64, failed: u64) -> Second {
        Second {
            end,
            length: 1.0,
            completed,
            committed: completed,
            failed,
            queue_ms: None,
            outstanding_at_start: 0,
        }
    }

    /// The TPC-C run of the issue: 8.1k txn/s falling to 4.3k within ten
    /// seconds, its latency medians not far apart.
    #[test]
    fn a_throughput_that_falls_within_the_window_is_material() {
        let rates = [8100, 8000, 7600, 7000, 6500, 5800, 5200, 4800, 4500, 4300];
        let seconds: Vec<Second> = (rates.iter().enumerate())
            .map(|(i, &r)| second(i as f64 + 1.0, r, 0))
            .collect();
        let halves = halves(&seconds).unwrap();
        assert_eq!(halves.moved.len(), 1, "{halves:?}");
        assert!(halves.moved[0].starts_with("throughput -3"), "{halves:?}");
    }

    #[test]
    fn a_steady_rate_with_noise_has_not_moved() {
        let rates = [1000, 1040, 980, 1010, 995, 1020, 990, 1005, 1030, 985];
        let seconds: Vec<Second> = (rates.iter().enumerate())
            .map(|(i, &r)| second(i as f64 + 1.0, r, 1))
            .collect();
        assert_eq!(halves(&seconds).unwrap().moved, Vec::<String>::new());
    }

    #[test]
    fn errors_that_appear_in_the_second_half_are_material() {
        let seconds: Vec<Second> = (0..10)
            .map(|i| second(i as f64 + 1.0, 1000, if i < 5 { 0 } else { 100 }))
            .collect();
        let halves = halves(&seconds).unwrap();
        assert_eq!(halves.moved, ["errors 0.0% -> 9.1%"], "{halves:?}");
    }

    #[test]
    fn too_few_whole_seconds_are_not_compared() {
        let seconds: Vec<Second> = (0..5).map(|i| second(i as f64, 100, 0)).collect();
        assert_eq!(halves(&seconds), None);
    }
}
