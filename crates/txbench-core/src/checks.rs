//! The run's checks of its own measurement, each with its statistic and a
//! PASS/WARN/FAIL, and the percentile intervals they justify (after Lancet,
//! ATC'19; see SPEC-NOTES.md "Measuring latency soundly").

use serde::{Deserialize, Serialize};

use crate::driver::{Arrival, OpenLoop, Recording};
use crate::error::ErrorKind;
use crate::recorder::TypeStats;
use crate::sample::Sample;
use crate::stats::{anderson_darling, quantile_ci, spearman};
use crate::workload::TxnTypeInfo;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// The measurement is sound in this respect.
    Pass,
    /// Usable with care.
    Warn,
    /// Do not trust the figures this check covers.
    Fail,
}

/// One check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What is checked.
    pub name: String,
    /// The statistic, as text with its value.
    pub statistic: String,
    /// The outcome.
    pub status: Status,
    /// What it means and what to do.
    pub detail: String,
}

/// A percentile's 95% confidence interval, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PercentileInterval {
    /// The percentile, 0..100.
    pub percentile: f64,
    /// Lower bound, or `None` when the samples do not suffice.
    pub low: Option<f64>,
    /// Upper bound, or `None` when the samples do not suffice.
    pub high: Option<f64>,
}

/// The percentiles that get intervals.
pub const PERCENTILES: [f64; 6] = [50.0, 90.0, 95.0, 99.0, 99.9, 99.99];
/// Dispatcher lateness (p99) above which the client is called saturated.
const LATE_WARN_US: f64 = 1_000.0;

/// The checks of a run and the lag its intervals use.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Every check, in a fixed order.
    pub checks: Vec<Check>,
    /// Intervals use every `lag`-th sample in send order (1: all).
    pub lag: usize,
}

fn latencies_ms(samples: &[Sample]) -> Vec<f64> {
    samples
        .iter()
        .map(|s| s.latency_us as f64 / 1000.0)
        .collect()
}

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

