//! An open loop on a rate schedule offers what the schedule says, second by
//! second (holds, ramps and a pause), its sends stay Poisson once time is
//! warped through the schedule, and the achieved-rate check counts what was
//! due, not a constant rate's worth.

mod support;

use std::time::Duration;

use support::{AsyncIdle, Serve};
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{OpenLoop, RateSchedule, RunOptions, Segment};
use txbench_core::stats::anderson_darling;

static TYPES: [TxnTypeInfo; 1] = [TxnTypeInfo::back_to_back("Nothing", "nothing", 1.0, None)];

/// Up 200/s to 1,800/s over 2 s, a hold, a pause, a lower hold: 6 s.
fn schedule() -> RateSchedule {
    RateSchedule::new(vec![
        Segment {
            from: 200.0,
            to: 1800.0,
            secs: 2.0,
        },
        Segment::hold(1800.0, 1.0),
        Segment::hold(0.0, 1.0),
        Segment::hold(500.0, 2.0),
    ])
    .unwrap()
}

/// Runs at most: the counts hold in every run, but the send gaps are wall
/// clock, and a stall of the shared (virtual) machine now and then puts a
/// gap of tens of milliseconds into a run, which the 1% test rightly rejects
/// (as `arrivals.rs` does); a dispatcher that does not warp its sends fails
/// every run.
/// (Three were too few: a busy CI machine once failed three in a row.)
const ATTEMPTS: usize = 5;

#[tokio::test(flavor = "current_thread")]
async fn each_second_offers_what_the_schedule_has_due() {
    let mut failures = Vec::new();
    for _ in 0..ATTEMPTS {
        match run_and_check_counts().await {
            None => break,
            Some(why) => failures.push(why),
        }
    }
    assert!(failures.len() < ATTEMPTS, "{}", failures.join("; "));
    if !failures.is_empty() {
        eprintln!("passed after: {}", failures.join("; "));
    }
}

/// One run on the schedule: asserts the counts per second and in all, and
/// says why its send gaps are not Poisson, if they are not.
async fn run_and_check_counts() -> Option<String> {
    let rate = schedule();
    let defaults = support::options(Duration::from_secs(6), Duration::from_secs(1), Some(1.0));
    let opts = RunOptions {
        open: defaults.open.clone().map(|o| OpenLoop {
            rate: rate.clone(),
            ..o
        }),
        connections: 2,
        seed: 11,
        ..defaults
    };
    let rec = support::run(AsyncIdle, &TYPES, Serve::Nothing, &opts).await;
    let mut start = 0.0;
    for (i, second) in rec.seconds.iter().enumerate() {
        let due = rate.arrivals_between(start, second.end);
        // Poisson counts: 5 sd, and a few for the sends on a tick's edge.
        let allowed = 5.0 * due.sqrt() + 5.0;
        let done = second.completed as f64;
        assert!(
            (done - due).abs() <= allowed,
            "second {i} ({start:.2}..{:.2} s): {done} completed, {due:.0} due (+-{allowed:.0})",
            second.end
        );
        start = second.end;
    }
    assert!(rec.seconds.len() >= 6, "{:?}", rec.seconds);
    let pause = rec
        .seconds
        .iter()
        .find(|s| (s.end - 4.0).abs() < 0.1)
        .expect("the pause's second");
    assert!(pause.completed <= 2, "the pause sent {}", pause.completed);

    let d = rec.dispatch.as_ref().expect("an open loop");
    let due = rate.arrivals(6.0);
    assert!(
        (d.scheduled as f64 - due).abs() <= 5.0 * due.sqrt(),
        "{} scheduled, {due} due",
        d.scheduled
    );
    // Gaps measured in arrivals due are those of a Poisson process of the
    // peak rate (thinned to at most 1,000/s), and their mean says so.
    let ad = anderson_darling::exponential(&d.send_gaps).expect("enough gaps");
    let mean = d.send_gaps.iter().sum::<f64>() / d.send_gaps.len() as f64;
    if ad.statistic >= 1.957 {
        return Some(format!("A2* = {:.3}", ad.statistic));
    }
    ((mean * d.gap_test_rate - 1.0).abs() >= 0.15).then(|| format!("mean gap {mean}"))
}
