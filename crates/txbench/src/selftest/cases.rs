//! The calibration set: simulated servers whose truth is known, each with the
//! latency theory gives (where it does) and the verdict a sound measurement
//! must reach.

use txbench_core::checks::{self, Check, PercentileInterval, Status};
use txbench_core::result::Percentiles;
use txbench_core::stats::queueing::Queue;

/// What the checks must say about a case.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// A healthy server, measured soundly: no check fails.
    Sound,
    /// A fault: at least one of these checks fails.
    Fails(&'static [&'static str]),
}

/// One calibration case: TATP on a simulated server.
#[derive(Debug, Clone)]
pub struct Case {
    /// Its name in the tables.
    pub name: &'static str,
    /// The simulated server.
    pub db: &'static str,
    /// Open loop at this rate (per second); closed loop without.
    pub rate: Option<f64>,
    /// Closed-loop terminals (open loop: the default connections).
    pub terminals: Option<u32>,
    /// The latency theory gives, where it does.
    pub theory: Option<Queue>,
    /// The verdict a sound measurement reaches.
    pub expect: Expect,
}

/// The cases, healthy ones first.
pub fn all() -> Vec<Case> {
    // Service times well under a millisecond: a 10 s run then holds enough
    // busy periods for a stable tail (at 4 ms, p99 at utilisation 0.8 fell
    // short of theory by up to 27%) and enough transactions (12,500 and
    // 20,000) for every percentile's interval up to p99.
    let md1 = |rate: f64| Queue::Md1 {
        rate_per_s: rate,
        service_ms: 0.4,
    };
    let mm1 = |rate: f64| Queue::Mm1 {
        rate_per_s: rate,
        service_ms: 0.4,
    };
    let open = |name, db, rate: f64, theory, expect| Case {
        name,
        db,
        rate: Some(rate),
        terminals: None,
        theory,
        expect,
    };
    vec![
        open(
            "M/D/1 rho 0.5",
            "sim:?service=fixed:400us&workers=1",
            1_250.0,
            Some(md1(1_250.0)),
            Expect::Sound,
        ),
        open(
            "M/D/1 rho 0.8",
            "sim:?service=fixed:400us&workers=1",
            2_000.0,
            Some(md1(2_000.0)),
            Expect::Sound,
        ),
        open(
            "M/M/1 rho 0.5",
            "sim:?service=exp:400us&workers=1",
            1_250.0,
            Some(mm1(1_250.0)),
            Expect::Sound,
        ),
        open(
            "M/M/1 rho 0.8",
            "sim:?service=exp:400us&workers=1",
            2_000.0,
            Some(mm1(2_000.0)),
            Expect::Sound,
        ),
        Case {
            name: "closed loop, no queue",
            db: "sim:?service=exp:2ms&workers=4",
            rate: None,
            terminals: Some(4),
            theory: Some(Queue::Exponential { service_ms: 2.0 }),
            expect: Expect::Sound,
        },
        open(
            "stall 2 s every 5 s",
            "sim:?service=fixed:2ms&workers=4&stall=2s/5s",
            500.0,
            None,
            Expect::Fails(&["outages"]),
        ),
        open(
            "outage 3 s",
            "sim:?service=fixed:2ms&workers=4&outage=4s+3s",
            500.0,
            None,
            Expect::Fails(&["outages"]),
        ),
        open(
            "overload rho 1.5",
            "sim:?service=fixed:4ms&workers=1",
            375.0,
            None,
            Expect::Fails(&["achieved rate", "client queue", "unfinished"]),
        ),
        open(
            "errors 20%",
            "sim:?service=fixed:2ms&workers=4&errors=0.2:other",
            500.0,
            None,
            Expect::Fails(&["errors"]),
        ),
        open(
            "outcomes off",
            "sim:?service=fixed:2ms&workers=4&success=get_new_destination:1.0",
            500.0,
            None,
            Expect::Fails(&["outcomes"]),
        ),
        open(
            "client saturated",
            "sim:?service=fixed:0ms&workers=4",
            1_000_000.0,
            None,
            Expect::Fails(&["client lateness", "achieved rate", "client queue"]),
        ),
    ]
}

/// Whether the checks reached the verdict the case expects.
pub fn verdict_right(expect: Expect, checks: &[Check]) -> bool {
    let failed = checks::named(checks, Status::Fail);
    match expect {
        Expect::Sound => failed.is_empty(),
        Expect::Fails(any) => failed.iter().any(|f| any.contains(f)),
    }
}

/// What the client's own timing may add to a latency (ms): its noise floor's
/// p99 on a quiet machine.
pub const CLIENT_MS: f64 = 0.3;

/// How far the mean may be from theory, as a share of it: the run gives the
/// mean no interval, so this is a coarse bound.
pub const MEAN_SHARE: f64 = 0.20;

/// How far a percentile without an interval may be from theory.
pub const PERCENTILE_SHARE: f64 = 0.20;

