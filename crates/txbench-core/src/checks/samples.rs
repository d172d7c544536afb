//! Checks of the latency sample: whether consecutive latencies are
//! independent (and at what lag they become so), whether the two halves of the
//! window agree, and whether every type has its percentile intervals; and the
//! intervals themselves.

use std::time::Duration;

use super::{Check, PERCENTILES, PercentileInterval, Status};
use crate::driver::Recording;
use crate::sample::Sample;
use crate::stats::{quantile_ci, spearman};
use crate::workload::TxnTypeInfo;

/// 95% intervals of the percentiles of one type's latencies, counting only every
/// `lag`-th sample as independent.
pub fn intervals(samples: &[Sample], txn_type: u16, lag: usize) -> Vec<PercentileInterval> {
    let mut values: Vec<f64> = samples
        .iter()
        .filter(|s| s.txn_type == txn_type)
        .map(|s| s.latency_us as f64 / 1000.0)
        .collect();
    values.sort_by(f64::total_cmp);
    PERCENTILES
        .iter()
        .map(|&p| {
            let bounds = quantile_ci::interval_dependent(&values, p / 100.0, lag);
            PercentileInterval {
                percentile: p,
                low: bounds.map(|b| b.0),
                high: bounds.map(|b| b.1),
            }
        })
        .collect()
}

/// Whether consecutive latencies (in send order) are independent, and the lag
/// at which they are: intervals count one sample in `lag`.
pub(super) fn independence(samples: &[Sample], open_loop: bool) -> (Check, usize) {
    let series: Vec<f64> = samples
        .iter()
        .map(|s| s.latency_us as f64 / 1000.0)
        .collect();
    let name = "independence".to_string();
    let Some(r) = spearman::autocorrelation(&series, 1) else {
        let check = Check {
            name,
            statistic: format!("{} samples", series.len()),
            status: Status::Warn,
            detail: "too few samples to test".into(),
        };
        return (check, 1);
    };
    if !spearman::significant(r, series.len() - 1) {
        let check = Check {
            name,
            statistic: format!("lag-1 Spearman rho = {r:.3}"),
            status: Status::Pass,
            detail: "consecutive latencies are independent".into(),
        };
        return (check, 1);
    }
    match spearman::independence_lag(&series) {
        Some(lag) => {
            let check = Check {
                name,
                statistic: format!("lag-1 Spearman rho = {r:.3}; independent at lag {lag}"),
                status: Status::Warn,
                detail: format!("latencies are correlated; intervals count one sample in {lag}"),
            };
            (check, lag)
        }
        // No independent lag: the intervals would claim more than the data
        // hold, so there are none.
        None => {
            let check = Check {
                name,
                statistic: format!(
                    "lag-1 Spearman rho = {r:.3}; dependent at every lag up to {}",
                    series.len() / spearman::MIN_THINNED
                ),
                status: if open_loop {
                    Status::Fail
                } else {
                    Status::Warn
                },
                detail: if open_loop {
                    "latencies stay correlated: run longer (or the system is not stationary)".into()
                } else {
                    "closed-loop latencies depend on each other by construction (terminals queue \
                     behind each other); no percentile intervals"
                        .into()
                },
            };
            (check, series.len())
        }
    }
}

/// Whether the median latency of the window's first half agrees with the
/// second's (their intervals overlap).
pub(super) fn stationarity(samples: &[Sample], measured: Duration, lag: usize) -> Check {
    let half = measured.as_micros() as u64 / 2;
    let (first, second): (Vec<Sample>, Vec<Sample>) =
        samples.iter().partition(|s| s.intended_us < half);
    let median_ci = |part: &[Sample]| {
        let mut v: Vec<f64> = part.iter().map(|s| s.latency_us as f64 / 1000.0).collect();
        v.sort_by(f64::total_cmp);
        quantile_ci::interval_dependent(&v, 0.5, lag)
    };
    let name = "stationarity".to_string();
    let (Some(a), Some(b)) = (median_ci(&first), median_ci(&second)) else {
        return Check {
            name,
            statistic: format!("{} samples", samples.len()),
            status: Status::Warn,
            detail: "too few samples to compare the halves".into(),
        };
    };
    let overlap = a.0 <= b.1 && b.0 <= a.1;
    Check {
        name,
        statistic: format!(
            "median first half [{:.3}, {:.3}] ms, second half [{:.3}, {:.3}] ms",
            a.0, a.1, b.0, b.1
        ),
        status: if overlap { Status::Pass } else { Status::Warn },
        detail: if overlap {
            "the two halves agree".into()
        } else {
            "the halves differ: lengthen the warm-up or the run".into()
        },
    }
}

/// Whether every type that completed anything has intervals up to p99.
pub(super) fn sufficiency(rec: &Recording, types: &[TxnTypeInfo], lag: usize) -> Check {
    let mut short = Vec::new();
    for t in 0..rec.total.measured.len() as u16 {
        if rec.total.measured[t as usize].latency.is_empty() {
            continue;
        }
        let iv = intervals(&rec.samples, t, lag);
        if let Some(p) = iv.iter().find(|i| i.low.is_none() && i.percentile <= 99.0) {
            let name = types.get(t as usize).map_or("?", |i| i.name);
            short.push(format!("{name} p{}", p.percentile));
        }
    }
    Check {
        name: "sample sufficiency".into(),
        statistic: format!("{} samples kept, lag {lag}", rec.samples.len()),
        status: if short.is_empty() {
            Status::Pass
        } else {
            Status::Warn
        },
        detail: if short.is_empty() {
            "every type has intervals up to p99".into()
        } else {
            format!("not enough samples for {}: run longer", short.join(", "))
        },
    }
}
