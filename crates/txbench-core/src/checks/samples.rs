//! Checks of the latency sample: whether consecutive latencies are
//! independent (and at what lag they become so), whether the two halves of the
//! window agree, and whether every type has its percentile intervals; and the
//! intervals themselves.

use std::cell::LazyCell;
use std::time::Duration;

use hdrhistogram::Histogram;

use super::{Check, PERCENTILES, PercentileInterval, Status, rate_drift};
use crate::driver::Recording;
use crate::recorder::new_histogram;
use crate::sample::Sample;
use crate::stats::{batch_quantile, quantile_ci, spearman};
use crate::txn::TxnTypeInfo;

/// 95% intervals of the percentiles of type `txn_type`'s latencies: from
/// batches of the window's seconds where the type has the latencies for them
/// (all of them used; see [`batch_quantile`]), else from order statistics of
/// the latency sample, counting only every `lag`-th sample as independent.
pub fn intervals(rec: &Recording, txn_type: usize, lag: usize) -> Vec<PercentileInterval> {
    let Some(stats) = rec.total.measured.get(txn_type) else {
        return Vec::new();
    };
    let segments: Vec<&Histogram<u64>> = rec
        .segments
        .iter()
        .filter_map(|s| s.get(txn_type))
        .collect();
    intervals_of(
        &stats.latency_with_censored(),
        &segments,
        || sorted_sample(&rec.samples, Some(txn_type)),
        lag,
    )
}

/// The same intervals for every type's latencies together (the summary's
/// "all types" row): each second's histograms of all types added into one.
pub fn total_intervals(rec: &Recording, lag: usize) -> Vec<PercentileInterval> {
    let mut all = new_histogram();
    for stats in &rec.total.measured {
        // Histograms of one recorder share their bounds: adding cannot fail.
        let _ = all.add(stats.latency_with_censored());
    }
    let seconds: Vec<Histogram<u64>> = rec
        .segments
        .iter()
        .map(|types| {
            let mut second = new_histogram();
            for h in types {
                let _ = second.add(h);
            }
            second
        })
        .collect();
    let segments: Vec<&Histogram<u64>> = seconds.iter().collect();
    intervals_of(&all, &segments, || sorted_sample(&rec.samples, None), lag)
}

/// Intervals of the percentiles of `all` (the window's latencies), from
/// batches of its consecutive `segments` where they hold enough latencies,
/// else from the `sample` (ascending), thinned to `lag`.
fn intervals_of(
    all: &Histogram<u64>,
    segments: &[&Histogram<u64>],
    sample: impl FnOnce() -> Vec<f64>,
    lag: usize,
) -> Vec<PercentileInterval> {
    let n: u64 = segments.iter().map(|h| h.len()).sum();
    // Sorted only if a percentile needs it.
    let values = LazyCell::new(sample);
    let intervals = PERCENTILES
        .iter()
        .map(|&p| {
            let q = p / 100.0;
            if let Some(b) = batch_quantile::batches(n, q, segments.len()) {
                let estimates: Vec<f64> = batch_quantile::group(segments, b)
                    .iter()
                    .map(|h| ms(h.value_at_quantile(q)))
                    .collect();
                let value = all.value_at_quantile(q);
                let resolution =
                    ms(all.highest_equivalent(value) - all.lowest_equivalent(value)) / 2.0;
                let bounds = batch_quantile::interval(&estimates, ms(value), resolution);
                return PercentileInterval {
                    percentile: p,
                    low: bounds.map(|b| b.0),
                    high: bounds.map(|b| b.1),
                    batches: Some(b),
                };
            }
            let bounds = quantile_ci::interval_dependent(&values, q, lag);
            PercentileInterval {
                percentile: p,
                low: bounds.map(|b| b.0),
                high: bounds.map(|b| b.1),
                batches: None,
            }
        })
        .collect();
    in_order(intervals, ms(all.lowest_equivalent(all.min())))
}