/// One figure against theory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// What the run measured (all types together).
    pub measured: f64,
    /// What theory says.
    pub theory: f64,
    /// Whether theory held: within twice the interval's half-width either
    /// side of it (an honest interval misses that about once in 10,000
    /// runs), or for the mean and percentiles without an interval, within
    /// their share of theory.
    pub held: bool,
}

/// The percentiles whose intervals' coverage the calibration reports.
pub const COVERED: [f64; 4] = [50.0, 90.0, 95.0, 99.0];

/// Whether theory's value of each of [`COVERED`] lies inside the run's 95%
/// interval of it, widened by `client_ms` either side (the client's own
/// time, which the measured latency holds and theory does not); `None`
/// where the run gave none. Over many runs this should hold about 95% of
/// the time: the intervals' coverage.
pub fn coverage(
    theory: &Queue,
    intervals: &[PercentileInterval],
    client_ms: f64,
) -> [Option<bool>; 4] {
    COVERED.map(|at| {
        let t = theory.quantile(at / 100.0)?;
        let i = intervals.iter().find(|i| i.percentile == at)?;
        let (low, high) = (i.low?, i.high?);
        Some(low - client_ms <= t && t <= high + client_ms)
    })
}

/// Measured mean, p50 and p99 against theory's; `intervals` are those of all
/// types together, as `measured` is.
pub fn against_theory(
    theory: &Queue,
    measured: &Percentiles,
    intervals: &[PercentileInterval],
) -> Option<[Figure; 3]> {
    let within = |m: f64, t: f64, share: f64| (m - t).abs() <= share * t + CLIENT_MS;
    let percentile = |at: f64, m: f64, t: f64| {
        let inside = |low: f64, high: f64| low - CLIENT_MS <= t && t <= high + CLIENT_MS;
        match intervals.iter().find(|i| i.percentile == at) {
            Some(PercentileInterval {
                low: Some(low),
                high: Some(high),
                ..
            }) => Figure {
                measured: m,
                theory: t,
                held: inside(2.0 * low - high, 2.0 * high - low),
            },
            _ => Figure {
                measured: m,
                theory: t,
                held: within(m, t, PERCENTILE_SHARE),
            },
        }
    };
    let mean = theory.mean()?;
    Some([
        Figure {
            measured: measured.mean,
            theory: mean,
            held: within(measured.mean, mean, MEAN_SHARE),
        },
        percentile(50.0, measured.p50, theory.quantile(0.5)?),
        percentile(99.0, measured.p99, theory.quantile(0.99)?),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, status: Status) -> Check {
        Check {
            name: name.into(),
            statistic: String::new(),
            status,
            detail: String::new(),
        }
    }

    #[test]
    fn a_fault_is_caught_only_by_a_check_that_names_it() {
        let expect = Expect::Fails(&["outages"]);
        assert!(verdict_right(expect, &[check("outages", Status::Fail)]));
        assert!(!verdict_right(expect, &[check("errors", Status::Fail)]));
        assert!(!verdict_right(expect, &[check("outages", Status::Warn)]));
    }

    #[test]
    fn a_healthy_case_is_right_unless_a_check_fails() {
        assert!(verdict_right(
            Expect::Sound,
            &[check("stationarity", Status::Warn)]
        ));
        assert!(!verdict_right(
            Expect::Sound,
            &[check("client lateness", Status::Fail)]
        ));
    }

    #[test]
    fn theory_holds_inside_the_runs_interval() {
        let q = Queue::Mm1 {
            rate_per_s: 250.0,
            service_ms: 2.0,
        };
        let measured = Percentiles {
            samples: 1,
            mean: 4.2,
            p50: 2.9,
            p99: 21.0,
            ..Default::default()
        };
        let interval = |percentile, low, high| PercentileInterval {
            percentile,
            low: Some(low),
            high: Some(high),
            batches: Some(10),
        };
        // Theory: mean 4, p50 2.77, p99 18.42.
        let covering = [interval(50.0, 2.6, 3.1), interval(99.0, 18.0, 24.0)];
        let [mean, p50, p99] = against_theory(&q, &measured, &covering).unwrap();
        assert!(mean.held && p50.held && p99.held);
        // Beyond the client's 0.3 ms either side.
        let [p50_covered, .., p99_covered] = coverage(&q, &covering, CLIENT_MS);
        assert_eq!((p50_covered, p99_covered), (Some(true), Some(true)));
        let narrow = [interval(50.0, 3.2, 3.3), interval(99.0, 20.0, 22.0)];
        let [_, p50, p99] = against_theory(&q, &measured, &narrow).unwrap();
        let [p50_covered, .., p99_covered] = coverage(&q, &narrow, CLIENT_MS);
        assert_eq!((p50_covered, p99_covered), (Some(false), Some(false)));
        // Twice the half-width: p50 [3.1, 3.4], p99 [18, 24] less 0.3 ms.
        assert!(!p50.held && p99.held);
        // Without intervals, a share of theory.
        let [_, _, p99] = against_theory(&q, &measured, &[]).unwrap();
        assert!(p99.held);
        let off = Percentiles {
            mean: 6.0,
            ..measured
        };
        assert!(!against_theory(&q, &off, &[]).unwrap()[0].held);
    }
}