/// Check a recording; `open` is the open-loop load, if any.
pub fn analyse(rec: &Recording, open: Option<&OpenLoop>, types: &[TxnTypeInfo]) -> Analysis {
    let mut checks = vec![measured(rec), errors(rec, types)];
    checks.extend(outcomes(rec, types));
    let samples = &rec.samples;

    if let (Some(load), Some(d)) = (open, rec.dispatch.as_ref()) {
        let secs = rec.measured.as_secs_f64().max(1e-9);
        let ratio = rec.total.completed() as f64 / secs / load.rate;
        let ok = (0.9..=1.1).contains(&ratio);
        checks.push(Check {
            name: "achieved rate".into(),
            statistic: format!("achieved/offered = {ratio:.3}"),
            status: if ok { Status::Pass } else { Status::Fail },
            detail: if ok {
                "within 0.9..1.1 of the offered rate".into()
            } else {
                "outside 0.9..1.1: the system (or the client) did not take the offered load; \
                 lower the rate"
                    .into()
            },
        });
        if load.arrival == Arrival::Poisson {
            match anderson_darling::exponential(&d.send_gaps) {
                Some(ad) => checks.push(Check {
                    name: "arrival process".into(),
                    statistic: format!(
                        "Anderson-Darling A2* = {:.3} (5% critical 1.341) over {} gaps thinned to {}/s",
                        ad.statistic,
                        d.send_gaps.len(),
                        d.gap_test_rate
                    ),
                    status: if ad.rejected { Status::Warn } else { Status::Pass },
                    detail: if ad.rejected {
                        "actual send gaps are not exponential (timer granularity or a busy client); \
                         latency still counts from the scheduled times"
                            .into()
                    } else {
                        "send gaps fit the exponential".into()
                    },
                }),
                None => checks.push(Check {
                    name: "arrival process".into(),
                    statistic: format!("{} gaps", d.send_gaps.len()),
                    status: Status::Warn,
                    detail: "too few sends to test".into(),
                }),
            }
        }
        let late = rec.total.lateness.value_at_quantile(0.99) as f64;
        // Lateness alone does not falsify latency (it counts from the scheduled
        // times), but a late client may under-load the system: a warning. Shed
        // arrivals were never measured at all: a failure.
        let status = if late > LATE_WARN_US {
            Status::Warn
        } else {
            Status::Pass
        };
        checks.push(Check {
            name: "client saturation".into(),
            statistic: format!("dispatcher lateness p99 = {late:.0} us, shed = {}", d.shed),
            status: if d.shed > 0 { Status::Fail } else { status },
            detail: match (status, d.shed) {
                (Status::Pass, 0) => "the client kept its schedule".into(),
                _ => "the client fell behind its schedule: add --driver-threads or client machines"
                    .into(),
            },
        });
        checks.push(queue_growth(&rec.queue_ms));
    }

    let series = latencies_ms(samples);
    let mut lag = 1;
    match spearman::autocorrelation(&series, 1) {
        None => checks.push(Check {
            name: "independence".into(),
            statistic: format!("{} samples", series.len()),
            status: Status::Warn,
            detail: "too few samples to test".into(),
        }),
        Some(r) if !spearman::significant(r, series.len() - 1) => checks.push(Check {
            name: "independence".into(),
            statistic: format!("lag-1 Spearman rho = {r:.3}"),
            status: Status::Pass,
            detail: "consecutive latencies are independent".into(),
        }),
        Some(r) => match spearman::independence_lag(&series) {
            Some(l) => {
                lag = l;
                checks.push(Check {
                    name: "independence".into(),
                    statistic: format!("lag-1 Spearman rho = {r:.3}; independent at lag {l}"),
                    status: Status::Warn,
                    detail: format!("latencies are correlated; intervals count one sample in {l}"),
                });
            }
            None => {
                // No independent lag: the intervals would claim more than the data
                // hold, so there are none.
                lag = series.len();
                checks.push(Check {
                    name: "independence".into(),
                    statistic: format!(
                        "lag-1 Spearman rho = {r:.3}; dependent at every lag up to {}",
                        series.len() / spearman::MIN_THINNED
                    ),
                    status: if open.is_some() { Status::Fail } else { Status::Warn },
                    detail: if open.is_some() {
                        "latencies stay correlated: run longer (or the system is not stationary)".into()
                    } else {
                        "closed-loop latencies depend on each other by construction (terminals queue \
                         behind each other); no percentile intervals"
                            .into()
                    },
                });
            }
        },
    }

    let half = rec.measured.as_micros() as u64 / 2;
    let (first, second): (Vec<Sample>, Vec<Sample>) =
        samples.iter().partition(|s| s.intended_us < half);
    let median_ci = |part: &[Sample]| {
        let mut v: Vec<f64> = part.iter().map(|s| s.latency_us as f64 / 1000.0).collect();
        v.sort_by(f64::total_cmp);
        quantile_ci::interval_dependent(&v, 0.5, lag)
    };
    match (median_ci(&first), median_ci(&second)) {
        (Some(a), Some(b)) => {
            let overlap = a.0 <= b.1 && b.0 <= a.1;
            checks.push(Check {
                name: "stationarity".into(),
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
            });
        }
        _ => checks.push(Check {
            name: "stationarity".into(),
            statistic: format!("{} samples", samples.len()),
            status: Status::Warn,
            detail: "too few samples to compare the halves".into(),
        }),
    }

    if let Some(check) = mix_minimums(rec, types) {
        checks.push(check);
    }
    checks.push(unfinished(rec, types));

    let mut short = Vec::new();
    for t in 0..rec.total.measured.len() as u16 {
        if rec.total.measured[t as usize].latency.is_empty() {
            continue;
        }
        let iv = intervals(samples, t, lag);
        if let Some(p) = iv.iter().find(|i| i.low.is_none() && i.percentile <= 99.0) {
            let name = types.get(t as usize).map_or("?", |i| i.name);
            short.push(format!("{name} p{}", p.percentile));
        }
    }
    checks.push(Check {
        name: "sample sufficiency".into(),
        statistic: format!("{} samples kept, lag {lag}", samples.len()),
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
    });
    Analysis { checks, lag }
}

/// Whether anything was measured: a run with no transaction completed in its
/// window (stopped during the warm-up, or a database down throughout) has no
/// figures to trust.
fn measured(rec: &Recording) -> Check {
    let completed = rec.total.completed();
    let secs = rec.measured.as_secs_f64();
    let status = if completed == 0 {
        Status::Fail
    } else if rec.interrupted {
        Status::Warn
    } else {
        Status::Pass
    };
    Check {
        name: "measurement".into(),
        statistic: format!("{completed} transactions completed in {secs:.1} s measured"),
        status,
        detail: match status {
            Status::Fail => "nothing was measured: no transaction completed in the window".into(),
            Status::Warn => "the run was interrupted: the window is shorter than asked".into(),
            Status::Pass => "the whole window was measured".into(),
        },
    }
}