/// The intervals (of ascending percentiles) held to what is possible: no
/// percentile lies below the smallest latency, nor below a lower
/// percentile's interval (a batch interval is symmetric, and around a p95
/// of a skewed run it reached below the p50, to 0).
fn in_order(mut intervals: Vec<PercentileInterval>, smallest: f64) -> Vec<PercentileInterval> {
    let mut floor = smallest;
    for i in &mut intervals {
        if let Some(low) = &mut i.low {
            *low = low.max(floor);
            floor = *low;
        }
    }
    intervals
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// One type's sampled latencies (ms), ascending; every type's with `None`.
fn sorted_sample(samples: &[Sample], txn_type: Option<usize>) -> Vec<f64> {
    let mut values: Vec<f64> = samples
        .iter()
        .filter(|s| txn_type.is_none_or(|t| usize::from(s.txn_type) == t))
        .map(|s| ms(s.latency_us))
        .collect();
    values.sort_by(f64::total_cmp);
    values
}

/// Whether what the intervals treat as independent is: the window's batches
/// when the run has enough of them (their medians' lag-1 correlation), else
/// consecutive latencies of the sample; and the lag at which the sample's
/// latencies are independent (its intervals count one sample in `lag`).
pub(super) fn independence(rec: &Recording, open_loop: bool) -> (Check, usize) {
    let (by_sample, lag) = sample_independence(&rec.samples, open_loop);
    match batch_independence(&rec.segments, &by_sample) {
        Some(by_batch) => (by_batch, lag),
        None => (by_sample, lag),
    }
}

/// The standard normal's two-sided 1% point.
const Z99: f64 = 2.575_829_303_549_08;

/// Whether consecutive batches of the window are independent, as the batch
/// intervals assume: the lag-1 Spearman correlation of the batches' medians
/// (all types), tested at the 1% level. A run that drifts (a cache warming,
/// a table growing) shows as correlated batches. `None` with too few
/// segments to batch.
fn batch_independence(segments: &[Vec<Histogram<u64>>], by_sample: &Check) -> Option<Check> {
    if segments.len() < batch_quantile::MIN_BATCHES {
        return None;
    }
    let medians = batch_medians(segments, batch_quantile::MAX_BATCHES);
    let r = spearman::autocorrelation(&medians, 1)?;
    let pairs = medians.len() - 1;
    let limit = Z99 / ((pairs - 1) as f64).sqrt();
    let lag1 = batch_quantile::lag1_correlation(&medians);
    let widened = batch_quantile::widening_for(lag1);
    let beyond = lag1 > batch_quantile::MAX_CORRELATION;
    let detail = if beyond {
        "neighbouring batches are so correlated that widening the intervals cannot make up for \
         it: the run drifted throughout (lengthen the warm-up or the run)"
            .to_string()
    } else if r.abs() > limit {
        format!(
            "neighbouring batches are correlated (the run drifts slowly; the stationarity check \
             says whether by much): the batch intervals are widened for it, about x{widened:.1} \
             here"
        )
    } else {
        "the window's batches are independent (consecutive latencies may queue behind each \
         other; the intervals use batches of seconds)"
            .into()
    };
    Some(Check {
        name: "independence".into(),
        statistic: format!(
            "lag-1 Spearman rho of {} batch medians = {r:.3} (correlated beyond {limit:.3}); \
             consecutive latencies: {}",
            medians.len(),
            by_sample.statistic
        ),
        status: if beyond { Status::Warn } else { Status::Pass },
        detail,
    })
}

/// The medians (µs) of all types' latencies in at most `most` consecutive
/// batches of the segments, empty batches left out.
fn batch_medians(segments: &[Vec<Histogram<u64>>], most: usize) -> Vec<f64> {
    let merged: Vec<Histogram<u64>> = segments
        .iter()
        .map(|types| {
            let mut all = new_histogram();
            for t in types {
                // Same bounds: adding cannot fail.
                let _ = all.add(t);
            }
            all
        })
        .collect();
    let refs: Vec<&Histogram<u64>> = merged.iter().collect();
    batch_quantile::group(&refs, refs.len().min(most))
        .iter()
        .filter(|h| !h.is_empty())
        .map(|h| h.value_at_quantile(0.5) as f64)
        .collect()
}

/// Whether consecutive latencies (in send order) are independent, and the lag
/// at which they are.
fn sample_independence(samples: &[Sample], open_loop: bool) -> (Check, usize) {
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
        // hold, so there are none. That is a warning, not an unsound run: the
        // figures themselves stand (one stall of a busy client machine
        // correlates every lag a run of seconds can test, in 400 latencies),
        // and a system that drifts is the stationarity check's to fail.
        None => {
            let check = Check {
                name,
                statistic: format!(
                    "lag-1 Spearman rho = {r:.3}; dependent at every lag up to {}",
                    series.len() / spearman::MIN_THINNED
                ),
                status: Status::Warn,
                detail: if open_loop {
                    "latencies stay correlated at every lag this run can test: no percentile \
                     intervals (run longer)"
                        .into()
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

/// Whether the window's two halves agree: their median latencies (their
/// intervals overlap; from the window's batches when it has enough of them,
/// ten in each half, else from the latency sample), their throughput and
/// their error share ([`rate_drift`]).
pub(super) fn stationarity(rec: &Recording, lag: usize) -> Check {
    let latency = batch_stationarity(&rec.segments)
        .unwrap_or_else(|| sample_stationarity(&rec.samples, rec.measured, lag));
    match rate_drift::halves(&rec.seconds) {
        Some(rates) => with_rates(latency, rates),
        None => latency,
    }
}

/// The latency check with the halves' rates added: a rate that moved
/// materially warns, whatever the latency did.
fn with_rates(latency: Check, rates: rate_drift::RateHalves) -> Check {
    let statistic = format!("{}; {}", latency.statistic, rates.statistic);
    if rates.moved.is_empty() {
        return Check {
            statistic,
            ..latency
        };
    }
    let moved = format!(
        "the run's rate moved between the halves ({}): the figures average two different \
         states; lengthen the warm-up or the run, or look at the rate over time for what changed",
        rates.moved.join(", ")
    );
    let detail = match latency.status {
        Status::Warn => format!("{moved}; {}", latency.detail),
        _ => moved,
    };
    Check {
        name: latency.name,
        statistic,
        status: Status::Warn,
        detail,
    }
}

/// A median that moved by less than this share is the same median for any
/// comparison a user makes.
const STATIONARY_WITHIN: f64 = 0.01;

/// The halves' medians from the batches of each: the batch medians' mean, with
/// its 95% interval (at least 1% either side).
fn batch_stationarity(segments: &[Vec<Histogram<u64>>]) -> Option<Check> {
    if segments.len() < 2 * batch_quantile::MIN_BATCHES {
        return None;
    }
    let medians = batch_medians(segments, batch_quantile::MAX_BATCHES);
    let (first, second) = medians.split_at(medians.len() / 2);
    let half = |part: &[f64]| {
        let ms: Vec<f64> = part.iter().map(|us| us / 1000.0).collect();
        let mean = ms.iter().sum::<f64>() / ms.len() as f64;
        // Not widened for correlation: a drift between the halves is what
        // this check looks for.
        batch_quantile::interval_independent(&ms, mean, STATIONARY_WITHIN * mean)
    };
    let (a, b) = (half(first)?, half(second)?);
    Some(halves_agree(
        a,
        b,
        format!("{} and {} batches", first.len(), second.len()),
    ))
}

/// A drift of the median between the halves smaller than this share passes
/// even when the halves' intervals do not overlap: alternating identical runs
/// on a shared machine differ by about as much (bench/RESULTS.md), so a user
/// can act on nothing smaller, and a long run of a system that changes slowly
/// (TPC-C's tables grow) would otherwise never pass.
pub const MATERIAL_DRIFT: f64 = 0.10;

/// The stationarity check from the two halves' median intervals (ms).
fn halves_agree(a: (f64, f64), b: (f64, f64), from: String) -> Check {
    let overlap = a.0 <= b.1 && b.0 <= a.1;
    let (mid_a, mid_b) = ((a.0 + a.1) / 2.0, (b.0 + b.1) / 2.0);
    let drift = if mid_a > 0.0 {
        (mid_b - mid_a) / mid_a
    } else {
        0.0
    };
    let material = !overlap && drift.abs() >= MATERIAL_DRIFT;
    Check {
        name: "stationarity".into(),
        statistic: format!(
            "median first half [{:.3}, {:.3}] ms, second half [{:.3}, {:.3}] ms ({from}): \
             {:+.1}% (material from {:.0}%)",
            a.0,
            a.1,
            b.0,
            b.1,
            drift * 100.0,
            MATERIAL_DRIFT * 100.0
        ),
        status: if material { Status::Warn } else { Status::Pass },
        detail: if overlap && drift.abs() >= MATERIAL_DRIFT {
            // Not "agree": the medians are apart, and the run too noisy to
            // tell whether that is drift.
            format!(
                "the halves' medians differ by {:+.1}%, within their intervals: no drift \
                 shown, but the run is too noisy to rule one out (run longer)",
                drift * 100.0
            )
        } else if overlap {
            "the two halves agree".into()
        } else if material {
            "the median moved between the halves: lengthen the warm-up or the run, or look at \
             the latency over time for what changed"
                .into()
        } else {
            "the halves differ by less than a material drift; the figures average a slowly \
             changing system"
                .into()
        },
    }
}

/// Independent samples each half needs before their medians are compared:
/// with fewer, the intervals are so wide that any drift "agrees" (18 samples
/// once passed a drift of +198%).
const MIN_HALF_SAMPLES: usize = 50;

/// The halves' medians from the latency sample, by order statistics.
fn sample_stationarity(samples: &[Sample], measured: Duration, lag: usize) -> Check {
    let half = measured.as_micros() as u64 / 2;
    let (first, second): (Vec<Sample>, Vec<Sample>) =
        samples.iter().partition(|s| s.intended_us < half);
    let median_ci = |part: &[Sample]| {
        let mut v: Vec<f64> = part.iter().map(|s| s.latency_us as f64 / 1000.0).collect();
        v.sort_by(f64::total_cmp);
        quantile_ci::interval_dependent(&v, 0.5, lag)
    };
    let name = "stationarity".to_string();
    let independent = |part: &[Sample]| part.len() / lag.max(1);
    let too_few = independent(&first).min(independent(&second)) < MIN_HALF_SAMPLES;
    let (Some(a), Some(b), false) = (median_ci(&first), median_ci(&second), too_few) else {
        return Check {
            name,
            statistic: format!(
                "{} and {} samples in the halves, lag {lag} ({MIN_HALF_SAMPLES} independent \
                 ones in each at least)",
                first.len(),
                second.len()
            ),
            status: Status::Warn,
            detail: "too few samples to compare the halves: run longer".into(),
        };
    };
    halves_agree(a, b, format!("{} samples, lag {lag}", samples.len()))
}

/// Transactions of a type from which it must have intervals up to p99 (the
/// batch intervals give p99 one from 10,000 on, in a run of ten seconds or
/// more); a rarer type's percentiles are printed without the intervals its
/// count cannot give, which is no fault of the measurement.
pub const SUFFICIENT: u64 = 10_000;

/// Whether every type with [`SUFFICIENT`] transactions has intervals up to p99.
pub(super) fn sufficiency(rec: &Recording, types: &[TxnTypeInfo], lag: usize) -> Check {
    let mut missing = Vec::new();
    let mut few = Vec::new();
    for (t, stats) in rec.total.measured.iter().enumerate() {
        let n = stats.latency.len();
        if n == 0 {
            continue;
        }
        let iv = intervals(rec, t, lag);
        if let Some(p) = iv.iter().find(|i| i.low.is_none() && i.percentile <= 99.0) {
            let name = types.get(t).map_or("?", |i| i.name);
            let lacking = format!("{name} p{} ({n} transactions)", p.percentile);
            if n >= SUFFICIENT {
                missing.push(lacking);
            } else {
                few.push(lacking);
            }
        }
    }
    let statistic = format!(
        "{} segments of the window, {} latencies sampled (lag {lag}); without intervals from: {}",
        rec.segments.len(),
        rec.samples.len(),
        if missing.is_empty() && few.is_empty() {
            "none".to_string()
        } else {
            [missing.clone(), few.clone()].concat().join(", ")
        }
    );
    Check {
        name: "sample sufficiency".into(),
        statistic,
        status: if missing.is_empty() {
            Status::Pass
        } else {
            Status::Warn
        },
        detail: if !missing.is_empty() {
            format!(
                "types with {SUFFICIENT} transactions or more lack intervals up to p99: {}; run \
                 longer (ten seconds at least)",
                missing.join(", ")
            )
        } else if few.is_empty() {
            "every type has intervals up to p99".into()
        } else {
            format!(
                "every type with {SUFFICIENT} transactions or more has intervals up to p99; the \
                 rarer ones' higher percentiles are printed without (too few transactions)"
            )
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::CpuUsage;
    use crate::recorder::Recorder;
    use std::time::{Instant, SystemTime};

    /// Seconds of 1 ms latencies alternating with seconds of 10 ms: the
    /// batch interval of p50 (1 ms) is symmetric about it, ±2.2 ms, and
    /// reached 0; no latency was under 1 ms.
    #[test]
    fn percentile_intervals_stay_above_the_smallest_latency_and_lower_percentiles() {
        let seconds: Vec<Histogram<u64>> = (0..20)
            .map(|i| {
                let mut h = new_histogram();
                h.record_n(if i % 2 == 0 { 1_000 } else { 10_000 }, 1_000)
                    .unwrap();
                h
            })
            .collect();
        let mut all = new_histogram();
        for h in &seconds {
            all.add(h).unwrap();
        }
        let segments: Vec<&Histogram<u64>> = seconds.iter().collect();
        let intervals = intervals_of(&all, &segments, Vec::new, 1);
        let lows: Vec<f64> = intervals.iter().filter_map(|i| i.low).collect();
        assert!(lows.len() >= 3, "{intervals:?}");
        let smallest = ms(all.lowest_equivalent(1_000));
        assert!(lows[0] >= smallest, "{intervals:?}");
        assert!(lows.windows(2).all(|w| w[1] >= w[0]), "{intervals:?}");
    }

    #[test]
    fn stationarity_from_too_few_samples_says_so_instead_of_passing() {
        // 18 samples over 10 s, the second half three times slower (+200%):
        // their order-statistic intervals overlap, but they prove nothing.
        let sample = |i: u64| Sample {
            intended_us: i * 550_000,
            latency_us: if i < 9 { 1_000 + i } else { 3_000 + i },
            txn_type: 0,
        };
        let few: Vec<Sample> = (0..18).map(sample).collect();
        let check = sample_stationarity(&few, Duration::from_secs(10), 1);
        assert_eq!(check.status, Status::Warn, "{check:?}");
        assert!(check.detail.contains("too few samples"), "{check:?}");
        // With enough samples the same drift is material.
        let many: Vec<Sample> = (0..200)
            .map(|i| Sample {
                intended_us: i * 50_000,
                latency_us: if i < 100 { 1_000 + i } else { 3_000 + i },
                txn_type: 0,
            })
            .collect();
        let check = sample_stationarity(&many, Duration::from_secs(10), 1);
        assert_eq!(check.status, Status::Warn, "{check:?}");
        assert!(check.detail.contains("the median moved"), "{check:?}");
    }

    #[test]
    fn a_stall_in_a_short_open_loop_run_costs_the_intervals_not_the_verdict() {
        // 4 s at 100/s of 50 ms answers with 100 us of jitter, and a stall of
        // 0.6 s in the middle: 60 consecutive latencies up to 250 ms late.
        let mut rng = crate::rng::Rand::new(7);
        let stalled: Vec<Sample> = (0..400u64)
            .map(|i| {
                let stall = if (170..230).contains(&i) {
                    (230 - i) * 4_000
                } else {
                    0
                };
                Sample {
                    intended_us: i * 10_000,
                    latency_us: 50_000 + (rng.unit() * 100.0) as u64 + stall,
                    txn_type: 0,
                }
            })
            .collect();
        let (check, lag) = sample_independence(&stalled, true);
        assert_eq!(check.status, Status::Warn, "{check:?}");
        assert!(
            check.statistic.contains("dependent at every lag up to 4"),
            "{check:?}"
        );
        assert!(
            check.detail.contains("no percentile intervals"),
            "{check:?}"
        );
        // The lag is the whole sample: no latency counts as independent.
        assert_eq!(lag, stalled.len());
    }

    /// Two types, 20 s of 300 transactions each a second: type 0 takes
    /// 1.000..1.299 ms, type 1 2.000..2.299 ms.
    fn two_types() -> Recording {
        let mut total = Recorder::new(2);
        let mut segments = Vec::new();
        for _ in 0..20 {
            let mut second = vec![new_histogram(), new_histogram()];
            for (t, h) in second.iter_mut().enumerate() {
                for i in 0..300 {
                    let us = 1_000 * (t as u64 + 1) + i;
                    h.record(us).unwrap();
                    total.measured[t].latency.record(us).unwrap();
                }
            }
            segments.push(second);
        }
        Recording {
            total,
            window_start: SystemTime::now(),
            window: (Instant::now(), Instant::now()),
            measured: Duration::from_secs(20),
            interrupted: false,
            count: None,
            wall: Duration::from_secs(20),
            tail: Duration::ZERO,
            cpu: CpuUsage::default(),
            dispatch: None,
            scheduler: None,
            samples: Vec::new(),
            seconds: Vec::new(),
            segments,
            answers: Default::default(),
            window_offset: Duration::ZERO,
            phases: Vec::new(),
        }
    }

    fn at(intervals: &[PercentileInterval], p: f64) -> &PercentileInterval {
        intervals.iter().find(|i| i.percentile == p).unwrap()
    }

    #[test]
    fn all_types_together_get_the_intervals_their_number_supports() {
        let rec = two_types();
        // 6,000 of one type: no batches for p99 (and no sample to fall back on).
        let one = intervals(&rec, 0, 1);
        assert_eq!(at(&one, 99.0).low, None);
        assert_eq!(at(&one, 50.0).batches, Some(20));
        // 12,000 together: p99 from batches, around the slower type's tail.
        let all = total_intervals(&rec, 1);
        let p99 = at(&all, 99.0);
        assert_eq!(p99.batches, Some(12));
        let (low, high) = (p99.low.unwrap(), p99.high.unwrap());
        assert!(
            (2.2..=2.3).contains(&low) && (2.2..=2.31).contains(&high),
            "{p99:?}"
        );
        // The median between the types.
        let p50 = at(&all, 50.0);
        assert!(
            p50.low.unwrap() >= 1.29 && p50.high.unwrap() <= 2.01,
            "{p50:?}"
        );
    }

    #[test]
    fn halves_that_overlap_pass() {
        let c = halves_agree((1.00, 1.10), (1.05, 1.15), String::new());
        assert_eq!(c.status, Status::Pass);
        assert_eq!(c.detail, "the two halves agree");
    }

    #[test]
    fn a_small_drift_is_reported_and_passes() {
        // 5% apart, intervals disjoint: a drift no user can act on.
        let c = halves_agree((0.99, 1.01), (1.04, 1.06), String::new());
        assert_eq!(c.status, Status::Pass);
        assert!(c.statistic.contains("+5.0%"), "{}", c.statistic);
    }

    #[test]
    fn a_material_drift_warns_either_way() {
        let up = halves_agree((0.99, 1.01), (1.19, 1.21), String::new());
        assert_eq!(up.status, Status::Warn);
        assert!(up.statistic.contains("+20.0%"), "{}", up.statistic);
        let down = halves_agree((1.19, 1.21), (0.99, 1.01), String::new());
        assert_eq!(down.status, Status::Warn);
    }
}
