//! Checks of the client: whether the load it offered was taken, whether its
//! sends were Poisson, whether it kept its schedule, and whether transactions
//! queued in it longer and longer.

use super::{Check, Status, median_latency_us};
use crate::driver::Second;
use crate::driver::{Arrival, DispatchStats, OpenLoop, Pacing, Recording};
use crate::stats::anderson_darling::{self, CRITICAL_1_PERCENT};

/// Poisson standard deviations beyond which the transactions that ended in the
/// window differ from the offered rate (two-sided false alarm 6e-7).
const RATE_SDS: f64 = 5.0;
/// The most of the expected count excused as in flight at the window's edges.
const RATE_EDGE_MAX: f64 = 0.01;

/// Whether the system took the load offered: the transactions that ended in
/// the window (completed or failed) against the arrivals the rate (or its
/// schedule) had due in the window, allowing
/// the Poisson variation of the arrivals and the transactions still in flight
/// at the window's end (rate times the median latency, at most 1%). Shed
/// arrivals fail it: the client queue was full.
pub(super) fn achieved_rate(rec: &Recording, load: &OpenLoop, d: &DispatchStats) -> Check {
    let secs = rec.measured.as_secs_f64().max(1e-9);
    let expected = load.rate.arrivals(secs);
    let ended = (rec.total.completed() + rec.total.failed()) as f64;
    let edge = median_latency_us(rec).map_or(0.0, |p50| load.rate.rate_at(secs) * p50 / 1e6);
    let allowed = RATE_SDS * expected.sqrt() + edge.min(RATE_EDGE_MAX * expected);
    let ratio = ended / expected;
    let problem = if d.shed > 0 {
        Some(format!(
            "{} arrivals were shed (the client queue was full): the system did not take the \
             offered load; lower the rate",
            d.shed
        ))
    } else if expected - ended > allowed {
        Some(
            "fewer transactions ended than the rate offered, beyond the arrivals' Poisson \
             variation: the system (or the client) did not take the load; lower the rate"
                .into(),
        )
    } else if ended - expected > allowed {
        Some(
            "more transactions ended than the rate offered, beyond the arrivals' Poisson \
             variation: the client sent more than asked"
                .into(),
        )
    } else {
        None
    };
    Check::fail_on(
        "achieved rate",
        format!(
            "achieved/offered = {ratio:.3} ({ended:.0} ended, {expected:.0} offered; FAIL beyond \
             +-{allowed:.0}: {RATE_SDS} Poisson sd and those in flight at the edges), shed = {}",
            d.shed
        ),
        problem,
        "the system took the offered rate",
    )
}

/// Whether the actual send gaps of a Poisson load fit the exponential
/// (Anderson-Darling, thinned at random); `None` for other arrival processes.
pub(super) fn arrival_process(load: &OpenLoop, d: &DispatchStats) -> Option<Check> {
    if load.arrival != Arrival::Poisson {
        return None;
    }
    let name = "arrival process".to_string();
    let Some(ad) = anderson_darling::exponential(&d.send_gaps) else {
        return Some(Check {
            name,
            statistic: format!("{} gaps", d.send_gaps.len()),
            status: Status::Warn,
            detail: "too few sends to test".into(),
        });
    };
    Some(Check {
        name,
        statistic: format!(
            "Anderson-Darling A2* = {:.3} (1% critical {CRITICAL_1_PERCENT}) over {} gaps thinned to {}/s",
            ad.statistic,
            d.send_gaps.len(),
            d.gap_test_rate
        ),
        status: if ad.rejected {
            Status::Warn
        } else {
            Status::Pass
        },
        detail: if ad.rejected {
            "actual send gaps are not exponential (timer granularity or a busy client); latency \
             still counts from the scheduled times"
                .into()
        } else {
            "send gaps fit the exponential".into()
        },
    })
}

/// Share of a reported latency percentile above which the client's lateness
/// at the same percentile is a material part of it.
const LATE_SHARE: f64 = 0.10;
/// Lateness that always passes: below a millisecond a late send moves no
/// figure a user compares.
const LATE_FLOOR_US: f64 = 1_000.0;

/// Whether the client sent on time. Every send's lateness (open-loop
/// dispatchers, or the closed-loop scheduler) is inside the latency measured,
/// which counts from the intended start, so where the lateness at p50 or p99 is
/// a material share of the latency at the same percentile, that figure is
/// partly the client's own delay.
pub(super) fn lateness(rec: &Recording, pacing: Option<Pacing>) -> Check {
    let late = &rec.total.lateness;
    let latency = rec.total.all_latencies();
    let mut shares = Vec::new();
    let mut material = Vec::new();
    for p in [50.0, 99.0] {
        let l = late.value_at_quantile(p / 100.0) as f64;
        let measured = latency.value_at_quantile(p / 100.0) as f64;
        let limit = (LATE_SHARE * measured).max(LATE_FLOOR_US);
        shares.push(format!(
            "p{p}: late {l:.0} us of {measured:.0} us measured (limit {limit:.0} us)"
        ));
        if !latency.is_empty() && l > limit {
            material.push(format!("p{p}"));
        }
    }
    let statistic = format!(
        "{} over {} sends, max {} us; FAIL above {:.0}% of the latency, at least {LATE_FLOOR_US:.0} us",
        shares.join(", "),
        late.len(),
        late.max(),
        100.0 * LATE_SHARE
    );
    let problem = (!material.is_empty()).then(|| {
        let remedy = match pacing {
            Some(Pacing::Sleep) | Some(Pacing::Auto) => {
                "quiet the client machine, add --driver-threads or client machines, or try \
                 --pacing spin (a sleeping dispatcher wakes as late as the machine's timer lets it)"
            }
            _ => "quiet the client machine, or add --driver-threads or client machines",
        };
        format!(
            "the client sent late by a material share of the latency it measured at {}, so \
             those figures are partly the client's own delay: {remedy}",
            material.join(" and ")
        )
    });
    Check::fail_on(
        "client lateness",
        statistic,
        problem,
        "the client kept its schedule",
    )
}