/// Share of transactions that failed above which the run is used with care,
/// and above which its figures describe failures more than the workload.
const ERRORS_WARN: f64 = 0.01;
const ERRORS_FAIL: f64 = 0.10;

/// Transactions that ended in an error (after their retries), by kind. Any
/// data error fails: the database did not hold what the specification
/// guarantees, so the workload did not run as specified.
fn errors(rec: &Recording, types: &[TxnTypeInfo]) -> Check {
    let failed: u64 = rec.total.measured.iter().map(TypeStats::failed).sum();
    let ended = failed + rec.total.completed();
    let share = failed as f64 / ended.max(1) as f64;
    let by_kind: Vec<String> = ErrorKind::ALL
        .iter()
        .enumerate()
        .filter_map(|(k, kind)| {
            let n: u64 = rec.total.measured.iter().map(|t| t.errors[k]).sum();
            (n > 0).then(|| format!("{} {n}", kind.name()))
        })
        .collect();
    let data = ErrorKind::ALL
        .iter()
        .position(|k| *k == ErrorKind::Data)
        .map_or(0, |k| {
            rec.total.measured.iter().map(|t| t.errors[k]).sum::<u64>()
        });
    let worst = rec
        .total
        .measured
        .iter()
        .zip(types)
        .filter(|(t, _)| t.failed() > 0)
        .max_by(|a, b| {
            let rate = |t: &TypeStats| t.failed() as f64 / (t.failed() + t.completed()) as f64;
            rate(a.0).total_cmp(&rate(b.0))
        })
        .map(|(t, info)| {
            format!(
                "; most in {} ({:.1}%)",
                info.name,
                100.0 * t.failed() as f64 / (t.failed() + t.completed()) as f64
            )
        })
        .unwrap_or_default();
    let status = if data > 0 || share > ERRORS_FAIL {
        Status::Fail
    } else if share > ERRORS_WARN {
        Status::Warn
    } else {
        Status::Pass
    };
    Check {
        name: "errors".into(),
        statistic: format!(
            "{failed} of {ended} transactions failed ({:.2}%; WARN above {:.0}%, FAIL above {:.0}% or any data error){}{worst}",
            100.0 * share,
            100.0 * ERRORS_WARN,
            100.0 * ERRORS_FAIL,
            if by_kind.is_empty() {
                String::new()
            } else {
                format!(": {}", by_kind.join(", "))
            }
        ),
        status,
        detail: match status {
            Status::Pass => "few or no transactions failed".into(),
            _ if data > 0 => "data errors: the database did not hold the rows the workload \
                              guarantees (a broken or changed load?); check it with `check`"
                .into(),
            Status::Fail => "so many transactions failed that the figures describe the failures; \
                             see the errors by kind (raise --max-retries for conflicts)"
                .into(),
            Status::Warn => "some transactions failed; see the errors by kind".into(),
        },
    }
}

/// Standard deviations of a binomial share beyond which an outcome share fails.
const OUTCOME_SDS: f64 = 6.0;
/// Whatever the count, a share this close (relative to the rarer outcome) to
/// the expected one passes: a loaded population realises the specification's
/// shares only approximately (TATP on 1,000 subscribers: Get-New-Destination
/// committed 15.8% where 14.8% is expected, 0.68 of a slack of 10%).
const OUTCOME_SLACK: f64 = 0.25;
/// Transactions of a type below which its outcome share is not tested.
const OUTCOME_MIN: u64 = 30;

