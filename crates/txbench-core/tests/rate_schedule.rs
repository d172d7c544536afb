//! An open loop on a rate schedule (holds, a ramp and a pause) sends what the
//! schedule has due, all of it and none ahead of time.

mod support;

use std::time::Duration;

use support::AsyncIdle;
use txbench_core::TxnTypeInfo;
use txbench_core::driver::{Arrival, OpenLoop, RateSchedule, RunOptions, Segment};

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

/// Every arrival the schedule has due is sent, completes, and starts no
/// earlier than the schedule says: fixed gaps warped through the schedule
/// put the k-th arrival exactly where Λ reaches k, so the k-th start can be
/// checked against it on a machine however loaded (a late dispatcher is
/// late, never early). Per-second counts and the Poisson shape of warped
/// gaps are tested exactly on the arrival times themselves
/// (`driver/arrival_times.rs`), where no clock can disturb them.
#[tokio::test(flavor = "current_thread")]
async fn a_schedule_is_sent_in_full_and_never_ahead_of_time() {
    let rate = schedule();
    let defaults = support::options(Duration::from_secs(6), Duration::from_secs(30), Some(1.0));
    let opts = RunOptions {
        open: defaults.open.clone().map(|o| OpenLoop {
            rate: rate.clone(),
            arrival: Arrival::Fixed,
            ..o
        }),
        connections: 2,
        seed: 11,
        ..defaults
    };
    let (rec, starts) = support::run_timing_starts(AsyncIdle, &TYPES, &opts).await;
    let d = rec.dispatch.as_ref().expect("an open loop");
    let due = rate.arrivals(6.0);
    assert!(
        (d.scheduled as f64 - due).abs() <= 1.0,
        "{} scheduled, {due} due",
        d.scheduled
    );
    assert_eq!(
        support::ended(&rec),
        d.scheduled,
        "every arrival due completes"
    );
    assert_eq!(starts.len() as u64, d.scheduled);
    support::assert_never_ahead(&rate, &starts);
    // The pause offers nothing: no arrival is due in it, so none of the
    // starts in it is one due there (any are late ones from before).
    assert_eq!(rate.arrivals_between(3.0, 4.0), 0.0);
    // The achieved-rate check compares with what was due, not a constant
    // rate's worth (its verdict on a loaded machine is the machine's).
    let analysis = txbench_core::checks::analyse(&rec, opts.open.as_ref(), &TYPES);
    assert!(analysis.checks.iter().any(|c| c.name == "achieved rate"));
}