/// Growth of the queueing time, in seconds per second, above which the client
/// queue counts as growing: at utilisation 1 + g the queueing time grows by about
/// g seconds each second.
const QUEUE_GROWTH_SLOPE: f64 = 0.02;

/// Whether the time transactions wait in the client for a session grew through
/// the window: the sessions did not keep up with the offered rate, so latency
/// grows with the run's length and no steady state was measured. Compares the
/// mean queueing time of the window's first and last thirds (one reading a second).
pub(super) fn queue_growth(seconds: &[Second]) -> Check {
    let queue_ms: Vec<(f64, f64)> = seconds
        .iter()
        .filter_map(|s| Some((s.end, s.queue_ms?)))
        .collect();
    queue_growth_of(&queue_ms)
}

fn queue_growth_of(queue_ms: &[(f64, f64)]) -> Check {
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
    // Noise on a steady queue moves the thirds' means by far less than the
    // slope over the seconds between them; a queue already long when the
    // window opened still grows (it need not double).
    let grew = slope > QUEUE_GROWTH_SLOPE;
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant, SystemTime};

    use super::*;
    use crate::driver::CpuUsage;
    use crate::recorder::Recorder;

    /// A one-type recording of `secs` seconds: `completed` transactions each
    /// `latency_us` long, sent late by `late_us` each.
    fn recording(secs: u64, completed: u64, latency_us: u64, late: &[(u64, u64)]) -> Recording {
        let mut total = Recorder::new(1);
        let t = &mut total.measured[0];
        t.committed = completed;
        t.latency.record_n(latency_us, completed).unwrap();
        for &(us, n) in late {
            total.lateness.record_n(us, n).unwrap();
        }
        Recording {
            total,
            window_start: SystemTime::now(),
            window: (Instant::now(), Instant::now()),
            measured: Duration::from_secs(secs),
            interrupted: false,
            count: None,
            wall: Duration::from_secs(secs),
            tail: Duration::ZERO,
            cpu: CpuUsage::default(),
            dispatch: None,
            scheduler: None,
            samples: Vec::new(),
            seconds: Vec::new(),
            segments: Vec::new(),
            answers: Default::default(),
            window_offset: Duration::ZERO,
            phases: Vec::new(),
        }
    }

    fn poisson(rate: f64) -> OpenLoop {
        OpenLoop {
            rate: crate::driver::RateSchedule::constant(rate),
            arrival: Arrival::Poisson,
            queue_limit: None,
            dispatchers: 1,
            pacing: Pacing::Auto,
        }
    }

    #[test]
    fn lateness_fails_when_it_is_a_material_share_of_the_latency() {
        // The case: 4 ms of service, sends late by p99 35 ms.
        let late = recording(60, 60_000, 4_000, &[(100, 59_000), (35_000, 1_000)]);
        assert_eq!(lateness(&late, Some(Pacing::Sleep)).status, Status::Fail);
        // Late by 1.5 ms at p99 against a 20 ms p99: under a tenth.
        let slow_db = recording(60, 60_000, 20_000, &[(100, 59_000), (1_500, 1_000)]);
        assert_eq!(lateness(&slow_db, None).status, Status::Pass);
        // Under the floor, whatever the median.
        let fast_db = recording(60, 60_000, 50, &[(10, 59_000), (900, 1_000)]);
        assert_eq!(lateness(&fast_db, None).status, Status::Pass);
    }

    #[test]
    fn achieved_rate_fails_beyond_the_poisson_variation() {
        let load = poisson(1_000.0);
        let stats = DispatchStats::default();
        // The case: 92.1% of the offered rate over a minute.
        let behind = recording(60, 55_260, 2_000, &[]);
        assert_eq!(achieved_rate(&behind, &load, &stats).status, Status::Fail);
        // 1.6 standard deviations short: the arrivals' own variation.
        let fine = recording(60, 59_600, 2_000, &[]);
        assert_eq!(achieved_rate(&fine, &load, &stats).status, Status::Pass);
        // Any arrival shed fails.
        let shed = DispatchStats {
            shed: 1,
            ..DispatchStats::default()
        };
        assert_eq!(achieved_rate(&fine, &load, &shed).status, Status::Fail);
    }

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
        let growing = queue_growth_of(&readings(&[170.0, 500.0, 830.0, 1170.0, 1500.0, 1830.0]));
        assert_eq!(growing.status, Status::Fail, "{growing:?}");
        // Long but steady queueing is queueing, not saturation.
        let steady = queue_growth_of(&readings(&[40.0, 38.0, 42.0, 39.0, 41.0, 40.0]));
        assert_eq!(steady.status, Status::Pass, "{steady:?}");
        // Doubling but slowly (a millisecond over the run) is noise.
        let slow = queue_growth_of(&readings(&[0.5, 0.6, 0.8, 1.0, 1.2, 1.5]));
        assert_eq!(slow.status, Status::Pass, "{slow:?}");
        // Already long, and 32 ms longer each second: still growing.
        let long = queue_growth_of(&readings(&[1500.0, 1532.0, 1564.0, 1596.0, 1628.0, 1660.0]));
        assert_eq!(long.status, Status::Fail, "{long:?}");
        let short = queue_growth_of(&readings(&[0.0, 1000.0]));
        assert_eq!(short.status, Status::Warn, "{short:?}");
    }
}