/// Whether each type commits as often as the workload expects (the rest end in
/// rollbacks the specification requires): a server that commits what should
/// fail, or fails what should commit, is not running the workload. A binomial
/// test with a slack for the population's own deviation; `None` when the
/// workload expects every transaction to commit.
fn outcomes(rec: &Recording, types: &[TxnTypeInfo]) -> Option<Check> {
    let tested: Vec<(&TxnTypeInfo, &TypeStats, f64)> = types
        .iter()
        .zip(&rec.total.measured)
        .filter_map(|(info, t)| Some((info, t, info.expected_success?)))
        .collect();
    if tested.is_empty() {
        return None;
    }
    let mut shares = Vec::new();
    let mut off = Vec::new();
    for (info, t, p) in tested {
        let n = t.completed();
        if n < OUTCOME_MIN {
            continue;
        }
        let observed = t.committed as f64 / n as f64;
        let sd = (p * (1.0 - p) / n as f64).sqrt();
        let allowed = (OUTCOME_SDS * sd).max(OUTCOME_SLACK * p.min(1.0 - p));
        shares.push(format!(
            "{} {:.1}% (expected {:.1}%)",
            info.name,
            100.0 * observed,
            100.0 * p
        ));
        if (observed - p).abs() > allowed + 1e-12 {
            off.push(info.name);
        }
    }
    Some(Check {
        name: "outcomes".into(),
        statistic: if shares.is_empty() {
            format!("fewer than {OUTCOME_MIN} transactions of each type")
        } else {
            format!("committed {}", shares.join(", "))
        },
        status: if off.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        },
        detail: if off.is_empty() {
            "each type commits about as often as the workload expects".into()
        } else {
            format!(
                "{} committed far more or less often than the workload expects (beyond {OUTCOME_SDS} \
                 standard deviations and {:.0}% of the rarer outcome): the database did not run the \
                 transactions as specified",
                off.join(", "),
                100.0 * OUTCOME_SLACK
            )
        },
    })
}

/// Whether the transactions unfinished at the window's end (or shed) could
/// change a reported percentile up to p99: they enter at lower bounds of their
/// latencies, so a percentile at or above the least bound is itself only a
/// lower bound, and the tail the run reports may be far too low.
fn unfinished(rec: &Recording, types: &[TxnTypeInfo]) -> Check {
    let given_up: u64 = rec.total.measured.iter().map(TypeStats::given_up).sum();
    let mut bounded = Vec::new();
    for (t, info) in rec.total.measured.iter().zip(types) {
        if t.censored.is_empty() {
            continue;
        }
        let all = t.latency_with_censored();
        let least = t.censored.min();
        if let Some(p) = [50.0, 90.0, 95.0, 99.0]
            .into_iter()
            .find(|p| all.value_at_quantile(p / 100.0) >= least)
        {
            bounded.push(format!("{} p{p}", info.name));
        }
    }
    Check {
        name: "unfinished".into(),
        statistic: format!("{given_up} unfinished at the window's end or shed"),
        status: if bounded.is_empty() {
            Status::Pass
        } else {
            Status::Fail
        },
        detail: if bounded.is_empty() {
            "the unfinished transactions cannot change a reported percentile up to p99".into()
        } else {
            format!(
                "transactions given up before they completed make these only lower bounds: {} \
                 (raise --grace, or lower the load)",
                bounded.join(", ")
            )
        },
    }
}

/// Whether each type's share of the transactions completed in the window meets
/// the least share its specification allows (TPC-C clause 5.2.3); `None` when
/// the workload sets no minimum.
fn mix_minimums(rec: &Recording, types: &[TxnTypeInfo]) -> Option<Check> {
    if types.iter().all(|t| t.min_share.is_none()) {
        return None;
    }
    let total = rec.total.completed();
    let share = |t: usize| {
        rec.total
            .measured
            .get(t)
            .map_or(0.0, |s| s.completed() as f64 / total.max(1) as f64)
    };
    let shares: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{} {:.2}%", t.name, 100.0 * share(i)))
        .collect();
    let below: Vec<String> = types
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let min = t.min_share?;
            (share(i) < min).then(|| format!("{} < {:.0}%", t.name, 100.0 * min))
        })
        .collect();
    // A type completed at less than half its share of the mix: failures (or
    // a server that answers some types only) distorted what was measured.
    let distorted: Vec<String> = types
        .iter()
        .enumerate()
        .filter(|(i, t)| total >= MIX_DISTORTION_MIN && share(*i) < t.mix / 2.0)
        .map(|(i, t)| {
            format!(
                "{} {:.1}% of {:.1}%",
                t.name,
                100.0 * share(i),
                100.0 * t.mix
            )
        })
        .collect();
    Some(Check {
        name: "transaction mix".into(),
        statistic: shares.join(", "),
        status: if !distorted.is_empty() {
            Status::Fail
        } else if below.is_empty() && total > 0 {
            Status::Pass
        } else {
            Status::Warn
        },
        detail: if !distorted.is_empty() {
            format!(
                "the completed mix is distorted (less than half the share asked): {}; see the errors",
                distorted.join(", ")
            )
        } else if total == 0 {
            "no transactions completed in the window".into()
        } else if below.is_empty() {
            "every type meets its minimum share".into()
        } else {
            format!(
                "below the specification's minimum: {} (a short run deals partial decks; run longer)",
                below.join(", ")
            )
        },
    })
}

/// Completed transactions from which a distorted mix fails.
const MIX_DISTORTION_MIN: u64 = 1_000;

/// Growth of the queueing time, in seconds per second, above which the client
/// queue counts as growing: at utilisation 1 + g the queueing time grows by about
/// g seconds each second.
const QUEUE_GROWTH_SLOPE: f64 = 0.02;

/// Whether the time transactions wait in the client for a session grew through
/// the window: the sessions did not keep up with the offered rate, so latency
/// grows with the run's length and no steady state was measured. Compares the
/// mean queueing time of the window's first and last thirds (one reading a second).
fn queue_growth(queue_ms: &[(f64, f64)]) -> Check {
    let name = "client queue".to_string();
    if queue_ms.len() < 3 {
        return Check {
            name,
            statistic: format!("{} readings", queue_ms.len()),
            status: Status::Warn,
            detail: "too short to tell whether queueing grew (one reading a second)".into(),
        };
    }
    let third = queue_ms.len() / 3;
    let mean = |part: &[(f64, f64)]| {
        let n = part.len() as f64;
        (
            part.iter().map(|p| p.0).sum::<f64>() / n,
            part.iter().map(|p| p.1).sum::<f64>() / n,
        )
    };
    let (t0, first) = mean(&queue_ms[..third]);
    let (t1, last) = mean(&queue_ms[queue_ms.len() - third..]);
    // ms per s is 1/1000 of s per s.
    let slope = (last - first) / (t1 - t0).max(1e-9) / 1000.0;
    // A queue that doubles and rises faster than the slope is growing; noise on a
    // steady queue does neither for long.
    let grew = slope > QUEUE_GROWTH_SLOPE && last > 2.0 * first;
    Check {
        name,
        statistic: format!(
            "mean queueing first third {first:.3} ms, last third {last:.3} ms ({:+.1} ms/s)",
            slope * 1000.0
        ),
        status: if grew { Status::Fail } else { Status::Pass },
        detail: if grew {
            "transactions waited longer and longer for a session: the system did not keep up with \
             the offered rate, and latency grows with the run's length; lower the rate (or add \
             --connections if the database has room)"
                .into()
        } else {
            "no growth: the sessions kept up".into()
        },
    }
}

/// The worst status among the checks (PASS when there are none).
pub fn worst(checks: &[Check]) -> Status {
    checks
        .iter()
        .map(|c| c.status)
        .max()
        .unwrap_or(Status::Pass)
}

/// One line that says whether to trust the run.
pub fn verdict(checks: &[Check]) -> String {
    let worst = worst(checks);
    let named = |s: Status| -> Vec<&str> {
        checks
            .iter()
            .filter(|c| c.status == s)
            .map(|c| c.name.as_str())
            .collect()
    };
    match worst {
        Status::Pass => "SOUND: every measurement check passed".into(),
        Status::Warn => format!(
            "USABLE WITH CARE: warnings on {}",
            named(Status::Warn).join(", ")
        ),
        Status::Fail => format!(
            "NOT SOUND: {} failed; do not trust the latency figures of this run",
            named(Status::Fail).join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readings(values: &[f64]) -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(i, &q)| (i as f64 + 1.0, q))
            .collect()
    }

    #[test]
    fn growing_queueing_fails_and_steady_queueing_passes() {
        // Utilisation 1.5: a third of a second more queueing each second.
        let growing = queue_growth(&readings(&[170.0, 500.0, 830.0, 1170.0, 1500.0, 1830.0]));
        assert_eq!(growing.status, Status::Fail, "{growing:?}");
        // Long but steady queueing is queueing, not saturation.
        let steady = queue_growth(&readings(&[40.0, 38.0, 42.0, 39.0, 41.0, 40.0]));
        assert_eq!(steady.status, Status::Pass, "{steady:?}");
        // Doubling but slowly (a millisecond over the run) is noise.
        let slow = queue_growth(&readings(&[0.5, 0.6, 0.8, 1.0, 1.2, 1.5]));
        assert_eq!(slow.status, Status::Pass, "{slow:?}");
        let short = queue_growth(&readings(&[0.0, 1000.0]));
        assert_eq!(short.status, Status::Warn, "{short:?}");
    }
}
